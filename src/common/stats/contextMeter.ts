// The status bar's context meter: how full the chat's window is, in one short text, and the
// /context figures behind it in the tooltip. Pure, so the texts are tested in Node.

export interface MeterFigures {
	readonly modelName: string;
	/** The model's window, in its own tokens. */
	readonly windowTokens: number;
	/** The next prompt (messages and tool definitions) in the model's tokens. */
	readonly usedTokens: number;
	readonly summaryBlocks: number;
	readonly summaryTokens: number;
	readonly ledgerTokens: number;
	readonly instructionTokens: number;
	readonly verbatimRounds: number;
	readonly verbatimTokens: number;
	readonly toolTokens: number;
	/** Edited by the user, among the blocks. */
	readonly editedBlocks: number;
	/** Written after the user's edit and from it (decision 35), among the blocks. */
	readonly buildsOnEditBlocks: number;
	/** Rounds set aside while their summary is written (decision 43), and the tokens of what stands in for them. */
	readonly setAsideRounds: number;
	readonly setAsideTokens: number;
	/** The next prompt's messages do not fit: the next request summarizes (or sets rounds aside) first. */
	readonly overflows: boolean;
}

export type MeterActivity = 'idle' | 'working' | 'summarizing' | 'background';

/**
 * The share of the window the next prompt takes, in whole percent: the one figure the meter and
 * `/context` show (src/agent/contextFigures.ts computes both from the same numbers).
 */
export function usedShare(figures: Pick<MeterFigures, 'usedTokens' | 'windowTokens'>): number {
	return figures.windowTokens > 0 ? Math.round((100 * figures.usedTokens) / figures.windowTokens) : 0;
}

/** What the count after the share says: the summary blocks, and the rounds set aside. */
function countText(figures: MeterFigures): string {
	const blocks = `${figures.summaryBlocks} summary block${figures.summaryBlocks === 1 ? '' : 's'}`;
	return figures.setAsideRounds ? `${blocks} · ${figures.setAsideRounds} round${figures.setAsideRounds === 1 ? '' : 's'} set aside` : blocks;
}

/** The words for a next prompt larger than the window (the meter's tooltip and /context say the same). */
export const OVERFLOW_SENTENCE =
	'That is more than the window holds: the next request first summarizes older rounds (or sets them aside while their summary is written) before it sends anything.';

/**
 * When the figures may no longer be the chat on screen: a while after the last request ended, the
 * user may have opened another chat, and no stable API says so (docs/decisions.md decision 41).
 * `since` is when that request ended, as the user's clock reads (e.g. "14:05").
 */
export interface MeterStaleness {
	readonly since: string;
}

/**
 * `$(…) 52% · 2 summary blocks`, `· 4 rounds set aside` while rounds wait for their summary,
 * `107% · summarizes next` over the window, with a spinning icon while a summary is being written;
 * `last chat: 52% …` once the figures may be another chat's than the one on screen.
 */
export function meterText(figures: MeterFigures, activity: MeterActivity, stale?: MeterStaleness): string {
	const icon = activity === 'summarizing' || activity === 'background' ? '$(sync~spin)' : '$(layers)';
	const busy = activity === 'background' ? ' · summarizing in background' : activity === 'summarizing' ? ' · summarizing' : '';
	const over = figures.overflows && activity === 'idle' ? ' · summarizes next' : '';
	return `${icon} ${stale ? 'last chat: ' : ''}${usedShare(figures)}%${over} · ${countText(figures)}${busy}`;
}

/** The tooltip: the figures of /context for the chat's next prompt. */
export function meterTooltip(figures: MeterFigures, activity: MeterActivity, stale?: MeterStaleness): string {
	const n = (x: number) => x.toLocaleString('en-US');
	const rows: [string, number][] = [
		['Tool definitions', figures.toolTokens],
		['Workspace instructions', figures.instructionTokens],
		[
			`Summaries (${[
				`${figures.summaryBlocks} block${figures.summaryBlocks === 1 ? '' : 's'}`,
				...(figures.editedBlocks ? [`${figures.editedBlocks} edited by you`] : []),
				...(figures.buildsOnEditBlocks ? [`${figures.buildsOnEditBlocks} building on your edit`] : []),
			].join(', ')})`,
			figures.summaryTokens,
		],
		...(figures.setAsideRounds
			? [
					[`Set aside while their summary is written (${figures.setAsideRounds} round${figures.setAsideRounds === 1 ? '' : 's'})`, figures.setAsideTokens] as [
						string,
						number,
					],
				]
			: []),
		['Done-ledger', figures.ledgerTokens],
		[`Verbatim rounds (${figures.verbatimRounds})`, figures.verbatimTokens],
	];
	const state =
		activity === 'background'
			? 'A summary is being prepared in the background.'
			: activity === 'summarizing'
				? 'Summarizing the older rounds now.'
				: activity === 'working'
					? 'A request is running.'
					: '';
	return [
		`**Longhaul context: ${usedShare(figures)}% of ${figures.modelName}'s window** (${n(figures.usedTokens)} of ${n(figures.windowTokens)} tokens, for the next prompt of the last @longhaul chat)`,
		'',
		...(figures.overflows ? [OVERFLOW_SENTENCE, ''] : []),
		...(figures.setAsideRounds
			? [
					`${figures.setAsideRounds} older round${figures.setAsideRounds === 1 ? ' is' : 's are'} set aside while their summary is written: the agent sees one line per round in their place and did not wait. \`/context\` opens what it sees.`,
					'',
				]
			: []),
		'| Part | Tokens |',
		'| --- | ---: |',
		...rows.map(([name, tokens]) => `| ${name} | ${n(tokens)} |`),
		'',
		...(state ? [state, ''] : []),
		...(stale
			? [
					`These are the figures of the last chat with an @longhaul request, as its request at ${stale.since} left them. VS Code does not tell extensions which chat is on screen: a chat opened since shows its own figures from its first @longhaul request on.`,
					'',
				]
			: []),
		'Click for `/context`.',
	].join('\n');
}
