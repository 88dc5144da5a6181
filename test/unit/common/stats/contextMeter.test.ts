import * as assert from 'node:assert/strict';
import { meterText, meterTooltip, type MeterFigures } from '../../../../src/common/stats/contextMeter';

const figures: MeterFigures = {
	modelName: 'GPT-4o',
	windowTokens: 16_000,
	usedTokens: 8_320,
	summaryBlocks: 2,
	summaryTokens: 1_200,
	ledgerTokens: 300,
	instructionTokens: 150,
	verbatimRounds: 12,
	verbatimTokens: 4_000,
	toolTokens: 2_000,
	editedBlocks: 1,
	buildsOnEditBlocks: 0,
	setAsideRounds: 0,
	setAsideTokens: 0,
	overflows: false,
};

describe('context meter', () => {
	it('shows the share of the window and the summary blocks, spinning while summarizing', () => {
		assert.equal(meterText(figures, 'idle'), '$(layers) 52% · 2 summary blocks');
		assert.equal(meterText({ ...figures, summaryBlocks: 1 }, 'working'), '$(layers) 52% · 1 summary block');
		assert.equal(meterText(figures, 'summarizing'), '$(sync~spin) 52% · 2 summary blocks · summarizing');
		assert.equal(meterText(figures, 'background'), '$(sync~spin) 52% · 2 summary blocks · summarizing in background');
		assert.equal(meterText({ ...figures, windowTokens: 0 }, 'idle'), '$(layers) 0% · 2 summary blocks');
	});

	it('says when rounds are set aside, and that a prompt over the window is summarized first', () => {
		const aside = { ...figures, setAsideRounds: 4, setAsideTokens: 120 };
		assert.equal(meterText(aside, 'idle'), '$(layers) 52% · 2 summary blocks · 4 rounds set aside');
		assert.match(meterTooltip(aside, 'idle'), /\| Set aside while their summary is written \(4 rounds\) \| 120 \|/);
		assert.match(
			meterTooltip(aside, 'idle'),
			/4 older rounds are set aside while their summary is written: the agent sees one line per round in their place and did not wait/,
		);
		const over = { ...figures, usedTokens: 17_168, overflows: true };
		assert.equal(meterText(over, 'idle'), '$(layers) 107% · summarizes next · 2 summary blocks');
		assert.match(meterTooltip(over, 'idle'), /more than the window holds: the next request first summarizes older rounds/);
	});

	it('gives the /context figures in the tooltip', () => {
		const tooltip = meterTooltip(figures, 'background');
		assert.match(tooltip, /52% of GPT-4o's window\*\* \(8,320 of 16,000 tokens/);
		assert.match(tooltip, /\| Summaries \(2 blocks, 1 edited by you\) \| 1,200 \|/);
		// A block written from an edited one says so too (decision 35), as /context does.
		assert.match(
			meterTooltip({ ...figures, summaryBlocks: 3, buildsOnEditBlocks: 1 }, 'idle'),
			/\| Summaries \(3 blocks, 1 edited by you, 1 building on your edit\) \|/,
		);
		assert.match(meterTooltip({ ...figures, editedBlocks: 0 }, 'idle'), /\| Summaries \(2 blocks\) \|/);
		assert.match(tooltip, /\| Verbatim rounds \(12\) \| 4,000 \|/);
		assert.match(tooltip, /prepared in the background/);
		assert.match(tooltip, /Click for `\/context`/);
	});

	it('says the figures are the last chat’s once they may be another chat’s than the one on screen', () => {
		const stale = { since: '14:05' };
		assert.equal(meterText(figures, 'idle', stale), '$(layers) last chat: 52% · 2 summary blocks');
		assert.equal(meterText(figures, 'idle'), '$(layers) 52% · 2 summary blocks');
		const tooltip = meterTooltip(figures, 'idle', stale);
		assert.match(tooltip, /figures of the last chat with an @longhaul request, as its request at 14:05 left them/);
		assert.match(tooltip, /VS Code does not tell extensions which chat is on screen/);
		assert.doesNotMatch(meterTooltip(figures, 'idle'), /which chat is on screen/);
	});
});
