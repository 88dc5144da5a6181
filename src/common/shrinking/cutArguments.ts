// A tool call's arguments cut down to a size while staying the same JSON object: the longest text
// values are cut (head and tail kept around a marker, cutText.ts), longest first, never below
// `floorTokens` each. Used for calls that already ran (cutNewestResults.ts): the file a call
// wrote is on disk; the prompt only needs to show what the call was.
import { cutToTokens } from '../text/cutText';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Leaf {
	readonly text: string;
	readonly set: (text: string) => void;
}

/** Every string value of `value`, with a setter that replaces it in place. */
function stringLeaves(value: Json, out: Leaf[] = []): Leaf[] {
	if (Array.isArray(value)) {
		value.forEach((item, i) => {
			if (typeof item === 'string') out.push({ text: item, set: text => (value[i] = text) });
			else stringLeaves(item, out);
		});
	} else if (value !== null && typeof value === 'object') {
		for (const key of Object.keys(value)) {
			const item = value[key];
			if (typeof item === 'string') out.push({ text: item, set: text => (value[key] = text) });
			else stringLeaves(item, out);
		}
	}
	return out;
}

/**
 * `args` (JSON text) with its longest string values cut until the whole holds about `targetTokens`;
 * undefined when it is not a JSON object or array, or when no value can be cut.
 */
export function cutArguments(args: string, targetTokens: number, floorTokens: number, countTokens: (text: string) => number): string | undefined {
	let parsed: Json;
	try {
		parsed = JSON.parse(args) as Json;
	} catch {
		return undefined;
	}
	if (parsed === null || typeof parsed !== 'object') return undefined;
	const leaves = stringLeaves(parsed)
		.map(leaf => ({ ...leaf, tokens: countTokens(leaf.text) }))
		.filter(leaf => leaf.tokens > floorTokens)
		.sort((a, b) => b.tokens - a.tokens);
	let total = countTokens(args);
	let changed = false;
	for (const leaf of leaves) {
		if (total <= targetTokens) break;
		const cut = cutToTokens(leaf.text, Math.max(floorTokens, leaf.tokens - (total - targetTokens)), countTokens);
		if (cut.length >= leaf.text.length) continue;
		leaf.set(cut);
		changed = true;
		total = countTokens(JSON.stringify(parsed));
	}
	return changed ? JSON.stringify(parsed) : undefined;
}
