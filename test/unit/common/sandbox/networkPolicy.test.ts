// The network of a sandboxed command with a list of domains: which hosts pass, what the setting's
// entries become, what the confirmation and the result say, and how bwrap starts the command
// behind the forwarder. Plain data; domainProxy.test.ts runs the proxy itself.
import * as assert from 'node:assert/strict';
import { hostAllowed, networkSummary, parseDomainList, proxyEnv, refusedNote, SANDBOX_PROXY_PORT } from '../../../../src/common/sandbox/networkPolicy';
import { SANDBOX_PROXY_SOCKET } from '../../../../src/common/sandbox/proxyForwarder';
import { bwrapArgs, probeArgs, sandboxSummary, type SandboxPlan, wallNote } from '../../../../src/common/sandbox/sandboxPolicy';

describe('networkPolicy: domains a sandboxed command may reach', () => {
	const domains = parseDomainList(['Example.com', '*.npmjs.org', '10.0.0.7', '[::1]', 'example.com.']).domains;

	it('reads the setting: lower case, no final dot, no duplicates; what is no domain is ignored and named', () => {
		assert.deepEqual(domains, ['example.com', '*.npmjs.org', '10.0.0.7', '::1']);
		const parsed = parseDomainList(['https://a.com/', 'a.com:443', '*', '*.0.0.1', 'bad domain', 42, 'ok.dev']);
		assert.deepEqual(parsed.domains, ['ok.dev']);
		assert.deepEqual(parsed.ignored, ['https://a.com/', 'a.com:443', '*', '*.0.0.1', 'bad domain', '42']);
		assert.deepEqual(parseDomainList('example.com'), { domains: [], ignored: [] });
	});

	it('an exact domain passes, in any case and with a final dot; its subdomains and look-alikes do not', () => {
		assert.equal(hostAllowed('example.com', domains), true);
		assert.equal(hostAllowed('EXAMPLE.COM.', domains), true);
		assert.equal(hostAllowed('www.example.com', domains), false);
		assert.equal(hostAllowed('example.com.evil.net', domains), false);
		assert.equal(hostAllowed('evilexample.com', domains), false);
	});

	it('*.domain passes every name below it, not the domain itself nor a name that only ends alike', () => {
		assert.equal(hostAllowed('registry.npmjs.org', domains), true);
		assert.equal(hostAllowed('a.b.npmjs.org', domains), true);
		assert.equal(hostAllowed('npmjs.org', domains), false);
		assert.equal(hostAllowed('evilnpmjs.org', domains), false);
	});

	it('an address passes only as listed: never through a wildcard, nor written another way', () => {
		assert.equal(hostAllowed('10.0.0.7', domains), true);
		assert.equal(hostAllowed('[::1]', domains), true);
		assert.equal(hostAllowed('127.0.0.1', domains), false);
		assert.equal(hostAllowed('2130706433', parseDomainList(['*.1']).domains), false);
		assert.equal(hostAllowed('1.2.3.4', parseDomainList(['*.3.4']).domains), false);
		assert.equal(hostAllowed('', domains), false);
	});

	it('the confirmation names the domains; the result note names the refused host and the setting', () => {
		const network = parseDomainList(['example.com', 'registry.npmjs.org', 'http://x']);
		assert.match(sandboxSummary(network), /network: only example\.com, registry\.npmjs\.org, through Longhaul's proxy.*ignored, not domains: "http:\/\/x"/);
		assert.match(networkSummary({ domains: [], ignored: [] }), /only none \(longhaul\.commandNetworkDomains is empty\)/);
		assert.match(sandboxSummary('off'), /no network/);
		// Issue 38: what the sandbox now hides, in the words the user reads.
		assert.match(sandboxSummary('off'), /the whole \.git: no commits\), your home folder \(but toolchains, read-only\), your tokens/);
		const note = refusedNote(['evil.net'], network.domains)!;
		assert.match(note, /refused evil\.net: not in the setting longhaul\.commandNetworkDomains \(allowed: example\.com, registry\.npmjs\.org\)/);
		assert.match(note, /Retrying fails the same way/);
		assert.equal(refusedNote([], network.domains), undefined);
	});

	it('a name that does not resolve is a wall with a list too: only the proxy reaches out', () => {
		const note = wallNote('curl: (6) Could not resolve host: example.com', true, { domains: ['example.com'], ignored: [] })!;
		assert.match(note, /no direct network: only the listed domains, through the proxy/);
	});
});

