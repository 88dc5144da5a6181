// The summarizer's one quiet retry (src/agent/modelCall.ts callModelQuietly): a summarizer request
// is sent with its model options (temperature 0); when it fails with an error that is not final
// (not the provider's own LanguageModelError, not an unavailable provider, not a cancellation) it
// is sent once more without them, since some models refuse options they do not support. The
// replay benchmark runs the same rule on its stand-in replies (bench/replay/replaySummarizer.ts).

/** Sends with options; on an error `isFinal` does not claim, once more without them. */
export async function sendWithQuietRetry<T>(send: (withOptions: boolean) => Promise<T>, isFinal: (error: unknown) => boolean): Promise<T> {
	try {
		return await send(true);
	} catch (error) {
		if (isFinal(error)) throw error;
		return send(false);
	}
}
