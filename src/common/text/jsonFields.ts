// Reading fields of untrusted JSON, each problem named by its path (e.g. `rounds[3].toolCalls[0].id`):
// the helpers the turn records (src/common/persistence) and the done-ledger codec (src/common/ledger)
// decode with.
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
