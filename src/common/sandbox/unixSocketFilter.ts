// The seccomp filter that keeps a sandboxed command off the host's Unix sockets when the network
// is off (docs/decisions.md §46): `socket(AF_UNIX, …)` fails with EPERM; every other system call
// passes, socketpair too (node and the shell use it for pipes between their own processes, which
// reach nothing outside). bwrap loads it from a file descriptor (`--seccomp FD`). A classic BPF
// program, written here: no library, no compiler. Pure: no vscode import.
//
// It looks at the architecture the call was made with, so a 32-bit program on a 64-bit kernel
// cannot pass by the other system call numbers: x86_64 (and its x32 numbers), i386 (whose
// multiplexed `socketcall` is refused whole, since its arguments are behind a pointer the filter
// cannot read), aarch64 and 32-bit arm. Any other architecture gets EPERM on every call.

/** Where bwrap reads the filter from: the descriptor after stdin, stdout and stderr. */
export const SECCOMP_FD = 3;

const AUDIT_ARCH = { x86_64: 0xc000003e, i386: 0x40000003, aarch64: 0xc00000b7, arm: 0x40000028 } as const;
const X32_BIT = 0x40000000;
const AF_UNIX = 1;
const EPERM = 1;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
// struct seccomp_data: nr (u32) at 0, arch (u32) at 4, instruction_pointer (u64) at 8, args[6] (u64) from 16.
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
/** The low 32 bits of the first argument (both architectures are little-endian). */
const OFFSET_ARG0 = 16;

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const RET_K = 0x06;

interface ArchRule {
	readonly arch: number;
	/** `socket` in this architecture's numbers: refused for AF_UNIX. */
	readonly socket: readonly number[];
	/** Calls refused whatever their arguments. */
	readonly refused: readonly number[];
}

/** The architectures the kernel of each Node architecture runs programs of. */
const RULES: Readonly<Record<string, readonly ArchRule[]>> = {
	x64: [
		{ arch: AUDIT_ARCH.x86_64, socket: [41, X32_BIT | 41], refused: [] },
		{ arch: AUDIT_ARCH.i386, socket: [359], refused: [102] },
	],
	arm64: [
		{ arch: AUDIT_ARCH.aarch64, socket: [198], refused: [] },
		{ arch: AUDIT_ARCH.arm, socket: [281], refused: [] },
	],
};

type Target = string | number;
interface Op {
	readonly code: number;
	readonly k: number;
	readonly jt?: Target;
	readonly jf?: Target;
	readonly label?: string;
}

/** Resolves labels to the forward offsets BPF jumps take and packs `struct sock_filter` (8 bytes each). */
function assemble(ops: readonly Op[]): Buffer {
	const at = new Map(ops.flatMap((op, i) => (op.label ? [[op.label, i] as const] : [])));
	const out = Buffer.alloc(ops.length * 8);
	ops.forEach((op, i) => {
		const offset = (t: Target | undefined) => (t === undefined ? 0 : typeof t === 'number' ? t : at.get(t)! - i - 1);
		const [jt, jf] = [offset(op.jt), offset(op.jf)];
		if (jt < 0 || jt > 255 || jf < 0 || jf > 255) throw new Error('seccomp filter: jump out of range');
		out.writeUInt16LE(op.code, i * 8);
		out.writeUInt8(jt, i * 8 + 2);
		out.writeUInt8(jf, i * 8 + 3);
		out.writeUInt32LE(op.k >>> 0, i * 8 + 4);
	});
	return out;
}

/** The filter for the kernel of Node's architecture `arch`; undefined where Longhaul has no numbers for it. */
export function unixSocketFilter(arch: string = process.arch): Buffer | undefined {
	const rules = RULES[arch];
	if (!rules) return undefined;
	const ops: Op[] = [{ code: LD_W_ABS, k: OFFSET_ARCH }];
	rules.forEach((r, i) => ops.push({ code: JEQ_K, k: r.arch, jt: `arch${i}` }));
	ops.push({ code: RET_K, k: RET_ERRNO | EPERM });
	rules.forEach((r, i) => {
		ops.push({ code: LD_W_ABS, k: OFFSET_NR, label: `arch${i}` });
		for (const nr of r.socket) ops.push({ code: JEQ_K, k: nr, jt: 'domain' });
		for (const nr of r.refused) ops.push({ code: JEQ_K, k: nr, jt: 'deny' });
		ops.push({ code: RET_K, k: RET_ALLOW });
	});
	ops.push({ code: LD_W_ABS, k: OFFSET_ARG0, label: 'domain' });
	ops.push({ code: JEQ_K, k: AF_UNIX, jt: 'deny' });
	ops.push({ code: RET_K, k: RET_ALLOW });
	ops.push({ code: RET_K, k: RET_ERRNO | EPERM, label: 'deny' });
	return assemble(ops);
}
