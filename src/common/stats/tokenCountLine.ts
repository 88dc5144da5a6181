// The muted line `longhaul.showTokenCount` adds after each response.

export interface TokenCount {
	/**
	 * The last prompt sent: its messages and the tool definitions, as counted locally; with a
	 * calibration ratio, the caller gives the local count times that ratio (the model's tokens).
	 */
	readonly promptTokens: number;
	readonly windowTokens: number;
	/** Summary blocks in that prompt. */
	readonly summaryBlocks: number;
	/** Model tokens per local token, when Longhaul corrects its counts with one. */
	readonly calibrationRatio?: number;
}

export function tokenCountLine(count: TokenCount): string {
	const share = count.windowTokens > 0 ? Math.round((100 * count.promptTokens) / count.windowTokens) : 0;
	const parts = [
		`Prompt: ${count.promptTokens.toLocaleString('en-US')} of ${count.windowTokens.toLocaleString('en-US')} tokens (${share}%)`,
		`${count.summaryBlocks} summary block${count.summaryBlocks === 1 ? '' : 's'}`,
		...(count.calibrationRatio !== undefined && Number.isFinite(count.calibrationRatio) ? [`calibration ×${count.calibrationRatio.toFixed(2)}`] : []),
	];
	return `*${parts.join(' · ')}*`;
}
