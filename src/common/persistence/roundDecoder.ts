// Reading rounds and tool calls from untrusted JSON, shared by the chat metadata reader
// (lenient: skip the bad part, report it) and the session-file reader (strict: the first
// problem is an error). Each problem names the field by its path, e.g. `rounds[3].toolCalls[0].id`.
import type { Round, ToolCall } from '../conversation/conversation';
import { MAX_STATE_PART_BYTES, MAX_STATE_PARTS, isProviderStateMime, type ProviderDataPart, type ProviderState } from '../provider/providerState';

export type DecodeIssueKind = 'unknown-version' | 'missing-field' | 'wrong-type' | 'duplicate-id' | 'unknown-round' | 'too-large';

export interface DecodeIssue {
	readonly kind: DecodeIssueKind;
	/** Where the problem is, e.g. `rounds[3].toolCalls[0].id`. */
	readonly path: string;
	/** What is wrong, without the path (see {@link formatIssue}). */
	readonly message: string;
}

/** `path: message`, the form shown to people. */
export function formatIssue(issue: DecodeIssue): string {
	return `${issue.path || '(top level)'}: ${issue.message}`;
}

export type JsonObject = { readonly [key: string]: unknown };

export function isObject(value: unknown): value is JsonObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function describeType(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	const type = typeof value;
	return type === 'object' ? 'an object' : `a ${type}`;
}

export function join(path: string, key: string | number): string {
	if (typeof key === 'number') return `${path}[${key}]`;
	return path ? `${path}.${key}` : key;
}

/** Collects issues while reading fields of one object. */
export class FieldReader {
	constructor(
		private readonly issues: DecodeIssue[],
		private readonly obj: JsonObject,
		private readonly path: string,
	) {}

	private problem(kind: DecodeIssueKind, key: string, message: string): undefined {
		this.issues.push({ kind, path: join(this.path, key), message });
		return undefined;
	}

	private typed<T>(key: string, required: boolean, expected: string, ok: (v: unknown) => v is T): T | undefined {
		const value = this.obj[key];
		// null counts as absent for optional fields: JSON writers often emit it for "none".
		if (value === undefined || (value === null && !required)) {
			return required ? this.problem('missing-field', key, `missing (expected ${expected})`) : undefined;
		}
		return ok(value) ? value : this.problem('wrong-type', key, `expected ${expected}, got ${describeType(value)}`);
	}

	string(key: string): string | undefined {
		return this.typed(key, true, 'a string', isString);
	}
	optionalString(key: string): string | undefined {
		return this.typed(key, false, 'a string', isString);
	}
	optionalBoolean(key: string): boolean | undefined {
		return this.typed(key, false, 'a boolean', isBoolean);
	}
	array(key: string): readonly unknown[] | undefined {
		return this.typed(key, true, 'an array', Array.isArray);
	}
	optionalArray(key: string): readonly unknown[] | undefined {
		return this.typed(key, false, 'an array', Array.isArray);
	}
	has(key: string): boolean {
		return this.obj[key] !== undefined && this.obj[key] !== null;
	}
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';

/** Pushes a wrong-type issue when `value` is not an object; returns a reader for it otherwise. */
export function readObject(issues: DecodeIssue[], value: unknown, path: string, what: string): FieldReader | undefined {
	if (!isObject(value)) {
		issues.push({ kind: 'wrong-type', path, message: `expected ${what} (an object), got ${describeType(value)}` });
		return undefined;
	}
	return new FieldReader(issues, value, path);
}

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
