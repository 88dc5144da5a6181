// Follows a file that another process appends to and copies new text to a stream.
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';

export function followFile(path, out = process.stdout, intervalMs = 200) {
	let offset = 0;
	const pump = () => {
		if (!existsSync(path)) return;
		const size = statSync(path).size;
		if (size <= offset) return;
		const fd = openSync(path, 'r');
		try {
			const buffer = Buffer.alloc(size - offset);
			readSync(fd, buffer, 0, buffer.length, offset);
			offset = size;
			out.write(buffer);
		} finally {
			closeSync(fd);
		}
	};
	const timer = setInterval(pump, intervalMs);
	return {
		/** Copies whatever is left and stops following. */
		stop() {
			clearInterval(timer);
			pump();
		},
	};
}
