import * as assert from 'node:assert/strict';
import { epilogueOrder, finalAnswerStart, textInView, type EpilogueItem, type ResponsePart } from '../../../../src/common/response/finalAnswer';

const md = (text: string): ResponsePart => ({ kind: 'markdown', text });
const button: ResponsePart = { kind: 'button', text: '' };
const tool: ResponsePart = { kind: 'tool', text: '' };

/** A response: tool calls with notices, then the model's final answer, then `end` as written. */
function response(end: readonly EpilogueItem<string>[]): ResponsePart[] {
	return [
		md('Step 1.'),
		tool,
		md('*Summarized 10 older rounds.*'),
		button,
		md('Step 2.'),
		tool,
		md('ANSWER'),
		...end.map((item): ResponsePart => (item.kind === 'markdown' ? md(item.text) : button)),
	];
}

describe('the final answer VS Code keeps in view', () => {
	it('is the run of markdown parts that holds the last non-empty text', () => {
		assert.equal(finalAnswerStart([md('a'), tool, md('b'), md('c')]), 2);
		assert.equal(finalAnswerStart([md('a'), tool, md('b'), button, button]), 2);
		assert.equal(finalAnswerStart([md('a'), tool, md('b'), md('')]), 2);
		assert.equal(finalAnswerStart([tool, button]), undefined);
	});

	it('loses the answer when a button comes between it and a later text (the token line after the recap buttons)', () => {
		const parts = response([
			{ kind: 'markdown', text: 'RECAP' },
			{ kind: 'button', button: 'open' },
			{ kind: 'markdown', text: 'TOKENS' },
		]);
		assert.equal(textInView(parts), 'TOKENS');
	});

	it('keeps the answer, the stop notice, the recap and the token line in view when the end is written in epilogue order', () => {
		const items: EpilogueItem<string>[] = [
			{ kind: 'markdown', text: 'STOPPED' },
			{ kind: 'markdown', text: 'RECAP' },
			{ kind: 'button', button: 'open 1' },
			{ kind: 'button', button: 'open 2' },
			{ kind: 'markdown', text: 'TOKENS' },
			{ kind: 'button', button: 'restore' },
		];
		const ordered = epilogueOrder(items);
		assert.deepEqual(
			ordered.map(i => (i.kind === 'markdown' ? i.text : i.button)),
			['STOPPED', 'RECAP', 'TOKENS', 'open 1', 'open 2', 'restore'],
		);
		assert.equal(textInView(response(ordered)), 'ANSWERSTOPPEDRECAPTOKENS');
	});

	it('drops empty texts from the epilogue (an empty part could not end the run, but says nothing)', () => {
		assert.deepEqual(
			epilogueOrder<string>([
				{ kind: 'markdown', text: '' },
				{ kind: 'button', button: 'b' },
			]),
			[{ kind: 'button', button: 'b' }],
		);
	});
});
