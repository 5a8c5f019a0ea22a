import { decode } from 'gpt-tokenizer';
import { encodeTokens } from './count-tokens';

/** Splits a text into pieces of at most `size` tokens, each overlapping the previous by `overlap` tokens. */
export function splitByTokens(text: string, size: number, overlap: number): string[] {
  const tokens = encodeTokens(text);
  if (tokens.length <= size) return [text];
  const step = Math.max(1, size - Math.min(overlap, size - 1));
  const pieces: string[] = [];
  for (let start = 0; start < tokens.length; start += step) {
    pieces.push(decode(tokens.slice(start, start + size)));
    if (start + size >= tokens.length) break;
  }
  return pieces;
}
