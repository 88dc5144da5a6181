// Longhaul's network proxy for a sandboxed command whose network is a list of domains
// (docs/decisions.md §37, "Network by domain"): an HTTP proxy on a Unix socket, bound into the
// sandbox. `CONNECT host:port` (HTTPS, and any TCP a client tunnels) and plain requests with an
// absolute URI (HTTP) reach a host only when networkPolicy.hostAllowed says so; anything else gets
// a 403 whose text says which setting allows it. The proxy sees host names, never what is inside
// a tunnel. No vscode import: unit-tested with real sockets.
import * as http from 'node:http';
import * as net from 'node:net';
import type { Duplex } from 'node:stream';
import { hostAllowed, normalHost, refusalText } from './networkPolicy';

export interface DomainProxyOptions {
	/**
	 * The Unix socket to listen on (the caller owns its folder, a private temporary one); without
	 * one, a free port on 127.0.0.1 (macOS, where the sandbox shares the host's loopback).
	 */
	readonly socketPath?: string;
	readonly domains: readonly string[];
	/** Opens the connection to an allowed host; net.connect unless a test brings its own. */
	readonly connect?: (port: number, host: string) => net.Socket;
}

export interface DomainProxy {
	readonly socketPath?: string;
	/** The port on 127.0.0.1, when it listens there. */
	readonly port?: number;
	/** Hosts refused so far, in the order first refused. */
	refused(): string[];
	/** Stops listening and ends every open connection. */
	close(): Promise<void>;
}

/** `host:port` or `[v6]:port` of a CONNECT request; undefined when it is neither. */
export function connectTarget(target: string): { host: string; port: number } | undefined {
	const m = /^\[([^\]]+)\]:(\d{1,5})$/.exec(target) ?? /^([^:[\]/\s]+):(\d{1,5})$/.exec(target);
	const port = m ? Number(m[2]) : 0;
	return m && port > 0 && port < 65536 ? { host: normalHost(m[1]), port } : undefined;
}

/** One proxy's listening server and what it has seen. */
class Proxy implements DomainProxy {
	private readonly server = http.createServer();
	private readonly refusedHosts = new Set<string>();
	private readonly open = new Set<Duplex>();
	private readonly connect: (port: number, host: string) => net.Socket;

	constructor(private readonly options: DomainProxyOptions) {
		this.connect = options.connect ?? ((port, host) => net.connect(port, host));
		this.server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => this.tunnel(req.url ?? '', socket, head));
		this.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => this.forward(req, res));
	}

	get socketPath(): string | undefined {
		return this.options.socketPath;
	}

	get port(): number | undefined {
		const address = this.server.address();
		return typeof address === 'object' && address ? address.port : undefined;
	}

	listen(): Promise<void> {
		return new Promise((resolve, reject) => {
			this.server.once('error', reject);
			if (this.options.socketPath) this.server.listen(this.options.socketPath, () => resolve());
			else this.server.listen(0, '127.0.0.1', () => resolve());
		});
	}

	refused(): string[] {
		return [...this.refusedHosts];
	}

	close(): Promise<void> {
		for (const s of this.open) s.destroy();
		this.server.closeAllConnections();
		return new Promise(resolve => this.server.close(() => resolve()));
	}

	private allows(host: string): boolean {
		if (hostAllowed(host, this.options.domains)) return true;
		this.refusedHosts.add(normalHost(host));
		return false;
	}

	private track(socket: Duplex): void {
		this.open.add(socket);
		socket.on('close', () => this.open.delete(socket));
		socket.on('error', () => socket.destroy());
	}

	/** CONNECT: a tunnel to an allowed host, or a 403 that says why not. */
	private tunnel(target: string, client: Duplex, head: Buffer): void {
		this.track(client);
		const to = connectTarget(target);
		if (!to) {
			client.end('HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nCONNECT needs host:port.\n');
			return;
		}
		if (!this.allows(to.host)) {
			const body = refusalText(to.host, this.options.domains);
			client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
			return;
		}
		const upstream = this.connect(to.port, to.host);
		this.track(upstream);
		let connected = false;
		upstream.once('connect', () => {
			connected = true;
			client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
			if (head.length > 0) upstream.write(head);
			upstream.pipe(client);
			client.pipe(upstream);
		});
		upstream.once('error', e => {
			if (connected) return client.destroy();
			client.end(
				`HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nLonghaul's proxy could not reach ${to.host}:${to.port}: ${e.message}\n`,
			);
		});
		client.on('close', () => upstream.destroy());
	}

	/** A plain HTTP request with an absolute URI, passed on to an allowed host. */
	private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
		let url: URL;
		try {
			url = new URL(req.url ?? '');
		} catch {
			url = new URL('invalid:');
		}
		if (url.protocol !== 'http:') {
			res.writeHead(400, { 'Content-Type': 'text/plain' }).end("Longhaul's proxy takes absolute http:// URLs, and CONNECT for anything else.\n");
			return;
		}
		const host = normalHost(url.hostname);
		if (!this.allows(host)) {
			res.writeHead(403, { 'Content-Type': 'text/plain' }).end(refusalText(host, this.options.domains));
			return;
		}
		const headers: http.OutgoingHttpHeaders = { ...req.headers, host: url.host, connection: 'close' };
		delete headers['proxy-connection'];
		delete headers['proxy-authorization'];
		const port = Number(url.port || 80);
		const upstream = http.request(
			{ method: req.method, path: `${url.pathname}${url.search}`, headers, createConnection: () => this.connect(port, host) },
			answer => {
				res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
				answer.pipe(res);
			},
		);
		upstream.on('error', e => {
			if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' }).end(`Longhaul's proxy could not reach ${url.host}: ${e.message}\n`);
			else res.destroy();
		});
		req.pipe(upstream);
	}
}

/** Starts a proxy listening on `options.socketPath`. */
export async function startDomainProxy(options: DomainProxyOptions): Promise<DomainProxy> {
	const proxy = new Proxy(options);
	await proxy.listen();
	return proxy;
}
