// Starts code-server (VS Code 1.139 server) on 127.0.0.1 with throwaway folders, and stops it
// as a whole process group. Also installs VSIX files into an extensions folder.
import { copyFileSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup, spawnGroup, stopGroup } from './processes.mjs';
import { log, resultsDir, run, sleep } from './util.mjs';

/** Settings for a quiet, predictable workbench. */
export const DEFAULT_SETTINGS = {
	'workbench.startupEditor': 'none',
	'workbench.welcomePage.walkthroughs.openOnInstall': false,
	'workbench.tips.enabled': false,
	'workbench.enableExperiments': false,
	'telemetry.telemetryLevel': 'off',
	'update.mode': 'none',
	'extensions.autoUpdate': false,
	'extensions.autoCheckUpdates': false,
	'extensions.ignoreRecommendations': true,
	'security.workspace.trust.enabled': false,
	'git.enabled': false,
	'chat.commandCenter.enabled': false,
};

export function freePort() {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

/** A fresh folder with the layout code-server needs: config, user data, extensions, XDG dirs, TMPDIR. */
export function makeServerDirs(name, { settings = {} } = {}) {
	const root = mkdtempSync(join(tmpdir(), `longhaul-${name}-`));
	const dirs = {
		root,
		config: join(root, 'config.yaml'),
		userData: join(root, 'user-data'),
		extensions: join(root, 'extensions'),
		xdgConfig: join(root, 'xdg-config'),
		xdgData: join(root, 'xdg-data'),
		tmp: join(root, 'tmp'),
		log: join(root, 'code-server.log'),
	};
	for (const dir of [dirs.userData, dirs.extensions, dirs.xdgConfig, dirs.xdgData, dirs.tmp, join(dirs.userData, 'User')]) {
		mkdirSync(dir, { recursive: true });
	}
	writeFileSync(join(dirs.userData, 'User', 'settings.json'), JSON.stringify({ ...DEFAULT_SETTINGS, ...settings }, null, 2));
	return dirs;
}

function serverEnv(host, dirs) {
	const env = {};
	for (const [key, value] of Object.entries(process.env)) {
		// Do not leak the caller's VS Code session (from a VS Code terminal, VSCODE_IPC_HOOK_CLI would
		// make code-server open the folder in that instance instead) into the server, and keep PORT
		// and CODE_SERVER_HOST, which code-server prefers over --bind-addr, away from it.
		if (key.startsWith('VSCODE_') || key.startsWith('CODE_SERVER_') || key === 'ELECTRON_RUN_AS_NODE' || key === 'PORT') continue;
		env[key] = value;
	}
	return {
		...env,
		PATH: `${host.nodeBin}:${process.env.PATH}`,
		XDG_CONFIG_HOME: dirs.xdgConfig,
		XDG_DATA_HOME: dirs.xdgData,
		TMPDIR: dirs.tmp,
	};
}

/** `code-server --install-extension` for each VSIX into `dirs.extensions`. */
export async function installExtensions(host, dirs, vsixFiles) {
	for (const vsix of vsixFiles) {
		await run(
			host.node,
			[host.codeServerEntry, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, '--install-extension', vsix, '--force'],
			{
				env: serverEnv(host, dirs),
				capture: true,
			},
		);
	}
}

/**
 * Settings for a run with workspace trust on (LONGHAUL_UNTRUSTED=1): the folder opens in
 * restricted mode without the startup trust prompt. Pass to makeServerDirs, and
 * `workspaceTrust: true` to startCodeServer.
 */
export const UNTRUSTED_SETTINGS = {
	'security.workspace.trust.enabled': true,
	'security.workspace.trust.startupPrompt': 'never',
	'security.workspace.trust.emptyWindow': false,
};

/**
 * Starts code-server and waits for /healthz. Returns { url, port, dirs, stop() }; stop() is also
 * registered as a cleanup so the server never outlives the harness.
 */
export async function startCodeServer(host, { name, dirs, workspace, port, smokeTestDriver = false, env = {}, workspaceTrust = false, proposedApi = [] }) {
	port ??= await freePort();
	writeFileSync(dirs.config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
	const args = [
		host.codeServerEntry,
		'--config',
		dirs.config,
		'--bind-addr',
		`127.0.0.1:${port}`,
		'--auth',
		'none',
		'--disable-telemetry',
		'--disable-update-check',
		...(workspaceTrust ? [] : ['--disable-workspace-trust']),
		'--disable-getting-started-override',
		'--user-data-dir',
		dirs.userData,
		'--extensions-dir',
		dirs.extensions,
		'--ignore-last-opened',
	];
	if (smokeTestDriver) args.push('--vscode-option', 'enable-smoke-test-driver');
	// Test fixtures that register tools under Copilot's names need a proposed API (test/fixtures/copilot-tools).
	for (const id of proposedApi) args.push('--enable-proposed-api', id);
	if (workspace) args.push(workspace);

	const logStream = createWriteStream(dirs.log);
	const child = spawnGroup(host.node, args, { cwd: dirs.root, env: { ...serverEnv(host, dirs), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
	child.stdout.pipe(logStream);
	child.stderr.pipe(logStream);
	let exited = null;
	child.on('exit', (code, signal) => {
		exited = signal ?? `exit ${code}`;
	});

	const pgid = child.pid;
	const url = `http://127.0.0.1:${port}`;
	const stop = onCleanup(async () => {
		// code-server takes about 3 s to wind down after SIGTERM; nothing in its throwaway dirs needs that.
		await stopGroup(pgid, 1000);
		logStream.end();
		if (process.env.LONGHAUL_KEEP_TMP) {
			log(`kept ${dirs.root} (LONGHAUL_KEEP_TMP)`);
		} else {
			rmSync(dirs.root, { recursive: true, force: true });
		}
	});

	const deadline = Date.now() + 60_000;
	for (;;) {
		if (exited) {
			throw new Error(`code-server exited (${exited}) before it was healthy. Its log:\n${tail(dirs.log)}`);
		}
		try {
			const response = await fetch(`${url}/healthz`);
			if (response.ok) break;
		} catch {
			// not listening yet
		}
		if (Date.now() > deadline) {
			throw new Error(`code-server did not answer ${url}/healthz within 60 s. Its log:\n${tail(dirs.log)}`);
		}
		await sleep(200);
	}
	log(`code-server ${name} is up at ${url} (pgid ${pgid})`);
	return { url, port, dirs, pgid, stop, saveLog: target => saveLog(dirs.log, target) };
}

function tail(file, lines = 40) {
	try {
		return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
	} catch {
		return '(no log)';
	}
}

function saveLog(file, name) {
	if (!existsSync(file)) return undefined;
	mkdirSync(resultsDir, { recursive: true });
	const target = join(resultsDir, name);
	copyFileSync(file, target);
	return target;
}
