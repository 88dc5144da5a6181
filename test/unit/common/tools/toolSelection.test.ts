import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { chooseTools, isAcceptedToolName, type ToolCandidate } from '../../../../src/common/tools/toolSelection';

const tool = (name: string, tokens: number, rank: 0 | 1 | 2 = 2): ToolCandidate => ({ name, tokens, rank });

describe('chooseTools: tool definitions within a share of the window', () => {
	it('offers everything when it fits, in registry order', () => {
		const choice = chooseTools([tool('a', 10), tool('b', 20, 1), tool('c', 30)], 100);
		assert.deepEqual(choice.offered, ['a', 'b', 'c']);
		assert.deepEqual(choice.leftOut, []);
		assert.equal(choice.tokens, 60);
	});

	it('fills the budget with Longhaul-ranked tools first, then others in order', () => {
		const choice = chooseTools([tool('big', 60), tool('own1', 30, 1), tool('small', 10), tool('own2', 30, 1)], 100);
		assert.deepEqual(choice.offered, ['own1', 'small', 'own2']);
		assert.deepEqual(choice.leftOut, ['big']);
		assert.equal(choice.tokens, 70);
	});

	it('always offers tools the user attached, even over the budget', () => {
		const choice = chooseTools([tool('other', 5), tool('attached', 500, 0)], 100);
		assert.deepEqual(choice.offered, ['attached']);
		assert.deepEqual(choice.leftOut, ['other']);
	});

	it('respects the provider limit on the number of tools', () => {
		const many = Array.from({ length: 10 }, (_, i) => tool(`t${i}`, 1));
		assert.equal(chooseTools(many, 1000, 4).offered.length, 4);
	});

	it('never offers a tool whose name providers reject, even attached: it would fail every request', () => {
		const choice = chooseTools([tool('ok_name-1', 5), tool('has.dot', 5), tool('has space', 5, 0), tool('x'.repeat(65), 5)], 100);
		assert.deepEqual(choice.offered, ['ok_name-1']);
		assert.deepEqual(choice.leftOut, ['has.dot', 'has space', 'x'.repeat(65)]);
		assert.ok(isAcceptedToolName('longhaul_readFile') && isAcceptedToolName('a-b_C9'));
		assert.ok(!isAcceptedToolName('') && !isAcceptedToolName('mcp/server.tool') && !isAcceptedToolName('ü'));
	});

	it('never exceeds the budget without attached tools, and every tool is either offered or left out (property)', () => {
		fc.assert(
			fc.property(
				fc.array(fc.record({ tokens: fc.nat(300), rank: fc.constantFrom(1 as const, 2 as const) }), { maxLength: 40 }),
				fc.nat(2000),
				(specs, budget) => {
					const candidates = specs.map((s, i) => tool(`t${i}`, s.tokens, s.rank));
					const choice = chooseTools(candidates, budget);
					assert.ok(choice.tokens <= budget);
					assert.equal(choice.offered.length + choice.leftOut.length, candidates.length);
					// A left-out rank-1 tool means it alone did not fit next to the rank-1 tools before it.
					const sum = candidates.filter(c => choice.offered.includes(c.name)).reduce((n, c) => n + c.tokens, 0);
					assert.equal(sum, choice.tokens);
				},
			),
		);
	});
});
