// The settings that contain the agent's commands (longhaul.commandSandbox, commandNetwork,
// commandNetworkDomains), read from user (or remote) settings and defaults only. A workspace's
// .vscode/settings.json is written by whoever wrote the repository, or by an earlier command: it
// must not turn the sandbox off or open the network. package.json gives these settings the
// `machine` scope, so VS Code itself ignores workspace values; reading them this way holds even
// where a VS Code does not honour the scope. No vscode import: the agent passes `inspect` in.
import type { SandboxSetting } from '../tools/runnerChoice';
import { type CommandNetwork, parseDomainList } from '../sandbox/networkPolicy';

/** What `WorkspaceConfiguration.inspect` answers, the parts used here. */
export interface InspectedSetting {
	readonly defaultValue?: unknown;
	readonly globalValue?: unknown;
}

export type InspectSetting = (key: 'commandSandbox' | 'commandNetwork' | 'commandNetworkDomains') => InspectedSetting | undefined;

export interface ContainmentSettings {
	readonly sandbox: SandboxSetting;
	readonly network: CommandNetwork;
}

function userValue(inspected: InspectedSetting | undefined): unknown {
	return inspected?.globalValue !== undefined ? inspected.globalValue : inspected?.defaultValue;
}

/** The containment settings as the user (not the workspace) set them. */
export function containmentSettings(inspect: InspectSetting): ContainmentSettings {
	const sandbox = userValue(inspect('commandSandbox'));
	const network = userValue(inspect('commandNetwork'));
	return {
		sandbox: sandbox === 'required' || sandbox === 'off' ? sandbox : 'auto',
		network: network === 'all' ? 'all' : network === 'domains' ? parseDomainList(userValue(inspect('commandNetworkDomains'))) : 'off',
	};
}
