// Longhaul's settings from a configuration that answers `get(key, fallback)` for the keys of the
// `longhaul.` section (VS Code's WorkspaceConfiguration in the extension, src/agent/settings.ts; a
// plain object in the unit tests, which check that every key read here is one package.json
// declares). No vscode import.
import type { SummarizationMode } from '../planning/plan';
import { MIN_RECENT_ROUNDS } from '../planning/halfContextPlanner';
import { DEFAULT_THRESHOLD_PERCENT, thresholdFor } from './thresholdByModel';
import type { OneAtATimeSetting } from '../background/providerSlots';

/** Longhaul's settings, read fresh on every request so a change takes effect without a reload. */
export interface LonghaulSettings {
	readonly summarizationMode: SummarizationMode;
	readonly maxToolCallsPerRequest: number;
	/** Render the done ledger after the summaries. */
	readonly doneLedger: boolean;
	/** Mask old tool results before asking the model for a summary. */
	readonly maskOldToolResults: boolean;
	/** Share of the message budget (0..1) past which the summary is prepared in the background, for the request's model; 0 is off. */
	readonly backgroundSummarizationThreshold: number;
	/** Ask the model for a summary when the prompt overflows; off: mask and truncate only (`/compact` still summarizes). */
	readonly autoSummarize: boolean;
	/** One muted line after each response with the prompt's size against the window. */
	readonly showTokenCount: boolean;
	/** The fewest rounds half-context keeps verbatim (at least {@link MIN_RECENT_ROUNDS}). */
	readonly minRecentRounds: number;
	/** Instruction files to pin besides AGENTS.md and .github/copilot-instructions.md, relative to each workspace folder. */
	readonly instructionFiles: readonly string[];
	/** `longhaul.summarizerModel` as written: a model selector, a model id or family, or null (summarizerModel.ts). */
	readonly summarizerModel: unknown;
	/** Whether the provider serves one request at a time: auto learns it (providerSlots.ts). */
	readonly providerRunsOneRequestAtATime: OneAtATimeSetting;
}

/** The part of a configuration the reader uses: the value of `key` (without `longhaul.`), or `fallback` when it is not set. */
export interface SettingsSource {
	get<T>(key: string, fallback: T): T;
}

/** The settings for a request to `model` (the background threshold may be set per model family). */
export function settingsFrom(config: SettingsSource, model: { readonly family: string; readonly id: string }): LonghaulSettings {
	return {
		summarizationMode: config.get<boolean>('halfContextSummarization', false) ? 'half-context' : 'legacy',
		maxToolCallsPerRequest: Math.max(1, Math.floor(config.get<number>('maxToolCallsPerRequest', 200))),
		doneLedger: config.get<boolean>('doneLedger', true),
		maskOldToolResults: config.get<boolean>('maskOldToolResults', false),
		backgroundSummarizationThreshold: thresholdFor(config.get<unknown>('backgroundSummarizationThreshold', DEFAULT_THRESHOLD_PERCENT), model),
		autoSummarize: config.get<boolean>('autoSummarize', true) !== false,
		showTokenCount: config.get<boolean>('showTokenCount', false) === true,
		minRecentRounds: minRecentRoundsOf(config.get<number>('minRecentRounds', MIN_RECENT_ROUNDS)),
		instructionFiles: stringsOf(config.get<unknown>('instructionFiles', [])),
		summarizerModel: config.get<unknown>('summarizerModel', null),
		providerRunsOneRequestAtATime: oneAtATimeOf(config.get<unknown>('providerRunsOneRequestAtATime', 'auto')),
	};
}

/** The non-empty strings of a list (a hand-edited settings.json may hold anything). */
function stringsOf(value: unknown): string[] {
	return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map(v => v.trim()) : [];
}

/** Anything but yes or no is auto. */
function oneAtATimeOf(value: unknown): OneAtATimeSetting {
	return value === 'yes' || value === 'no' ? value : 'auto';
}

/** A hand-edited settings.json may hold anything: not a number, a fraction, below the floor. */
function minRecentRoundsOf(value: unknown): number {
	return typeof value === 'number' && Number.isFinite(value) ? Math.max(MIN_RECENT_ROUNDS, Math.floor(value)) : MIN_RECENT_ROUNDS;
}
