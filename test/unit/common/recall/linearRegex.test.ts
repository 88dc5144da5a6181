// The recall search's regular expressions: the same answers as JavaScript's RegExp (case-insensitive)
// on the syntax it supports, clear errors for what it does not, and linear time on the patterns
// that make a backtracking engine take exponential time.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileLinear, PatternError } from '../../../../src/common/recall/linearRegex';

const budget = () => ({ remaining: 1e9 });

/** Patterns from a small grammar over a few letters, so that matches are frequent. */
const patterns = fc
	.letrec<{ re: string; atom: string }>(tie => ({
		atom: fc.oneof(
			{ depthSize: 'xsmall' },
			fc.constantFrom('a', 'b', 'c', 'A', '.', '\\d', '\\w', '\\s', '[ab]', '[^a]', '[a-c]', 'x', '\\.', ' '),
			tie('re').map(r => `(${r})`),
			tie('re').map(r => `(?:${r})`),
		),
		re: fc.oneof(
			{ depthSize: 'xsmall' },
			fc
				.array(fc.tuple(tie('atom'), fc.constantFrom('', '', '*', '+', '?', '{2}', '{1,3}', '{2,}', '*?')), { minLength: 1, maxLength: 4 })
				.map(parts => parts.map(([a, q]) => a + q).join('')),
			fc.tuple(tie('re'), tie('re')).map(([a, b]) => `${a}|${b}`),
			tie('re').map(r => `^${r}`),
			tie('re').map(r => `${r}$`),
			tie('re').map(r => `\\b${r}`),
		),
	}))
	.re.filter(p => p.length <= 80);

describe('linear regex', () => {
	it('property: finds a match exactly when RegExp(pattern, "i") does, starting at the same place', () => {
		fc.assert(
			fc.property(patterns, fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'A', 'x', '1', ' ', '.', '_'), maxLength: 24 }), (pattern, text) => {
				const expected = new RegExp(pattern, 'i').exec(text);
				const found = compileLinear(pattern).find(text, budget());
				assert.equal(found !== undefined, expected !== null, `/${pattern}/ on ${JSON.stringify(text)}`);
				if (found && expected) assert.equal(found.start, expected.index, `/${pattern}/ on ${JSON.stringify(text)}: start`);
			}),
			{ numRuns: 1500 },
		);
	});

	it('runs catastrophic patterns in linear time: the work grows with the text, not exponentially', () => {
		for (const pattern of ['(a+)+$', '(a|aa)*b', '(a*)*c', '(x+x+)+y', '(\\w+\\s?)*$']) {
			const regex = compileLinear(pattern);
			const steps = (n: number) => {
				const b = budget();
				regex.find('a'.repeat(n) + '!', b);
				return 1e9 - b.remaining;
			};
			const small = steps(1_000);
			const large = steps(10_000);
			assert.ok(large <= small * 12, `${pattern}: ${small} steps for 1,000 characters, ${large} for 10,000`);
		}
	});

	it('stops when its step budget runs out', () => {
		const b = { remaining: 1000 };
		compileLinear('(a|aa)*b').find('a'.repeat(100_000), b);
		assert.ok(b.remaining <= 0);
	});

	it('explains what it does not support', () => {
		const reason = (p: string) => {
			try {
				compileLinear(p);
				return 'compiled';
			} catch (error) {
				assert.ok(error instanceof PatternError);
				return error.message;
			}
		};
		assert.match(reason('(a)\\1'), /backreferences/);
		assert.match(reason('a(?=b)'), /lookahead/);
		assert.match(reason('(?<!a)b'), /lookahead and lookbehind/);
		assert.match(reason('(ab'), /missing \)/);
		assert.match(reason('ab)'), /unexpected "\)"/);
		assert.match(reason('[b-a]'), /out of order/);
		assert.match(reason('*a'), /nothing to repeat/);
		assert.match(reason('a{2000}'), /too large/);
		assert.match(reason('(((a{1000}){1000}){1000})'), /too large/);
		assert.equal(reason('a{2,'), 'compiled', 'a { that is no quantifier is a literal, as in RegExp');
	});
});
