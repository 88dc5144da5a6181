// The recall tool's name and input: what the model may ask for, checked with clear messages.

/** The tool's name as the model sees it (declared in package.json `languageModelTools`). */
export const RECALL_TOOL_NAME = 'longhaul_recall';

export interface RecallInput {
	/** Text (case-insensitive) or, with isRegexp, a regular expression to find in the summarized rounds. */
	readonly query?: string;
	readonly isRegexp?: boolean;
	/** Only tool calls whose tool name contains this (case-insensitive). */
	readonly tool?: string;
	/** Only tool calls whose arguments mention this path (case-insensitive). */
	readonly path?: string;
	/** Read this summarized round word for word instead of searching. */
	readonly round?: number;
	/** With `round`: go on from this character of the round's text. */
	readonly offset?: number;
	/** At most this many search hits (default {@link DEFAULT_RESULTS}, at most {@link MAX_RESULTS}). */
	readonly maxResults?: number;
}

export const DEFAULT_RESULTS = 20;
export const MAX_RESULTS = 100;
const MAX_TEXT = 1000;

/** The input as given by the model, or a message saying what is wrong with it. */
export function parseRecallInput(raw: unknown): { input: RecallInput } | { error: string } {
	if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
		return { error: 'The input must be an object such as {"query": "text"} or {"round": 12}.' };
	}
	const o = raw as Record<string, unknown>;
	const input: { -readonly [K in keyof RecallInput]: RecallInput[K] } = {};
	for (const key of ['query', 'tool', 'path'] as const) {
		const v = o[key];
		if (v === undefined || v === null) continue;
		if (typeof v !== 'string') return { error: `"${key}" must be a string.` };
		if (v.length > MAX_TEXT) return { error: `"${key}" is longer than ${MAX_TEXT} characters.` };
		if (v.trim() !== '') input[key] = v;
	}
	if (o.isRegexp !== undefined && o.isRegexp !== null) {
		if (typeof o.isRegexp !== 'boolean') return { error: '"isRegexp" must be true or false.' };
		input.isRegexp = o.isRegexp;
	}
	for (const key of ['round', 'offset', 'maxResults'] as const) {
		const v = o[key];
		if (v === undefined || v === null) continue;
		if (typeof v !== 'number' || !Number.isInteger(v) || v < (key === 'offset' ? 0 : 1)) {
			return { error: `"${key}" must be a whole number${key === 'offset' ? ' ≥ 0' : ' ≥ 1'}.` };
		}
		input[key] = key === 'maxResults' ? Math.min(v, MAX_RESULTS) : v;
	}
	if (input.offset !== undefined && input.round === undefined) return { error: '"offset" goes with "round": it continues reading that round.' };
	if (input.round !== undefined && (input.query !== undefined || input.tool !== undefined || input.path !== undefined)) {
		return { error: 'Give either "round" (to read one round) or "query"/"tool"/"path" (to search), not both.' };
	}
	if (input.isRegexp && input.query === undefined) return { error: '"isRegexp" needs a "query".' };
	return { input };
}
