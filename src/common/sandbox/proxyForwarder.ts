// The small program that starts a sandboxed command when the network is a list of domains
// (docs/decisions.md §37, "Network by domain"). The sandbox has its own network namespace, with only a
// loopback; the proxy runs in the extension host and listens on a Unix socket bound into the
// sandbox. This program listens on 127.0.0.1:<port> inside, passes each connection to the socket,
// and runs the command once it listens; the command keeps its exit code. Two versions of it, given
// as text to `-e`: Perl, which starts in a few milliseconds and is on almost every Linux (Debian's
// `perl-base` is essential), and, where no Perl runs, the extension host's own node binary, whose
// start costs about 100 ms a command (bench/sandbox). No socat to install.

/** Where the proxy's socket is bound inside the sandbox (below its own empty /tmp). */
export const SANDBOX_PROXY_SOCKET = '/tmp/.longhaul-proxy.sock';

/** Exit code when the forwarder cannot listen: the command did not run. */
export const FORWARDER_FAILED = 125;

/** What runs the forwarder inside the sandbox. */
export interface Forwarder {
	readonly kind: 'perl' | 'node';
	/** The binary, at its path on the host (the sandbox sees the host's file system read-only). */
	readonly program: string;
	/** Environment the binary needs to run the forwarder (Electron's ELECTRON_RUN_AS_NODE). */
	readonly env: Readonly<Record<string, string>>;
}

const FAILED_TEXT = 'Longhaul: the network proxy could not start in the sandbox (';
const FAILED_END = '); the command did not run.\\n';

// argv: port, socket, shell, command. Core Perl only, not even Socket.pm (loading it triples the
// start time): the constants are Linux's (bwrap runs on Linux only): AF_UNIX 1, AF_INET 2,
// SOCK_STREAM 1. It listens, then a grandchild (reparented to the sandbox's init, so the command's
// `wait` never waits for it) serves connections, one process per direction, while this process
// becomes the command's shell. The kernel ends it with the sandbox's PID namespace.
const PERL_SCRIPT = `
my ($port, $path, $shell, $command) = @ARGV;
sub fail { print STDERR "${FAILED_TEXT}$_[0]${FAILED_END}"; exit ${FORWARDER_FAILED} }
socket(SERVER, 2, 1, 0) or fail("socket: $!");
bind(SERVER, pack('S n C4 x8', 2, $port, 127, 0, 0, 1)) or fail("bind: $!");
listen(SERVER, 128) or fail("listen: $!");
sub pump {
	my ($from, $to) = @_;
	my $buffer;
	PUMP: while (my $n = sysread($from, $buffer, 65536)) {
		for (my $at = 0; $at < $n;) { my $w = syswrite($to, $buffer, $n - $at, $at) or last PUMP; $at += $w }
	}
	shutdown($to, 1);
}
sub serve {
	$SIG{CHLD} = 'IGNORE';
	open(STDIN, '<', '/dev/null');
	open(STDOUT, '>', '/dev/null');
	while (1) {
		accept(my $inside, SERVER) or do { select(undef, undef, undef, 0.01); next };
		next if fork();
		close(SERVER);
		my $proxy;
		socket($proxy, 1, 1, 0) && connect($proxy, pack('S a108', 1, $path)) or exit 0;
		if (fork()) { pump($proxy, $inside) } else { pump($inside, $proxy) }
		exit 0;
	}
}
my $pid = fork() // fail("fork: $!");
if ($pid == 0) { my $server = fork(); exit(defined $server ? 0 : 1) if $server // 1; serve() }
waitpid($pid, 0);
fail('fork failed') if $?;
close(SERVER);
exec { $shell } $shell, '-c', $command;
print STDERR "$shell: $!\\n";
exit 127;
`;

// argv: port, socket, shell, command. Errors on one connection close that connection only. Node
// cannot exec: it stays the command's parent and ends with its exit code.
const NODE_SCRIPT = `
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
	process.stderr.write('${FAILED_TEXT}' + e.message + '${FAILED_END}');
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

/** The program and arguments that run `shell -c command` behind the forwarder. */
export function forwarderCommand(forwarder: Forwarder, port: number, shell: string, command: string): string[] {
	const script = forwarder.kind === 'perl' ? PERL_SCRIPT : NODE_SCRIPT;
	return [forwarder.program, '-e', script, '--', String(port), SANDBOX_PROXY_SOCKET, shell, command];
}
