import * as assert from 'node:assert/strict';
import { PromptFingerprint, type FingerprintMessage } from '../../../../src/common/provider/promptFingerprint';
import {
	MAX_STATE_PARTS,
	MAX_STATE_PART_BYTES,
	isProviderStateMime,
	isStateCarrier,
	keptStateParts,
	stateBytes,
	stateCarrier,
	stateToSend,
	type ProviderState,
} from '../../../../src/common/provider/providerState';

const bytes = (text: string) => new Uint8Array(Buffer.from(text));
const user = (text: string): FingerprintMessage => ({ role: 'user', parts: [{ kind: 'text', text }] });
const reply = (text: string, callId?: string): FingerprintMessage => ({
	role: 'assistant',
	parts: [{ kind: 'text', text }, ...(callId ? [{ kind: 'call' as const, callId, name: 'read', input: '{"path":"a"}' }] : [])],
});

describe('provider state: the data parts a provider attaches for itself', () => {
	it("keeps the provider's own MIME types, not media", () => {
		for (const mime of ['stateful_marker', 'phase_data', 'thinking', 'x-vendor.state+v2']) assert.ok(isProviderStateMime(mime), mime);
		for (const mime of ['image/png', 'application/json', 'text/plain', '', ' marker', 'a b']) assert.ok(!isProviderStateMime(mime), mime);
	});

	it('keeps parts in the order they came, leaves out media and parts over 16 KB, at most 8', () => {
		const kept = keptStateParts([
			{ mimeType: 'stateful_marker', data: bytes('scripted\\resp-1') },
			{ mimeType: 'image/png', data: bytes('png') },
			{ mimeType: 'phase_data', data: bytes('phase') },
			{ mimeType: 'thinking', data: new Uint8Array(MAX_STATE_PART_BYTES + 1) },
		]);
		assert.deepEqual(
			kept.parts.map(p => [p.mimeType, Buffer.from(stateBytes(p)).toString()]),
			[
				['stateful_marker', 'scripted\\resp-1'],
				['phase_data', 'phase'],
			],
		);
		assert.equal(kept.tooLarge, 1);
		const many = keptStateParts(Array.from({ length: 12 }, (_, i) => ({ mimeType: 'stateful_marker', data: bytes(`m${i}`) })));
		assert.equal(many.parts.length, MAX_STATE_PARTS);
	});

	it('is sent back only to the model that made it, and only while the prompt up to its reply is unchanged', () => {
		const state: ProviderState = { model: 'copilot/gpt', prefix: 'abc', parts: [{ mimeType: 'stateful_marker', data: 'bQ==' }] };
		assert.deepEqual(stateToSend(state, 'copilot/gpt', 'abc'), state.parts);
		assert.equal(stateToSend(state, 'copilot/claude', 'abc'), undefined);
		assert.equal(stateToSend(state, 'copilot/gpt', 'abd'), undefined);
		assert.equal(stateToSend(undefined, 'copilot/gpt', 'abc'), undefined);
	});

	it('travels through a rendered prompt as an opaque value it can recognize', () => {
		const state: ProviderState = { model: 'm', prefix: 'p', parts: [{ mimeType: 'stateful_marker', data: 'bQ==' }] };
		assert.ok(isStateCarrier(stateCarrier(state)));
		assert.equal(stateCarrier(state).state, state);
		for (const other of [undefined, null, 'x', { type: 'stateful_marker', value: 'x' }, { type: 'longhaul.providerState' }]) assert.ok(!isStateCarrier(other));
	});
});

/** The fingerprint of `messages` read at the end, from a fresh PromptFingerprint. */
function fingerprintOf(messages: readonly FingerprintMessage[]): string {
	const fingerprint = new PromptFingerprint();
	for (const message of messages) fingerprint.add(message);
	return fingerprint.value();
}

describe('prompt fingerprint', () => {
	it('is the same for the same messages, and read midway it is the fingerprint of the messages so far', () => {
		const messages = [user('hello'), reply('Step 0.', 'c0'), { role: 'user' as const, parts: [{ kind: 'result' as const, callId: 'c0', text: 'file text' }] }];
		const running = new PromptFingerprint();
		running.add(messages[0]).add(messages[1]);
		assert.equal(running.value(), fingerprintOf(messages.slice(0, 2)));
		running.add(messages[2]);
		assert.equal(running.value(), fingerprintOf(messages));
		assert.equal(fingerprintOf(messages), fingerprintOf(structuredClone(messages)));
	});

	it('changes with any part, its kind, or where one message ends', () => {
		const base = fingerprintOf([user('a'), reply('b', 'c1')]);
		const variants: FingerprintMessage[][] = [
			[user('a '), reply('b', 'c1')],
			[user('a'), reply('b', 'c2')],
			[user('a'), reply('b')],
			[{ role: 'assistant', parts: [{ kind: 'text', text: 'a' }] }, reply('b', 'c1')],
			[{ role: 'user', parts: [{ kind: 'result', callId: '', text: 'a' }] }, reply('b', 'c1')],
			[{ role: 'user', parts: [{ kind: 'text', text: 'a' }, ...reply('b', 'c1').parts] }],
		];
		for (const variant of variants) assert.notEqual(fingerprintOf(variant), base, JSON.stringify(variant));
	});
});
