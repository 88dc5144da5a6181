import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { conversationFromSessionJson, SessionFormatError } from '../../../../src/common/persistence/corpusFormat';
import { flattenRounds } from '../../../../src/common/conversation/flatten';

const root = resolve(__dirname, '../../../../..');
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(root, 'test/fixtures/conversations', name), 'utf8'));

function formatError(raw: unknown): SessionFormatError {
	try {
		conversationFromSessionJson(raw);
	} catch (error) {
		assert.ok(error instanceof SessionFormatError, `expected SessionFormatError, got ${error}`);
		return error;
	}
	assert.fail('expected the input to be rejected');
}

const call = { id: 'c', name: 'n', arguments: '{}', result: 'r' };

describe('session files (corpus shape) → Conversation', () => {
	it('reads turns, rounds, thinking and the optional active rounds; gives default ids t<turn>r<round> and a<round>', () => {
		const c = conversationFromSessionJson(fixture('two-turns.json'));
		assert.deepEqual(
			flattenRounds(c).map(f => f.round.id),
			['t0r0', 't0r1', 't0r2', 't1r0', 't1r1', 'a0'],
		);
		assert.equal(c.turns[1].user, 'Fix it and run the tests.');
		assert.equal(c.turns[1].rounds[0].thinking, 'Allow a single element.');
		assert.deepEqual(c.turns[0].rounds[0].toolCalls[0], { id: 'c1', name: 'readFile', arguments: '{"path":"parser.c"}', result: 'static int tuple(...)' });
	});

	it('keeps explicit ids and summaries, turn flags, and treats resultMissing as a call without result', () => {
		const c = conversationFromSessionJson(fixture('summarized-and-interrupted.json'));
		assert.equal(c.turns[0].maxToolCallsExceeded, true);
		assert.equal(c.turns[0].rounds[1].summary, 'The lexer in lexer.c was read; tokens are an enum.');
		assert.equal(c.turns[0].rounds[3].toolCalls[0].result, undefined);
		assert.deepEqual(
			c.activeRounds.map(r => r.id),
			['go-1', 'go-2'],
		);
	});

	it('ignores other fields (source, license, system, userKind, ...) and accepts null for optional ones', () => {
		const c = conversationFromSessionJson({
			source: 's',
			system: 'x',
			turns: [{ user: 'u', userKind: 'harness', rounds: [{ response: 'r', thinking: null, toolCalls: [{ ...call, result: null }] }] }],
			activeRounds: null,
		});
		assert.equal(c.turns[0].rounds[0].thinking, undefined);
		assert.equal(c.turns[0].rounds[0].toolCalls[0].result, undefined);
		assert.deepEqual(c.activeRounds, []);
	});

	it('invalid input: the error names the field', () => {
		const cases: [unknown, string][] = [
			[[], '(top level): expected a session (an object), got an array'],
			[{}, 'turns: missing (expected an array)'],
			[{ turns: [{ rounds: [] }] }, 'turns[0].user: missing (expected a string)'],
			[{ turns: [{ user: 'u', rounds: {} }] }, 'turns[0].rounds: expected an array, got an object'],
			[
				{ turns: [{ user: 'u', rounds: [{ response: 'r', toolCalls: [call, { ...call, name: 3 }] }] }] },
				'turns[0].rounds[0].toolCalls[1].name: expected a string, got a number',
			],
			[{ turns: [], activeRounds: [{ response: 'r' }] }, 'activeRounds[0].toolCalls: missing (expected an array)'],
			[{ turns: [{ user: 'u', cancelled: 'no', rounds: [] }] }, 'turns[0].cancelled: expected a boolean, got a string'],
			[
				{
					turns: [
						{
							user: 'u',
							rounds: [
								{ id: 'x', response: '', toolCalls: [] },
								{ id: 'x', response: '', toolCalls: [] },
							],
						},
					],
				},
				'turns[0].rounds[1].id: duplicate round id "x"',
			],
		];
		for (const [raw, message] of cases) {
			assert.equal(formatError(raw).message, message);
		}
		assert.equal(formatError(fixture('invalid-call-id.json')).issue.path, 'turns[0].rounds[0].toolCalls[0].id');
	});

	it('never fails with anything but SessionFormatError (fast-check)', () => {
		fc.assert(
			fc.property(fc.jsonValue(), raw => {
				for (const input of [raw, { turns: raw }, { turns: [{ user: 'u', rounds: raw }] }, { turns: [], activeRounds: [raw] }]) {
					try {
						conversationFromSessionJson(input);
					} catch (error) {
						if (!(error instanceof SessionFormatError)) throw error;
					}
				}
			}),
			{ numRuns: 300 },
		);
	});

	const corpus = resolve(root, '../shared/corpus');
	(existsSync(corpus) ? it : it.skip)('reads every session of the shared corpus', () => {
		const files = readdirSync(corpus).filter(f => f.endsWith('.json'));
		assert.ok(files.length > 0);
		for (const file of files) {
			const c = conversationFromSessionJson(JSON.parse(readFileSync(join(corpus, file), 'utf8')));
			assert.ok(flattenRounds(c).length > 0, file);
		}
	});
});
