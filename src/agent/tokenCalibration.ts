// The agent's side of token calibration (src/common/tokens/calibration.ts): asks the model for its
// own count (`model.countTokens`, the provider's tokenizer) of what was actually sent, compares it
// with the local count, and keeps the per-model ratio in a store (the extension's globalState).
// Sampling runs in the background and never delays a request; counts are cached per message, so a
// sample only asks about the messages that are new since the last one. Before its first sample of
// a model, it probes how the model's message count works, and counts as strings the messages the
// model would not count whole (calibration.ts judgeMessageCounting).
import * as vscode from 'vscode';
import {
	UNCALIBRATED,
	calibrationRatio,
	countAsText,
	isUncounted,
	judgeMessageCounting,
	modelKey,
	observeRejection,
	observeSample,
	readCalibrationStore,
	storeCalibration,
	withSampleRecord,
	type Calibration,
	type CalibrationStore,
	type MessageCounting,
	type Rejection,
} from '../common/tokens/calibration';
import { MESSAGE_OVERHEAD_TOKENS } from '../common/tokens/tokenizer';
import { countTokens } from '../common/tokens/tokenizer';
import { log } from './log';

/** Where the ratios are kept (vscode.Memento has this shape). */
export interface KeyValueStore {
	get<T>(key: string): T | undefined;
	update(key: string, value: unknown): Thenable<void>;
}

export const STORE_KEY = 'longhaul.tokenCalibration';
/** Message counts remembered per model (most recent first out). */
const MAX_CACHED_COUNTS = 4_000;

type CountingModel = Pick<vscode.LanguageModelChat, 'vendor' | 'id' | 'countTokens'>;

/** The probe's text: prose and a little code, some 150 tokens, so the three counts are far from rounding. */
const PROBE_TEXT = [
	'Longhaul asks how this model counts a message, once per session, so that its token budget learns',
	'from what the model really counts. The same text is counted as a string, as a message, and as a',
	'tool result; a count far below the others means that part is left out of message counts.',
	'function probe(text) {',
	'\treturn text.split("\\n").map(line => line.trim()).filter(Boolean).length;',
	'}',
	'The result decides how later comparisons are made; it is shown by /context.',
].join('\n');

interface SampleItem {
	readonly key: string;
	readonly text: string;
	readonly count: () => Thenable<number>;
	readonly overhead: number;
}

interface Counts {
	readonly local: number;
	readonly model: number;
}

/** FNV-1a: a cache key for a message without keeping its text alive twice. */
function hash(text: string): string {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return `${(h >>> 0).toString(36)}:${text.length}`;
}

/** The text a message carries, as the local count sees it (the same parts toVsCodeMessages builds). */
export function messageText(message: vscode.LanguageModelChatMessage): string {
	const pieces: string[] = [];
	for (const part of message.content) {
		if (part instanceof vscode.LanguageModelTextPart) pieces.push(part.value);
		else if (part instanceof vscode.LanguageModelToolCallPart) pieces.push(part.name, JSON.stringify(part.input));
		else if (part instanceof vscode.LanguageModelToolResultPart) {
			for (const inner of part.content) if (inner instanceof vscode.LanguageModelTextPart) pieces.push(inner.value);
		}
	}
	return pieces.join('\n');
}

export class TokenCalibration {
	private store: CalibrationStore;
	private readonly counts = new Map<string, Map<string, Counts>>();
	private readonly busy = new Set<string>();
	/** This session's probe of each model's message count (the provider may change between sessions). */
	private readonly counting = new Map<string, MessageCounting | undefined>();

	constructor(
		private readonly backing: KeyValueStore | undefined,
		private readonly now: () => number = Date.now,
	) {
		this.store = readCalibrationStore(backing?.get(STORE_KEY));
	}

	calibration(model: Pick<vscode.LanguageModelChat, 'vendor' | 'id'>): Calibration {
		return this.store[modelKey(model)] ?? UNCALIBRATED;
	}

	/** Model tokens per local token for `model` (1 until something was learned). */
	ratio(model: Pick<vscode.LanguageModelChat, 'vendor' | 'id'>): number {
		return calibrationRatio(this.calibration(model));
	}

	/**
	 * Compares the model's count of `messages` (and of the tool definitions sent with them) with the
	 * local count, in the background. At most one sample per model at a time; a failure is logged and
	 * changes nothing. Resolves when done (tests wait for it; the agent does not).
	 */
	async sample(
		model: CountingModel,
		messages: readonly vscode.LanguageModelChatMessage[],
		toolDefinitions: string,
		token?: vscode.CancellationToken,
	): Promise<void> {
		const key = modelKey(model);
		if (this.busy.has(key)) return;
		this.busy.add(key);
		try {
			const counting = await this.messageCounting(model, key, token);
			const items = sampleItems(model, messages, counting, token);
			if (toolDefinitions) {
				items.push({ key: `s:${hash(toolDefinitions)}`, text: toolDefinitions, count: () => model.countTokens(toolDefinitions, token), overhead: 0 });
			}
			const totals = await this.countItems(key, items, token);
			if (!totals) return;
			const before = this.ratio(model);
			const sampled = observeSample(this.calibration(model), totals.local, totals.model, this.now());
			this.update(
				key,
				withSampleRecord(sampled, counting, {
					localTokens: totals.local,
					modelTokens: totals.model,
					messages: messages.length,
					asText: items.filter(i => i.key.startsWith('s:')).length - (toolDefinitions ? 1 : 0),
					uncounted: totals.uncounted,
					toolDefinitions: toolDefinitions !== '',
				}),
			);
			const after = this.ratio(model);
			if (Math.abs(after - before) >= 0.01) {
				log().info(`token calibration ${key}: model ${totals.model} vs local ${totals.local} tokens, ratio ${before.toFixed(3)} -> ${after.toFixed(3)}`);
			}
		} catch (error) {
			if (!token?.isCancellationRequested) {
				log().info(`token calibration ${key}: countTokens failed (${error instanceof Error ? error.message : String(error)})`);
			}
		} finally {
			this.busy.delete(key);
		}
	}

