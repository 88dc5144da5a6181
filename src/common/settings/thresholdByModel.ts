// `longhaul.backgroundSummarizationThreshold` is a percent of the window, or one per model family:
// `{ "default": 80, "gpt-4o": 70, "claude-sonnet-4": 90 }`. A model whose family (or id) is not
// listed gets `default`, else 80. Values are clamped to 0–100 (0 turns background summaries off);
// anything else a hand-edited settings.json may hold is ignored.

export const DEFAULT_THRESHOLD_PERCENT = 80;

/** The threshold, as a share of the message budget (0–1), for a model. */
export function thresholdFor(setting: unknown, model: { readonly family: string; readonly id: string }): number {
	const percent = percentFor(setting, model);
	return Math.min(100, Math.max(0, percent)) / 100;
}

function percentFor(setting: unknown, model: { readonly family: string; readonly id: string }): number {
	if (isPercent(setting)) return setting;
	if (typeof setting !== 'object' || setting === null || Array.isArray(setting)) return DEFAULT_THRESHOLD_PERCENT;
	const byModel = setting as Record<string, unknown>;
	for (const key of [model.family, model.id, 'default']) {
		const value = byModel[key];
		if (isPercent(value)) return value;
	}
	return DEFAULT_THRESHOLD_PERCENT;
}

function isPercent(value: unknown): value is number {
	return typeof value === 'number' && Number.isFinite(value);
}
