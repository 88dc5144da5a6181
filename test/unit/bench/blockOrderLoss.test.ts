// The replay's seed-004 probe (bench/replay/blockOrder.ts): a summary block that vanishes or is
// rewritten in place is a loss; the bridge's provisional block giving way to the summary it stood
// in for is not (the "losses" once seen on two corpus-wide sessions were this).
import * as assert from 'node:assert/strict';
import { Raw } from '@vscode/prompt-tsx';
import { blockOrderProbe } from '../../../bench/replay/blockOrder';
import type { Conversation, Round } from '../../../src/common/conversation/conversation';

const round = (i: number, summary?: string, provisional = false): Round => ({
	id: `r${i}`,
	response: `step ${i}`,
	toolCalls: [],
	...(summary !== undefined ? { summary } : {}),
	...(provisional ? { summaryProvisional: true } : {}),
});

/** The request in progress with six rounds, a block anchored on round `at` (or none). */
function conversation(at: number | undefined, summary = '', provisional = false): Conversation {
	return { turns: [], activeRounds: Array.from({ length: 6 }, (_, i) => round(i, i === at ? summary : undefined, provisional && i === at)) };
}

const messages: Raw.ChatMessage[] = [{ role: Raw.ChatRole.User, content: [{ type: Raw.ChatCompletionContentPartKind.Text, text: 'fix it' }] }];

function lostAfter(...steps: Conversation[]): number | null {
	const probe = blockOrderProbe(true);
	for (const c of steps) probe.recordRequest(c, 'fix it', messages);
	return probe.metrics().summariesLost;
}

describe('the block-order probe (seed 004): anchors and losses', () => {
	it('a real block rewritten at the same anchor, or gone, is lost', () => {
		assert.equal(lostAfter(conversation(3, 'real summary A'), conversation(3, 'another text')), 1);
		assert.equal(lostAfter(conversation(3, 'real summary A'), conversation(undefined)), 1);
	});

	it('a real block absorbed by a newer one further on is not lost', () => {
		assert.equal(lostAfter(conversation(2, 'real summary A'), conversation(4, 'A and more')), 0);
	});

	it("the bridge's provisional block giving way to the summary it stood in for (same or earlier anchor) is not lost", () => {
		assert.equal(lostAfter(conversation(3, 'set aside: index', true), conversation(3, 'the real summary')), 0);
		assert.equal(lostAfter(conversation(4, 'set aside: index', true), conversation(2, 'the real summary')), 0);
		assert.equal(lostAfter(conversation(4, 'set aside: index', true), conversation(undefined)), 0);
	});
});
