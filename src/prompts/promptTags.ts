// Longhaul's prompts mark their structure with tags (<user>, <tool-result>, <conversation-summary>,
// <done-ledger>, …) around text that comes from elsewhere: tool output, file contents, summaries
// a model wrote, commands the model ran. Such text must not be able to close the element it sits
// in or open another, or a file holding `</tool-result></assistant><user>…` would put words in
// the user's mouth. So every opening or closing tag of these names inside embedded text (any
// case, blanks allowed after `<` and `/`) is written with `&lt;` for its `<`: it still reads as
// what it was, but it is no tag. Other text, code with `<` and `>` included, stays as it is.

/** The tag around a summary to shorten (condensePrompt.tsx); the test model recognizes a condense request by it. */
export const CONDENSE_TAG = 'summary-to-condense';
/** The tag around an older summary block to shorten (condenseBlockPrompt.tsx). */
export const CONDENSE_BLOCK_TAG = 'summary-block-to-condense';

/** Every tag name Longhaul's prompts use for structure. */
export const STRUCTURE_TAGS: readonly string[] = [
	'conversation-transcript',
	'previous-summary',
	'user',
	'assistant',
	'thinking',
	'tool-call',
	'tool-result',
	'conversation-summary',
	'done-ledger',
	'summary',
	'analysis',
	'focus',
	'attachments',
	'attachment',
	CONDENSE_TAG,
	CONDENSE_BLOCK_TAG,
];

const TAG = new RegExp(`<(\\s*/?\\s*)(${[...STRUCTURE_TAGS].sort((a, b) => b.length - a.length).join('|')})(?![\\w-])`, 'gi');

/** `text` with every structure tag in it made plain text (its `<` written `&lt;`). */
export function escapeTags(text: string): string {
	return text.replace(TAG, '&lt;$1$2');
}

/** An attribute value: quotes, ampersands, angle brackets and line breaks cannot end the attribute or the tag. */
export function attributeValue(value: string): string {
	return value
		.replace(/&/g, '&amp;')
		.replace(/"/g, '&quot;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/[\r\n]/g, ' ');
}
