// How long the event loop was blocked while some work ran: the tests that promise a search never
// freezes the extension host measure it with this.

/** Runs `body` and reports the longest time the event loop was blocked meanwhile, and how long it took. */
export async function maxLag<T>(body: () => Promise<T>): Promise<{ result: T; lagMs: number; tookMs: number }> {
	const started = Date.now();
	let last = started;
	let lagMs = 0;
	const tick = setInterval(() => {
		const now = Date.now();
		lagMs = Math.max(lagMs, now - last - 10);
		last = now;
	}, 10);
	try {
		const result = await body();
		// A body that never yields blocks every tick: the time since the last one counts too.
		lagMs = Math.max(lagMs, Date.now() - last - 10);
		return { result, lagMs, tookMs: Date.now() - started };
	} finally {
		clearInterval(tick);
	}
}
