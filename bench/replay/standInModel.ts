// The model's side of a request in the benchmark and the test model: its own token count and its
// hard limit. A real provider counts with its own tokenizer and refuses a request over its limit
// with an error; Longhaul only sees the error text (shared/notes/provider-errors.md).

/** The error text GitHub Copilot's API returns for a prompt over the model's limit (the newer CAPI shape). */
export function copilotPromptTooLongText(promptTokens: number, limit: number): string {
	return `Request Failed: 400 {"error":{"message":"prompt token count of ${promptTokens} exceeds the limit of ${limit}","code":"model_max_prompt_tokens_exceeded"}}`;
}

/** The error a provider throws for a prompt over its limit, Copilot-shaped. */
export function promptTooLongError(promptTokens: number, limit: number): Error {
	return new Error(copilotPromptTooLongText(promptTokens, limit));
}
