// A fingerprint of a prompt's messages as a provider receives them, message by message. A provider
// that keeps state between requests (a stateful marker: "continue from my reply to these messages")
// can only be given that marker back when everything before and including the reply is what it
// saw then; after a summary, masking or a cut, the marker would make it continue from a
// conversation Longhaul no longer sends. Both sides compute this: the agent (providerState.ts)
// and the test model that checks the markers it issued.
import { createHash, type Hash } from 'node:crypto';

export type FingerprintPart =
	| { readonly kind: 'text'; readonly text: string }
	| { readonly kind: 'call'; readonly callId: string; readonly name: string; readonly input: string }
	| { readonly kind: 'result'; readonly callId: string; readonly text: string };

export interface FingerprintMessage {
	readonly role: 'user' | 'assistant' | 'system';
	/** Every part except the provider's own data parts, in order. */
	readonly parts: readonly FingerprintPart[];
}

/** The fingerprint of messages added so far; `value()` can be read after any of them. */
export class PromptFingerprint {
	private readonly hash: Hash = createHash('sha256');

	add(message: FingerprintMessage): this {
		// JSON keeps each message's boundaries unambiguous; the newline separates messages.
		this.hash.update(JSON.stringify([message.role, message.parts.map(partKey)]) + '\n');
		return this;
	}

	value(): string {
		return this.hash.copy().digest('base64url');
	}
}

function partKey(part: FingerprintPart): readonly string[] {
	switch (part.kind) {
		case 'text':
			return ['t', part.text];
		case 'call':
			return ['c', part.callId, part.name, part.input];
		case 'result':
			return ['r', part.callId, part.text];
	}
}
