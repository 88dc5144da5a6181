// Which files make a tool run code: a write to one is shown whole and asked for again.
import * as assert from 'node:assert/strict';
import { codeConfigFile } from '../../../../src/common/tools/codeConfigFiles';

describe('codeConfigFiles: files that configure tools which run code', () => {
	it('matches git, editor, package manager, shell and CI configuration, at any depth and in any case', () => {
		const yes = [
			'.git/config',
			'.git/hooks/pre-commit',
			'sub/.git/config',
			'.GIT/Config',
			'.git',
			'.gitattributes',
			'.gitmodules',
			'.husky/pre-commit',
			'.pre-commit-config.yaml',
			'lefthook.yml',
			'.vscode/settings.json',
			'.vscode/tasks.json',
			'app/.vscode/launch.json',
			'project.code-workspace',
			'.devcontainer/devcontainer.json',
			'.npmrc',
			'.yarnrc.yml',
			'.pnpmfile.cjs',
			'package.json',
			'packages/a/package.json',
			'.envrc',
			'.mise.toml',
			'.github/workflows/ci.yml',
			'.gitlab-ci.yml',
			'.idea/workspace.xml',
			'a\\.vscode\\settings.json',
		];
		for (const p of yes) assert.ok(codeConfigFile(p), `${p} should count`);
		assert.equal(codeConfigFile('.git/config')?.rule, '.git/');
		assert.match(codeConfigFile('.vscode/settings.json')!.why, /VS Code/);
	});

	it('leaves ordinary files alone (a Makefile or a test runs only when the user runs the project)', () => {
		for (const p of [
			'src/index.ts',
			'Makefile',
			'README.md',
			'git/config',
			'my.git/x',
			'.github/README.md',
			'package-lock.json',
			'docs/.vscode.md',
			'vscode/settings.json',
		]) {
			assert.equal(codeConfigFile(p), undefined, p);
		}
	});
});
