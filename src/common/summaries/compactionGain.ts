// Whether a compaction is worth applying (docs/decisions.md 40). A compaction trades rounds kept
// word for word for summary blocks and, from the first summary on, the done-ledger. When those
// cost more than the rounds they replace, applying it fills the window it was meant to empty and
// still loses the rounds' exact text: the smaller form, the conversation as it was, is kept.

export interface CompactionGain {
	/** The next prompt shrinks: apply the compaction. */
	readonly apply: boolean;
	/** Tokens the next prompt loses by it (negative: it would grow). */
	readonly savedTokens: number;
}

/** The verdict on a compaction from the next prompt's size without it (`before`) and with it (`after`). */
export function compactionGain(before: number, after: number): CompactionGain {
	return { apply: after < before, savedTokens: before - after };
}