describe('sandboxPolicy with a list of domains: bwrap arguments', () => {
	const plan: SandboxPlan = {
		writable: ['/w'],
		readOnly: [],
		hiddenFolders: ['/home/u/.ssh'],
		hiddenFiles: [],
		network: { domains: ['example.com'], ignored: [] },
		proxy: { socket: '/tmp/longhaul-proxy-x/proxy.sock', forwarder: { kind: 'node', program: '/usr/bin/node', env: { ELECTRON_RUN_AS_NODE: '1' } } },
		cwd: '/w',
	};

	it('its own network namespace, the socket bound read-only last, proxy variables set, the forwarder runs the command', () => {
		const args = bwrapArgs(plan, '--x "a b"');
		assert.ok(args.includes('--unshare-net'));
		const bind = args.findIndex((a, i) => a === '--ro-bind' && args[i + 1] === plan.proxy!.socket && args[i + 2] === SANDBOX_PROXY_SOCKET);
		assert.ok(bind > args.lastIndexOf('/home/u/.ssh'), String(bind));
		for (const [name, value] of Object.entries({ ...proxyEnv(), ELECTRON_RUN_AS_NODE: '1' })) {
			assert.ok(
				args.some((a, i) => a === '--setenv' && args[i + 1] === name && args[i + 2] === value),
				name,
			);
		}
		assert.equal(proxyEnv().HTTPS_PROXY, `http://127.0.0.1:${SANDBOX_PROXY_PORT}`);
		const program = args.slice(args.indexOf('--') + 1);
		assert.deepEqual([program[0], program[1]], ['/usr/bin/node', '-e']);
		assert.deepEqual(program.slice(3), ['--', String(SANDBOX_PROXY_PORT), SANDBOX_PROXY_SOCKET, '/bin/sh', '--x "a b"']);
	});

	it('the check that bwrap starts asks for a network namespace with a list too, and starts the forwarder', () => {
		const args = probeArgs(plan.network, plan.proxy!.forwarder);
		assert.ok(args.includes('--unshare-net'));
		const program = args.slice(args.indexOf('--') + 1);
		assert.deepEqual([program[0], program[1]], ['/usr/bin/node', '-e']);
		assert.deepEqual(program.slice(-2), ['/bin/sh', 'true']);
		assert.ok(args.some((a, i) => a === '--setenv' && args[i + 1] === 'ELECTRON_RUN_AS_NODE'));
		assert.equal(probeArgs('all').includes('--unshare-net'), false);
		assert.deepEqual(probeArgs('off', plan.proxy!.forwarder).slice(-2), ['--', 'true']);
	});

	it('with Perl as the forwarder, Perl runs the command and no node variable is set', () => {
		const perl: SandboxPlan = { ...plan, proxy: { socket: plan.proxy!.socket, forwarder: { kind: 'perl', program: '/usr/bin/perl', env: {} } } };
		const args = bwrapArgs(perl, 'make');
		const program = args.slice(args.indexOf('--') + 1);
		assert.deepEqual([program[0], program[1]], ['/usr/bin/perl', '-e']);
		assert.deepEqual(program.slice(3), ['--', String(SANDBOX_PROXY_PORT), SANDBOX_PROXY_SOCKET, '/bin/sh', 'make']);
		assert.equal(args.includes('ELECTRON_RUN_AS_NODE'), false);
		assert.notEqual(program[2], bwrapArgs(plan, 'make').at(-6), 'each binary gets its own script');
	});

	it('under Seatbelt a refused write reads "Operation not permitted": the wall note says so there only', () => {
		const output = 'touch: /etc/x: Operation not permitted';
		assert.match(wallNote(output, true, 'off', 'seatbelt')!, /read-only/);
		assert.equal(wallNote(output, true, 'off', 'bwrap'), undefined);
	});
});
