// The done-ledger's text (doneLedgerRender.ts) on ledgers built as plain data: the caps for a
// message budget, the line helpers, fitting to the target and the bound, the tight (compact) form,
// retries when the whole text counts more than its lines, and the policy of ledgerForPrompt.
// How the ledger is built from tool calls is tested in doneLedger.test.ts.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { DoneLedger, LedgerCall, LedgerCommand, LedgerEdit, LedgerRead } from '../../../../src/common/ledger/doneLedger';
import {
	commandLine,
	doneLedgerCaps,
	editDetail,
	LEDGER_HEADING,
	ledgerForPrompt,
	renderDoneLedger,
	requestLine,
	shownOutcome,
	TARGET_SHARE,
} from '../../../../src/common/ledger/doneLedgerRender';
import { ELLIPSIS } from '../../../../src/common/ledger/ledgerCommands';
import { TiktokenTokenizer } from '../../../../src/common/tokens/tokenizer';
import { readLedger } from '../../../../bench/replay/ledgerReader';
import { namedCommands } from './namedCommands';
import { makeConversation } from '../../helpers/conversations';

const tokenizer = new TiktokenTokenizer();
const countTokens = (text: string) => tokenizer.countTokens(text);

const edit = (path: string, last: number, extra: Partial<LedgerEdit> = {}): LedgerEdit => ({
	path,
	count: 1,
	failed: 0,
	created: false,
	last,
	round: `r${last}`,
	...extra,
});
const read = (path: string, last: number, count = 1): LedgerRead => ({ path, count, last, round: `r${last}` });
const command = (text: string, last: number, extra: Partial<LedgerCommand> = {}): LedgerCommand => ({
	command: text,
	count: 1,
	outcome: 'exit 0',
	failed: false,
	last,
	round: `r${last}`,
	...extra,
});
const search = (digest: string, last: number): LedgerCall => ({ tool: 'search', digest, count: 1, last, round: `r${last}` });

/** A ledger of the given entries; `steps` is the newest stamp. */
function ledgerOf(parts: Partial<Omit<DoneLedger, 'steps'>>): DoneLedger {
	const entries = [...(parts.reads ?? []), ...(parts.edits ?? []), ...(parts.commands ?? []), ...(parts.searches ?? []), ...(parts.others ?? [])];
	return {
		requests: [],
		reads: [],
		edits: [],
		commands: [],
		searches: [],
		others: [],
		...parts,
		steps: entries.reduce((m, e) => Math.max(m, e.last), 0),
	};
}

/** A long session: `edits` edited files, `commands` distinct commands, `reads` reads over a few folders; stamps interleaved. */
function sessionLedger(edits: number, commands: number, reads: number, requests = ['Make the parser handle empty input.']): DoneLedger {
	let stamp = 0;
	return ledgerOf({
		requests,
		reads: Array.from({ length: reads }, (_, i) => read(`src/module${i % 5}/reader${i}.ts`, ++stamp, 1 + (i % 2))),
		edits: Array.from({ length: edits }, (_, i) => edit(`src/module${i % 4}/edited${i}.ts`, ++stamp, { count: 1 + (i % 3), created: i % 5 === 0 })),
		commands: Array.from({ length: commands }, (_, i) =>
			command(`npm test -- --grep "case number ${i}"`, ++stamp, { outcome: i % 4 ? 'exit 0' : 'exit 1', failed: i % 4 === 0 }),
		),
		searches: Array.from({ length: 8 }, (_, i) => search(`text "needle${i}"`, ++stamp)),
	});
}

