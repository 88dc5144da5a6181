// Longhaul's statistics through VS Code's telemetry API: `vscode.env.createTelemetryLogger` decides
// from the user's telemetry level whether an event goes out at all (usage events only at `all`),
// and the sender behind it writes each event as one line to the Longhaul log. It has no network
// code. The events and their fields are declared in src/common/stats/telemetryEvents.ts and listed
// in docs/telemetry.md. `vscode` is only a type here: the logger factory and the log are injected.
import type * as vscode from 'vscode';
import type { TelemetryEvent } from '../common/stats/telemetryEvents';

/** The prefix of every telemetry line in the Longhaul log. */
export const TELEMETRY_LINE_PREFIX = 'telemetry ';

export interface LonghaulTelemetry extends vscode.Disposable {
	send(event: TelemetryEvent): void;
	/** True while VS Code's telemetry level lets usage events through. */
	readonly recording: boolean;
}

export function createTelemetry(createLogger: typeof vscode.env.createTelemetryLogger, writeLine: (line: string) => void): LonghaulTelemetry {
	const sender: vscode.TelemetrySender = {
		sendEventData(eventName, data) {
			writeLine(`${TELEMETRY_LINE_PREFIX}${eventName} ${JSON.stringify(data ?? {})}`);
		},
		// Longhaul reports no errors through the logger and turns VS Code's unhandled-error
		// reporting off below; should one arrive anyway, only its kind is written.
		sendErrorData(error) {
			writeLine(`${TELEMETRY_LINE_PREFIX}error ${error.name}`);
		},
	};
	// No machine or session ids, version or platform: the events carry only their declared fields.
	const logger = createLogger(sender, { ignoreBuiltInCommonProperties: true, ignoreUnhandledErrors: true });
	return {
		send: event => logger.logUsage(event.name, { ...event.data }),
		get recording() {
			return logger.isUsageEnabled;
		},
		dispose: () => logger.dispose(),
	};
}
