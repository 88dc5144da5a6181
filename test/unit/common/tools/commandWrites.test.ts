// Where no sandbox runs, a command's confirmation warns when it may write a file that runs code
// (issue 32: `patch -p1 < fix.diff` wrote .git/config with no warning).
import * as assert from 'node:assert/strict';
import { gatedWriteWarnings } from '../../../../src/common/tools/commandWrites';

describe('commandWrites: warnings for commands that may write files that run code', () => {
	it('patch and git apply are named: they write what the patch names', () => {
		for (const command of ['patch -p1 < fix.diff', 'git apply fix.diff', 'git -C . am 0001.patch', 'cd x && patch < p']) {
			assert.match(gatedWriteWarnings(command).join(' '), /applies a patch/, command);
		}
	});

	it('a redirection, tee or sed -i into a gated file names the file and the rule', () => {
		const [warning] = gatedWriteWarnings('echo "[core] fsmonitor = x" >> .git/config');
		assert.match(warning, /\.git\/config/);
		assert.match(gatedWriteWarnings('echo x | tee .vscode/settings.json').join(' '), /\.vscode\/settings\.json/);
		assert.match(gatedWriteWarnings("sed -i 's/a/b/' setup.py").join(' '), /setup\.py/);
	});

	it('a script is said to be able to write anything; an inspection gets no warning', () => {
		assert.match(gatedWriteWarnings('./install.sh').join(' '), /may write any file/);
		assert.deepEqual(gatedWriteWarnings('ls -la && cat README.md'), []);
		assert.deepEqual(gatedWriteWarnings('echo hi > notes.txt'), []);
	});
});
