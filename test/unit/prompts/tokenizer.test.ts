import * as assert from 'node:assert/strict';
import { OutputMode, Raw } from '@vscode/prompt-tsx';
import {
	LINE_COUNTED_CHARS,
	MAX_RUN_CHARS,
	MESSAGE_NAME_TOKENS,
	MESSAGE_OVERHEAD_TOKENS,
	TOOL_CALL_OVERHEAD_TOKENS,
	TiktokenTokenizer,
	boundedPieces,
} from '../../../src/common/tokens/tokenizer';
import { getEncoding } from 'js-tiktoken';
import { tokenizer as warmTokenizer } from './fixtures';

describe('TiktokenTokenizer (o200k_base)', () => {
	before(() => {
		warmTokenizer.countTokens('warm up the shared encoder');
	});

	it('counts known strings like the o200k_base reference', () => {
		const t = new TiktokenTokenizer();
		assert.deepEqual(t.encode('hello world'), [24912, 2375]);
		assert.equal(t.countTokens('hello world'), 2);
		// OpenAI cookbook example for o200k_base.
		assert.deepEqual(t.encode('tiktoken is great!'), [83, 8251, 2488, 382, 2212, 0]);
		assert.equal(t.countTokens('The quick brown fox jumps over the lazy dog.'), 10);
		assert.equal(t.countTokens(''), 0);
	});

	it('counts special-token text in user content as ordinary text instead of throwing', () => {
		const t = new TiktokenTokenizer();
		assert.equal(t.countTokens('<|endoftext|>'), 7);
	});

	it('decodes what it encodes', () => {
		const t = new TiktokenTokenizer();
		const text = 'const ünïcode = "日本語"; // émoji 🚀';
		assert.equal(t.decode(t.encode(text)), text);
	});

	it('tokenizes a text once: the second count is a cache hit with the same result', () => {
		const t = new TiktokenTokenizer();
		const text = 'function add(a, b) {\n\treturn a + b;\n}';
		const first = t.countTokens(text);
		assert.deepEqual(t.stats(), { tokenizedChars: text.length, tokenizedTokens: first, cacheHits: 0, cacheMisses: 1 });
		const second = t.countTokens(text);
		assert.equal(second, first);
		assert.deepEqual(t.stats(), { tokenizedChars: text.length, tokenizedTokens: first, cacheHits: 1, cacheMisses: 1 });
	});

	it('evicts the least recently used text when over its entry bound', () => {
		const t = new TiktokenTokenizer({ maxEntries: 2 });
		t.countTokens('alpha');
		t.countTokens('beta');
		t.countTokens('alpha'); // alpha is now the most recent
		t.countTokens('gamma'); // evicts beta
		assert.equal(t.cacheSize().entries, 2);
		const before = t.stats();
		t.countTokens('alpha');
		assert.equal(t.stats().cacheHits, before.cacheHits + 1);
		t.countTokens('beta');
		assert.equal(t.stats().cacheMisses, before.cacheMisses + 1);
	});

	it('keeps the cached characters under its character bound', () => {
		const t = new TiktokenTokenizer({ maxChars: 100 });
		for (let i = 0; i < 10; i++) {
			t.countTokens(`${i} `.repeat(15)); // 30 characters each
		}
		assert.ok(t.cacheSize().chars <= 100, `cached ${t.cacheSize().chars} chars`);
		assert.equal(t.cacheSize().entries, 3);
		t.countTokens('x'.repeat(500)); // larger than the whole cache: counted, not cached
		assert.ok(t.cacheSize().chars <= 100);
	});

	it('counts long texts line by line: exact, or a token over per run of blank lines, and a known output costs nothing inside a larger text', () => {
		const t = new TiktokenTokenizer();
		const output = Array.from(
			{ length: 120 },
			(_, i) => `${String(i + 1).padStart(4)}: const value${i} = compute(${i}, "src/file${i % 7}.ts"); // ${'x'.repeat(i % 13)}`,
		).join('\n');
		assert.ok(output.length > LINE_COUNTED_CHARS);
		const exact = t.encode(output).length;
		assert.equal(t.countTokens(output), exact, "no blank lines: exactly the encoder's count");
		const withBlanks = output.replace(/\n( {2}10| {2}20| {2}30):/g, '\n\n\n$1:');
		const blankRuns = (withBlanks.match(/\n\n+/g) ?? []).length;
		const counted = t.countTokens(withBlanks);
		const exactWithBlanks = t.encode(withBlanks).length;
		assert.ok(counted >= exactWithBlanks && counted <= exactWithBlanks + 2 * blankRuns, `${counted} vs exact ${exactWithBlanks} (${blankRuns} blank runs)`);

		const before = t.stats().tokenizedChars;
		const transcript = `<tool-result>\n${output}\n</tool-result>\n<tool-result>\n${output}\n</tool-result>`;
		const inTranscript = t.countTokens(transcript);
		// New: the framing lines, and the output's last line, now followed by a line break.
		assert.ok(
			t.stats().tokenizedChars - before < 300,
			`only a few lines are new, not the ${transcript.length} characters: ${t.stats().tokenizedChars - before} encoded`,
		);
		assert.ok(Math.abs(inTranscript - t.encode(transcript).length) <= 2);
	});

	// OpenAI's rule for its chat models ("How to count tokens with tiktoken", OpenAI Cookbook,
	// https://cookbook.openai.com/examples/how_to_count_tokens_with_tiktoken, num_tokens_from_messages):
	// tokens_per_message = 3, tokens_per_name = 1. Written here as numbers, not read from the
	// constants under test, so a changed constant fails.
	const DOCUMENTED_TOKENS_PER_MESSAGE = 3;
	const DOCUMENTED_TOKENS_PER_NAME = 1;

	it('counts a message as its parts plus the framing OpenAI documents: 3 per message, 1 more for a name', () => {
		const t = new TiktokenTokenizer();
		const text = { type: Raw.ChatCompletionContentPartKind.Text, text: 'hello world' } as const;
		assert.equal(t.tokenLength(text), 2);
		assert.equal(MESSAGE_OVERHEAD_TOKENS, DOCUMENTED_TOKENS_PER_MESSAGE);
		assert.equal(MESSAGE_NAME_TOKENS, DOCUMENTED_TOKENS_PER_NAME);
		const user: Raw.ChatMessage = { role: Raw.ChatRole.User, content: [text] };
		assert.equal(t.countMessageTokens(user), DOCUMENTED_TOKENS_PER_MESSAGE + 2);
		const named: Raw.ChatMessage = { role: Raw.ChatRole.User, name: 'alice', content: [text] };
		assert.equal(t.countMessageTokens(named), DOCUMENTED_TOKENS_PER_MESSAGE + DOCUMENTED_TOKENS_PER_NAME + t.countTokens('alice') + 2);
	});

	it("counts a tool call as its name and arguments plus Longhaul's estimate of its wrapper (3, not documented by OpenAI)", () => {
		const t = new TiktokenTokenizer();
		const assistant: Raw.ChatMessage = {
			role: Raw.ChatRole.Assistant,
			content: [{ type: Raw.ChatCompletionContentPartKind.Text, text: 'hello world' }],
			toolCalls: [{ id: 'c1', type: 'function', function: { name: 'readFile', arguments: '{"path":"a.ts"}' } }],
		};
		assert.equal(TOOL_CALL_OVERHEAD_TOKENS, 3);
		const callTokens = 3 + t.countTokens('readFile') + t.countTokens('{"path":"a.ts"}');
		assert.equal(t.countMessageTokens(assistant), DOCUMENTED_TOKENS_PER_MESSAGE + 2 + callTokens);
	});
});