describe('done-ledger rendering (doneLedgerRender)', () => {
	describe('doneLedgerCaps: the size for a message budget', () => {
		it('aims at 8% of the budget within 300-3,000 tokens and takes up to 30% within 750-12,000', () => {
			assert.deepEqual(doneLedgerCaps(20_000), { targetTokens: 1600, maxTokens: 6000 });
			assert.deepEqual(doneLedgerCaps(1_000), { targetTokens: 300, maxTokens: 750 }, 'the floors of a tiny budget');
			assert.deepEqual(doneLedgerCaps(1_000_000), { targetTokens: 3000, maxTokens: 12_000 }, 'the ceilings of a huge budget');
		});

		it('the tight form is bounded by its base size', () => {
			for (const budget of [1_000, 20_000, 1_000_000]) {
				const tight = doneLedgerCaps(budget, true);
				assert.equal(tight.maxTokens, tight.targetTokens, `budget ${budget}`);
				assert.equal(tight.targetTokens, doneLedgerCaps(budget).targetTokens, `budget ${budget}`);
			}
		});

		it('property: the bound is never under the target, and from 2,500 tokens on the ledger leaves at least 70% of the budget', () => {
			fc.assert(
				fc.property(fc.integer({ min: 1, max: 2_000_000 }), fc.boolean(), (budget, tight) => {
					const caps = doneLedgerCaps(budget, tight);
					assert.ok(caps.maxTokens >= caps.targetTokens);
					if (budget >= 2_500) assert.ok(caps.maxTokens <= budget * 0.3 + 0.5, `budget ${budget}: ${caps.maxTokens}`);
				}),
			);
		});
	});

	describe('line helpers', () => {
		it('shownOutcome keeps a short outcome and cuts a long one at its end to exactly the limit', () => {
			assert.equal(shownOutcome('exit 0', 6), 'exit 0');
			const cut = shownOutcome('last line of a very long build log', 12);
			assert.equal(cut.length, 12);
			assert.ok(cut.endsWith(ELLIPSIS) && 'last line of a very long build log'.startsWith(cut.slice(0, -ELLIPSIS.length)), cut);
			assert.equal(shownOutcome('abcdef', 1), 'a' + ELLIPSIS, 'at least one character of the outcome stays');
		});

		it('editDetail says created, the edits after the creation and failed attempts; minimal keeps only what the path alone cannot say', () => {
			assert.equal(editDetail(edit('a.ts', 1, { created: true, count: 3, failed: 1 })), 'created, 2 edits, 1 failed attempt');
			assert.equal(editDetail(edit('a.ts', 1, { created: true, count: 1 })), 'created');
			assert.equal(editDetail(edit('a.ts', 1, { count: 1 })), '1 edit');
			assert.equal(editDetail(edit('a.ts', 1, { count: 2, failed: 2 }), 'minimal'), '', 'a file that was edited: its path is the fact');
			assert.equal(editDetail(edit('a.ts', 1, { count: 0, failed: 2 }), 'minimal'), '2 failed attempts', 'never edited: the failures are the fact');
			const pair = ledgerOf({ edits: [edit('f0.ts', 1, { count: 2 }), edit('f1.ts', 2, { count: 2 })] });
			const full = renderDoneLedger(pair, { maxTokens: 1000, countTokens });
			assert.deepEqual(full.split('\n').slice(2), ['- f0.ts (2 edits)', '- f1.ts (2 edits)']);
			const tighter = renderDoneLedger(pair, { maxTokens: countTokens(full) - 1, countTokens });
			assert.deepEqual(tighter.split('\n').slice(2), ['- f0.ts', '- f1.ts'], 'one token less: each edit line is its path alone (minimal detail)');
		});

		it('commandLine shows the command, its latest outcome (cut by detail) and the run count above one', () => {
			const c = command('make check', 1, { count: 3, outcome: 'exit 2' });
			assert.equal(commandLine(c), '- `make check`: exit 2 (run 3 times)');
			assert.equal(commandLine(c, 'minimal'), '- `make check`: exit 2');
			assert.equal(commandLine(c, 'full', 'make …'), '- `make …`: exit 2 (run 3 times)', 'the shown form replaces the command');
			const long = command('tox', 1, { outcome: 'x'.repeat(300) });
			const outcomeLength = (detail: 'full' | 'short' | 'minimal') => commandLine(long, detail).length - '- `tox`: '.length;
			assert.ok(outcomeLength('full') > outcomeLength('short') && outcomeLength('short') > outcomeLength('minimal'));
			assert.ok(commandLine(long, 'minimal').endsWith(ELLIPSIS));
		});

		it('requestLine numbers from 1 and cuts a long request to the limit with an ellipsis', () => {
			assert.equal(requestLine(0, 'Fix it', 80), '1. Fix it');
			assert.equal(requestLine(4, 'abcdefghij', 5), '5. abcd…');
		});
	});

	describe('renderDoneLedger: fitting to the target and the bound', () => {
		it('is empty for an empty ledger; a ledger of requests only is its requests', () => {
			assert.equal(renderDoneLedger(ledgerOf({}), { maxTokens: 1000, countTokens }), '');
			assert.equal(
				renderDoneLedger(ledgerOf({ requests: ['First', 'Second'] }), { maxTokens: 1000, countTokens }),
				[LEDGER_HEADING, 'User requests, oldest first:', '1. First', '2. Second'].join('\n'),
			);
		});

		it('sections come in a fixed order (edits, commands, reads, searches, others, plan), each entry on its own line when there is room', () => {
			const ledger = ledgerOf({
				requests: ['Do it'],
				reads: [read('r.ts', 1, 2)],
				searches: [search('text "x"', 2)],
				others: [{ tool: 'fetch', digest: 'https://example.invalid', count: 1, last: 3, round: 'r3' }],
				commands: [command('make', 4)],
				edits: [edit('e.ts', 5)],
				plan: { tool: 'manage_todo_list', text: '[x] read\n[ ] write', round: 'r5' },
			});
			assert.equal(
				renderDoneLedger(ledger, { maxTokens: 2000, countTokens }),
				[
					LEDGER_HEADING,
					'User requests, oldest first:',
					'1. Do it',
					'Files created or edited:',
					'- e.ts (1 edit)',
					'Commands run (outcome of the latest run):',
					'- `make`: exit 0',
					'Files read:',
					'- r.ts (2 times)',
					'Searches and listings:',
					'- text "x"',
					'Other tool calls:',
					'- fetch https://example.invalid',
					'Latest plan (manage_todo_list):',
					'[x] read',
					'[ ] write',
				].join('\n'),
			);
		});

		it('an explicit target: the facts (files read or edited, commands) may take the bound, and the oldest reads merge only past it', () => {
			const reads = sessionLedger(2, 2, 600);
			const text = renderDoneLedger(reads, { maxTokens: 3000, targetTokens: 500, countTokens });
			assert.ok(countTokens(text) > 500 && countTokens(text) <= 3000, `${countTokens(text)} tokens`);
			assert.match(text, /^- \d+ files under src\/module\d\/ \(\d+ reads\)$/m, 'past the bound, the oldest reads are merged into directory lines');
			const facts = sessionLedger(60, 60, 60);
			const grown = renderDoneLedger(facts, { maxTokens: 3000, targetTokens: 500, countTokens });
			assert.ok(countTokens(grown) > 500 && countTokens(grown) <= 3000, `${countTokens(grown)}`);
			assert.equal(readLedger(grown).edits.size, 60);
			assert.equal(namedCommands(readLedger(grown), facts.commands).size, 60);
		});

		it('a target above the bound is the bound; without one the target is TARGET_SHARE of the bound', () => {
			const ledger = sessionLedger(2, 2, 600);
			assert.equal(
				renderDoneLedger(ledger, { maxTokens: 800, targetTokens: 5000, countTokens }),
				renderDoneLedger(ledger, { maxTokens: 800, targetTokens: 800, countTokens }),
			);
			assert.equal(
				renderDoneLedger(ledger, { maxTokens: 2000, countTokens }),
				renderDoneLedger(ledger, { maxTokens: 2000, targetTokens: Math.round(2000 * TARGET_SHARE), countTokens }),
			);
		});

		it('the tight form (caps of doneLedgerCaps(budget, true)) merges old facts sooner and stays within its base size', () => {
			const ledger = sessionLedger(250, 150, 200);
			const normal = renderDoneLedger(ledger, { ...doneLedgerCaps(20_000), countTokens });
			const tightCaps = doneLedgerCaps(20_000, true);
			const tight = renderDoneLedger(ledger, { ...tightCaps, countTokens });
			assert.ok(countTokens(tight) <= tightCaps.maxTokens, `${countTokens(tight)} > ${tightCaps.maxTokens}`);
			assert.ok(countTokens(tight) < countTokens(normal));
			assert.equal(readLedger(normal).edits.size, 250, 'the normal bound names every edit');
			assert.equal(namedCommands(readLedger(normal), ledger.commands).size, 150, 'and every command');
			assert.ok(readLedger(tight).edits.size < 250, 'the tight one merges the oldest');
			const newest = ledger.edits.reduce((a, b) => (b.last > a.last ? b : a));
			assert.ok(readLedger(tight).edits.has(newest.path), 'the newest edit keeps its line');
			assert.match(tight, /^- \d+ files under src\/module\d\/ \(\d+ edits/m);
		});

		it('when even the most compact form is too long, the plan goes first, then the oldest requests are referred to by number, then nothing', () => {
			const requests = Array.from({ length: 12 }, (_, i) => `Request ${i + 1}: ${'please change the importer again '.repeat(4)}`);
			const ledger = { ...sessionLedger(3, 3, 3, requests), plan: { tool: 'todo_write', text: 'step\n'.repeat(200), round: 'r1' } };
			const roomy = renderDoneLedger(ledger, { maxTokens: 5000, countTokens });
			assert.match(roomy, /^Latest plan \(todo_write\):$/m);
			let hiddenBefore = 0;
			for (let maxTokens = 400; maxTokens >= 150; maxTokens -= 10) {
				const text = renderDoneLedger(ledger, { maxTokens, countTokens });
				if (text === '') continue;
				assert.ok(countTokens(text) <= maxTokens, `${maxTokens}: ${countTokens(text)}`);
				const byNumber = /^1\.(?:–(\d+)\.)? \(shown word for word in the conversation above\)$/m.exec(text);
				const hidden = byNumber ? Number(byNumber[1] ?? 1) : 0;
				if (hidden > 0) assert.doesNotMatch(text, /Latest plan/, `${maxTokens}: the plan is gone before any request is`);
				assert.ok(hidden >= hiddenBefore, `${maxTokens}: a smaller bound refers to at least as many requests by number`);
				hiddenBefore = hidden;
				for (let i = hidden; i < requests.length; i++) assert.match(text, new RegExp(`^${i + 1}\\. Request ${i + 1}:`, 'm'), `${maxTokens}: request ${i + 1}`);
			}
			assert.equal(hiddenBefore, requests.length, 'at the smallest bound that fits, every request is referred to by number');
			assert.equal(renderDoneLedger(ledger, { maxTokens: 100, countTokens }), '', 'below that nothing fits');
		});

		it('a fit over the bound is retried with less room, so a ledger whose facts must merge still names every request', () => {
			// The fill measures line by line; the whole text is counted at the end. With this count every
			// line break of a text of several lines costs 3 tokens more than its lines counted one by
			// one, so the first fill overshoots by far; with the honest count it overshoots a little.
			const surcharge = (text: string) => countTokens(text) + (text.includes('\n') ? 3 * (text.split('\n').length - 1) : 0);
			const ledger = sessionLedger(250, 150, 200, ['First request', 'Second request']);
			const newest = ledger.edits.at(-1)!.path;
			for (const count of [countTokens, surcharge]) {
				for (const maxTokens of [400, 600, 1200]) {
					const text = renderDoneLedger(ledger, { maxTokens, countTokens: count });
					const where = `${count === surcharge ? 'surcharged' : 'honest'} count, ${maxTokens}`;
					assert.ok(count(text) <= maxTokens, `${where}: ${count(text)}`);
					assert.match(text, /^- \d+ files under src\/module\d\/ \(\d+ edits/m, `${where}: the oldest edits are merged`);
					assert.ok(readLedger(text).edits.has(newest), `${where}: the newest edit keeps its line`);
					assert.doesNotMatch(text, /shown word for word/, `${where}: no request is referred to by number`);
					assert.deepEqual([...readLedger(text).requests.values()], ['First request', 'Second request'], where);
				}
			}
		});

		it('keeps no state between renders: the same ledger and options give the same text whatever was rendered before', () => {
			const ledger = sessionLedger(30, 30, 200);
			const caps = [300, 900, 4000];
			const first = caps.map(maxTokens => renderDoneLedger(ledger, { maxTokens, countTokens }));
			const again = [...caps].reverse().map(maxTokens => renderDoneLedger(ledger, { maxTokens, countTokens }));
			assert.deepEqual(again.reverse(), first);
		});

		it('property: any ledger at any bound is within the bound, names every request it does not refer to by number, and shows no heading without a line under it', () => {
			const path = fc
				.tuple(fc.constantFrom('src', 'src/deep/er', 'test', ''), fc.integer({ min: 0, max: 30 }))
				.map(([d, n]) => (d ? `${d}/f${n}.ts` : `f${n}.ts`));
			const ledgerArb = fc
				.record({
					requests: fc.array(fc.string({ minLength: 1, maxLength: 200 }), { maxLength: 6 }),
					edits: fc.uniqueArray(path, { maxLength: 40 }),
					reads: fc.uniqueArray(path, { maxLength: 80 }),
					commands: fc.uniqueArray(fc.string({ minLength: 1, maxLength: 120 }), { maxLength: 40 }),
				})
				.map(({ requests, edits, reads, commands }) => {
					let stamp = 0;
					return ledgerOf({
						requests: requests.map(r => r.replace(/\s+/g, ' ').trim() || 'x'),
						edits: edits.map(p => edit(p, ++stamp)),
						reads: reads.map(p => read(p, ++stamp)),
						commands: commands.map(c => command(c.replace(/\s+/g, ' ').trim() || 'c', ++stamp)),
					});
				});
			fc.assert(
				fc.property(ledgerArb, fc.integer({ min: 40, max: 3000 }), (ledger, maxTokens) => {
					const text = renderDoneLedger(ledger, { maxTokens, countTokens });
					if (text === '') return;
					assert.ok(countTokens(text) <= maxTokens, `${countTokens(text)} > ${maxTokens}`);
					const lines = text.split('\n');
					const byNumber = /^1\.(?:–(\d+)\.)? \(shown word for word/m.exec(text);
					const hidden = byNumber ? Number(byNumber[1] ?? 1) : 0;
					const shown = readLedger(text).requests;
					for (let n = hidden + 1; n <= ledger.requests.length; n++) {
						const line = shown.get(n);
						assert.ok(line !== undefined && ledger.requests[n - 1].startsWith(line.replace(/…$/, '')), `request ${n}: ${line}`);
					}
					for (const title of ['Files created or edited:', 'Commands run (outcome of the latest run):', 'Files read:']) {
						const at = lines.indexOf(title);
						if (at !== -1) assert.match(lines[at + 1] ?? '', /^ *- /, `${title} has a line under it`);
					}
				}),
				{ numRuns: 40 },
			);
		});
	});

	describe('ledgerForPrompt: rendered at each summary, kept until the next', () => {
		const ledger = sessionLedger(3, 3, 3);
		const options = { maxTokens: 2000, countTokens };

		it('shows no ledger while nothing is summarized', () => {
			assert.equal(ledgerForPrompt(makeConversation({ turns: [2], active: 2 }), ledger, undefined, options), undefined);
		});

		it('renders at a new summary and anchors the text on the round that carries it', () => {
			const conversation = makeConversation({ turns: [3], active: 2, summaries: { t0r1: 'summary' } });
			const shown = ledgerForPrompt(conversation, ledger, undefined, options)!;
			assert.deepEqual(shown, { anchorRoundId: 't0r1', text: renderDoneLedger(ledger, options), maxTokens: 2000 });
		});

		it('keeps the previous text while the newest summary is the same, even when the ledger has grown', () => {
			const conversation = makeConversation({ turns: [3], active: 2, summaries: { t0r1: 'summary' } });
			const previous = ledgerForPrompt(conversation, ledger, undefined, options)!;
			const grown = { ...ledger, edits: [...ledger.edits, edit('new.ts', ledger.steps + 1)], steps: ledger.steps + 1 };
			assert.equal(ledgerForPrompt(conversation, grown, previous, options), previous);
			const older = { anchorRoundId: 't0r1', text: 'stored before bounds were recorded' };
			assert.equal(ledgerForPrompt(conversation, grown, older, options), older, 'a text without a recorded bound is kept');
		});

		it('renders again for a newer summary or a different bound (the tight form)', () => {
			const first = makeConversation({ turns: [3], active: 2, summaries: { t0r1: 'summary' } });
			const previous = ledgerForPrompt(first, ledger, undefined, options)!;
			const newer = makeConversation({ turns: [3], active: 2, summaries: { t0r1: 'summary', a0: 'newer summary' } });
			assert.equal(ledgerForPrompt(newer, ledger, previous, options)?.anchorRoundId, 'a0');
			const tight = ledgerForPrompt(first, ledger, previous, { maxTokens: 300, countTokens })!;
			assert.notEqual(tight, previous);
			assert.equal(tight.maxTokens, 300);
			assert.equal(tight.text, renderDoneLedger(ledger, { maxTokens: 300, countTokens }));
		});
	});
});
