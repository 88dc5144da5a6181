// The layering rules of src/ and bench/, checked on the source text: no import circles (a file
// never imports one that imports it back, directly or through others), no arrow back up between
// the topic folders of src/common/ (the folders' imports form no circle either), src/common/ stays
// pure TypeScript that knows nothing of vscode, the prompts, the agent or the tools, the benchmark
// runs no vscode code, and no module of the VS Code layer keeps state in its own variables.
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(__dirname, '../../..');
const src = join(root, 'src');
const bench = join(root, 'bench');

function sources(dir: string): string[] {
	return readdirSync(dir).flatMap(name => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(name) ? [path] : [];
	});
}

/** Every module specifier a file imports or re-exports, type-only imports included. */
function specifiers(source: string): string[] {
	// Comments may mention imports; whole-line and block comments are dropped first.
	const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
	const found: string[] = [];
	for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*['"]([^'"]+)['"]/g)) found.push(m[1]);
	for (const m of text.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) found.push(m[1]);
	for (const m of text.matchAll(/\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]);
	return found;
}

function resolveLocal(from: string, spec: string): string | undefined {
	if (!spec.startsWith('.')) return undefined;
	const base = resolve(dirname(from), spec);
	for (const candidate of [base + '.ts', base + '.tsx', join(base, 'index.ts'), join(base, 'index.tsx'), base]) {
		if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
	}
	throw new Error(`${relative(root, from)} imports ${spec}, which does not exist`);
}

const files = [...sources(src), ...sources(bench)];
const graph = new Map(files.map(file => [file, specifiers(readFileSync(file, 'utf8'))]));

/** The import graph of src/ and bench/ as edges between files. */
function importEdges(): Map<string, string[]> {
	return new Map([...graph].map(([file, specs]) => [file, specs.map(s => resolveLocal(file, s)).filter((f): f is string => f !== undefined)]));
}

/**
 * Module variables that hold mutable state: a top-level `let`/`var`, or a top-level Map, Set,
 * WeakMap or WeakSet (one typed Readonly… is a constant). Long-lived state of the VS Code layer belongs to an object created in
 * `activate` and disposed with the extension (src/agent/participant.ts Services).
 */
function moduleState(source: string): string[] {
	return source
		.split('\n')
		.filter(
			line => /^(?:export\s+)?(?:let|var)\s/.test(line) || /^(?:export\s+)?const\s+\w+\s*(?::(?!\s*Readonly)[^=]+)?=\s*new\s+(?:Weak)?(?:Map|Set)\b/.test(line),
		)
		.map(line => line.trim());
}

/** The one module variable allowed: the Longhaul output channel, made on first use for the window's life (log.ts). */
const OWNED_ELSEWHERE = new Set([join('src', 'agent', 'log.ts')]);

/** Whether `file` or anything it imports, directly or not, imports vscode. */
function reachesVscode(file: string, edges: Map<string, string[]>, seen = new Set<string>()): boolean {
	if (seen.has(file)) return false;
	seen.add(file);
	if (graph.get(file)?.includes('vscode')) return true;
	return (edges.get(file) ?? []).some(next => reachesVscode(next, edges, seen));
}

