import * as assert from 'node:assert/strict';
import type { Conversation, Round } from '../../../../src/common/conversation/conversation';
import { cutArguments } from '../../../../src/common/shrinking/cutArguments';
import { cutNewestResults, MIN_KEPT_TOKENS } from '../../../../src/common/shrinking/cutNewestResults';
import { elisionMarker } from '../../../../src/common/conversation/toolResultPlaceholders';

const count = (text: string) => text.length;
const call = (id: string, result: string | undefined) => ({ id, name: 'read', arguments: '{}', ...(result === undefined ? {} : { result }) });

function newest(...results: (string | undefined)[]): Conversation {
	const older: Round = { id: 'old', response: 'older', toolCalls: [call('o', 'o'.repeat(5_000))] };
	return { turns: [], activeRounds: [older, { id: 'new', response: 'newest', toolCalls: results.map((r, i) => call(`n${i}`, r)) }] };
}

describe('cutNewestResults: the newest round, cut instead of refused', () => {
	it('cuts the longest result first, only as much as needed, and leaves older rounds alone', () => {
		const cut = cutNewestResults(newest('a'.repeat(1_000), 'b'.repeat(4_000)), 1_500, count)!;
		assert.equal(cut.cutCalls, 1);
		assert.ok(cut.freedTokens >= 1_500, `freed ${cut.freedTokens}`);
		const [older, latest] = cut.conversation.activeRounds;
		assert.equal(older.toolCalls[0].result, 'o'.repeat(5_000));
		assert.equal(latest.toolCalls[0].result, 'a'.repeat(1_000), 'the shorter result is untouched');
		const b = latest.toolCalls[1].result!;
		assert.ok(b.startsWith('bbb') && b.endsWith('bbb') && b.length < 4_000 - 1_400, `head and tail kept, ${b.length} characters`);
		assert.deepEqual(
			latest.toolCalls.map(c => c.id),
			['n0', 'n1'],
			'every call keeps its id and a result',
		);
	});

	it('goes on to the next result when one cannot give enough, never below the floor', () => {
		const cut = cutNewestResults(newest('a'.repeat(2_000), 'b'.repeat(2_000)), 3_000, count)!;
		assert.equal(cut.cutCalls, 2);
		for (const c of cut.conversation.activeRounds[1].toolCalls) assert.ok(c.result!.length >= MIN_KEPT_TOKENS * 0.9, `${c.id}: ${c.result!.length}`);
	});

	it('gives up when nothing in the newest round can be cut: short results, placeholders, calls without a result', () => {
		assert.equal(cutNewestResults(newest('short', elisionMarker(call('x', 'y'.repeat(3_000)), 3_000), undefined), 100, count), undefined);
	});

	it('cuts the arguments of a call that wrote a whole file when the results are not enough; the JSON stays the same object', () => {
		const body = 'def f():\n    return 1\n'.repeat(400);
		const write = { id: 'w', name: 'run', arguments: JSON.stringify({ command: `cat > big.py <<EOF\n${body}EOF`, timeoutSeconds: 30 }), result: 'ok' };
		const conversation: Conversation = { turns: [], activeRounds: [{ id: 'new', response: 'writing', toolCalls: [write] }] };
		const cut = cutNewestResults(conversation, 5_000, count)!;
		assert.equal(cut.cutCalls, 0, 'a two-character result is not worth cutting');
		assert.equal(cut.cutArguments, 1);
		assert.ok(cut.freedTokens >= 5_000, `freed ${cut.freedTokens}`);
		const args = JSON.parse(cut.conversation.activeRounds[0].toolCalls[0].arguments) as { command: string; timeoutSeconds: number };
		assert.equal(args.timeoutSeconds, 30, 'other values are kept');
		assert.ok(args.command.startsWith('cat > big.py <<EOF') && args.command.endsWith('EOF'), 'head and tail of the command kept');
		assert.match(args.command, /characters truncated/);
		assert.equal(cut.conversation.activeRounds[0].toolCalls[0].result, 'ok');
	});

	it('leaves arguments that are not JSON alone, and says so by cutting nothing', () => {
		const odd = { id: 'w', name: 'run', arguments: 'x'.repeat(8_000), result: 'ok' };
		assert.equal(cutNewestResults({ turns: [], activeRounds: [{ id: 'new', response: '', toolCalls: [odd] }] }, 2_000, count), undefined);
	});
});

describe("cutArguments: a call's JSON arguments cut to a size", () => {
	it('cuts the longest text values first, in nested objects and arrays, never below the floor', () => {
		const args = JSON.stringify({ path: 'a.py', edits: [{ old: 'o'.repeat(3_000), new: 'n'.repeat(6_000) }], note: 's'.repeat(100) });
		const cut = cutArguments(args, 4_000, 256, count)!;
		const value = JSON.parse(cut) as { path: string; edits: { old: string; new: string }[]; note: string };
		assert.ok(cut.length <= 4_200, `${cut.length} characters`);
		assert.equal(value.path, 'a.py');
		assert.equal(value.note, 's'.repeat(100), 'short values stay');
		assert.ok(value.edits[0].new.length < 6_000 && value.edits[0].new.length >= 256 * 0.9);
		assert.ok(value.edits[0].new.startsWith('nnn') && value.edits[0].new.endsWith('nnn'));
	});

	it('returns undefined for text that is not a JSON object or array, and for arguments already small', () => {
		assert.equal(cutArguments('"just a string"', 5, 1, count), undefined);
		assert.equal(cutArguments('{"a": 1}', 1, 1, count), undefined);
		assert.equal(cutArguments(JSON.stringify({ a: 'x'.repeat(100) }), 10_000, 1, count), undefined);
	});
});
