import * as assert from 'assert';
import * as vscode from 'vscode';
import { LONGHAUL_ID, PARTICIPANT_ID, longhaul, scriptedModel, SCRIPTED_MODEL_SELECTOR } from './helpers';
import { DEFAULT_MAX_INPUT_TOKENS } from '../fixtures/scripted-model/src/api';

describe('Longhaul in a real extension host', () => {
	it('activates and returns its API', async () => {
		const { extension, api } = await longhaul();
		assert.strictEqual(extension.isActive, true);
		assert.strictEqual(typeof api.onDidHandleRequest, 'function', 'exports.onDidHandleRequest should be an event');
	});

	it('contributes the @longhaul chat participant', () => {
		const extension = vscode.extensions.getExtension(LONGHAUL_ID)!;
		const participants: { id: string; name: string; commands?: { name: string }[] }[] = extension.packageJSON.contributes.chatParticipants;
		const participant = participants.find(p => p.id === PARTICIPANT_ID);
		assert.ok(participant, `no chat participant ${PARTICIPANT_ID} in package.json`);
		assert.strictEqual(participant.name, 'longhaul');
	});

	it('sees the scripted model through vscode.lm', async () => {
		await scriptedModel();
		const models = await vscode.lm.selectChatModels(SCRIPTED_MODEL_SELECTOR);
		assert.strictEqual(models.length, 1, `expected exactly one scripted model, got ${models.map(m => m.id).join(', ') || 'none'}`);
		assert.strictEqual(models[0].maxInputTokens, DEFAULT_MAX_INPUT_TOKENS);
		// Without the realistic profile the scripted model counts with o200k_base, as Longhaul does
		// ('123' '456' '78'); realModels.test.ts covers a model that counts differently.
		assert.strictEqual(await models[0].countTokens('12345678'), 3);
	});
});
