// What every replayed request is charged for tool definitions: the product's own catalogue
// (package.json contributes.languageModelTools: name, model description from package.nls.json,
// input schema), counted as the agent counts the definitions it sends (toolDefinitionTokens,
// src/common/tools/toolDefinitions.ts). Every strategy pays the same charge on every request: the
// recordings' agents called a bash-like tool, which the product offers as longhaul_runCommand
// among its seven, and the references are measured as if they had the same tools.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { toolDefinitionTokens, type ToolDefinition } from '../../src/common/tools/toolDefinitions';
import type { TextTokenizer } from '../../src/common/tokens/tokenizer';

interface DeclaredTool {
	readonly name: string;
	readonly modelDescription: string;
	readonly inputSchema?: object;
}

/** The tools a manifest declares, as VS Code hands them to the agent (description: the model description, localized by `nls`). */
export function catalogueTools(manifest: unknown, nls: Readonly<Record<string, string>>): ToolDefinition[] {
	const declared = (manifest as { contributes?: { languageModelTools?: DeclaredTool[] } }).contributes?.languageModelTools ?? [];
	return declared.map(t => ({
		name: t.name,
		description: t.modelDescription.replace(/^%(.+)%$/, (whole, key: string) => nls[key] ?? whole),
		inputSchema: t.inputSchema,
	}));
}

/** The folder of Longhaul's package.json, from wherever this file was compiled to (out/bench/replay, out/test/...). */
export function repositoryRoot(): string {
	for (let dir = __dirname; ; dir = dirname(dir)) {
		const file = join(dir, 'package.json');
		if (existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).name === 'longhaul') return dir;
		if (dirname(dir) === dir) throw new Error(`no Longhaul package.json above ${__dirname}`);
	}
}

let productTools: ToolDefinition[] | undefined;

/** Longhaul's catalogue, read once from its package.json and package.nls.json. */
export function productCatalogue(): readonly ToolDefinition[] {
	if (!productTools) {
		const root = repositoryRoot();
		const read = (name: string) => JSON.parse(readFileSync(join(root, name), 'utf8')) as unknown;
		productTools = catalogueTools(read('package.json'), read('package.nls.json') as Record<string, string>);
	}
	return productTools;
}

/** The charge of a catalogue: its definitions' tokens, as the agent counts them. */
export function catalogueTokens(tools: readonly ToolDefinition[], tokenizer: TextTokenizer): number {
	return toolDefinitionTokens(tools, text => tokenizer.countTokens(text));
}
