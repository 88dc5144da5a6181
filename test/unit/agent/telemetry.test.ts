// The telemetry wiring with a stand-in for vscode.env.createTelemetryLogger that gates events the
// way VS Code's does (src/vs/workbench/api/common/extHostTelemetry.ts): usage events reach the
// sender only at the `all` level, and a disposed logger sends nothing. The real logger is
// exercised in the e2e suite (test/e2e/readableSummary.e2e.mjs), where VS Code calls senders.
import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { TELEMETRY_LINE_PREFIX, createTelemetry } from '../../../src/agent/telemetry';
import { fallbackEvent } from '../../../src/common/stats/eventsFromData';

type Level = 'all' | 'error' | 'crash' | 'off';

function standInLogger(level: () => Level) {
	const created: { options?: vscode.TelemetryLoggerOptions }[] = [];
	const factory = ((sender: vscode.TelemetrySender, options?: vscode.TelemetryLoggerOptions) => {
		created.push({ options });
		let disposed = false;
		return {
			get isUsageEnabled() {
				return level() === 'all';
			},
			get isErrorsEnabled() {
				return level() === 'all' || level() === 'error';
			},
			onDidChangeEnableStates: () => ({ dispose() {} }),
			logUsage(eventName: string, data?: Record<string, unknown>) {
				if (!disposed && level() === 'all') sender.sendEventData(`longhaul-dev.longhaul/${eventName}`, data);
			},
			logError() {
				throw new Error('Longhaul reports no errors through telemetry');
			},
			dispose() {
				disposed = true;
			},
		} as unknown as vscode.TelemetryLogger;
	}) as typeof vscode.env.createTelemetryLogger;
	return { factory, created };
}

describe('telemetry sender', () => {
	const event = fallbackEvent({ step: 'drop-rounds', why: 'summary-failed', items: 4, promptTokens: 9000, windowTokens: 8000 });

	it('with telemetry off (or at crash or error level) nothing is sent', () => {
		for (const level of ['off', 'crash', 'error'] as const) {
			const lines: string[] = [];
			const telemetry = createTelemetry(standInLogger(() => level).factory, line => lines.push(line));
			telemetry.send(event);
			assert.deepEqual(lines, [], level);
			assert.equal(telemetry.recording, false);
		}
	});

	it('at the all level each event is one log line with its declared fields, and nothing is sent after dispose', () => {
		let level: Level = 'all';
		const lines: string[] = [];
		const { factory, created } = standInLogger(() => level);
		const telemetry = createTelemetry(factory, line => lines.push(line));
		assert.equal(telemetry.recording, true);
		telemetry.send(event);
		level = 'off';
		telemetry.send(event);
		level = 'all';
		telemetry.dispose();
		telemetry.send(event);
		assert.equal(lines.length, 1);
		assert.ok(lines[0].startsWith(`${TELEMETRY_LINE_PREFIX}longhaul-dev.longhaul/fallback {`), lines[0]);
		assert.deepEqual(JSON.parse(lines[0].slice(lines[0].indexOf('{'))), { ...event.data });
		assert.deepEqual(created[0].options, { ignoreBuiltInCommonProperties: true, ignoreUnhandledErrors: true }, 'no common properties, no unhandled errors');
	});
});
