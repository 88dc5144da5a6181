// Reading a stored done-ledger from untrusted JSON (the chat metadata). All or nothing: a ledger
// with any bad field is reported and not used, so the agent rebuilds it from the stored rounds
// rather than trusting half of it. Lists and texts longer than any ledger the agent builds
// (LEDGER_LIST_MAX entries, LEDGER_TEXT_MAX characters) are refused the same way, before any
// entry is looked at, so a crafted history cannot make decoding or rendering slow. Never throws.
import { LEDGER_LIST_MAX, LEDGER_TEXT_MAX, type DoneLedger, type LedgerCall, type LedgerCommand, type LedgerEdit, type LedgerRead } from './doneLedger';
import { describeType, isObject, join, type DecodeIssue } from '../text/jsonFields';

type Check = (value: unknown) => boolean;
const isString: Check = v => typeof v === 'string';
const isCount: Check = v => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isBoolean: Check = v => typeof v === 'boolean';

const FIELDS = {
	read: { path: isString, count: isCount, last: isCount, round: isString },
	edit: { path: isString, count: isCount, failed: isCount, created: isBoolean, last: isCount, round: isString },
	command: { command: isString, count: isCount, outcome: isString, failed: isBoolean, last: isCount, round: isString },
	call: { tool: isString, digest: isString, count: isCount, last: isCount, round: isString },
	plan: { tool: isString, text: isString, round: isString },
} as const;

const EXPECTED = new Map<Check, string>([
	[isString, 'a string'],
	[isCount, 'a whole number ≥ 0'],
	[isBoolean, 'a boolean'],
]);

/** The first problem of an object against its field checks, or undefined. Extra fields are ignored. */
function objectProblem(value: unknown, fields: Record<string, Check>, path: string): DecodeIssue | undefined {
	if (!isObject(value)) return { kind: 'wrong-type', path, message: `expected an object, got ${describeType(value)}` };
	for (const [key, check] of Object.entries(fields)) {
		const v = value[key];
		if (v === undefined) return { kind: 'missing-field', path: join(path, key), message: `missing (expected ${EXPECTED.get(check)})` };
		if (!check(v)) return { kind: 'wrong-type', path: join(path, key), message: `expected ${EXPECTED.get(check)}, got ${describeType(v)}` };
		if (typeof v === 'string' && v.length > LEDGER_TEXT_MAX) return textTooLong(join(path, key), v.length);
	}
	return undefined;
}

function tooLong(path: string, length: number): DecodeIssue {
	return { kind: 'too-large', path, message: `${length} entries, more than the ${LEDGER_LIST_MAX} a ledger may hold` };
}

function textTooLong(path: string, length: number): DecodeIssue {
	return { kind: 'too-large', path, message: `${length} characters, more than the ${LEDGER_TEXT_MAX} a ledger text may have` };
}

function pick<T>(value: unknown, fields: Record<string, Check>): T {
	const o = value as Record<string, unknown>;
	return Object.fromEntries(Object.keys(fields).map(k => [k, o[k]])) as T;
}

/**
 * The ledger stored at `path`, or undefined with one issue naming the first bad field
 * (e.g. `doneLedger.edits[2].count`). Only the known fields are kept.
 */
export function decodeDoneLedger(raw: unknown, path: string): { ledger?: DoneLedger; issue?: DecodeIssue } {
	if (!isObject(raw)) return { issue: { kind: 'wrong-type', path, message: `expected a done ledger (an object), got ${describeType(raw)}` } };
	const requests = raw.requests;
	if (!Array.isArray(requests)) {
		return {
			issue: {
				kind: requests === undefined ? 'missing-field' : 'wrong-type',
				path: join(path, 'requests'),
				message: `expected an array, got ${describeType(requests)}`,
			},
		};
	}
	if (requests.length > LEDGER_LIST_MAX) return { issue: tooLong(join(path, 'requests'), requests.length) };
	const badRequest = requests.findIndex(r => typeof r !== 'string');
	if (badRequest !== -1) {
		return {
			issue: { kind: 'wrong-type', path: join(join(path, 'requests'), badRequest), message: `expected a string, got ${describeType(requests[badRequest])}` },
		};
	}
	const longRequest = requests.findIndex(r => (r as string).length > LEDGER_TEXT_MAX);
	if (longRequest !== -1) return { issue: textTooLong(join(join(path, 'requests'), longRequest), (requests[longRequest] as string).length) };
	if (!isCount(raw.steps)) {
		return {
			issue: {
				kind: raw.steps === undefined ? 'missing-field' : 'wrong-type',
				path: join(path, 'steps'),
				message: `expected a whole number ≥ 0, got ${describeType(raw.steps)}`,
			},
		};
	}

	const lists = { reads: FIELDS.read, edits: FIELDS.edit, commands: FIELDS.command, searches: FIELDS.call, others: FIELDS.call } as const;
	const decoded: Record<string, unknown[]> = {};
	for (const [key, fields] of Object.entries(lists)) {
		const list = raw[key];
		const listPath = join(path, key);
		if (!Array.isArray(list)) {
			return { issue: { kind: list === undefined ? 'missing-field' : 'wrong-type', path: listPath, message: `expected an array, got ${describeType(list)}` } };
		}
		if (list.length > LEDGER_LIST_MAX) return { issue: tooLong(listPath, list.length) };
		for (let i = 0; i < list.length; i++) {
			const issue = objectProblem(list[i], fields, join(listPath, i));
			if (issue) return { issue };
		}
		decoded[key] = list.map(entry => pick(entry, fields));
	}
	let plan: DoneLedger['plan'];
	if (raw.plan !== undefined && raw.plan !== null) {
		const issue = objectProblem(raw.plan, FIELDS.plan, join(path, 'plan'));
		if (issue) return { issue };
		plan = pick(raw.plan, FIELDS.plan);
	}
	return {
		ledger: {
			requests: requests as string[],
			reads: decoded.reads as LedgerRead[],
			edits: decoded.edits as LedgerEdit[],
			commands: decoded.commands as LedgerCommand[],
			searches: decoded.searches as LedgerCall[],
			others: decoded.others as LedgerCall[],
			...(plan ? { plan } : {}),
			steps: raw.steps as number,
		},
	};
}
