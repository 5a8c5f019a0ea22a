import { STOP_WORDS } from '../embeddings/stop-words';

/** Words as both stores' full-text queries take them: letters and digits of any script. */
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;

/**
 * The words of a query worth a Lucene search: function words ("can", "you", "the") match most
 * turns of a long conversation, and Lucene scores every turn a query's words match (at 10^5
 * turns a question's search took 19 ms with them, 7 ms without). A text of function words only
 * is searched as it is. The embedded store needs none of this: it counts each word's matches
 * and ranks by the rare ones, so a function word takes part only where it is rare, and there it
 * helps (a fact said in the first person).
 */
export function keywordsOf(text: string): string {
  const words = text.match(WORD) ?? [];
  const keywords = words.filter((word) => !STOP_WORDS.has(word.toLowerCase()));
  return keywords.length > 0 ? keywords.join(' ') : text;
}
