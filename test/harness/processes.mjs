// Process-group bookkeeping: everything the harness starts runs in its own process group and is
// stopped as a group (kill -- -PGID) on success, failure, exception, SIGINT, SIGTERM and SIGHUP.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { log, runningChildren, sleep } from './util.mjs';

/** PGIDs still alive, killed synchronously as a last resort when Node exits. */
const groups = new Set();
/** Async cleanups (close browser, stop server, delete temp dirs), run newest first, once. */
const cleanups = [];
let cleaning;

export function trackGroup(pgid) {
	groups.add(pgid);
}

export function untrackGroup(pgid) {
	groups.delete(pgid);
}

/** Spawns a command as leader of a new session and process group (setsid). */
export function spawnGroup(command, args, options = {}) {
	const child = spawn(command, args, { ...options, detached: true });
	if (child.pid) trackGroup(child.pid);
	child.once('exit', () => {
		// The leader is gone; members may not be. stopGroup() still sweeps the group.
	});
	return child;
}

/** Whether any process of the group still runs (zombies, which only wait to be reaped, do not count). */
export function groupAlive(pgid) {
	try {
		process.kill(-pgid, 0);
	} catch (error) {
		return error.code === 'EPERM';
	}
	return groupMembers(pgid).length > 0;
}

/** Pids of the group's processes that are not zombies, from /proc. */
export function groupMembers(pgid) {
	const members = [];
	for (const name of readdirSync('/proc')) {
		if (!/^\d+$/.test(name)) continue;
		try {
			const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
			// After the command name (in parentheses): state ppid pgrp ...
			const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(name));
		} catch {
			// gone meanwhile
		}
	}
	return members;
}

/** SIGTERM to the group, then SIGKILL whatever is left after `graceMs`. */
export async function stopGroup(pgid, graceMs = 3000) {
	if (!pgid) return;
	try {
		process.kill(-pgid, graceMs > 0 ? 'SIGTERM' : 'SIGKILL');
	} catch {
		// already gone
	}
	const deadline = Date.now() + graceMs;
	while (groupAlive(pgid) && Date.now() < deadline) await sleep(100);
	if (groupAlive(pgid)) {
		try {
			process.kill(-pgid, 'SIGKILL');
		} catch {
			// already gone
		}
		const killDeadline = Date.now() + 2000;
		while (groupAlive(pgid) && Date.now() < killDeadline) await sleep(50);
	}
	if (groupAlive(pgid)) log(`warning: process group ${pgid} survived SIGKILL`);
	untrackGroup(pgid);
}

/** Registers an async cleanup; returns a function that runs it early (and unregisters it). */
export function onCleanup(fn) {
	const entry = { fn, done: false };
	cleanups.push(entry);
	return async () => {
		if (entry.done) return;
		entry.done = true;
		await fn();
	};
}

/** Runs every pending cleanup, newest first. Safe to call more than once. */
export function cleanupAll() {
	cleaning ??= (async () => {
		for (const child of runningChildren) child.kill('SIGTERM');
		while (cleanups.length) {
			const entry = cleanups.pop();
			if (entry.done) continue;
			entry.done = true;
			try {
				await entry.fn();
			} catch (error) {
				log(`cleanup failed: ${error?.message ?? error}`);
			}
		}
		for (const pgid of [...groups]) await stopGroup(pgid, 1000);
	})();
	return cleaning;
}

let installed = false;
/**
 * SIGINT/SIGTERM/SIGHUP clean up and exit 130/143/129 (or `exitCode` when given); process exit
 * kills any group left.
 */
export function installSignalHandlers(exitCode) {
	if (installed) return;
	installed = true;
	const codes = { SIGINT: exitCode ?? 130, SIGTERM: exitCode ?? 143, SIGHUP: exitCode ?? 129 };
	for (const [signal, code] of Object.entries(codes)) {
		process.on(signal, () => {
			log(`${signal}: stopping everything the harness started`);
			const force = setTimeout(() => process.exit(code), 15000);
			force.unref();
			cleanupAll().finally(() => process.exit(code));
		});
	}
	// A reader that goes away (`| head`) must not crash the harness before it cleans up.
	for (const stream of [process.stdout, process.stderr]) {
		stream.on('error', error => {
			if (error.code !== 'EPIPE') throw error;
		});
	}
	const crash = error => {
		try {
			process.stderr.write(`harness crashed: ${error?.stack ?? error}\n`);
		} catch {
			// stderr is gone too
		}
		cleanupAll().finally(() => process.exit(1));
	};
	process.on('uncaughtException', crash);
	process.on('unhandledRejection', crash);
	process.on('exit', () => {
		for (const pgid of groups) {
			try {
				process.kill(-pgid, 'SIGKILL');
			} catch {
				// gone
			}
		}
	});
}

/**
 * Runs `main` with signal handling and cleanup; exits with its resolved code (or 1 on an
 * exception or after `timeoutMs`). `onFailure` (e.g. take a screenshot) runs before cleanup
 * whenever the code is not 0.
 */
export async function runMain(name, main, { timeoutMs, onFailure, signalExitCode } = {}) {
	installSignalHandlers(signalExitCode);
	let code = 1;
	let timer;
	try {
		const timeout = timeoutMs
			? new Promise((_, reject) => {
					timer = setTimeout(() => reject(new Error(`${name} timed out after ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
				})
			: new Promise(() => {});
		code = await Promise.race([main(), timeout]);
	} catch (error) {
		process.stderr.write(`\n${name} FAILED: ${error?.stack ?? error}\n`);
		code = 1;
	} finally {
		clearTimeout(timer);
		if (code !== 0 && onFailure) {
			try {
				await Promise.race([onFailure(), sleep(15000)]);
			} catch (error) {
				log(`could not collect failure details: ${error?.message ?? error}`);
			}
		}
		await cleanupAll();
	}
	process.exit(code);
}
