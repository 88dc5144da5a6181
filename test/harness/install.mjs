// Installs (once per machine) what the real-host tests need: Debian packages (chromium,
// libkrb5-dev and a C++ toolchain for code-server's native modules, bubblewrap for the command
// sandbox), Node 24 and code-server,
// both from the npm registry. Node and code-server go into a cache outside the clone:
//   $LONGHAUL_TEST_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/longhaul-test-host
// Each install happens in a temporary folder that is renamed into place only when complete,
// so an interrupted install is simply redone next time.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { log, run } from './util.mjs';

export const CODE_SERVER_VERSION = '4.139.1';
export const NODE_MAJOR = '24';
// bubblewrap: longhaul_runCommand's sandbox, which the real-host tests exercise (test/integration/sandbox.test.ts).
const APT_PACKAGES = ['chromium', 'libkrb5-dev', 'g++', 'make', 'python3', 'bubblewrap'];

export function cacheRoot() {
	if (process.env.LONGHAUL_TEST_CACHE) return process.env.LONGHAUL_TEST_CACHE;
	const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
	return join(base, 'longhaul-test-host');
}

function isAptInstalled(name) {
	try {
		return execFileSync('dpkg-query', ['-W', '-f=${Status}', name], { stdio: ['ignore', 'pipe', 'ignore'] })
			.toString()
			.includes('install ok installed');
	} catch {
		return false;
	}
}

/** Installs missing Debian packages when running as root; otherwise stops with the command to run. */
export async function ensureAptPackages(names = APT_PACKAGES) {
	const missing = names.filter(n => !isAptInstalled(n));
	if (missing.length === 0) return;
	const command = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`;
	if (process.getuid?.() !== 0) {
		throw new Error(`Missing Debian packages: ${missing.join(', ')}. Install them as root:\n  sudo sh -c '${command}'`);
	}
	log(`installing Debian packages: ${missing.join(', ')}`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	await run('apt-get', ['update'], { env, capture: true });
	await run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env, capture: true });
}

/**
 * Runs `install(tempDir)` and renames the folder to `finalDir` afterwards. If another process
 * finished the same install meanwhile, its result is kept and ours discarded.
 */
async function installAtomically(finalDir, what, install) {
	if (existsSync(finalDir)) return;
	const root = cacheRoot();
	mkdirSync(root, { recursive: true });
	// Remove leftovers of interrupted installs of this item.
	const prefix = finalDir.split('/').pop() + '.partial-';
	for (const name of readdirSync(root)) {
		if (name.startsWith(prefix)) {
			const pid = Number(name.slice(prefix.length));
			if (!isAlive(pid)) rmSync(join(root, name), { recursive: true, force: true });
		}
	}
	const temp = join(root, prefix + process.pid);
	mkdirSync(temp, { recursive: true });
	const started = Date.now();
	log(`installing ${what} into ${finalDir} (once per machine)`);
	try {
		await install(temp);
		writeFileSync(join(temp, '.complete'), new Date().toISOString() + '\n');
		try {
			renameSync(temp, finalDir);
		} catch (error) {
			if (!existsSync(finalDir)) throw error;
			rmSync(temp, { recursive: true, force: true });
		}
	} catch (error) {
		rmSync(temp, { recursive: true, force: true });
		throw error;
	}
	log(`installed ${what} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

function isAlive(pid) {
	if (!Number.isInteger(pid) || pid <= 0) return false;
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/**
 * The environment for a nested npm: without the npm_* variables an outer `npm run` sets, which
 * the nested npm would take as its own config (npm_config_user_agent names the outer Node, and
 * code-server's postinstall checks the Node version in it; npm_config_nodedir points at Node 20).
 */
function cleanNpmEnv(extra = {}) {
	const env = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (/^npm_/i.test(key) || key === 'NODE' || key === 'INIT_CWD') continue;
		env[key] = value;
	}
	return { ...env, ...extra };
}

async function npmInstall(dir, spec, env) {
	writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'longhaul-test-host-cache', private: true }, null, 2));
	const logFile = join(dir, 'npm-install.log');
	try {
		const output = await run('npm', ['install', spec, '--no-audit', '--no-fund', '--no-save', '--loglevel=error'], { cwd: dir, env, capture: true, logFile });
		writeFileSync(logFile, output);
	} catch (error) {
		throw new Error(`npm install ${spec} failed in ${dir}:\n${error.message}`, { cause: error });
	}
}

function node24Home(dir) {
	return join(dir, 'node_modules', 'node', 'node_modules', `node-linux-${process.arch}`);
}

/** Node 24 (code-server 4.139 needs it; the repo itself uses the machine's Node). Returns its bin folder and headers folder. */
export async function ensureNode24() {
	const dir = join(cacheRoot(), `node${NODE_MAJOR}`);
	await installAtomically(dir, `Node ${NODE_MAJOR}`, async temp => {
		await npmInstall(temp, `node@${NODE_MAJOR}`, cleanNpmEnv());
		if (!existsSync(join(node24Home(temp), 'bin', 'node'))) {
			throw new Error(`npm installed node@${NODE_MAJOR} but ${join(node24Home(temp), 'bin', 'node')} is missing`);
		}
	});
	const home = node24Home(dir);
	return { home, bin: join(home, 'bin'), node: join(home, 'bin', 'node') };
}

/** code-server, built against Node 24's headers. Returns the path of its entry script. */
export async function ensureCodeServer(node24) {
	const dir = join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}`);
	await installAtomically(dir, `code-server ${CODE_SERVER_VERSION}`, async temp => {
		const env = cleanNpmEnv({
			PATH: `${node24.bin}:${process.env.PATH}`,
			npm_config_nodedir: node24.home,
		});
		await npmInstall(temp, `code-server@${CODE_SERVER_VERSION}`, env);
		const entry = join(temp, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
		if (!existsSync(entry)) throw new Error(`code-server installed but ${entry} is missing`);
		// Prove the native modules load under Node 24 before the install counts as done.
		await run(node24.node, [entry, '--version'], { cwd: temp, capture: true });
	});
	return { entry: join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js') };
}

/** Everything the real-host runs need. */
export async function ensureTestHost() {
	await ensureAptPackages();
	const node24 = await ensureNode24();
	const codeServer = await ensureCodeServer(node24);
	return { node: node24.node, nodeBin: node24.bin, codeServerEntry: codeServer.entry };
}

if (import.meta.url === `file://${process.argv[1]}`) {
	// node test/harness/install.mjs: install (or find) everything and print the paths.
	const { runMain } = await import('./processes.mjs');
	runMain('install', async () => {
		console.log(JSON.stringify(await ensureTestHost(), null, 2));
		return 0;
	});
}
