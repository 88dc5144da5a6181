// Files that make a tool run code when the user does something that does not look like running
// code: a plain `git status`, opening the folder in VS Code, `npm install`, entering the folder in
// a shell, a commit, a push. A write to one of them is shown in full with a warning and asked for
// again by Longhaul itself, whatever tool approvals VS Code has (docs/reliability.md lists them
// and says why others, such as a Makefile, are not here). No vscode import.
//
// Paths are matched case-insensitively (the file systems of macOS and Windows are), on every
// component, so `sub/.git/config` and `.GIT/hooks/x` count too.

export interface CodeConfigFile {
	/** The rule that matched, as documented: `.git/`, `.vscode/`, `package.json`, … */
	readonly rule: string;
	/** What runs, in a few words for the warning. */
	readonly why: string;
}

interface Rule extends CodeConfigFile {
	/** A folder name: any file below a path component with this name. */
	readonly folder?: string;
	/** A file name (the last component). */
	readonly name?: RegExp;
	/** Two components: a folder followed by a file or folder below it. */
	readonly under?: readonly [string, string];
}

const RULES: readonly Rule[] = [
	{
		rule: '.git/',
		folder: '.git',
		why: "git's configuration and hooks: git runs the commands they name on ordinary commands such as git status (core.fsmonitor, core.pager, aliases, hooks)",
	},
	{ rule: '.git (file)', name: /^\.git$/, why: 'points git at another repository folder, whose configuration and hooks then run' },
	{ rule: '.gitattributes', name: /^\.gitattributes$/, why: 'chooses the filters and diff drivers git runs on checkout, add and diff' },
	{ rule: '.gitmodules', name: /^\.gitmodules$/, why: 'names the repositories and update commands of submodules' },
	{ rule: '.gitconfig', name: /^\.gitconfig$/, why: 'git configuration (can be included by .git/config): commands git runs' },
	{ rule: '.husky/, .githooks/', folder: '.husky', why: 'git hooks, run on commit and push' },
	{ rule: '.husky/, .githooks/', folder: '.githooks', why: 'git hooks, run on commit and push' },
	{
		rule: 'pre-commit and lefthook configuration',
		name: /^(\.pre-commit-config\.ya?ml|\.?lefthook(-local)?\.ya?ml)$/,
		why: 'git hooks, run on commit and push',
	},
	{
		rule: '.vscode/',
		folder: '.vscode',
		why: 'VS Code settings, tasks and launch configurations: they name programs VS Code runs (terminal profiles, tool paths, tasks run when the folder opens)',
	},
	{ rule: '*.code-workspace', name: /\.code-workspace$/, why: 'VS Code workspace settings and tasks: they name programs VS Code runs' },
	{ rule: '.devcontainer/', folder: '.devcontainer', why: 'dev container definitions: commands run when the container is built or opened' },
	{ rule: '.devcontainer.json', name: /^\.devcontainer\.json$/, why: 'dev container definition: commands run when the container is built or opened' },
	{ rule: '.idea/', folder: '.idea', why: 'JetBrains IDE settings and run configurations: programs the IDE runs' },
	{
		rule: 'package.json',
		name: /^package\.json$/,
		why: 'its scripts run on npm install (preinstall, postinstall, prepare) and npm test/run; its dependencies install with their own scripts',
	},
	{
		rule: '.npmrc, .yarnrc*, .pnpmfile.*, bunfig.toml',
		name: /^(\.npmrc|\.yarnrc(\.ya?ml)?|\.pnpmfile\.[cm]?js|bunfig\.toml)$/,
		why: 'package manager settings: scripts, hooks and registries every install uses',
	},
	{ rule: '.envrc, mise.toml', name: /^(\.envrc|\.?mise(\.local)?\.toml)$/, why: 'run by direnv or mise whenever a shell enters the folder' },
	{ rule: '.github/workflows/, .gitlab-ci.yml', under: ['.github', 'workflows'], why: 'CI jobs, run with the repository secrets when pushed' },
	{ rule: '.github/workflows/, .gitlab-ci.yml', name: /^\.gitlab-ci\.ya?ml$/, why: 'CI jobs, run with the repository secrets when pushed' },
	{ rule: '.github/actions/', under: ['.github', 'actions'], why: 'CI actions the workflows run, with the repository secrets' },
	{ rule: '.circleci/', folder: '.circleci', why: 'CI jobs, run with the repository secrets when pushed' },
	{
		rule: 'azure-pipelines.yml, Jenkinsfile',
		name: /^(azure-pipelines\.ya?ml|jenkinsfile)$/,
		why: 'CI jobs, run with the repository secrets when pushed',
	},
	{
		rule: 'HEAD (a folder holding config and HEAD)',
		name: /^head$/,
		why: 'makes its folder a bare git repository: git -C on that folder runs the commands its config names (core.fsmonitor, hooks)',
	},
	{ rule: '.cargo/', folder: '.cargo', why: 'Cargo configuration: the runners, linkers and aliases cargo runs on build and test' },
	{ rule: 'setup.py', name: /^setup\.py$/, why: 'runs on pip install of the folder' },
	{ rule: 'requirements.txt', name: /^requirements.*\.txt$/, why: 'names what pip installs, from anywhere, with its install-time code' },
	{ rule: 'composer.json', name: /^composer\.json$/, why: 'its scripts run on composer install and update' },
	{ rule: 'Gemfile', name: /^gemfile$/, why: 'Ruby code bundler runs on every bundle command' },
	{ rule: '.mise/', folder: '.mise', why: 'mise configuration and tasks, run whenever a shell enters the folder' },
	{ rule: '.yarn/releases/', under: ['.yarn', 'releases'], why: 'the yarn program itself, run by every yarn command in the folder' },
	{
		rule: 'Dockerfiles and compose files',
		name: /^(dockerfile|containerfile)(\..*)?$|\.(dockerfile|containerfile)$|^(docker-)?compose(\..*)?\.ya?ml$/,
		why: 'commands run on docker build, and the containers, mounts and commands of docker compose up',
	},
	{ rule: 'the Gradle wrapper', name: /^gradlew(\.bat)?$/, why: 'the script every ./gradlew command runs' },
	{ rule: 'the Gradle wrapper', under: ['gradle', 'wrapper'], why: 'the Gradle distribution every ./gradlew command downloads and runs' },
	{ rule: '.mvn/, mvnw', folder: '.mvn', why: 'Maven wrapper and JVM options, run by every mvn and ./mvnw command' },
	{ rule: '.mvn/, mvnw', name: /^mvnw(\.cmd)?$/, why: 'the script every ./mvnw command runs' },
];

