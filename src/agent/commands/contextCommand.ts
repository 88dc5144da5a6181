// `/context`: what the next prompt is made of (contextReport.ts), with links that open each summary
// block. The report is the only markdown Longhaul trusts with a command, and only the commands its
// links use.
import * as vscode from 'vscode';
import { backgroundLine } from '../backgroundSummary';
import { contextReport } from '../contextReport';
import { resultFor } from '../requestResult';
import { OPEN_SUMMARY_COMMAND, RESTORE_SUMMARY_COMMAND } from '../summaryDocuments';
import type { RequestContext } from './requestContext';

export async function contextCommand(ctx: RequestContext): Promise<vscode.ChatResult> {
	const { state, request, settings } = ctx;
	const report = new vscode.MarkdownString(
		await contextReport({
			conversation: ctx.chats.asLeft(state.conversation),
			model: request.model,
			tools: ctx.tools,
			settings,
			toolsLeftOut: ctx.toolsLeftOut,
			ledger: state.ledger,
			calibration: ctx.calibration.calibration(request.model),
			telemetryRecorded: ctx.telemetry.recording,
			instructions: ctx.instructions,
			summarizerLine: ctx.summarizer.line,
			documents: ctx.documents,
			backgroundLine: backgroundLine(ctx.speeds, ctx.carried, request.model.id),
		}),
	);
	report.isTrusted = { enabledCommands: [OPEN_SUMMARY_COMMAND, RESTORE_SUMMARY_COMMAND] };
	ctx.stream.markdown(report);
	return resultFor(state, settings, { storeLedger: false });
}
