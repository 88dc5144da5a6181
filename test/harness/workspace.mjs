// A fresh copy of test/fixtures/workspace for a run, so tests and demos may change it freely.
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './util.mjs';

export function copyWorkspace(parentDir, name = 'workspace') {
	const target = join(parentDir, name);
	cpSync(join(repoRoot, 'test', 'fixtures', 'workspace'), target, { recursive: true });
	return target;
}