/** A folder's `config` counts when the folder also holds `HEAD`: together they make a bare repository. */
const BARE_CONFIG: CodeConfigFile = {
	rule: 'HEAD (a folder holding config and HEAD)',
	why: 'with HEAD beside it, this is the configuration of a bare git repository: git -C on that folder runs the commands it names (core.fsmonitor, hooks)',
};

/**
 * The rule a path (relative to its workspace folder, `/` or `\` separated) matches, or undefined.
 * `siblings`, when known, are the names of the entries of the path's folder.
 */
export function codeConfigFile(relativePath: string, siblings: readonly string[] = []): CodeConfigFile | undefined {
	const parts = relativePath
		.toLowerCase()
		.split(/[\\/]+/)
		.filter(p => p !== '' && p !== '.');
	if (parts.length === 0) return undefined;
	const name = parts[parts.length - 1];
	const folders = parts.slice(0, -1);
	const match = RULES.find(
		r =>
			(r.folder !== undefined && folders.includes(r.folder)) ||
			(r.name !== undefined && r.name.test(name)) ||
			(r.under !== undefined && folders.some((f, i) => f === r.under![0] && (folders[i + 1] ?? name) === r.under![1])),
	);
	if (match) return { rule: match.rule, why: match.why };
	return name === 'config' && siblings.some(s => s.toLowerCase() === 'head') ? BARE_CONFIG : undefined;
}
