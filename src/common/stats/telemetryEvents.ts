// The statistics Longhaul reports through VS Code's telemetry API (docs/decisions.md decision 21, docs/telemetry.md), declared as data:
// docs/telemetry.md is checked against these declarations by a unit test, and every event is
// checked against them before it leaves. Properties only take values from a closed list and
// measurements are numbers, so no code, prompt, path or tool output can ever be part of an event.

export interface PropertyField {
	readonly kind: 'property';
	/** Every value the property can take. */
	readonly values: readonly string[];
	/** What it holds and why it is collected (the spirit of VS Code's GDPR annotations). */
	readonly comment: string;
}

export interface MeasurementField {
	readonly kind: 'measurement';
	readonly comment: string;
}

export type FieldDeclaration = PropertyField | MeasurementField;

export interface EventDeclaration {
	readonly comment: string;
	readonly fields: Readonly<Record<string, FieldDeclaration>>;
}

const property = (values: readonly string[], comment: string): PropertyField => ({ kind: 'property', values, comment });
const measurement = (comment: string): MeasurementField => ({ kind: 'measurement', comment });

export const SUMMARY_ATTEMPT_OUTCOMES = [
	'ok',
	'prompt-too-large',
	'model-error',
	'empty',
	'cut-off',
	'summary-too-large',
	'not-a-summary',
	'not-tried',
] as const;

export const TELEMETRY_EVENTS = {
	summarization: {
		comment: 'One per summarization Longhaul asked the model for: at an overflow, by /compact, or prepared in the background.',
		fields: {
			trigger: property(
				['overflow', 'command', 'background'],
				'What started it: the prompt did not fit, the user ran /compact, or it was prepared in the background (started by the forecast, at the latest at the background threshold).',
			),
			outcome: property(
				['summarized', 'failed', 'discarded'],
				'Whether a summary was attached, every attempt failed, a summary prepared in the background no longer fitted the conversation, or the summary of /compact would not have made the next prompt smaller.',
			),
			mode: property(['half-context', 'legacy'], 'The planner that chose the split (legacy also when half-context fell back to it).'),
			requestedMode: property(['half-context', 'legacy'], 'The planner the setting asked for, to count fallbacks.'),
			fallbackReason: property(['none', 'not-enough-rounds', 'interrupted-turn'], 'Why half-context fell back to the legacy rule, if it did.'),
			narrowed: property(['true', 'false'], 'The summarizer could not take every planned round and summarized only the oldest part.'),
			continuation: property(['true', 'false'], 'The summary ends in a past turn, so the request in progress follows it as a continuation.'),
			splitInsideTurn: property(['true', 'false'], 'The split fell inside a past turn rather than at a turn boundary.'),
			fullAttempt: property(SUMMARY_ATTEMPT_OUTCOMES, 'How the Full summarizer prompt ended (its own reply, before any condense pass).'),
			simpleAttempt: property(
				SUMMARY_ATTEMPT_OUTCOMES,
				'How the Simple summarizer prompt (the fallback of Full) ended (its own reply, before any condense pass).',
			),
			totalRounds: measurement('Unsummarized rounds the planner looked at.'),
			summarizedRounds: measurement('Rounds the summary absorbed.'),
			keptRounds: measurement('Rounds kept verbatim.'),
			plannedRounds: measurement('Rounds the planner first chose to summarize (more than summarizedRounds when narrowed).'),
			minRecentRounds: measurement('The longhaul.minRecentRounds setting at the time.'),
			tokensBefore: measurement('Tokens of the previous summary and the rounds in the split, before.'),
			tokensAfter: measurement('Tokens of the new summary and the kept rounds, after (0 when no summary was attached).'),
			summaryTokens: measurement('Tokens of the summary the model wrote (0 when none was accepted).'),
			condensePasses: measurement(
				'Summaries that came back longer than the cap and were sent back to the same model to be shortened (one condense pass each).',
			),
			durationMs: measurement('Time from planning to the last summarizer reply, in milliseconds.'),
			windowTokens: measurement("The model's context window in tokens (its own maxInputTokens, whatever the token ratio), to compare sizes across models."),
			summarizerModel: property(
				['request', 'setting', 'fallback'],
				"Which model wrote the summary: the request's own, the one longhaul.summarizerModel picks, or the request's own because that one was not available.",
			),
		},
	},
	fallback: {
		comment: 'One per step Longhaul took to make a prompt fit without a model summary.',
		fields: {
			step: property(
				[
					'mask-tool-results',
					'shorten-past-requests',
					'tighten-ledger',
					'elide-tool-results',
					'bridge',
					'drop-rounds',
					'cut-newest-results',
					'leave-out-ledger',
					'refuse',
				],
				"What it did: replaced old tool results with placeholders (before summarizing, or instead of it), shortened every past request whose work is summarized, kept the done-ledger within its base size (past requests for the rest of the request, the ledger until the next summary), removed old tool results, set the oldest tool results aside while a summary was prepared in the background (the bridge), dropped older rounds with a note, cut the newest round's longest results or arguments further, left the done-ledger out, or refused the request as too large.",
			),
			why: property(
				['cheap-first', 'summary-under-way', 'auto-summarize-off', 'summary-failed', 'loop-breaker', 'summaries-not-enough', 'nothing-to-summarize'],
				'Why no model summary was used: masking comes first by setting, a summary is being prepared in the background, longhaul.autoSummarize is off, every summarizer attempt failed, the loop breaker stopped model summaries, the summaries made in this render did not make enough room, or there was nothing the planner could summarize.',
			),
			items: measurement(
				'Tool results replaced or removed, rounds dropped, or calls whose result or arguments were cut, by this step (0 for the other steps).',
			),
			freedTokens: measurement('Tokens the step freed, as counted locally (0 when unknown).'),
			promptTokens: measurement('Tokens the whole prompt needed before the step.'),
			windowTokens: measurement("The model's context window in tokens (its own maxInputTokens)."),
		},
	},
} as const satisfies Readonly<Record<string, EventDeclaration>>;

