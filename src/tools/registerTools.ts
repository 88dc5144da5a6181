import * as vscode from 'vscode';
import { registerChangeDocuments } from './codeConfigGate';
import { sandboxMemory } from './commandSandbox';
import { editFileTool } from './editFile';
import { findFilesTool } from './findFiles';
import { listDirectoryTool } from './listDirectory';
import { readFileTool } from './readFile';
import { recallTool } from './recall';
import { runCommandTool } from './runCommand';
import { searchTextTool } from './searchText';
import { TOOL } from './toolNames';

/** Registers Longhaul's own tools (declared in package.json `languageModelTools`). */
export function registerTools(): vscode.Disposable[] {
	return [
		registerChangeDocuments(),
		{ dispose: () => sandboxMemory.clear() },
		vscode.lm.registerTool(TOOL.readFile, readFileTool),
		vscode.lm.registerTool(TOOL.listDirectory, listDirectoryTool),
		vscode.lm.registerTool(TOOL.findFiles, findFilesTool),
		vscode.lm.registerTool(TOOL.searchText, searchTextTool),
		vscode.lm.registerTool(TOOL.editFile, editFileTool),
		vscode.lm.registerTool(TOOL.runCommand, runCommandTool),
		vscode.lm.registerTool(TOOL.recall, recallTool),
	];
}
