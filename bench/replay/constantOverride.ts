// The sweep's hook on the product's constants (`npm run bench -- --sweep summaryShare=0.05,0.1`):
// a constant chosen from a curve is a module-level `const NAME = number` in src/; a worker thread
// that replays with another value rewrites that one declaration as Node compiles the module, before
// anything reads it. No src/ change, and the product keeps its constants constant: the hook only
// runs in the benchmark's worker threads, and a value that did not take is an error, not a silent
// run with the old one.
import Module from 'node:module';
import { sep } from 'node:path';

/** The constants a sweep may move: where each is declared (the module, as built under out/) and its name. */
export const SWEEPABLE = {
	/** What summaries may hold, each and all together (decision 44). */
	summaryShare: { module: 'src/common/tokens/budget', name: 'SUMMARY_SHARE' },
	/** The room the bridge sets aside beyond what the overflow needs. */
	setAsideMargin: { module: 'src/common/fitting/fitPrompt', name: 'SET_ASIDE_MARGIN_SHARE' },
	/** The room old tool results are elided for beyond what the overflow needs. */
	elisionMargin: { module: 'src/common/fitting/fitPrompt', name: 'ELISION_MARGIN_SHARE' },
	/** The earliest share of the budget a forecast may start a background summary at. */
	earliestShare: { module: 'src/common/background/startRule', name: 'EARLIEST_SHARE' },
	/** The share of the message budget the done-ledger aims at. */
	ledgerShare: { module: 'src/common/ledger/doneLedgerRender', name: 'LEDGER_TARGET_SHARE' },
	/** longhaul.backgroundSummarizationThreshold's default as the replay uses it: the latest share to start at. */
	backgroundThreshold: { module: 'bench/replay/replayCompactor', name: 'LATEST_SHARE' },
} as const;
export type SweepableName = keyof typeof SWEEPABLE;

export type ConstantOverrides = Partial<Record<SweepableName, number>>;

const declaration = (name: string) => new RegExp(`\\b(const ${name} = )(-?[0-9.]+(?:e-?[0-9]+)?)(;)`);

/** Installs the overrides for every module compiled from now on (a worker thread, before it loads the replay). */
export function installOverrides(overrides: ConstantOverrides): void {
	const wanted = Object.entries(overrides) as [SweepableName, number][];
	if (!wanted.length) return;
	const moduleInternals = Module as unknown as { prototype: { _compile(content: string, filename: string): unknown } };
	const compile = moduleInternals.prototype._compile;
	moduleInternals.prototype._compile = function (content: string, filename: string) {
		for (const [key, value] of wanted) {
			const { module, name } = SWEEPABLE[key];
			if (!filename.endsWith(`${module.split('/').join(sep)}.js`)) continue;
			const pattern = declaration(name);
			if (!pattern.test(content)) throw new Error(`--sweep ${key}: no "const ${name} = <number>;" in ${filename}`);
			content = content.replace(pattern, `$1${value}$3`);
		}
		return compile.call(this, content, filename);
	};
}
