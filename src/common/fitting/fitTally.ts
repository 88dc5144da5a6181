// The one count of what the overflow pipeline did, kept by the agent (per request, stored in the
// turn's metadata) and by the replay benchmark (per replay). Both read the same FitEvents through
// tallyFit, so a step counted in one is counted the same way in the other.
import type { FitEvent } from './fitPrompt';
import { isTruncation, truncatedAfterFailedSummary } from './refusal';
import { condensePasses } from '../summaries/summarizationFlow';

export interface FitTally {
	/** Summaries attached (from the model or prepared in the background). */
	summarizations: number;
	/** Of those, summaries the model wrote during the overflow (not prepared earlier). */
	modelSummarizations: number;
	/** Summaries whose every attempt failed. */
	failedSummaries: number;
	/** Condense passes of the summaries attached or failed. */
	condensePasses: number;
	/** Older summary blocks condensed to keep all blocks within the summary budget. */
	condensedBlocks: number;
	/** Of those, blocks a background job had condensed ahead (no model call at the overflow). */
	condensedAhead: number;
	/** Of those, blocks the model shortened (at the overflow or ahead); the rest were cut to their first lines. */
	condensedByModel: number;
	/** Summaries that made more than one block (they spanned turns). */
	multiTurnSummarizations: number;
	/** Summaries whose split the token-aware rule moved. */
	splitMovedSummarizations: number;
	/** Tokens of the rounds each summary's plan kept verbatim, when known. */
	readonly keptTokens: number[];
	/** Masking steps, the results they masked (of which older duplicates) and the tokens freed. */
	readonly masking: { maskings: number; maskedResults: number; maskedDuplicates: number; freedTokens: number; declined: number };
	elidedResults: number;
	/** Tool results the bridge elided while a summary was prepared (FitOptions.bridge). */
	bridgedResults: number;
	/** Rounds dropped without a summary (the last step of truncation). */
	droppedRounds: number;
	/** Fits where the loop breaker stopped model summaries for the rest of the request. */
	requestLoopBreaks: number;
	/** Fits that ended in truncation (results elided, rounds dropped or the newest round cut). */
	truncations: number;
	/** Of those, fits where the model's summary had failed first. */
	truncationsAfterFailedSummary: number;
}

export function newFitTally(): FitTally {
	return {
		summarizations: 0,
		modelSummarizations: 0,
		failedSummaries: 0,
		condensePasses: 0,
		condensedBlocks: 0,
		condensedAhead: 0,
		condensedByModel: 0,
		multiTurnSummarizations: 0,
		splitMovedSummarizations: 0,
		keptTokens: [],
		masking: { maskings: 0, maskedResults: 0, maskedDuplicates: 0, freedTokens: 0, declined: 0 },
		elidedResults: 0,
		bridgedResults: 0,
		droppedRounds: 0,
		requestLoopBreaks: 0,
		truncations: 0,
		truncationsAfterFailedSummary: 0,
	};
}

/** Adds the events of one run of the pipeline (one FitResult) to `tally`. */
export function tallyFit(tally: FitTally, events: readonly FitEvent[]): void {
	for (const event of events) tallyEvent(tally, event);
	if (events.some(isTruncation)) tally.truncations++;
	if (truncatedAfterFailedSummary(events)) tally.truncationsAfterFailedSummary++;
}

function tallyEvent(tally: FitTally, event: FitEvent): void {
	switch (event.kind) {
		case 'summarized': {
			const { plan, blocks, attempts } = event.prepared;
			tally.summarizations++;
			tally.condensePasses += condensePasses(attempts);
			if (event.source === 'model') tally.modelSummarizations++;
			if (blocks.length > 1) tally.multiTurnSummarizations++;
			if (plan.stats.tokenAware?.moved) tally.splitMovedSummarizations++;
			if (plan.stats.tokens) tally.keptTokens.push(plan.stats.tokens.kept);
			break;
		}
		case 'summary-failed':
			tally.failedSummaries++;
			tally.condensePasses += condensePasses(event.prepared.attempts);
			break;
		case 'masked':
			tally.masking.maskings++;
			tally.masking.maskedResults += event.maskedCalls;
			tally.masking.maskedDuplicates += event.duplicateCalls;
			tally.masking.freedTokens += event.freedTokens;
			break;
		case 'mask-declined':
			tally.masking.declined++;
			break;
		case 'condensed':
			tally.condensedBlocks += event.blocks.length;
			tally.condensedAhead += event.ahead;
			tally.condensedByModel += event.blocks.filter(b => b.by === 'model').length;
			break;
		case 'elided':
			tally.elidedResults += event.calls;
			break;
		case 'bridged':
			tally.bridgedResults += event.calls;
			break;
		case 'dropped':
			tally.droppedRounds += event.plan.summarizeRoundIds.length;
			break;
		case 'loop-breaker':
			if (event.scope === 'request') tally.requestLoopBreaks++;
			break;
		default:
			break;
	}
}
