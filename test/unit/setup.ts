// Mocha root hooks for the unit tests: the bash parser (WebAssembly) is loaded once before any
// test runs, as the extension does at activation, so the shell classifier reads command lines.
import { bashParserFailure, loadBashParser } from '../../src/common/shell/bashParser';

export const mochaHooks = {
	async beforeAll(): Promise<void> {
		if (!(await loadBashParser())) throw new Error(`The bash parser did not load: ${bashParserFailure()}`);
	},
};
