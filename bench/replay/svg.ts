// A hand-written SVG line chart: prompt tokens per request for each strategy, one panel per
// window, summarization (or truncation) points marked with a circle, overflows with a cross.
import type { RequestRecord, StrategyName } from './replayTypes';

export interface ChartSeries {
	readonly strategy: StrategyName;
	readonly window: number;
	readonly records: readonly RequestRecord[];
}

const COLORS: Record<StrategyName, string> = {
	legacy: '#d62728',
	'half-context': '#1f77b4',
	'truncate-half': '#7f7f7f',
	'keep-head-tail': '#2ca02c',
	'truncate-half+recall': '#bcbd22',
	'keep-head-tail+recall': '#9467bd',
	'legacy+mask': '#ff9896',
	'half-context+mask': '#17becf',
};

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function sessionChart(session: string, series: readonly ChartSeries[], budgets: ReadonlyMap<number, number>): string {
	const windows = [...new Set(series.map(s => s.window))].sort((a, b) => a - b);
	const strategies = [...new Set(series.map(s => s.strategy))];
	const width = 900;
	const panelHeight = 220;
	const left = 60;
	const right = 20;
	const top = 50;
	const gap = 50;
	const height = top + windows.length * (panelHeight + gap) + 10;
	const out: string[] = [];
	out.push(
		`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
	);
	out.push(`<rect width="100%" height="100%" fill="white"/>`);
	out.push(`<text x="${left}" y="18" font-size="14" font-weight="bold">${escape(session)}: prompt tokens per request</text>`);
	let lx = left;
	for (const strategy of strategies) {
		out.push(`<line x1="${lx}" y1="34" x2="${lx + 18}" y2="34" stroke="${COLORS[strategy]}" stroke-width="2"/><text x="${lx + 22}" y="38">${strategy}</text>`);
		lx += 130;
	}
	out.push(`<text x="${lx}" y="38">○ summarization/truncation   × overflow   - - message budget</text>`);

	windows.forEach((window, w) => {
		const y0 = top + w * (panelHeight + gap) + 20;
		const inPanel = series.filter(s => s.window === window);
		const n = Math.max(1, ...inPanel.map(s => s.records.length));
		const maxY = window;
		const x = (i: number) => left + (i / Math.max(1, n - 1)) * (width - left - right);
		const y = (v: number) => y0 + panelHeight - (Math.min(v, maxY * 1.1) / (maxY * 1.1)) * panelHeight;
		out.push(`<text x="${left}" y="${y0 - 6}" font-weight="bold">window ${window} tokens</text>`);
		out.push(`<rect x="${left}" y="${y0}" width="${width - left - right}" height="${panelHeight}" fill="none" stroke="#ccc"/>`);
		for (const frac of [0, 0.25, 0.5, 0.75, 1]) {
			const v = Math.round(maxY * frac);
			out.push(
				`<text x="${left - 4}" y="${y(v) + 4}" text-anchor="end" fill="#555">${v}</text><line x1="${left}" y1="${y(v)}" x2="${width - right}" y2="${y(v)}" stroke="#eee"/>`,
			);
		}
		const budget = budgets.get(window);
		if (budget !== undefined) {
			out.push(`<line x1="${left}" y1="${y(budget)}" x2="${width - right}" y2="${y(budget)}" stroke="#000" stroke-dasharray="4 3"/>`);
		}
		out.push(`<text x="${width - right}" y="${y0 + panelHeight + 14}" text-anchor="end" fill="#555">request ${n}</text>`);
		for (const s of inPanel) {
			const color = COLORS[s.strategy];
			const points = s.records.map((r, i) => `${x(i).toFixed(1)},${y(r.promptTokens).toFixed(1)}`).join(' ');
			out.push(`<polyline fill="none" stroke="${color}" stroke-width="1.5" stroke-opacity="0.85" points="${points}"><title>${s.strategy}</title></polyline>`);
			s.records.forEach((r, i) => {
				if (r.compactions > 0) {
					out.push(
						`<circle cx="${x(i).toFixed(1)}" cy="${y(r.promptTokens).toFixed(1)}" r="3.5" fill="none" stroke="${color}" stroke-width="1.5"><title>${s.strategy}: request ${i}, ${r.compactions} compaction(s), ${r.promptTokens} tokens, ${r.verbatimRounds} verbatim rounds</title></circle>`,
					);
				}
				if (r.overflow) {
					const cx = x(i);
					const cy = y(r.promptTokens);
					out.push(`<path d="M${cx - 4},${cy - 4}L${cx + 4},${cy + 4}M${cx - 4},${cy + 4}L${cx + 4},${cy - 4}" stroke="${color}" stroke-width="2"/>`);
				}
			});
		}
	});
	out.push('</svg>');
	return out.join('\n') + '\n';
}
