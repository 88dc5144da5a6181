// The replay's tool-definition charge follows the product's catalogue (bench/replay/toolCharge.ts).
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogueTokens, catalogueTools, productCatalogue, repositoryRoot } from '../../../bench/replay/toolCharge';
import { benchBudget, benchToolTokens } from '../../../bench/replay/session';
import { toolDefinitionsText } from '../../../src/common/tools/toolDefinitions';
import { TiktokenTokenizer } from '../../../src/common/tokens/tokenizer';

const tokenizer = new TiktokenTokenizer();
const manifest = () => JSON.parse(readFileSync(join(repositoryRoot(), 'package.json'), 'utf8'));
const nls = JSON.parse(readFileSync(join(repositoryRoot(), 'package.nls.json'), 'utf8')) as Record<string, string>;

describe('bench tool charge', () => {
	it('charges every tool the manifest declares, with its localized model description', () => {
		const declared = manifest().contributes.languageModelTools.map((t: { name: string }) => t.name);
		assert.deepEqual(
			productCatalogue().map(t => t.name),
			declared,
		);
		for (const tool of productCatalogue()) {
			assert.doesNotMatch(tool.description, /^%.*%$/, `${tool.name} keeps its description key`);
			assert.ok(tool.inputSchema, `${tool.name} has an input schema`);
		}
	});

	it('counts the definitions as the agent does (their JSON, one a line)', () => {
		assert.equal(benchToolTokens(tokenizer), tokenizer.countTokens(toolDefinitionsText(productCatalogue())));
		assert.equal(benchBudget(16_000, tokenizer).toolTokens, benchToolTokens(tokenizer));
	});

	it('rises when a tool is added and falls when one is removed', () => {
		const base = manifest();
		const before = catalogueTokens(catalogueTools(base, nls), tokenizer);
		const more = manifest();
		more.contributes.languageModelTools.push({
			name: 'longhaul_extra',
			modelDescription: 'Count the lines of a file in the workspace.',
			inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
		});
		const fewer = manifest();
		fewer.contributes.languageModelTools.pop();
		assert.ok(catalogueTokens(catalogueTools(more, nls), tokenizer) > before);
		assert.ok(catalogueTokens(catalogueTools(fewer, nls), tokenizer) < before);
		assert.equal(catalogueTokens([], tokenizer), 0);
	});
});
