// The settings reader through an injected configuration: every key it reads is one package.json
// declares (a misspelt key would silently read its fallback forever), a value set under the
// declared key reaches the setting, and the fallbacks are package.json's defaults.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { settingsFrom, type SettingsSource } from '../../../../src/common/settings/longhaulSettings';

const root = resolve(__dirname, '../../../../..');
const declared = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).contributes.configuration.properties as Record<string, { default: unknown }>;
/** package.json's keys without `longhaul.`, as a section's `get` takes them. */
const declaredKeys = new Set(Object.keys(declared).map(key => key.replace(/^longhaul\./, '')));

const model = { family: 'gpt-4o', id: 'gpt-4o-2024' };

/** A configuration holding `values` under package.json's keys only; it records every key asked for. */
function configuration(values: Record<string, unknown>): SettingsSource & { readonly asked: string[] } {
	const asked: string[] = [];
	return {
		asked,
		get<T>(key: string, fallback: T): T {
			asked.push(key);
			return declaredKeys.has(key) && key in values ? (values[key] as T) : fallback;
		},
	};
}

describe('settings reader: the keys package.json declares', () => {
	it('reads only keys package.json declares under longhaul.', () => {
		const config = configuration({});
		settingsFrom(config, model);
		assert.ok(config.asked.length > 0);
		for (const key of config.asked) assert.ok(declaredKeys.has(key), `the reader asks for "${key}", which package.json does not declare`);
	});

	it('halfContextSummarization on selects half-context; off, or not set, the legacy mode', () => {
		assert.equal(settingsFrom(configuration({ halfContextSummarization: true }), model).summarizationMode, 'half-context');
		assert.equal(settingsFrom(configuration({ halfContextSummarization: false }), model).summarizationMode, 'legacy');
		assert.equal(settingsFrom(configuration({}), model).summarizationMode, 'legacy');
	});

	it('a value set under each declared key reaches its setting', () => {
		const s = settingsFrom(
			configuration({
				maxToolCallsPerRequest: 7,
				doneLedger: false,
				maskOldToolResults: true,
				backgroundSummarizationThreshold: { default: 50, 'gpt-4o': 30 },
				autoSummarize: false,
				showTokenCount: true,
				minRecentRounds: 5,
				instructionFiles: ['docs/RULES.md'],
				summarizerModel: 'gpt-4o-mini',
				providerRunsOneRequestAtATime: 'yes',
			}),
			model,
		);
		assert.deepEqual(s, {
			summarizationMode: 'legacy',
			maxToolCallsPerRequest: 7,
			doneLedger: false,
			maskOldToolResults: true,
			backgroundSummarizationThreshold: 0.3,
			autoSummarize: false,
			showTokenCount: true,
			minRecentRounds: 5,
			instructionFiles: ['docs/RULES.md'],
			summarizerModel: 'gpt-4o-mini',
			providerRunsOneRequestAtATime: 'yes',
		});
	});

	it("with nothing set, the settings are those of package.json's defaults", () => {
		const defaults = Object.fromEntries(Object.entries(declared).map(([key, setting]) => [key.replace(/^longhaul\./, ''), setting.default]));
		assert.deepEqual(settingsFrom(configuration({}), model), settingsFrom(configuration(defaults), model));
	});
});
