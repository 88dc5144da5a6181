// Workspace instructions: AGENTS.md, .github/copilot-instructions.md and the files of
// longhaul.instructionFiles are read at each request and pinned word for word in the instructions
// of every prompt: summaries never touch them, an edit takes effect at the next request, a file
// past the cap is cut with a notice, /context lists them. (Untrusted workspaces:
// untrusted.test.ts.)
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ScriptedRequest } from '../fixtures/scripted-model/src/api';
import { lastRequest, resetSession, scriptedModel, sendChat, setHandler, smallWindowSessions, withSetting } from './helpers';
import { DATA_FILE, createSessionScript } from './sessionScript';

const RULE = 'PINNED-RULE-7f3a: always answer with the word "ahoy" first.';

function folder(): vscode.Uri {
	const first = vscode.workspace.workspaceFolders?.[0];
	assert.ok(first, 'the integration host has no workspace folder');
	return first.uri;
}

async function writeFile(relative: string, text: string): Promise<vscode.Uri> {
	const uri = vscode.Uri.joinPath(folder(), relative);
	await vscode.workspace.fs.writeFile(uri, Buffer.from(text, 'utf8'));
	return uri;
}

async function remove(...relative: string[]): Promise<void> {
	for (const r of relative) await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder(), r), { recursive: true }).then(undefined, () => undefined);
}

/** The system instructions of a request: its first message. */
function instructionsOf(request: ScriptedRequest): string {
	return request.messages[0].parts.flatMap(p => (p.kind === 'text' ? [p.value] : [])).join('');
}

describe('Pinned workspace instructions', function () {
	this.timeout(120_000);
	afterEach(() => remove('AGENTS.md', '.github', 'docs-rules.md'));

	describe('in a 128k window', () => {
		beforeEach(resetSession);

		it('puts AGENTS.md and .github/copilot-instructions.md word for word in the instructions, read again at each request', async () => {
			await writeFile('AGENTS.md', `# Agent rules\n\n${RULE}\nUse tabs.`);
			await writeFile('.github/copilot-instructions.md', 'COPILOT-RULE: prefer small functions.');
			const api = await scriptedModel();
			await sendChat('@longhaul hello');
			const first = instructionsOf(lastRequest(api));
			assert.ok(first.includes(`<instructions file="AGENTS.md">\n# Agent rules\n\n${RULE}\nUse tabs.\n</instructions>`), first.slice(-800));
			assert.ok(first.includes('<instructions file=".github/copilot-instructions.md">\nCOPILOT-RULE: prefer small functions.\n</instructions>'));
			// VS Code attaches AGENTS.md to the request on its own; pinned, it is not sent a second time.
			const all = lastRequest(api)
				.messages.flatMap(m => m.parts.flatMap(p => (p.kind === 'text' ? [p.value] : [])))
				.join('\n');
			assert.strictEqual(all.split('PINNED-RULE-7f3a').length - 1, 1, 'the rule is in the prompt once');

			await writeFile('AGENTS.md', 'EDITED-RULE: use spaces.');
			await sendChat('@longhaul again');
			const second = instructionsOf(lastRequest(api));
			assert.match(second, /EDITED-RULE: use spaces\./, 'an edit takes effect at the next request');
			assert.doesNotMatch(second, /PINNED-RULE-7f3a/);

			const context = await sendChat('@longhaul /context');
			assert.match(context.markdown, /\| Workspace instructions \(2 files\) \| \d+ \|/);
			assert.match(context.markdown, /- `AGENTS\.md`: \d+ tokens, whole/);
			assert.match(context.markdown, /- `\.github\/copilot-instructions\.md`: \d+ tokens, whole/);
		});

		it('reads the files longhaul.instructionFiles names, and says which it could not read', async () => {
			await writeFile('docs-rules.md', 'SETTING-RULE: name branches feature/*.');
			const api = await scriptedModel();
			await withSetting('instructionFiles', ['docs-rules.md', '../outside.md', 'missing.md'], async () => {
				await sendChat('@longhaul hello');
				assert.match(instructionsOf(lastRequest(api)), /<instructions file="docs-rules\.md">\nSETTING-RULE: name branches feature\/\*\.\n<\/instructions>/);
				const context = await sendChat('@longhaul /context');
				assert.match(context.markdown, /- `docs-rules\.md`: \d+ tokens, whole/);
				assert.match(context.markdown, /could not be read: .*outside\.md: .*missing\.md: not found/s);
			});
		});

		it('says when there are none', async () => {
			const context = await sendChat('@longhaul /context');
			assert.match(context.markdown, /\*\*Workspace instructions:\*\* none found/);
		});
	});

	describe('in a small window', () => {
		smallWindowSessions();

		it('keeps the file in every prompt of a session that summarizes, untouched', async () => {
			await writeFile('AGENTS.md', RULE);
			const script = createSessionScript({ toolCalls: 30, dataFile: DATA_FILE, finalText: 'DONE' });
			await setHandler(script.handler);
			const handled = await sendChat('@longhaul read the data file', { timeoutMs: 90_000 });
			assert.ok((handled.metadata as { summarizations: number }).summarizations >= 2, 'the session summarizes');
			assert.ok(script.agentRequests.length >= 30);
			for (const [i, request] of script.agentRequests.entries()) {
				assert.ok(instructionsOf(request).includes(`<instructions file="AGENTS.md">\n${RULE}\n</instructions>`), `agent request ${i + 1} holds the rule`);
			}
			for (const request of script.summarizerRequests) {
				const text = request.messages.flatMap(m => m.parts.flatMap(p => (p.kind === 'text' ? [p.value] : []))).join('\n');
				assert.doesNotMatch(text, /PINNED-RULE-7f3a/, 'the summarizer is not asked to summarize the instructions');
			}
		});

		it('cuts a file past a tenth of the room for messages, with a notice', async () => {
			const long = Array.from({ length: 600 }, (_, i) => `Rule ${i + 1}: keep the build green and the tests fast.`).join('\n');
			await writeFile('AGENTS.md', long);
			const api = await scriptedModel();
			const handled = await sendChat('@longhaul hello');
			assert.match(handled.markdown, /Workspace instructions: AGENTS\.md was cut to its first \d+ of \d+ tokens/);
			const instructions = instructionsOf(lastRequest(api));
			assert.match(instructions, /Rule 1: keep the build green/);
			assert.doesNotMatch(instructions, /Rule 600:/);
			assert.match(instructions, /more tokens of this file left out/);
		});
	});
});
