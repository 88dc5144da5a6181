// What Longhaul remembers of each chat between its requests, for as long as the window lives (a
// reload forgets it, as it forgets the background summary under way): the rounds the last request
// left set aside while their summary is written (never stored, decision 43, yet what the next prompt
// starts from as long as that summary is under way), and whether the chat was told its summarizer
// model is missing. A chat is named by its first round (round ids are unique).
import type { Conversation } from '../common/conversation/conversation';
import { setAsideRoundIds, withSetAside } from '../common/fitting/setAside';

/** At most this many chats are remembered; the oldest are forgotten first. */
const MAX_CHATS = 100;

/** Names a chat by its first round; undefined for a chat with no round yet. */
export function chatKey(conversation: Conversation): string | undefined {
	return (conversation.turns.find(t => t.rounds.length > 0)?.rounds[0] ?? conversation.activeRounds[0])?.id;
}

export class ChatMemory {
	private readonly setAside = new Map<string, readonly string[]>();
	private readonly toldFallback = new Set<string>();

	/** Notes what `conversation` (a request's, as it ends) holds set aside. */
	noteSetAside(conversation: Conversation): void {
		const key = chatKey(conversation);
		if (key === undefined) return;
		this.setAside.delete(key);
		const ids = setAsideRoundIds(conversation);
		if (ids.length) this.setAside.set(key, ids);
		while (this.setAside.size > MAX_CHATS) this.setAside.delete(this.setAside.keys().next().value!);
	}

	/** `conversation` as the user should read it: with the rounds its last request left set aside shown so (when it has no provisional block of its own). */
	asLeft(conversation: Conversation): Conversation {
		const key = chatKey(conversation);
		const ids = key === undefined ? undefined : this.setAside.get(key);
		return ids ? withSetAside(conversation, ids) : conversation;
	}

	/** True the first time it is asked for a chat (undefined: a chat with no round yet, never told). */
	firstFallbackNotice(conversation: Conversation): boolean {
		const key = chatKey(conversation);
		if (key === undefined || this.toldFallback.has(key)) return false;
		this.toldFallback.add(key);
		return true;
	}
}
