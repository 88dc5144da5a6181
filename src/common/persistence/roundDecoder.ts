// Reading rounds and tool calls from untrusted JSON, shared by the chat metadata reader
// (lenient: skip the bad part, report it) and the session-file reader (strict: the first
// problem is an error). Each problem names the field by its path, e.g. `rounds[3].toolCalls[0].id`.
import type { Round, ToolCall } from '../conversation/conversation';
import { isObject, join, readObject, type DecodeIssue, type JsonObject } from '../text/jsonFields';
import { MAX_STATE_PART_BYTES, MAX_STATE_PARTS, isProviderStateMime, type ProviderDataPart, type ProviderState } from '../provider/providerState';

/**
 * A tool call, or undefined (with an issue) when it is unusable. A call without `result`
 * (or with `resultMissing: true`, as in the session corpus) never got an answer.
 */
export function decodeToolCall(issues: DecodeIssue[], raw: unknown, path: string): ToolCall | undefined {
	const r = readObject(issues, raw, path, 'a tool call');
	if (!r) return undefined;
	const before = issues.length;
	const id = r.string('id');
	const name = r.string('name');
	const args = r.string('arguments');
	const result = r.optionalString('result');
	const resultMissing = r.optionalBoolean('resultMissing');
	const recorded = r.optionalString('recorded');
	if (issues.length > before) return undefined;
	if (resultMissing || result === undefined) return { id: id!, name: name!, arguments: args! };
	return recorded === undefined ? { id: id!, name: name!, arguments: args!, result } : { id: id!, name: name!, arguments: args!, result, recorded };
}

/**
 * A round, or undefined (with an issue) when the round itself is unusable. A bad tool call is
 * reported and left out; the rest of the round is kept. `defaultId` is used when `id` is absent.
 */
export function decodeRound(issues: DecodeIssue[], raw: unknown, path: string, defaultId?: string): Round | undefined {
	const r = readObject(issues, raw, path, 'a round');
	if (!r) return undefined;
	const before = issues.length;
	const id = defaultId !== undefined && !r.has('id') ? defaultId : r.string('id');
	const response = r.string('response');
	const thinking = r.optionalString('thinking');
	const summary = r.optionalString('summary');
	const rawCalls = r.array('toolCalls');
	if (issues.length > before) return undefined;
	// Bad provider state is reported and left out; the round is kept without it.
	const providerState = r.has('providerState') ? decodeProviderState(issues, (raw as JsonObject).providerState, join(path, 'providerState')) : undefined;

	const toolCalls: ToolCall[] = [];
	rawCalls!.forEach((rawCall, i) => {
		const call = decodeToolCall(issues, rawCall, join(join(path, 'toolCalls'), i));
		if (call) toolCalls.push(call);
	});
	return {
		id: id!,
		response: response!,
		...(thinking !== undefined ? { thinking } : {}),
		toolCalls,
		...(providerState ? { providerState } : {}),
		...(summary !== undefined ? { summary } : {}),
	};
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Stored provider state read back: a malformed part is reported and left out, and so is state with no part left. */
export function decodeProviderState(issues: DecodeIssue[], raw: unknown, path: string): ProviderState | undefined {
	const r = readObject(issues, raw, path, 'provider state');
	if (!r) return undefined;
	const before = issues.length;
	const model = r.string('model');
	const prefix = r.string('prefix');
	const rawParts = r.array('parts');
	if (issues.length > before) return undefined;
	const parts: ProviderDataPart[] = [];
	rawParts!.forEach((rawPart, i) => {
		const mimeType = isObject(rawPart) ? rawPart.mimeType : undefined;
		const data = isObject(rawPart) ? rawPart.data : undefined;
		const fits = typeof data === 'string' && data.length <= Math.ceil(MAX_STATE_PART_BYTES / 3) * 4;
		if (typeof mimeType === 'string' && isProviderStateMime(mimeType) && typeof data === 'string' && BASE64.test(data) && fits) {
			if (parts.length < MAX_STATE_PARTS) parts.push({ mimeType, data });
		} else {
			issues.push({
				kind: 'wrong-type',
				path: join(join(path, 'parts'), i),
				message: 'expected { mimeType, data } with a provider MIME type and base64 data of at most 16 KB; part left out',
			});
		}
	});
	return parts.length ? { model: model!, prefix: prefix!, parts } : undefined;
}
