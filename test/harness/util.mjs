// Small shared helpers for the harness: logging, running commands, repo paths.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const fixtureDir = join(repoRoot, 'test', 'fixtures', 'scripted-model');
export const resultsDir = join(repoRoot, 'test-results');

/** The recorded sessions the replay tests and the demo play: $LONGHAUL_CORPUS, else ../shared/corpus next to the repository. */
export function corpusDir() {
	return resolve(process.env.LONGHAUL_CORPUS ?? join(repoRoot, '..', 'shared', 'corpus'));
}

const started = Date.now();
/** Harness progress goes to stderr so test output on stdout stays clean. */
export function log(message) {
	const seconds = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
	process.stderr.write(`[harness ${seconds}s] ${message}\n`);
}

/** Commands started by run() that have not finished; stopped by the harness's cleanup. */
export const runningChildren = new Set();

/**
 * Runs a command to completion. Output is inherited unless `capture` is set, in which case
 * stdout+stderr are collected and returned (and shown when the command fails).
 */
export function run(command, args, { cwd = repoRoot, env = process.env, capture = false, logFile } = {}) {
	return new Promise((resolvePromise, reject) => {
		const child = spawn(command, args, { cwd, env, stdio: capture ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'] });
		runningChildren.add(child);
		let output = '';
		if (capture) {
			child.stdout.on('data', d => {
				output += d;
			});
			child.stderr.on('data', d => {
				output += d;
			});
		}
		child.on('error', error => reject(new Error(`could not start ${command}: ${error.message}`)));
		child.on('close', (code, signal) => {
			runningChildren.delete(child);
			if (code === 0) {
				resolvePromise(output);
				return;
			}
			const tail = output.split('\n').slice(-40).join('\n');
			reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? 'exit ' + code})${logFile ? ` (log: ${logFile})` : ''}${capture ? '\n' + tail : ''}`));
		});
	});
}

export function sleep(ms) {
	return new Promise(r => setTimeout(r, ms));
}
