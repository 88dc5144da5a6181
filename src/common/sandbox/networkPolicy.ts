// Which network a sandboxed command gets, and, with a list of domains, which hosts Longhaul's proxy
// lets it reach (docs/decisions.md §37, "Network by domain"). Pure: no vscode import, no sockets; the
// proxy (domainProxy.ts) asks `hostAllowed` and the sandbox (sandboxPolicy.ts) takes `proxyEnv`.

/** Only the listed domains, through the proxy; `ignored` are entries of the setting that are no domain. */
export interface DomainNetwork {
	readonly domains: readonly string[];
	readonly ignored: readonly string[];
}

/** How much network a sandboxed command gets: none, the listed domains through the proxy, or the host's. */
export type CommandNetwork = 'off' | 'all' | DomainNetwork;

/** 'domains' for a list; otherwise the setting's own word. */
export function networkKind(network: CommandNetwork): 'off' | 'all' | 'domains' {
	return typeof network === 'string' ? network : 'domains';
}

/** The setting that holds the list, named in every message that tells the user how to allow a domain. */
export const DOMAINS_SETTING = 'longhaul.commandNetworkDomains';

/** Where, inside the sandbox, the proxy listens (the sandbox has its own loopback: any port is free). */
export const SANDBOX_PROXY_PORT = 31280;

const LABEL = '[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?';
const DOMAIN = new RegExp(`^(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*$`);
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const IPV6 = /^[0-9a-f:.]+$/;

/** Lower case, no brackets around an IPv6 address, no final dot. */
export function normalHost(host: string): string {
	return host
		.trim()
		.toLowerCase()
		.replace(/^\[(.*)\]$/, '$1')
		.replace(/\.$/, '');
}

/**
 * Whether a host is an address, not a name: IPv4 and IPv6 literals, and names made only of numbers
 * (`2130706433`, `127.1`), which the resolver reads as addresses too. A wildcard never matches one.
 */
export function isAddressLike(host: string): boolean {
	return host.includes(':') || /^(?:0x[0-9a-f]+|\d+)(?:\.(?:0x[0-9a-f]+|\d+))*$/.test(host);
}

/** The setting's entries as domains to match; what is not a domain, an address or `*.domain` is ignored and named. */
export function parseDomainList(entries: unknown): DomainNetwork {
	const domains: string[] = [];
	const ignored: string[] = [];
	for (const entry of Array.isArray(entries) ? entries : []) {
		const host = typeof entry === 'string' ? normalHost(entry) : '';
		const ok = DOMAIN.test(host) ? !(host.startsWith('*.') && isAddressLike(host.slice(2))) : IPV4.test(host) || (host.includes(':') && IPV6.test(host));
		if (ok && !domains.includes(host)) domains.push(host);
		else if (!ok) ignored.push(String(entry));
	}
	return { domains, ignored };
}

/**
 * Whether the proxy lets a command reach `host`: an exact entry, or `*.domain` for any name below
 * `domain` (not `domain` itself, as in Claude Code's sandbox runtime). An address passes only when
 * it is listed as written.
 */
export function hostAllowed(host: string, domains: readonly string[]): boolean {
	const h = normalHost(host);
	if (h === '') return false;
	return domains.some(d => d === h || (!isAddressLike(h) && d.startsWith('*.') && h.endsWith(d.slice(1))));
}

/**
 * The environment that sends a command's HTTP and HTTPS through the proxy. The sandbox's own
 * loopback stays direct: a test server the command starts is reached without the proxy.
 */
export function proxyEnv(port = SANDBOX_PROXY_PORT): Record<string, string> {
	const url = `http://127.0.0.1:${port}`;
	const direct = 'localhost,127.0.0.1,::1';
	return {
		HTTP_PROXY: url,
		HTTPS_PROXY: url,
		ALL_PROXY: url,
		http_proxy: url,
		https_proxy: url,
		all_proxy: url,
		NO_PROXY: direct,
		no_proxy: direct,
		// Node 24's own fetch and http read the variables above only with this set.
		NODE_USE_ENV_PROXY: '1',
	};
}

function listed(domains: readonly string[]): string {
	return domains.length === 0 ? `none (${DOMAINS_SETTING} is empty)` : domains.join(', ');
}

/** What the network of a sandboxed command is, for its confirmation. */
export function networkSummary(network: CommandNetwork): string {
	if (network === 'off') return 'no network';
	if (network === 'all') return 'network allowed';
	const ignored = network.ignored.length > 0 ? `; ignored, not domains: ${network.ignored.map(i => JSON.stringify(i)).join(', ')}` : '';
	return `network: only ${listed(network.domains)}, through Longhaul's proxy (HTTP_PROXY)${ignored}`;
}

/** The body of the proxy's 403: what a command's tool prints, so the model reads why. */
export function refusalText(host: string, domains: readonly string[]): string {
	return `Longhaul's sandbox refused the connection to ${host}: it is not in ${DOMAINS_SETTING} (allowed: ${listed(domains)}). The user can add it to that setting.\n`;
}

/** The note for a command's result when the proxy refused hosts, so the model asks instead of retrying. */
export function refusedNote(hosts: readonly string[], domains: readonly string[]): string | undefined {
	if (hosts.length === 0) return undefined;
	return `Longhaul's network proxy refused ${hosts.join(', ')}: not in the setting ${DOMAINS_SETTING} (allowed: ${listed(domains)}). Retrying fails the same way. If the command needs it, tell the user which domain to add to ${DOMAINS_SETTING} (or to set longhaul.commandNetwork to "all").`;
}
