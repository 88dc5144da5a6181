// A stand-in for the `vscode` module, so a unit test can load a tool from src/tools/ in plain Node
// and call what VS Code calls (prepareInvocation). It holds only what those calls touch; a test
// that needs more adds it. `install` makes `require('vscode')` answer the stand-in until
// `uninstall`; modules loaded meanwhile keep it. The real API is exercised by the integration tests.
import Module from 'node:module';
import * as path from 'node:path';

interface FakeWorkspace {
	isTrusted: boolean;
	/** The workspace folders, as file-system paths. */
	folders: string[];
	/** The `longhaul.` settings, without the prefix. */
	settings: Record<string, unknown>;
}

class MarkdownString {
	constructor(public value = '') {}
}

class EventEmitter<T> {
	private readonly listeners = new Set<(value: T) => void>();
	readonly event = (listener: (value: T) => void) => {
		this.listeners.add(listener);
		return { dispose: () => this.listeners.delete(listener) };
	};
	fire(value: T): void {
		for (const listener of this.listeners) listener(value);
	}
	dispose(): void {
		this.listeners.clear();
	}
}

/** The stand-in module and the state a test sets. */
export function fakeVscode(state: FakeWorkspace) {
	return {
		workspace: {
			get isTrusted() {
				return state.isTrusted;
			},
			get workspaceFolders() {
				return state.folders.map((fsPath, index) => ({ index, name: path.basename(fsPath), uri: { scheme: 'file', fsPath } }));
			},
			getConfiguration: (section: string) => ({
				get: <T>(key: string, fallback?: T): T | undefined => (section === 'longhaul' && key in state.settings ? (state.settings[key] as T) : fallback),
				// The test's settings stand for the user's own (global) values.
				inspect: (key: string) => (section === 'longhaul' && key in state.settings ? { key, globalValue: state.settings[key] } : { key }),
			}),
			asRelativePath: (fsPath: string) => {
				const root = state.folders.find(folder => fsPath === folder || fsPath.startsWith(folder + path.sep));
				return root ? path.relative(root, fsPath) : fsPath;
			},
		},
		l10n: {
			t: (message: string, ...args: unknown[]) =>
				message.replace(/\{(\d+)\}/g, (whole, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : whole)),
		},
		window: {
			showWarningMessage: () => Promise.resolve(undefined),
			showQuickPick: () => Promise.resolve(undefined),
		},
		MarkdownString,
		EventEmitter,
	};
}

type Resolve = (request: string, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: Resolve; _cache: Record<string, unknown> };
const FAKE_PATH = path.join(__dirname, '__fake_vscode__.js');

/** Makes `require('vscode')` answer `exports`; returns the function that undoes it. */
export function installFakeVscode(exports: object): () => void {
	const original = loader._resolveFilename;
	loader._resolveFilename = function (request: string, ...rest: unknown[]) {
		return request === 'vscode' ? FAKE_PATH : original.call(this, request, ...rest);
	};
	loader._cache[FAKE_PATH] = { id: FAKE_PATH, filename: FAKE_PATH, loaded: true, exports };
	return () => {
		loader._resolveFilename = original;
		delete loader._cache[FAKE_PATH];
	};
}
