// The one-line texts that stand in for a tool result Longhaul took out of the prompt, and how to
// recognise them. Each says which call it was, how large its output was, and how to get it back.
import type { Round, ToolCall } from './conversation';

/** Last-resort elision (elideToolResults.ts), when no summary could make the prompt fit. */
export const ELIDED_PREFIX = '[tool result removed to fit the context window';
/** Observation masking (maskToolResults.ts), before any summary is asked for. */
export const MASKED_PREFIX = '[output of ';

const ARGUMENT_DIGEST_MAX_CHARS = 80;
/** Argument keys that usually name what a call looked at, shown first in a digest. */
const PRIMARY_ARGUMENT_KEYS = ['path', 'filePath', 'file', 'uri', 'url', 'command', 'cmd', 'query', 'pattern', 'glob', 'include'];
/** A masking placeholder: `[output of <call> elided (<n> tokens)<; or :> …]` on one line. */
const MASKED_PATTERN = /^\[output of [^\n]* elided \([\d,]+ tokens\)[;:][^\n]*\]$/;

/** Every run of whitespace (line breaks included) as one space: placeholders are one line. */
function oneLine(text: string): string {
	return text.replace(/\s+/g, ' ').trim();
}

function capChars(text: string, max: number): string {
	return text.length <= max ? text : text.slice(0, max - 1).trimEnd() + '…';
}

/**
 * A short, one-line description of a call's arguments: the value of a path-, command- or
 * query-like argument first, then the other scalar arguments as `key=value`. Arguments that are
 * not a JSON object are shown as their collapsed text. At most 80 characters.
 */
export function argumentDigest(argumentsText: string): string {
	let parsed: unknown;
	try {
		parsed = JSON.parse(argumentsText);
	} catch {
		parsed = undefined;
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		return capChars(oneLine(argumentsText), ARGUMENT_DIGEST_MAX_CHARS);
	}
	const record = parsed as Record<string, unknown>;
	const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
	const primary = PRIMARY_ARGUMENT_KEYS.filter(k => scalar(record[k]));
	const others = Object.keys(record).filter(k => !primary.includes(k) && scalar(record[k]));
	const parts = [...primary.map(k => String(record[k])), ...others.map(k => `${k}=${String(record[k])}`)];
	return capChars(oneLine(parts.join(' ')), ARGUMENT_DIGEST_MAX_CHARS);
}

/** `read_file src/a.ts`: the tool's name and, when there is one, the digest of its arguments. */
export function describeCall(call: Pick<ToolCall, 'name' | 'arguments'>): string {
	const digest = argumentDigest(call.arguments);
	return oneLine(digest ? `${call.name} ${digest}` : call.name);
}

/** 3412 → "3,412". */
export function formatCount(n: number): string {
	return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function elisionMarker(call: Pick<ToolCall, 'name' | 'arguments'>, tokens: number): string {
	return `${ELIDED_PREFIX}: ${describeCall(call)} returned about ${tokens} tokens; run it again if you need it]`;
}

/** `[output of read_file src/a.ts elided (3,412 tokens); call the tool again if you need it]` */
export function maskedPlaceholder(call: Pick<ToolCall, 'name' | 'arguments'>, tokens: number): string {
	return `${MASKED_PREFIX}${describeCall(call)} elided (${formatCount(tokens)} tokens); call the tool again if you need it]`;
}

/** For an older exact duplicate: points at the newer call (by id) whose identical output the prompt shows. */
export function duplicatePlaceholder(call: Pick<ToolCall, 'name' | 'arguments'>, tokens: number, newerCallId: string): string {
	return `${MASKED_PREFIX}${describeCall(call)} elided (${formatCount(tokens)} tokens): identical to the output of the later call ${oneLine(newerCallId)}; call the tool again if you need it]`;
}

export function isMaskedResult(result: string): boolean {
	return MASKED_PATTERN.test(result);
}

/** True for any placeholder Longhaul wrote: such a result is never masked or elided again. */
export function isPlaceholderResult(result: string): boolean {
	return result.startsWith(ELIDED_PREFIX) || isMaskedResult(result);
}

/** A call whose result was elided to fit the window, with its recorded answer back in place (any other call unchanged). */
export function withElidedRestored(call: ToolCall): ToolCall {
	if (call.recorded === undefined || call.result === undefined || !call.result.startsWith(ELIDED_PREFIX)) return call;
	const { recorded, ...rest } = call;
	return { ...rest, result: recorded };
}

/** The round with every elided result back as recorded; the round itself when none was elided. */
export function withElidedRoundRestored(round: Round): Round {
	return round.toolCalls.some(c => withElidedRestored(c) !== c) ? { ...round, toolCalls: round.toolCalls.map(withElidedRestored) } : round;
}