describe('tokenizer constants', () => {
	it("match prompt-tsx's enums", () => {
		const t = new TiktokenTokenizer();
		assert.equal(t.mode, OutputMode.Raw);
		assert.equal(t.tokenLength({ type: Raw.ChatCompletionContentPartKind.Opaque, value: {}, tokenUsage: 7 }), 7);
		assert.equal(t.tokenLength({ type: Raw.ChatCompletionContentPartKind.CacheBreakpoint }), 0);
	});
});

describe('tokenizer: long runs without a blank are encoded in bounded pieces', () => {
	it('cuts only runs longer than the bound, keeps the text, never splits a surrogate pair', () => {
		const run = 'x'.repeat(MAX_RUN_CHARS * 3 + 17);
		const emoji = '😀'.repeat(MAX_RUN_CHARS);
		for (const text of [`short words ${run} tail`, emoji, `a b c ${'y'.repeat(MAX_RUN_CHARS)}`]) {
			const pieces = boundedPieces(text);
			assert.equal(pieces.join(''), text);
			for (const piece of pieces) {
				assert.ok(!new RegExp(`\\S{${MAX_RUN_CHARS + 1}}`).test(piece), 'no piece holds a longer run');
				assert.ok(!/[\uD800-\uDBFF]$/.test(piece) && !/^[\uDC00-\uDFFF]/.test(piece), 'no lone surrogate at a cut');
			}
		}
		assert.deepEqual(boundedPieces(`a b c ${'y'.repeat(MAX_RUN_CHARS)}`), [`a b c ${'y'.repeat(MAX_RUN_CHARS)}`]);
	});

	it('counts a long run close to the exact count, and decodes back to the text', () => {
		const tokenizer = new TiktokenTokenizer();
		const word = 'config_value/'.repeat(120); // 1,560 characters, small enough to encode whole
		const exact = getEncoding('o200k_base').encode(word).length;
		const bounded = tokenizer.countTokens(word);
		assert.ok(Math.abs(bounded - exact) <= 2 * Math.ceil(word.length / MAX_RUN_CHARS), `bounded ${bounded}, exact ${exact}`);
		assert.equal(tokenizer.decode(tokenizer.encode(word)), word);
	});
});
