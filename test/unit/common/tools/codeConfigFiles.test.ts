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
	});

	it('matches the files that configure code of every common tool: bare repositories, Cargo, Python, PHP, Ruby, mise, yarn, CI, containers, Gradle and Maven wrappers', () => {
		const probe = [
			'evil/HEAD',
			'.cargo/config.toml',
			'sub/.cargo/config',
			'setup.py',
			'.mise/tasks/build',
			'composer.json',
			'Gemfile',
			'requirements.txt',
			'requirements-dev.txt',
			'.yarn/releases/yarn-4.1.0.cjs',
			'.github/actions/setup/action.yml',
			'.circleci/config.yml',
			'azure-pipelines.yml',
			'Jenkinsfile',
			'Dockerfile',
			'Dockerfile.dev',
			'app.dockerfile',
			'Containerfile',
			'docker-compose.yml',
			'docker-compose.override.yaml',
			'compose.yaml',
			'gradlew',
			'gradlew.bat',
			'gradle/wrapper/gradle-wrapper.properties',
			'.mvn/wrapper/maven-wrapper.properties',
			'mvnw',
		];
		for (const p of probe) assert.ok(codeConfigFile(p), `${p} should count`);
		assert.equal(codeConfigFile('evil/config'), undefined, 'a config alone is an ordinary file');
		assert.match(codeConfigFile('evil/config', ['config', 'HEAD', 'objects'])!.rule, /config and HEAD/);
		for (const p of ['gradle/libs.versions.toml', 'docs/compose.md', 'src/setup.pyc', '.yarn/cache/x.zip', 'my-requirements.md']) {
			assert.equal(codeConfigFile(p), undefined, p);
		}
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