export type TelemetryEventName = keyof typeof TELEMETRY_EVENTS;

type FieldsOf<N extends TelemetryEventName> = (typeof TELEMETRY_EVENTS)[N]['fields'];
/** The data of one event: every declared field, typed by its declaration. */
export type EventData<N extends TelemetryEventName> = {
	readonly [K in keyof FieldsOf<N>]: FieldsOf<N>[K] extends { readonly kind: 'property'; readonly values: readonly (infer V)[] } ? V : number;
};

export interface TelemetryEvent<N extends TelemetryEventName = TelemetryEventName> {
	readonly name: N;
	readonly data: Readonly<Record<string, string | number>>;
}

/** Raised when code tries to send something its declaration does not allow: a bug, never user data. */
export class TelemetryDeclarationError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'TelemetryDeclarationError';
	}
}

/**
 * The event, after checking each field against its declaration: every declared field present, no
 * other field, properties from their list, measurements finite numbers (rounded to whole numbers,
 * durations included). Throws {@link TelemetryDeclarationError} otherwise.
 */
export function telemetryEvent<N extends TelemetryEventName>(name: N, data: EventData<N>): TelemetryEvent<N> {
	const declaration: EventDeclaration = TELEMETRY_EVENTS[name];
	const given = data as Readonly<Record<string, unknown>>;
	const checked: Record<string, string | number> = {};
	for (const key of Object.keys(given)) {
		if (!(key in declaration.fields)) throw new TelemetryDeclarationError(`${name}: field ${key} is not declared`);
	}
	for (const [key, field] of Object.entries(declaration.fields)) {
		const value = given[key];
		if (field.kind === 'property') {
			if (typeof value !== 'string' || !field.values.includes(value)) {
				throw new TelemetryDeclarationError(`${name}.${key}: ${String(value)} is not one of its values`);
			}
			checked[key] = value;
		} else {
			if (typeof value !== 'number' || !Number.isFinite(value)) throw new TelemetryDeclarationError(`${name}.${key}: ${String(value)} is not a finite number`);
			checked[key] = Math.round(value);
		}
	}
	return { name, data: checked };
}
