// Longhaul's network proxy with real sockets: it listens on a Unix socket, tunnels CONNECT and
// passes plain http:// requests to allowed hosts, and answers 403 with the setting's name for the
// rest. The allowed host is `localhost`, a name the proxy resolves itself; the listener is local.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { connectTarget, type DomainProxy, startDomainProxy } from '../../../../src/common/sandbox/domainProxy';

/** Sends `request` over the proxy's socket and answers everything read until the proxy or the target closes. */
function exchange(socketPath: string, request: string, then?: string): Promise<string> {
	return new Promise((resolve, reject) => {
		const socket = net.connect(socketPath);
		let text = '';
		socket.on('data', d => {
			text += d.toString();
			if (then && text.includes('200 Connection Established') && !text.includes('hello')) {
				socket.write(then);
			}
		});
		socket.on('error', reject);
		socket.on('close', () => resolve(text));
		socket.write(request);
	});
}

describe('domainProxy: the network proxy of a sandboxed command', function () {
	let folder = '';
	let proxy: DomainProxy;
	let target: http.Server;
	let port = 0;
	const seen: string[] = [];

	beforeEach(async () => {
		folder = fs.mkdtempSync(path.join(os.tmpdir(), 'longhaul-proxy-test-'));
		seen.length = 0;
		// An HTTP server that also speaks after CONNECT: the tunnel carries any bytes.
		target = http.createServer((req, res) => {
			seen.push(`${req.method} ${req.url} host=${req.headers.host}`);
			res.end('hello from target\n');
		});
		await new Promise<void>(resolve => target.listen(0, '127.0.0.1', resolve));
		port = (target.address() as net.AddressInfo).port;
		proxy = await startDomainProxy({ socketPath: path.join(folder, 'proxy.sock'), domains: ['localhost', '*.example.test'] });
	});

	afterEach(async () => {
		await proxy.close();
		target.close();
		fs.rmSync(folder, { recursive: true, force: true });
	});

	it('CONNECT to an allowed host opens a tunnel to it', async () => {
		const text = await exchange(
			proxy.socketPath!,
			`CONNECT localhost:${port} HTTP/1.1\r\nHost: localhost:${port}\r\n\r\n`,
			'GET /through HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
		);
		assert.match(text, /^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/);
		assert.match(text, /hello from target/);
		assert.deepEqual(seen, ['GET /through host=x']);
		assert.deepEqual(proxy.refused(), []);
	});

	it('CONNECT to a host not listed gets a 403 that names the setting, and nothing is reached', async () => {
		const text = await exchange(proxy.socketPath!, 'CONNECT evil.net:443 HTTP/1.1\r\nHost: evil.net:443\r\n\r\n');
		assert.match(text, /^HTTP\/1\.1 403 Forbidden/);
		assert.match(text, /refused the connection to evil\.net: it is not in longhaul\.commandNetworkDomains \(allowed: localhost, \*\.example\.test\)/);
		const literal = await exchange(proxy.socketPath!, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`);
		assert.match(literal, /^HTTP\/1\.1 403/);
		assert.deepEqual(proxy.refused(), ['evil.net', '127.0.0.1']);
		assert.deepEqual(seen, []);
	});

	it('a plain http:// request to an allowed host is passed on with its own Host; to another host, 403', async () => {
		const ok = await exchange(
			proxy.socketPath!,
			`GET http://localhost:${port}/page?q=1 HTTP/1.1\r\nHost: spoofed\r\nProxy-Connection: keep-alive\r\nConnection: close\r\n\r\n`,
		);
		assert.match(ok, /^HTTP\/1\.1 200 OK/);
		assert.match(ok, /hello from target/);
		assert.deepEqual(seen, [`GET /page?q=1 host=localhost:${port}`]);
		const refused = await exchange(proxy.socketPath!, 'GET http://evil.net/ HTTP/1.1\r\nHost: evil.net\r\nConnection: close\r\n\r\n');
		assert.match(refused, /^HTTP\/1\.1 403 Forbidden/);
		assert.match(refused, /evil\.net: it is not in longhaul\.commandNetworkDomains/);
		const notAbsolute = await exchange(proxy.socketPath!, 'GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
		assert.match(notAbsolute, /^HTTP\/1\.1 400/);
	});

	it('an allowed name is reached through the connector it is given; one that cannot be reached gets a 502', async () => {
		await proxy.close();
		const asked: string[] = [];
		proxy = await startDomainProxy({
			socketPath: path.join(folder, 'proxy2.sock'),
			domains: ['*.example.test'],
			connect: (p, host) => {
				asked.push(`${host}:${p}`);
				return net.connect(host === 'api.example.test' ? port : 1, '127.0.0.1');
			},
		});
		const ok = await exchange(proxy.socketPath!, `GET http://api.example.test:8080/x HTTP/1.1\r\nHost: api.example.test:8080\r\nConnection: close\r\n\r\n`);
		assert.match(ok, /hello from target/);
		const down = await exchange(proxy.socketPath!, 'CONNECT down.example.test:443 HTTP/1.1\r\n\r\n');
		assert.match(down, /^HTTP\/1\.1 502 Bad Gateway/);
		assert.deepEqual(asked, ['api.example.test:8080', 'down.example.test:443']);
	});

	it('closing ends the open tunnels and removes nothing it does not own', async () => {
		const socket = net.connect(proxy.socketPath!);
		await new Promise<void>(resolve => socket.once('connect', () => resolve()));
		socket.write(`CONNECT localhost:${port} HTTP/1.1\r\n\r\n`);
		await new Promise<void>(resolve => socket.once('data', () => resolve()));
		const closed = new Promise<void>(resolve => socket.once('close', () => resolve()));
		await proxy.close();
		await closed;
		assert.ok(fs.existsSync(folder));
	});

	it('without a socket it listens on a free port of 127.0.0.1 (Seatbelt shares the host loopback)', async () => {
		const tcp = await startDomainProxy({ domains: ['localhost'] });
		try {
			assert.equal(tcp.socketPath, undefined);
			const text = await new Promise<string>((resolve, reject) => {
				const socket = net.connect(tcp.port!, '127.0.0.1');
				let got = '';
				socket.on('data', d => (got += d.toString()));
				socket.on('error', reject);
				socket.on('close', () => resolve(got));
				socket.write(`GET http://localhost:${port}/tcp HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`);
			});
			assert.match(text, /hello from target/);
		} finally {
			await tcp.close();
		}
	});

	it('reads CONNECT targets: host:port and [v6]:port, nothing else', () => {
		assert.deepEqual(connectTarget('Example.com:443'), { host: 'example.com', port: 443 });
		assert.deepEqual(connectTarget('[::1]:8443'), { host: '::1', port: 8443 });
		for (const bad of ['example.com', 'example.com:0', 'example.com:70000', 'a:b:1', '/path:1', '']) assert.equal(connectTarget(bad), undefined, bad);
	});
});
