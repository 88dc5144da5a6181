// `longhaul.summarizerModel`: summaries and condense passes may go to another model than the chat's
// (a cheaper one: each summary is a request of its own). The setting is a selector as
// vscode.lm.selectChatModels takes it ({ "vendor": …, "family": …, "id": … }), or a string that is
// an id or a family. The model is looked up at each request; when none matches, the request's
// model writes the summaries and the response says why. The summarizer prompt is sized by the
// summarizer's own window and token ratio; the summary itself must still fit the chat model's
// prompt, so its length stays a share of that model's room for messages (budget.ts SUMMARY_SHARE).
import * as vscode from 'vscode';
import { computeBudget, summarizerPromptBudget } from '../common/tokens/budget';
import type { TelemetryEvent } from '../common/stats/telemetryEvents';
import type { SummarizerModel } from './summarizerSteps';
import type { LonghaulTelemetry } from './telemetry';
import type { TokenCalibration } from './tokenCalibration';

export interface ResolvedSummarizer {
	/** The other model, when the setting names one that is available (and not the request's own). */
	readonly model?: SummarizerModel;
	/** What telemetry calls it. */
	readonly kind: 'request' | 'setting' | 'fallback';
	/** For the response, when the setting names a model that is not there. */
	readonly notice?: string;
	/** For /context. */
	readonly line: string;
}

const describe = (model: vscode.LanguageModelChat) => `${model.name} (\`${model.vendor}/${model.id}\`, ${model.maxInputTokens.toLocaleString('en-US')} tokens)`;

export async function resolveSummarizer(setting: unknown, request: vscode.LanguageModelChat, calibration: TokenCalibration): Promise<ResolvedSummarizer> {
	const selector = selectorOf(setting);
	if (!selector) return { kind: 'request', line: `Summaries are written by the chat's model, ${describe(request)} (\`longhaul.summarizerModel\` is not set).` };
	const wanted = JSON.stringify(setting);
	const found = await findModel(selector);
	if (!found) {
		const notice = `\`longhaul.summarizerModel\` (${wanted}) matches no model available now, so the chat's model, ${request.name}, writes the summaries.`;
		return { kind: 'fallback', notice, line: `Summaries: ${notice}` };
	}
	if (found.vendor === request.vendor && found.id === request.id) {
		return { kind: 'request', line: `Summaries are written by the chat's model, ${describe(request)}, which \`longhaul.summarizerModel\` names.` };
	}
	const model: SummarizerModel = {
		model: found,
		promptBudget: () => summarizerPromptBudget(computeBudget(found.maxInputTokens, 0, calibration.ratio(found))),
	};
	return {
		kind: 'setting',
		model,
		line: `Summaries are written by ${describe(found)} (\`longhaul.summarizerModel\`); their length still follows the chat model's window.`,
	};
}

/** A selector from the setting: an object with vendor, family, id or version, or a string (an id, else a family). */
function selectorOf(setting: unknown): vscode.LanguageModelChatSelector | string | undefined {
	if (typeof setting === 'string') return setting.trim() || undefined;
	if (typeof setting !== 'object' || setting === null || Array.isArray(setting)) return undefined;
	const s = setting as Record<string, unknown>;
	const selector: { vendor?: string; family?: string; id?: string; version?: string } = {};
	for (const key of ['vendor', 'family', 'id', 'version'] as const) if (typeof s[key] === 'string' && s[key]) selector[key] = s[key] as string;
	return Object.keys(selector).length ? selector : undefined;
}

async function findModel(selector: vscode.LanguageModelChatSelector | string): Promise<vscode.LanguageModelChat | undefined> {
	try {
		if (typeof selector !== 'string') return (await vscode.lm.selectChatModels(selector))[0];
		return (await vscode.lm.selectChatModels({ id: selector }))[0] ?? (await vscode.lm.selectChatModels({ family: selector }))[0];
	} catch {
		return undefined;
	}
}

/** The telemetry sender with `summarizerModel` set on every summarization event. */
export function withSummarizerKind(telemetry: LonghaulTelemetry, kind: ResolvedSummarizer['kind']): LonghaulTelemetry {
	return {
		send: (event: TelemetryEvent) =>
			telemetry.send(event.name === 'summarization' ? ({ ...event, data: { ...event.data, summarizerModel: kind } } as TelemetryEvent) : event),
		get recording() {
			return telemetry.recording;
		},
		dispose: () => telemetry.dispose(),
	};
}
