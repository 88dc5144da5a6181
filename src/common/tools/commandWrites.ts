// The gate's second line behind the sandbox: where a command runs without one, its confirmation
// warns when it may write a file that runs code (codeConfigFiles.ts), whether it names the file
// (a redirection, tee, sed -i) or not (patch and git apply write what their patch names, a script
// writes what it likes). No vscode import.
import { shellEffects } from '../shell/shellCommand';
import { codeConfigFile } from './codeConfigFiles';

/** Programs that write the files their input names: the confirmation cannot show which. */
const PATCHERS = /(^|[\s;&|()`])(patch|git(\s+-\S+(\s+[^-\s]\S*)?)*\s+(apply|am)|quilt|dpatch)(\s|$)/;

/** Warnings for the confirmation of `command` run outside a sandbox; none when it writes nothing that runs code. */
export function gatedWriteWarnings(command: string): string[] {
	const effects = shellEffects(command);
	const warnings: string[] = [];
	const gated = effects.writes.filter(w => codeConfigFile(w));
	if (gated.length > 0) {
		const rules = [...new Set(gated.map(w => codeConfigFile(w)!.rule))];
		warnings.push(
			`⚠️ It writes ${gated.length === 1 ? 'a file' : `${gated.length} files`} that configure${gated.length === 1 ? 's' : ''} code that runs (${rules.join('; ')}): ${gated.join(', ')}.`,
		);
	}
	if (PATCHERS.test(command)) {
		warnings.push(
			'⚠️ It applies a patch, which writes whatever files the patch names, files that run code included (.git/config, .vscode/, package.json, …). Read the patch first.',
		);
	} else if (effects.runs && gated.length === 0) {
		warnings.push('It runs programs, which may write any file, files that run code included; no sandbox stops them.');
	}
	return warnings;
}
