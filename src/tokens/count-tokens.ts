import { encode, setMergeCacheSize } from 'gpt-tokenizer';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';

/** Tokens the chat format adds around each message (role markers, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Tokens that prime the assistant's reply at the end of every request. */
export const REPLY_PRIMER_TOKENS = 3;
/** What an image part is counted as: the cost of one high-detail tile set, a safe upper bound. */
export const IMAGE_PART_TOKENS = 765;

/**
 * Encoding options for user text: special-token markers such as `<|im_start|>` or
 * `<|endoftext|>` are counted as the plain text they are (the tokenizer throws on them by
 * default, which made any message quoting one a 500).
 */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Values remembered in two generations: a key read again moves to the newer one, and the older
 * one is dropped when the newer fills. Clearing one map when it filled forgot the texts still in
 * use too: with 64 busy conversations the memory-index lines no longer fitted, and tokenizing
 * them again was a tenth of each request's time. Nothing is ever deleted from a map: a Map that
 * has entries deleted from its front and others appended (an LRU) gets slower as it fills.
 */
class Remembered<V> {
  private recent = new Map<string, V>();
  private older = new Map<string, V>();

  constructor(
    private readonly generationSize: number,
    private readonly make: (text: string) => V,
  ) {}

  get(key: string, text: string): V {
    const recent = this.recent.get(key);
    if (recent !== undefined) return recent;
    const value = this.older.get(key) ?? this.make(text);
    if (this.recent.size >= this.generationSize) {
      this.older = this.recent;
      this.recent = new Map();
    }
    this.recent.set(key, value);
    return value;
  }
}

// The tokenizer cuts a text into pieces (words with their leading space, runs of digits or
// punctuation) and encodes each piece alone, so a text's tokens are its pieces' tokens one after
// another. Pieces recur from text to text (words, the date and role of an index line); each is
// encoded once and remembered here. gpt-tokenizer's own cache of pieces is an LRU over a Map,
// which slowed to 121-139 us a memory-index line once full, against 30-35 us with this one
// (100,000 lines of the benchmark corpus, bench/NOTES.md), so it is turned off.
setMergeCacheSize(0);
/** Pieces a generation holds: both full take ~19 MiB of heap. */
const PIECE_CACHE_SIZE = 50_000;
/** Longer pieces (a base64 blob, a minified line) seldom recur, and would hold their text here. */
const MAX_REMEMBERED_PIECE = 64;
const remembered = new Remembered<readonly number[]>(PIECE_CACHE_SIZE, (piece) =>
  encode(piece, PLAIN_TEXT),
);

// match() with the global regex answers the pieces as strings: matchAll made a match object
// (index, input, groups) for each piece, a tenth of a loaded proxy's allocations.
function piecesOf(text: string): string[] {
  return text.match(O200K_TOKEN_SPLIT_REGEX) ?? [];
}

function tokensOf(piece: string): readonly number[] {
  return piece.length > MAX_REMEMBERED_PIECE
    ? encode(piece, PLAIN_TEXT)
    : remembered.get(piece, piece);
}

/** The tokens of a text, as gpt-tokenizer's encode gives them (o200k_base, specials as plain text). */
export function encodeTokens(text: string): number[] {
  const tokens: number[] = [];
  for (const piece of piecesOf(text)) {
    for (const token of tokensOf(piece)) tokens.push(token);
  }
  return tokens;
}

/** Counts the tokens of a text (o200k_base; other model families land close to it). */
export function countTokens(text: string): number {
  let total = 0;
  for (const piece of piecesOf(text)) total += tokensOf(piece).length;
  return total;
}

/** Counts the tokens one chat message costs in a request, content and overhead included. */
export function countMessageTokens(message: Record<string, unknown>): number {
  let total = MESSAGE_OVERHEAD_TOKENS;
  const content = message['content'];
  if (typeof content === 'string') {
    total += countTokens(content);
  } else if (Array.isArray(content)) {
    for (const part of content) total += countPartTokens(part);
  }
  if (typeof message['name'] === 'string') total += countTokens(message['name']) + 1;
  if (message['tool_calls'] !== undefined) {
    total += countTokens(JSON.stringify(message['tool_calls']));
  }
  if (typeof message['tool_call_id'] === 'string') total += countTokens(message['tool_call_id']);
  return total;
}

/** Counts the tokens of a whole messages array as sent upstream. */
export function countMessagesTokens(messages: readonly Record<string, unknown>[]): number {
  let total = REPLY_PRIMER_TOKENS;
  for (const message of messages) total += countMessageTokens(message);
  return total;
}

const byText = new Remembered<number>(25_000, countTokens);
// Memory-index lines are long and many (every turn of every busy conversation may be retrieved:
// 64 conversations of 1,000 turns overflowed the text cache and tokenizing was 9% of the CPU),
// so they are remembered by a short key naming the turn and the form shown: four times as many
// in the same memory.
const byKey = new Remembered<number>(100_000, countTokens);

/**
 * countTokens for texts that recur from request to request (memory-index lines, summary lines);
 * `key`, when given, must name the text exactly (it changes whenever the text would).
 */
export function countTokensCached(text: string, key?: string): number {
  return key === undefined ? byText.get(text, text) : byKey.get(key, text);
}

/**
 * What a client sends unchanged with every request (its tools, its system prompt), counted
 * lately, by its JSON: an agent's tools or system prompt of 2,000 tokens costs ~0.2 ms to count,
 * more than serializing it to look it up. Texts past RECURRING_MAX_CHARS are counted each time,
 * so the map holds a few megabytes at most.
 */
const recurring = new Map<string, number>();
const RECURRING_CACHE_SIZE = 64;
const RECURRING_MAX_CHARS = 100_000;
const frozenToolsTokens = new WeakMap<object, number>();

function countRecurring(json: string, count: () => number): number {
  if (json.length > RECURRING_MAX_CHARS) return count();
  let tokens = recurring.get(json);
  if (tokens === undefined) {
    if (recurring.size >= RECURRING_CACHE_SIZE) recurring.clear();
    tokens = count();
    recurring.set(json, tokens);
  }
  return tokens;
}

/** Counts the tokens a tools array costs (its JSON, a safe upper bound on what providers bill). */
export function countToolsTokens(tools: unknown): number {
  if (!Array.isArray(tools) || tools.length === 0) return 0;
  // Frozen arrays (the memory tools' shared definitions) cannot change: counted once, by identity.
  const frozen = Object.isFrozen(tools) ? frozenToolsTokens.get(tools) : undefined;
  if (frozen !== undefined) return frozen;
  const json = JSON.stringify(tools);
  // The memory tools alone are ~9 KB of JSON: counting them costs more than the rest of a request.
  const tokens = countRecurring(`tools:${json}`, () => countTokens(json));
  if (Object.isFrozen(tools)) frozenToolsTokens.set(tools, tokens);
  return tokens;
}

/** countMessagesTokens for a request's system (and developer) messages, which recur from request to request. */
export function countSystemTokens(messages: readonly Record<string, unknown>[]): number {
  if (messages.length === 0) return REPLY_PRIMER_TOKENS;
  return countRecurring(`system:${JSON.stringify(messages)}`, () => countMessagesTokens(messages));
}

function countPartTokens(part: unknown): number {
  if (typeof part !== 'object' || part === null) return 0;
  const record = part as Record<string, unknown>;
  if (typeof record['text'] === 'string') return countTokens(record['text']);
  if (record['type'] === 'image_url' || record['type'] === 'input_image') return IMAGE_PART_TOKENS;
  return countTokens(JSON.stringify(record));
}
