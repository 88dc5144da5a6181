import * as vscode from 'vscode';
import { type LonghaulSettings, settingsFrom } from '../common/settings/longhaulSettings';

export type { LonghaulSettings } from '../common/settings/longhaulSettings';

/** The settings for a request to `model`, read fresh (a change takes effect without a reload). */
export function readSettings(model: { readonly family: string; readonly id: string }): LonghaulSettings {
	return settingsFrom(vscode.workspace.getConfiguration('longhaul'), model);
}
