// The knowledge probe (bench/knowledge): where a prompt names an oracle fact (factCheck.ts), the
// details sample (details.ts), and the probe over a few hand-made requests, recall included
// (the product's recall core on a conversation with a summary).
import * as assert from 'node:assert/strict';
import type { Raw } from '@vscode/prompt-tsx';
import type { Conversation, Round, ToolCall } from '../../../src/common/conversation/conversation';
import { commandForm, factSeen, namesPath } from '../../../bench/knowledge/factCheck';
import { factOracle, type Fact } from '../../../bench/knowledge/factOracle';
import { sampleDetails } from '../../../bench/knowledge/details';
import { knowledgeProbe, summaryHolds } from '../../../bench/knowledge/knowledgeProbe';
import { promptQueries } from '../../../bench/knowledge/recallCheck';
import { FILLER_LINE } from '../../../bench/replay/informationSummary';
import { promptView } from '../../../bench/knowledge/promptView';
import { LEDGER_HEADING } from '../../../src/common/ledger/doneLedgerRender';

const bash = (command: string, result: string): ToolCall => ({ id: `c-${command}`, name: 'bash', arguments: JSON.stringify({ command }), result });
const message = (text: string): Raw.ChatMessage => ({ role: 1, content: [{ type: 1, text }] }) as unknown as Raw.ChatMessage;
const ledger = (body: string) => `<done-ledger>\n${LEDGER_HEADING}\n${body}\n</done-ledger>`;

