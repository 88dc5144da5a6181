// Nearest-rank percentile, shared by the participant's timing metadata, the replay benchmark and
// the test fixture's replay report.

/** The `p`th percentile (0–100) of `values` by the nearest-rank rule; 0 for no values. */
export function percentile(values: readonly number[], p: number): number {
	if (values.length === 0) return 0;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
