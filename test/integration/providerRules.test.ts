// Issue 33: every request Longhaul sends is one a real provider accepts (docs/decisions.md 39).
// The scripted model refuses with a 400 what OpenAI or Anthropic would refuse
// (test/fixtures/scripted-model/src/requestRules.ts). The root hooks below hold every test of
// the suite to it: each test during which a request was refused is named, with the rules broken,
// and the run fails at its end.
// The two tests after them are the hand-built cases an outside check found: a reply whose text is
// only whitespace before a tool call, and a reply with no text and no call but provider state.
import * as assert from 'assert';
import type { ScriptedRequest } from '../fixtures/scripted-model/src/api';
import { COPILOT } from '../fixtures/scripted-model/src/copilotProfile';
import { resetSession, say, scriptedModel, sendChat, setHandler } from './helpers';
import { agentScript, createDataFiles, dataFile, isSummarizerRequest, removeDataFiles } from './faultScript';

let violationsBefore = 0;
/** Tests during which the scripted model refused a request, with the rules broken. */
const offenders: string[] = [];

beforeEach(async function () {
	violationsBefore = (await scriptedModel()).violations.length;
});

// Recorded here and failed once at the end: a failing afterEach would stop the rest of the run.
afterEach(async function () {
	const refused = (await scriptedModel()).violations.slice(violationsBefore);
	if (!refused.length) return;
	const lines = refused.map(v => `    - about ${JSON.stringify(v.userText.slice(0, 80))}: ${v.problems.join('; ')}`);
	const entry = `  ${this.currentTest?.fullTitle() ?? '(unknown test)'}: ${refused.length} request(s) refused\n${lines.join('\n')}`;
	offenders.push(entry);
	say(`      provider rules broken:\n${entry}`);
});

after(function () {
	if (offenders.length) throw new Error(`requests a real provider would refuse (400) were sent in ${offenders.length} test(s):\n${offenders.join('\n')}`);
});

const agentRequests = (requests: readonly ScriptedRequest[]) => requests.filter(r => !isSummarizerRequest(r));

describe('Provider rules: what a real provider would reject is never sent', () => {
	before(createDataFiles);
	after(removeDataFiles);
	beforeEach(resetSession);

	it('a reply whose text is only whitespace before a tool call is sent back without a text part', async function () {
		this.timeout(30_000);
		let step = 0;
		const api = await setHandler(() =>
			step++ === 0 ? { text: '  \n\n ', toolCalls: [{ callId: 'ws-0', name: 'longhaul_readFile', input: { path: dataFile(0) } }] } : { text: 'Read it.' },
		);
		const handled = await sendChat('@longhaul read the first data file');
		assert.strictEqual(handled.errorMessage, undefined, `the request should complete: ${handled.errorMessage}`);
		const second = agentRequests(api.requests)[1];
		assert.ok(second, 'a second agent request after the tool call');
		assert.strictEqual(second.invalid, undefined, `refused: ${second.invalid?.join('; ')}`);
		const assistant = second.messages.find(m => m.role === 'assistant');
		assert.deepStrictEqual(
			assistant?.parts.map(p => p.kind),
			['toolCall'],
		);
	});

	it('a reply with no text and no call but provider state is not sent as a message of provider state alone', async function () {
		this.timeout(30_000);
		const api = await scriptedModel();
		api.setProfile({ ...COPILOT, latency: undefined });
		const first = agentScript({ id: 'st1', toolCalls: 1, finalText: '' });
		await setHandler(first.handler);
		const turnOne = await sendChat('@longhaul read one data file and say nothing');
		assert.strictEqual(turnOne.errorMessage, undefined, `turn one: ${turnOne.errorMessage}`);
		const second = agentScript({ id: 'st2', toolCalls: 0, finalText: 'Turn two answered.' });
		await setHandler(second.handler);
		const turnTwo = await sendChat('@longhaul and now?');
		assert.strictEqual(turnTwo.errorMessage, undefined, `turn two: ${turnTwo.errorMessage}`);
		const sent = second.agentRequests[0];
		assert.ok(sent && sent.invalid === undefined, `refused: ${sent?.invalid?.join('; ')}`);
		for (const message of sent.messages) {
			assert.ok(
				message.parts.some(p => p.kind !== 'data'),
				`a ${message.role} message holds only ${message.parts.map(p => p.kind).join(', ') || 'nothing'}`,
			);
		}
		assert.match(turnTwo.markdown, /Turn two answered\./);
	});
});
