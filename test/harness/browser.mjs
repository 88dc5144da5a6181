// Debian's Chromium driven by playwright-core, with a fresh profile that is deleted afterwards.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { onCleanup, stopGroup, trackGroup } from './processes.mjs';
import { log, resultsDir } from './util.mjs';

export const CHROMIUM = process.env.LONGHAUL_CHROMIUM || '/usr/bin/chromium';

const ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--disable-dev-shm-usage',
];

/** Returns { context, page, close() }. close() is also a registered cleanup. */
export async function launchBrowser({ viewport = { width: 1400, height: 900 } } = {}) {
	const profile = mkdtempSync(join(tmpdir(), 'longhaul-chromium-'));
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: CHROMIUM,
		headless: true,
		args: ARGS,
		viewport,
		// The harness handles signals itself and stops the browser's process group.
		handleSIGINT: false,
		handleSIGTERM: false,
		handleSIGHUP: false,
	});
	// Playwright starts the browser detached, as the leader of its own process group.
	const pid = findProcessGroupOf(`--user-data-dir=${profile}`);
	if (pid) trackGroup(pid);
	const close = onCleanup(async () => {
		// A graceful close takes about 2 s and buys nothing for a throwaway profile.
		if (pid) await stopGroup(pid, 300);
		await Promise.race([context.close().catch(() => {}), new Promise(r => setTimeout(r, 2000))]);
		rmSync(profile, { recursive: true, force: true });
	});
	const page = context.pages()[0] ?? (await context.newPage());
	log(`chromium started${pid ? ` (pgid ${pid})` : ''}`);
	return { context, page, close };
}

/** The process group of the process whose command line contains `marker` (playwright does not expose the pid). */
function findProcessGroupOf(marker) {
	for (const name of readdirSync('/proc')) {
		if (!/^\d+$/.test(name)) continue;
		try {
			const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
			if (!cmdline.includes(marker)) continue;
			const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
			// Fields after the command name, which is in parentheses: state ppid pgrp ...
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			return Number(fields[2]);
		} catch {
			// the process went away
		}
	}
	return undefined;
}

/** Saves a full-page screenshot into test-results/ and returns its path (undefined if the page is gone). */
export async function screenshot(page, name) {
	if (!page || page.isClosed()) return undefined;
	mkdirSync(resultsDir, { recursive: true });
	const path = join(resultsDir, name);
	await page.screenshot({ path, timeout: 10000 });
	log(`screenshot: ${path}`);
	return path;
}
