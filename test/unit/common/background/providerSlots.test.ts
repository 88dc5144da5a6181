// Does the provider run one request at a time (decision 47)? Learned from the agent's own calls
// made while a summary call ran, unless the user said so.
import * as assert from 'node:assert/strict';
import { NO_SLOT_EVIDENCE, observeAgentCall, runsOneAtATime, type SlotEvidence } from '../../../../src/common/background/providerSlots';

/** Three quiet calls whose replies begin after 2 s. */
function usual(): SlotEvidence {
	let evidence = NO_SLOT_EVIDENCE;
	for (const at of [0, 10_000, 20_000]) evidence = observeAgentCall(evidence, { sentAt: at, repliedAt: at + 2000 }, []);
	return evidence;
}

describe('whether the provider runs one request at a time (providerSlots.ts)', () => {
	it('a reply that waited behind a summary call, twice, makes a single slot; one reply beside a summary call makes it concurrent for good', () => {
		let evidence = usual();
		assert.equal(evidence.usualReplyMs, 2000);
		// The summary call ran 30 s from t=95 s; the agent's call sent at 100 s began replying at 127 s: 25 s late, 25 s were left.
		evidence = observeAgentCall(evidence, { sentAt: 100_000, repliedAt: 127_000 }, [{ startedAt: 95_000, endedAt: 125_000 }]);
		assert.equal(evidence.serial, 1);
		assert.equal(runsOneAtATime('auto', evidence), false, 'one wait may be a slow provider');
		evidence = observeAgentCall(evidence, { sentAt: 200_000, repliedAt: 222_000 }, [{ startedAt: 190_000, endedAt: 220_000 }]);
		assert.equal(runsOneAtATime('auto', evidence), true);
		// A reply that began while a summary call still ran: served at once.
		evidence = observeAgentCall(evidence, { sentAt: 300_000, repliedAt: 302_000 }, [{ startedAt: 295_000, endedAt: 320_000 }]);
		assert.equal(evidence.concurrent, 1);
		assert.equal(runsOneAtATime('auto', evidence), false);
	});

	it('a reply after the summary call ended, but on time, says nothing; the setting overrides what was learned', () => {
		const before = usual();
		// The summary call ended 1 s after the call was sent; the reply began at its usual 2 s.
		const after = observeAgentCall(before, { sentAt: 100_000, repliedAt: 102_000 }, [{ startedAt: 90_000, endedAt: 101_000 }]);
		assert.equal(after.serial, 0);
		assert.equal(after.concurrent, 0);
		// Not known yet how long replies take: a slow one proves nothing.
		const unknown = observeAgentCall(NO_SLOT_EVIDENCE, { sentAt: 0, repliedAt: 30_000 }, [{ startedAt: 0, endedAt: 29_000 }]);
		assert.deepEqual(unknown, NO_SLOT_EVIDENCE);
		assert.equal(runsOneAtATime('yes', NO_SLOT_EVIDENCE), true);
		assert.equal(runsOneAtATime('no', { ...before, serial: 5 }), false);
		assert.equal(runsOneAtATime('auto', NO_SLOT_EVIDENCE), false, 'concurrent until shown otherwise');
	});
});
