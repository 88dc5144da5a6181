// Why the command sandbox cannot start here, and how to enable it, in words for the one notice per
// chat (`longhaul.commandSandbox: auto`) and the refusal (`required`). No vscode import.

export type Unavailable =
	| { readonly kind: 'platform'; readonly platform: string }
	| { readonly kind: 'missing' }
	/** `program` names what failed when it is not bubblewrap (macOS: sandbox-exec). */
	| { readonly kind: 'failed'; readonly detail: string; readonly program?: string };

/** stderr of bwrap when the kernel or a security module refuses the namespaces it needs. */
const NAMESPACES_REFUSED = /uid map|user namespace|No permissions to create new namespace|Operation not permitted|Permission denied/i;

/** One sentence on why commands run outside the sandbox, and what to do about it. */
export function unavailableReason(why: Unavailable): string {
	switch (why.kind) {
		case 'platform':
			return `Longhaul's command sandbox uses bubblewrap on Linux and Seatbelt on macOS; on ${why.platform} commands run without a sandbox.`;
		case 'missing':
			return 'bubblewrap (bwrap) is not installed, so commands run without a sandbox. Install it to enable it: `sudo apt install bubblewrap` (Debian, Ubuntu), `sudo dnf install bubblewrap` (Fedora).';
		case 'failed': {
			const detail = why.detail.trim().split('\n')[0]?.slice(0, 200) || 'no message';
			const hint = NAMESPACES_REFUSED.test(why.detail)
				? ' Unprivileged user namespaces seem to be disabled: on Ubuntu 24.04 AppArmor restricts them (allow bwrap with an AppArmor profile, or set kernel.apparmor_restrict_unprivileged_userns=0); in a container, the container must allow them.'
				: '';
			return `${why.program ?? 'bubblewrap'} could not start a sandbox here (${detail}), so commands run without one.${why.program ? '' : hint}`;
		}
	}
}

/** The notice shown once per chat when `longhaul.commandSandbox` is `auto` and no sandbox can start. */
export function autoNotice(why: Unavailable): string {
	return `${unavailableReason(why)} Until then the confirmation of each command is all that stands between it and your files, secrets and network. Set longhaul.commandSandbox to "required" to refuse commands instead, or to "off" to silence this notice.`;
}
