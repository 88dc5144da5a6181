import * as assert from 'node:assert/strict';
import { UnknownRoundError } from '../../../../src/common/summaries/applySummary';
import { applySummary } from '../../helpers/conversations';
import { deepFreeze, makeConversation } from '../../helpers/conversations';

describe('applySummary', () => {
	it('attaches the summary to a round of a past turn, sharing everything off the path to it', () => {
		const c = deepFreeze(makeConversation({ turns: [2, 3, 1], active: 2 }));
		const next = applySummary(c, 't1r1', 'S');
		assert.equal(next.turns[1].rounds[1].summary, 'S');
		assert.equal(next.turns[1].rounds[1].response, c.turns[1].rounds[1].response);
		assert.equal(next.turns[0], c.turns[0]);
		assert.equal(next.turns[2], c.turns[2]);
		assert.equal(next.turns[1].rounds[0], c.turns[1].rounds[0]);
		assert.equal(next.turns[1].user, c.turns[1].user);
		assert.equal(next.activeRounds, c.activeRounds);
	});

	it('attaches the summary to an active round, sharing the turns', () => {
		const c = deepFreeze(makeConversation({ turns: [2], active: 3 }));
		const next = applySummary(c, 'a1', 'S');
		assert.equal(next.activeRounds[1].summary, 'S');
		assert.equal(next.turns, c.turns);
		assert.equal(next.activeRounds[0], c.activeRounds[0]);
	});

	it('leaves its input untouched', () => {
		const c = makeConversation({ turns: [2], active: 2 });
		const before = JSON.stringify(c);
		applySummary(c, 't0r0', 'S');
		applySummary(c, 'a1', 'S');
		assert.equal(JSON.stringify(c), before);
	});

	it('replaces an existing summary on the same round', () => {
		const c = makeConversation({ active: 2, summaries: { a0: 'old' } });
		assert.equal(applySummary(c, 'a0', 'new').activeRounds[0].summary, 'new');
	});

	it('throws a typed error for an unknown round id', () => {
		const c = makeConversation({ turns: [2], active: 2 });
		assert.throws(
			() => applySummary(c, 'nope', 'S'),
			(e: unknown) => e instanceof UnknownRoundError && e.code === 'unknown-round' && e.roundId === 'nope',
		);
	});
});
