/** At most this many distinct words go into one query: a pasted document must not become a huge OR. */
export const MAX_QUERY_TERMS = 64;

// Letters and digits of any script; combining marks stay attached to their letter.
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;

/**
 * Turns arbitrary user text into a safe FTS5 query: its words, each quoted as an FTS5 string
 * and OR-ed, so no character of the text is ever read as query syntax. Null when the text
 * has no words (an FTS5 query cannot be empty).
 */
export function toFtsQuery(text: string): string | null {
  const terms = ftsTerms(text);
  return terms.length === 0 ? null : terms.map(quoteTerm).join(' OR ');
}

/** The distinct lower-case words of a text, in order, at most MAX_QUERY_TERMS. */
export function ftsTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const match of text.matchAll(WORD)) {
    terms.add(match[0].toLowerCase());
    if (terms.size === MAX_QUERY_TERMS) break;
  }
  return [...terms];
}

/** One word as an FTS5 string: never syntax. */
export function quoteTerm(term: string): string {
  // Words hold no quote characters, but doubling them keeps the quoting safe by construction.
  return `"${term.replaceAll('"', '""')}"`;
}
