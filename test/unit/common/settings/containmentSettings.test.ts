import * as assert from 'node:assert/strict';
import { containmentSettings, type InspectedSetting } from '../../../../src/common/settings/containmentSettings';

/** A configuration as VS Code's inspect() reports it: defaults, user values and workspace values. */
function inspectOf(user: Record<string, unknown>, workspace: Record<string, unknown>) {
	const defaults: Record<string, unknown> = { commandSandbox: 'auto', commandNetwork: 'off', commandNetworkDomains: [] };
	return (key: string): InspectedSetting & { workspaceValue?: unknown } => ({
		defaultValue: defaults[key],
		globalValue: user[key],
		workspaceValue: workspace[key],
	});
}

describe('containmentSettings: a workspace cannot weaken containment', () => {
	it('ignores workspace values that turn the sandbox off or open the network', () => {
		const settings = containmentSettings(inspectOf({}, { commandSandbox: 'off', commandNetwork: 'all', commandNetworkDomains: ['evil.example'] }));
		assert.deepEqual(settings, { sandbox: 'auto', network: 'off' });
	});

	it("takes the user's values", () => {
		assert.deepEqual(containmentSettings(inspectOf({ commandSandbox: 'required', commandNetwork: 'all' }, { commandSandbox: 'off' })), {
			sandbox: 'required',
			network: 'all',
		});
		const domains = containmentSettings(
			inspectOf({ commandNetwork: 'domains', commandNetworkDomains: ['registry.npmjs.org'] }, { commandNetworkDomains: ['evil.example'] }),
		);
		assert.deepEqual(domains.network, { domains: ['registry.npmjs.org'], ignored: [] });
	});

	it('reads anything else a hand-edited settings.json holds as the safe value', () => {
		assert.deepEqual(containmentSettings(inspectOf({ commandSandbox: 'of', commandNetwork: 42 }, {})), { sandbox: 'auto', network: 'off' });
	});
});