describe('the knowledge probe', () => {
	const r1: Round = {
		id: 'r1',
		response: 'Look.',
		toolCalls: [bash('cat src/app/main.py', '<returncode>0</returncode>\nprint(1)'), bash('pytest -q', '<returncode>1</returncode>\n1 failed')],
	};
	const r2: Round = { id: 'r2', response: 'Fix.', toolCalls: [bash("sed -i 's/1/2/' src/app/main.py", '<returncode>0</returncode>')] };
	const request = 'Fix the failing test in src/app/main.py.\nIt prints the wrong number.';
	const recorded = new Map([r1, r2].map(r => [r.id, r]));
	let facts: readonly Fact[] = [];
	let commands: string[] = [];
	before(() => {
		// After the unit tests' setup has loaded the bash parser.
		const oracle = factOracle();
		oracle.addRequest(request);
		oracle.addRound(r1);
		oracle.addRound(r2);
		facts = oracle.facts();
		commands = facts.filter(f => f.kind === 'command').map(f => f.text);
	});
	const fact = (kind: Fact['kind'], text: string) => facts.find(f => f.kind === kind && f.text === text)!;
	const seen =
		(text: string, shown: Round[] = [], summaries: string[] = []) =>
		(f: Fact) =>
			factSeen(promptView([message(text), ...summaries.map(message)], shown, summaries), f, recorded, commands);

	it('counts a request only when its whole text is there: not by the shortened form, nor by a ledger line cut with …', () => {
		const req = fact('request', request);
		assert.equal(seen(`hello\n${request}`)(req), 'verbatim');
		assert.equal(seen(ledger(`User requests, oldest first:\n1. ${request.replace('\n', ' ')}`))(req), 'verbatim', 'the ledger line of the whole request');
		assert.equal(seen('Fix the failing test in src/app/main.py.\n[Request shortened: 9 more tokens]')(req), undefined);
		assert.equal(seen(ledger('User requests, oldest first:\n1. Fix the failing test in src/app/…'))(req), undefined);
	});

	it('counts a file or command shown in a round only with its result as recorded', () => {
		const read = fact('read', 'src/app/main.py');
		assert.equal(seen('x', [r1])(read), 'verbatim');
		const masked: Round = { ...r1, toolCalls: r1.toolCalls.map(c => ({ ...c, result: '[output of bash elided (9 tokens)]' })) };
		assert.equal(seen('x', [masked])(read), undefined);
		assert.equal(seen('x', [masked])(fact('command', 'pytest -q')), undefined);
	});

	it('reads the ledger: files among its edits or reads, commands with a status that agrees, shortened only when unambiguous', () => {
		const text = ledger('Files created or edited:\n- src/\n  - app/main.py (1 edit)\nCommands run (outcome of the latest run):\n- `pytest -q`: exit 1');
		assert.equal(seen(text)(fact('changed', 'src/app/main.py')), 'ledger');
		assert.equal(seen(text)(fact('read', 'src/app/main.py')), 'ledger');
		assert.equal(seen(text)(fact('command', 'pytest -q')), 'ledger');
		assert.equal(seen(text.replace('exit 1', 'exit 0'))(fact('command', 'pytest -q')), undefined, 'another status');
		assert.ok(commandForm('pip install -e .', 'cd /testbed && pip install -e .'));
		assert.ok(commandForm('python -m pytest …/test_a.py', 'python -m pytest tests/test_a.py'));
		assert.ok(!commandForm('python -m pytest …/test_a.py', 'python -m pytest tests/test_b.py'));
		assert.ok(
			commandForm('python -c " ; import os ; print(1)"', 'cd /testbed && python -c "\nimport os\n# say it\nprint(1)"'),
			'line breaks as " ; ", no comment lines',
		);
		assert.ok(commandForm('python -c " ; import os ; pri…', 'python -c "\nimport os\nprint(1)"'));
		assert.equal(seen(ledger('Commands run (outcome of the latest run):\n- `sed -i …`: exit 0'))(fact('command', "sed -i 's/1/2/' src/app/main.py")), 'ledger');
	});

	it('counts a file read by a search when the ledger lists that search naming the file, not another search', () => {
		const grep: Round = {
			id: 'g1',
			response: 'Look.',
			toolCalls: [bash('cd /testbed && grep -n "def main" src/app/util.py -A3', '<returncode>0</returncode>\n3:def main():')],
		};
		const oracle = factOracle();
		oracle.addRound(grep);
		const read = oracle.facts().find(f => f.kind === 'read')!;
		assert.equal(read.text, 'src/app/util.py');
		const at = (body: string) => factSeen(promptView([message(ledger(body))], [], []), read, new Map([[grep.id, grep]]), []);
		assert.equal(at('Searches and listings:\n- grep -n "def main" src/app/util.py -A3'), 'ledger');
		assert.equal(at('Searches and listings:\n- grep -n "def main" src/app/util.py -A3 (2 times)'), 'ledger');
		assert.equal(at('Searches and listings:\n- grep -n "def main" src/app/u…'), undefined, 'cut before the path: the file is not named');
		assert.equal(at('Searches and listings:\n- grep -n "def helper" src/app/util.py'), undefined, 'another search of the same file');
		assert.equal(at('Searches and listings:\n- 14 older searches and listings: grep ×14'), undefined);
	});

	it('reads summaries: a file by its path, a command by its text', () => {
		assert.equal(seen('s', [], ['We edited app/main.py to print 2.'])(fact('changed', 'src/app/main.py')), 'summary');
		assert.equal(seen('s', [], ['We edited myapp/main.py.'])(fact('changed', 'src/app/main.py')), undefined, 'not at a path boundary');
		assert.equal(seen('s', [], ['Ran `pytest -q`, it failed.'])(fact('command', 'pytest -q')), 'summary');
		assert.ok(namesPath('see /testbed/src/app/main.py:3', 'src/app/main.py'));
	});

	it("samples every fourth round, distinctive lines only, kinds in turn, each with its path, command, key terms and the old rule's queries", () => {
		const rounds: Round[] = Array.from({ length: 12 }, (_, i) => ({
			id: `s${i}`,
			response: `Step ${i}: now I inspect module number ${i} carefully.\nshared closing line for every round`,
			toolCalls: [
				bash(
					`cat pkg/mod${i}.py`,
					`<returncode>0</returncode>\ndef handler_${i}(value): return value * ${i}\nshared output line for all results\nValueError: bad input in handler_${i} here`,
				),
			],
		}));
		const conversation: Conversation = { turns: [{ user: 'Do it', rounds }], activeRounds: [] };
		const details = sampleDetails(conversation);
		assert.deepEqual(
			details.map(d => [d.roundId, d.kind]),
			[
				['s3', 'result'],
				['s7', 'response'],
				['s11', 'error'],
			],
		);
		assert.deepEqual(details[0], {
			roundId: 's3',
			kind: 'result',
			line: 'def handler_3(value): return value * 3',
			lineQueries: ['pkg/mod3.py', 'cat pkg/mod3.py', 'def handler_3(value):'],
			path: 'pkg/mod3.py',
			command: 'cat pkg/mod3.py',
			terms: ['handler_3', 'return', 'value'],
		});
		assert.equal(details[1].line, 'Step 7: now I inspect module number 7 carefully.');
		assert.equal(details[2].line, 'ValueError: bad input in handler_11 here');
		assert.deepEqual(sampleDetails(conversation), details, 'deterministic');
	});

	it('classifies each detail on every later request: visible, in a summary, recalled through the product recall, lost', async () => {
		const rounds: Round[] = Array.from({ length: 4 }, (_, i) => ({
			id: `k${i}`,
			response: `Round ${i}`,
			toolCalls: [bash(`cat lib/part${i}.txt`, `<returncode>0</returncode>\nunique marker line zebra_${i} of the part`)],
		}));
		const recordedConversation: Conversation = { turns: [{ user: 'Go', rounds }], activeRounds: [] };
		const [detail] = sampleDetails(recordedConversation);
		assert.equal(detail.line, 'unique marker line zebra_3 of the part');
		const run = async (recall: boolean, prompts: { text: string; summaries?: string[]; summarized?: boolean }[]) => {
			const probe = knowledgeProbe({
				recorded: recordedConversation,
				...(recall ? { recall: { messageBudget: 8000, countTokens: (t: string) => Math.ceil(t.length / 4) } } : {}),
			});
			probe.startTurn('Go');
			rounds.forEach(r => probe.addRound(r));
			for (const p of prompts) {
				const active = p.summarized ? rounds.map((r, i) => (i === 3 ? { ...r, summary: 'Read four parts.' } : r)) : rounds;
				await probe.recordRequest({
					compacted: true,
					messages: [message(p.text)],
					shown: [],
					summaries: p.summaries ?? [],
					conversation: { turns: [], activeRounds: active },
					request: 'Go',
				});
			}
			return probe.metrics();
		};
		const m = await run(true, [
			{ text: `x ${detail.line} y` },
			{ text: 'Summary: the output mentioned: zebra_3, unique, marker.', summaries: ['Summary: the output mentioned: zebra_3, unique, marker.'] },
			{ text: 'Summary: the parts named zebra_3.', summaries: ['Summary: the parts named zebra_3.'], summarized: true },
			{ text: 'Summary: read four parts', summarized: true },
			{ text: 'nothing here' },
		]);
		assert.deepEqual(
			[m.detailsChecks, m.detailsVisible, m.detailsInSummary, m.detailsRecalled, m.detailsLost, m.detailsReachable],
			[5, 0.2, 0.2, 0.2, 0.4, 0.6],
		);
		assert.deepEqual(
			[m.detailsRecalledLineRule, m.detailsReachableLineRule],
			[0.4, 0.8],
			"the old rule's line words also recall the detail where the prompt names nothing of it",
		);
		const noRecall = await run(false, [{ text: 'Summary: read four parts', summarized: true }]);
		assert.equal(noRecall.detailsLost, 1, 'a strategy without recall can only see or lose');
		assert.ok(m.continuity !== null && m.continuityRequests === 5);
	});

	it("refuses a recall query made of the sampled line's own words unless the prompt shows them", () => {
		const rounds: Round[] = Array.from({ length: 4 }, (_, i) => ({
			id: `q${i}`,
			response: `Round ${i}`,
			toolCalls: [bash(`cat lib/part${i}.txt`, `<returncode>0</returncode>\nunique marker line zebra_${i} of the part`)],
		}));
		const [detail] = sampleDetails({ turns: [{ user: 'Go', rounds }], activeRounds: [] });
		const view = (text: string, summaries: string[] = []) => promptView([message(text), ...summaries.map(message)], [], summaries);
		assert.ok(detail.lineQueries.includes('zebra_3'), "the old rule queries the line's rarest word");
		assert.deepEqual(promptQueries(detail, view('Summary: read four parts'), 4), [], 'nothing the prompt shows leads to the line');
		assert.deepEqual(
			promptQueries(detail, view('zebra_3 appears in a question, not in a summary'), 4),
			[],
			'a word outside summaries and the ledger is not a key',
		);
		assert.deepEqual(promptQueries(detail, view('s', ['The output named zebra_3.']), 4), [{ query: 'zebra_3' }], 'a summary states the word');
		assert.deepEqual(
			promptQueries(detail, view('the file lib/part3.txt; see round #4'), 4),
			[{ query: 'lib/part3.txt' }, { round: 4 }],
			'a path and a round number the prompt names',
		);
	});

	it('holds a detail in a summary only when one line states all its key terms (a filler summary holds none)', () => {
		const detail = { terms: ['zebra_3', 'unique', 'marker'] };
		assert.ok(summaryHolds(['- The output mentioned: Zebra_3, unique, marker.'], detail));
		assert.ok(!summaryHolds(['zebra_3 here\nunique marker there'], detail), 'terms spread over lines');
		assert.ok(!summaryHolds([`${FILLER_LINE}\n${FILLER_LINE}`], detail));
	});
});
