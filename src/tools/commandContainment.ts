// How longhaul_runCommand contains a command: reads longhaul.commandSandbox,
// longhaul.commandNetwork and longhaul.commandNetworkDomains (user or remote settings only, never a
// workspace's: src/common/settings/containmentSettings.ts), decides whether the command runs in the sandbox (commandSandbox.ts), says
// so in the confirmation, gives the one notice per chat when `auto` finds no sandbox, and asks a
// second time, itself, before a command runs outside an available sandbox.
import * as vscode from 'vscode';
import { autoNotice, type Unavailable, unavailableReason } from '../common/sandbox/sandboxNotice';
import type { CommandNetwork } from '../common/sandbox/networkPolicy';
import { type ContainmentSettings, containmentSettings } from '../common/settings/containmentSettings';
import { type SandboxEngine, sandboxSummary } from '../common/sandbox/sandboxPolicy';
import { sandboxAvailability, sandboxMemory } from './commandSandbox';

export type Containment =
	| { readonly kind: 'sandboxed'; readonly engine: SandboxEngine; readonly network: CommandNetwork }
	/** Outside the sandbox: the setting is off, the model asked (and the user allows it twice), or none can start. */
	| { readonly kind: 'outside'; readonly because: 'off' | 'asked' | 'unavailable'; readonly why?: Unavailable; readonly network: CommandNetwork };

/** The containment settings as the user set them; a workspace's values are ignored. */
export function readContainmentSettings(): ContainmentSettings {
	const config = vscode.workspace.getConfiguration('longhaul');
	return containmentSettings(key => config.inspect(key));
}

/** The confirmation's title: where the command runs. */
export function confirmationTitle(c: Containment): string {
	if (c.kind === 'sandboxed') return vscode.l10n.t("Run command in Longhaul's sandbox?");
	return c.because === 'asked' ? vscode.l10n.t('Run command outside the sandbox?') : vscode.l10n.t('Run command without a sandbox?');
}

/** Where the command runs; throws (before any confirmation) when `required` finds no sandbox. */
export async function containment(outsideSandbox: boolean): Promise<Containment> {
	const { sandbox, network } = readContainmentSettings();
	if (sandbox === 'off') return { kind: 'outside', because: 'off', network };
	const available = await sandboxAvailability(network);
	if (!available.ok) {
		if (sandbox === 'required') {
			throw new Error(`longhaul.commandSandbox is "required" and no sandbox can start: ${unavailableReason(available.why)} Nothing was run.`);
		}
		return { kind: 'outside', because: 'unavailable', why: available.why, network };
	}
	if (outsideSandbox) return { kind: 'outside', because: 'asked', network };
	return { kind: 'sandboxed', engine: available.engine, network };
}

/** The confirmation's first line: who runs the command, and what it may do. */
export function containmentLine(c: Containment): string {
	if (c.kind === 'sandboxed') return `Longhaul runs this command in its sandbox. ${sandboxSummary(c.network, c.engine.kind)}`;
	if (c.because === 'asked') {
		return '⚠️ **Outside the sandbox**, as the model asked: the command can change any of your files, read your secrets and use the network. Longhaul asks once more before it runs.';
	}
	const why = c.because === 'off' ? 'longhaul.commandSandbox is "off"' : unavailableReason(c.why!);
	return `⚠️ Not sandboxed (${why.replace(/\.$/, '')}): Longhaul runs this command as you; it can do anything you can.`;
}

function chatKey(token: unknown): string {
	const session = (token as { sessionId?: unknown } | undefined)?.sessionId;
	return typeof session === 'string' ? session : 'this window';
}

/** The notice, once per chat, when `auto` runs a command without a sandbox; '' otherwise. */
export function noticeOnce(c: Containment, toolInvocationToken: unknown): string {
	if (c.kind !== 'outside' || c.because !== 'unavailable') return '';
	const key = chatKey(toolInvocationToken);
	// Chats that had the notice; VS Code's token names the chat session where it knows it.
	if (sandboxMemory.noticed.has(key)) return '';
	sandboxMemory.noticed.add(key);
	const notice = autoNotice(c.why!);
	void vscode.window.showWarningMessage(vscode.l10n.t('Longhaul: {0}', notice));
	return notice;
}

/** Longhaul's own second question before a command runs outside an available sandbox; no setting answers it. */
export async function allowOutside(command: string, token: vscode.CancellationToken): Promise<boolean> {
	const run: vscode.QuickPickItem = {
		label: `$(warning) ${vscode.l10n.t('Run outside the sandbox')}`,
		description: command.slice(0, 120).replace(/\$\(/g, '$⟪U+0028⟫'),
	};
	const dont: vscode.QuickPickItem = { label: `$(close) ${vscode.l10n.t("Don't run")}`, description: vscode.l10n.t('nothing is run') };
	const picked = await vscode.window.showQuickPick(
		[dont, run],
		{
			title: vscode.l10n.t('Run this command outside the sandbox? It can change any file, read your secrets and use the network.'),
			ignoreFocusOut: true,
		},
		token,
	);
	return picked === run;
}
