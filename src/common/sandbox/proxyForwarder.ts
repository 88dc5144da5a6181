// The small program that starts a sandboxed command when the network is a list of domains
// (docs/decisions.md §37, "Network by domain"). The sandbox has its own network namespace, with only a
// loopback; the proxy runs in the extension host and listens on a Unix socket bound into the
// sandbox. This program, run by the extension host's own node binary (no socat to install),
// listens on 127.0.0.1:<port> inside, passes each connection to the socket, and runs the command
// once it listens; it ends with the command's exit code. Plain JavaScript, given to `node -e`.

/** Where the proxy's socket is bound inside the sandbox (below its own empty /tmp). */
export const SANDBOX_PROXY_SOCKET = '/tmp/.longhaul-proxy.sock';

/** Exit code when the forwarder cannot listen: the command did not run. */
export const FORWARDER_FAILED = 125;

// argv: port, socket, shell, command. Errors on one connection close that connection only.
const SCRIPT = `
const net = require('net');
const { spawn } = require('child_process');
const [port, socket, shell, command] = process.argv.slice(1);
const server = net.createServer(inside => {
	const proxy = net.connect(socket);
	inside.on('error', () => proxy.destroy());
	proxy.on('error', () => inside.destroy());
	inside.pipe(proxy);
	proxy.pipe(inside);
});
server.on('error', e => {
	process.stderr.write('Longhaul: the network proxy could not start in the sandbox (' + e.message + '); the command did not run.\\n');
	process.exit(${FORWARDER_FAILED});
});
server.listen(Number(port), '127.0.0.1', () => {
	const child = spawn(shell, ['-c', command], { stdio: 'inherit' });
	child.on('error', e => {
		process.stderr.write(String(e) + '\\n');
		process.exit(127);
	});
	child.on('exit', (code, signal) => process.exit(code ?? 128 + (require('os').constants.signals[signal] || 0)));
});
`;

/** The program and arguments that run `shell -c command` behind the forwarder, with `node` the binary that runs it. */
export function forwarderCommand(node: string, port: number, shell: string, command: string): string[] {
	return [node, '-e', SCRIPT, '--', String(port), SANDBOX_PROXY_SOCKET, shell, command];
}