	/** Sums of the local and the model's counts of `items` (cached per item); undefined if cancelled. */
	private async countItems(
		key: string,
		items: readonly SampleItem[],
		token: vscode.CancellationToken | undefined,
	): Promise<{ local: number; model: number; uncounted: number } | undefined> {
		const cache = this.cacheFor(key);
		let local = 0;
		let counted = 0;
		let uncounted = 0;
		for (const item of items) {
			if (token?.isCancellationRequested) return undefined;
			let counts = cache.get(item.key);
			if (counts) {
				cache.delete(item.key); // most recently used last
			} else {
				counts = { local: countTokens(item.text) + item.overhead, model: await item.count() };
			}
			cache.set(item.key, counts);
			if (isUncounted(counts.local, counts.model)) {
				uncounted++;
				continue;
			}
			local += counts.local;
			counted += counts.model;
		}
		while (cache.size > MAX_CACHED_COUNTS) cache.delete(cache.keys().next().value as string);
		return { local, model: counted, uncounted };
	}

	/** How the model counts messages: probed once per model and session (three countTokens calls). */
	private async messageCounting(model: CountingModel, key: string, token: vscode.CancellationToken | undefined): Promise<MessageCounting | undefined> {
		if (this.counting.has(key)) return this.counting.get(key);
		// A provider that cannot count a message at all is one whose message count leaves it out.
		const orNothing = async (count: Thenable<number>) => {
			try {
				return await count;
			} catch {
				return 0;
			}
		};
		const string = await model.countTokens(PROBE_TEXT, token);
		const textMessage = await orNothing(model.countTokens(vscode.LanguageModelChatMessage.User(PROBE_TEXT), token));
		const resultMessage = await orNothing(
			model.countTokens(
				vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart('longhaul-probe', [new vscode.LanguageModelTextPart(PROBE_TEXT)])]),
				token,
			),
		);
		if (token?.isCancellationRequested) return undefined; // judged next time
		const counting = judgeMessageCounting({ string, textMessage, resultMessage });
		this.counting.set(key, counting);
		if (counting !== 'whole') {
			log().info(
				`token calibration ${key}: the model's message count ${counting === 'text-only' ? 'leaves tool results out' : counting === 'none' ? 'leaves message text out' : 'could not be judged'} (probe: string ${string}, text message ${textMessage}, tool result message ${resultMessage}); those messages are compared as strings`,
			);
		}
		return counting;
	}

	/** A "prompt too long" from the provider: the ratio tightens by what it says (calibration.ts observeRejection). */
	rejected(model: Pick<vscode.LanguageModelChat, 'vendor' | 'id' | 'maxInputTokens'>, rejection: Rejection, localTokens: number): number {
		const key = modelKey(model);
		const before = this.ratio(model);
		this.update(key, observeRejection(this.calibration(model), rejection, localTokens, model.maxInputTokens, this.now()));
		const after = this.ratio(model);
		log().info(
			`token calibration ${key}: rejected at ${localTokens} local tokens (provider ${rejection.promptTokens ?? '?'} > ${rejection.limit ?? '?'}), ratio ${before.toFixed(3)} -> ${after.toFixed(3)}`,
		);
		return after;
	}

	/** Forgets every model's ratio and the cached counts (the store too). */
	async forget(): Promise<void> {
		this.store = {};
		this.counts.clear();
		this.counting.clear();
		await this.backing?.update(STORE_KEY, undefined);
	}

	private cacheFor(key: string): Map<string, Counts> {
		let cache = this.counts.get(key);
		if (!cache) {
			cache = new Map();
			this.counts.set(key, cache);
		}
		return cache;
	}

	private update(key: string, calibration: Calibration): void {
		this.store = storeCalibration(this.store, key, calibration);
		this.backing?.update(STORE_KEY, this.store).then(undefined, error => log().info(`token calibration: could not store (${String(error)})`));
	}
}

/** What a sample compares for each message: the message itself where the model counts it whole, its text as a string elsewhere. */
function sampleItems(
	model: CountingModel,
	messages: readonly vscode.LanguageModelChatMessage[],
	counting: MessageCounting | undefined,
	token: vscode.CancellationToken | undefined,
): SampleItem[] {
	return messages.map(m => {
		const text = messageText(m);
		const hasResults = m.content.some(part => part instanceof vscode.LanguageModelToolResultPart);
		return countAsText(counting, hasResults)
			? { key: `s:${hash(text)}`, text, count: () => model.countTokens(text, token), overhead: 0 }
			: { key: `m${m.role}:${hash(text)}`, text, count: () => model.countTokens(m, token), overhead: MESSAGE_OVERHEAD_TOKENS };
	});
}
