// The agent's side of token calibration (src/common/tokens/calibration.ts): asks the model for its
// own count (`model.countTokens`, the provider's tokenizer) of what was actually sent, compares it
// with the local count, and keeps the per-model ratio in a store (the extension's globalState).
// Sampling runs in the background and never delays a request; counts are cached per message, so a
// sample only asks about the messages that are new since the last one.
import * as vscode from 'vscode';
import {
	UNCALIBRATED,
	calibrationRatio,
	modelKey,
	observeRejection,
	observeSample,
	readCalibrationStore,
	storeCalibration,
	type Calibration,
	type CalibrationStore,
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
			const cache = this.cacheFor(key);
			let local = 0;
			let counted = 0;
			const items: { text: string; count: () => Thenable<number>; overhead: number }[] = messages.map(m => ({
				text: messageText(m),
				count: () => model.countTokens(m, token),
				overhead: MESSAGE_OVERHEAD_TOKENS,
			}));
			if (toolDefinitions) items.push({ text: toolDefinitions, count: () => model.countTokens(toolDefinitions, token), overhead: 0 });
			for (const item of items) {
				if (token?.isCancellationRequested) return;
				const id = hash(item.text);
				let counts = cache.get(id);
				if (counts) {
					cache.delete(id); // most recently used last
				} else {
					counts = { local: countTokens(item.text) + item.overhead, model: await item.count() };
				}
				cache.set(id, counts);
				local += counts.local;
				counted += counts.model;
			}
			while (cache.size > MAX_CACHED_COUNTS) cache.delete(cache.keys().next().value as string);
			const before = this.ratio(model);
			this.update(key, observeSample(this.calibration(model), local, counted, this.now()));
			const after = this.ratio(model);
			if (Math.abs(after - before) >= 0.01) {
				log().info(`token calibration ${key}: model ${counted} vs local ${local} tokens, ratio ${before.toFixed(3)} -> ${after.toFixed(3)}`);
			}
		} catch (error) {
			if (!token?.isCancellationRequested) {
				log().info(`token calibration ${key}: countTokens failed (${error instanceof Error ? error.message : String(error)})`);
			}
		} finally {
			this.busy.delete(key);
		}
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
