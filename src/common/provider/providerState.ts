// Provider state: the data parts a provider attaches to a reply for its own use (GitHub Copilot's
// `stateful_marker`, which lets it continue the model's reasoning and reuse its cache), kept with
// the round of that reply and sent back with it, in the order they came. Never shown to the user,
// never counted as text, never summarized: a summarized round takes its state with it.
//
// State goes back only to the model that produced it, and only while the prompt up to and
// including its reply is what that model saw (promptFingerprint.ts); otherwise the provider would
// continue from a conversation Longhaul no longer sends (GitHub Copilot drops a marker older than
// its own summaries for the same reason).
/** One data part as stored: its MIME type and its bytes in base64. */
export interface ProviderDataPart {
	readonly mimeType: string;
	readonly data: string;
}

export interface ProviderState {
	/** `vendor/id` of the model that produced it (calibration.ts modelKey). */
	readonly model: string;
	/** The fingerprint of the prompt it answered, followed by the reply itself. */
	readonly prefix: string;
	readonly parts: readonly ProviderDataPart[];
}

/** A part larger than this is not kept (a marker is a short id; a cut one would be invalid). */
export const MAX_STATE_PART_BYTES = 16_384;
export const MAX_STATE_PARTS = 8;

/**
 * Provider state comes as MIME types of the provider's own making ("stateful_marker", "phase_data",
 * "thinking"); a real media type (image/png, application/json, text/plain) is content, not state.
 */
export function isProviderStateMime(mimeType: string): boolean {
	return /^[A-Za-z0-9][\w.+-]*$/.test(mimeType) && !mimeType.includes('/');
}

/** The parts of a reply worth keeping, in order, as stored; with the count of those left out for their size. */
export function keptStateParts(parts: readonly { readonly mimeType: string; readonly data: Uint8Array }[]): {
	parts: ProviderDataPart[];
	tooLarge: number;
} {
	const kept: ProviderDataPart[] = [];
	let tooLarge = 0;
	for (const part of parts) {
		if (!isProviderStateMime(part.mimeType)) continue;
		if (part.data.byteLength > MAX_STATE_PART_BYTES) {
			tooLarge++;
			continue;
		}
		if (kept.length < MAX_STATE_PARTS) kept.push({ mimeType: part.mimeType, data: Buffer.from(part.data).toString('base64') });
	}
	return { parts: kept, tooLarge };
}

export function stateBytes(part: ProviderDataPart): Uint8Array {
	return new Uint8Array(Buffer.from(part.data, 'base64'));
}

/** The state to send back with a round, or undefined when it belongs to another model or another prompt. */
export function stateToSend(state: ProviderState | undefined, model: string, prefix: string): readonly ProviderDataPart[] | undefined {
	return state && state.model === model && state.prefix === prefix && state.parts.length ? state.parts : undefined;
}

/** How a round's state travels through a rendered prompt: as the value of a prompt-tsx opaque part. */
export interface ProviderStateCarrier {
	readonly type: 'longhaul.providerState';
	readonly state: ProviderState;
}

export function stateCarrier(state: ProviderState): ProviderStateCarrier {
	return { type: 'longhaul.providerState', state };
}

export function isStateCarrier(value: unknown): value is ProviderStateCarrier {
	return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'longhaul.providerState' && 'state' in value;
}
