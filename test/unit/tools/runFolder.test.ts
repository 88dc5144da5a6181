// The folder a command runs in: a clear message for `~`, a missing folder or a file.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runFolderProblem } from '../../../src/tools/runFolder';

describe('runFolder: where a command may run', () => {
	it('explains ~, a missing folder and a file; a folder is fine', () => {
		const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'longhaul-cwd-'));
		try {
			fs.writeFileSync(path.join(ws, 'file.txt'), 'x');
			assert.match(
				runFolderProblem('~', path.join(ws, '~')) ?? '',
				/^The folder "~" to run the command in does not exist in the workspace\. cwd is a path inside the workspace; ~ is not expanded/,
			);
			assert.match(runFolderProblem('~/src', path.join(ws, '~', 'src')) ?? '', /~ is not expanded/);
			assert.match(runFolderProblem('build', path.join(ws, 'build')) ?? '', /"build" to run the command in does not exist.*Leave cwd out/);
			assert.doesNotMatch(runFolderProblem('build', path.join(ws, 'build')) ?? '', /~/);
			assert.match(runFolderProblem('file.txt', path.join(ws, 'file.txt')) ?? '', /is a file, not a folder/);
			assert.equal(runFolderProblem(undefined, ws), undefined);
		} finally {
			fs.rmSync(ws, { recursive: true, force: true });
		}
	});
});