describe('architecture of src/ and bench/', () => {
	it('keeps no mutable state in module variables of src/agent and src/tools', () => {
		const offenders = [...graph.keys()]
			.filter(file => /^src\/(agent|tools)\//.test(relative(root, file)) && !OWNED_ELSEWHERE.has(relative(root, file)))
			.flatMap(file => moduleState(readFileSync(file, 'utf8')).map(line => `${relative(root, file)}: ${line}`));
		assert.deepEqual(offenders, []);
	});

	it('finds module state when there is some (the check itself works)', () => {
		assert.deepEqual(
			moduleState(
				'let counter = 0;\nconst NAMES: ReadonlySet<string> = new Set([]);\nconst seen = new Map<string, number>();\nexport const known: WeakSet<object> = new WeakSet();\nconst LIMIT = 3;\n\tlet local = 1;',
			),
			['let counter = 0;', 'const seen = new Map<string, number>();', 'export const known: WeakSet<object> = new WeakSet();'],
		);
	});

	it('has no import circles', () => {
		assert.deepEqual(
			findCircles(importEdges()).map(c => c.map(f => relative(root, f))),
			[],
		);
	});

	it('has no arrow back up between the topic folders of src/common', () => {
		const common = join(src, 'common');
		const folderOf = (file: string) => relative(common, file).split('/')[0];
		const folders = new Map<string, string[]>();
		for (const [file, targets] of importEdges()) {
			if (!file.startsWith(common + '/')) continue;
			const from = folderOf(file);
			const to = targets.filter(t => t.startsWith(common + '/') && folderOf(t) !== from).map(folderOf);
			folders.set(from, [...new Set([...(folders.get(from) ?? []), ...to])]);
		}
		assert.deepEqual(findCircles(folders), []);
	});

	it('keeps bench/ free of vscode, the agent and the tools', () => {
		const edges = importEdges();
		const offenders: string[] = [];
		for (const [file, specs] of graph) {
			if (!file.startsWith(bench + '/')) continue;
			for (const spec of specs) {
				if (spec === 'vscode' || /\/src\/agent\//.test(spec)) offenders.push(`${relative(root, file)} → ${spec}`);
				// The sandbox's cost benchmark times the command runner itself: it may import a tools file
				// only when nothing that file reaches imports vscode (it runs in plain Node).
				if (/\/src\/tools\//.test(spec) && !(file.startsWith(join(bench, 'sandbox') + '/') && !reachesVscode(resolveLocal(file, spec)!, edges))) {
					offenders.push(`${relative(root, file)} → ${spec}`);
				}
			}
		}
		assert.deepEqual(offenders, []);
	});

	it('finds a circle when there is one (the check itself works)', () => {
		assert.deepEqual(
			findCircles(
				new Map([
					['a', ['b']],
					['b', ['c']],
					['c', ['a']],
					['d', ['a']],
				]),
			).map(c => c.sort()),
			[['a', 'b', 'c']],
		);
		assert.deepEqual(findCircles(new Map([['self', ['self']]])), [['self']]);
		assert.deepEqual(
			findCircles(
				new Map([
					['a', ['b']],
					['b', []],
				]),
			),
			[],
		);
	});

	it('keeps src/common free of vscode and of the layers above it', () => {
		const offenders: string[] = [];
		for (const [file, specs] of graph) {
			if (!file.startsWith(join(src, 'common') + '/')) continue;
			for (const spec of specs) {
				const target = resolveLocal(file, spec);
				if (spec === 'vscode' || (target && !target.startsWith(join(src, 'common') + '/'))) offenders.push(`${relative(root, file)} → ${spec}`);
			}
		}
		assert.deepEqual(offenders, []);
	});

	it('keeps src/prompts free of vscode and of the agent and tools', () => {
		const offenders: string[] = [];
		for (const [file, specs] of graph) {
			if (!file.startsWith(join(src, 'prompts') + '/')) continue;
			for (const spec of specs) {
				if (spec === 'vscode' || /\/(agent|tools)\//.test(spec)) offenders.push(`${relative(root, file)} → ${spec}`);
			}
		}
		assert.deepEqual(offenders, []);
	});
});

/** Strongly connected components with more than one member, or a member that imports itself (Tarjan). */
function findCircles(edges: Map<string, string[]>): string[][] {
	const found: string[][] = [];
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	let next = 0;
	const visit = (node: string) => {
		index.set(node, next);
		low.set(node, next++);
		stack.push(node);
		onStack.add(node);
		for (const to of edges.get(node) ?? []) {
			if (!index.has(to)) {
				visit(to);
				low.set(node, Math.min(low.get(node)!, low.get(to)!));
			} else if (onStack.has(to)) {
				low.set(node, Math.min(low.get(node)!, index.get(to)!));
			}
		}
		if (low.get(node) === index.get(node)) {
			const component: string[] = [];
			let member: string;
			do {
				member = stack.pop()!;
				onStack.delete(member);
				component.push(member);
			} while (member !== node);
			if (component.length > 1 || (edges.get(node) ?? []).includes(node)) found.push(component);
		}
	};
	for (const node of edges.keys()) if (!index.has(node)) visit(node);
	return found;
}
