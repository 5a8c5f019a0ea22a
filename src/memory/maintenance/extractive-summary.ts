import { cosineSimilarity } from '../../embeddings/embedder';
import type { StoredMessage } from '../../store/types';

/** Turns an extractive summary quotes. */
export const SUMMARY_TURNS = 3;
/** Characters of each quoted turn. */
const QUOTE_LENGTH = 160;
/** Words in a topic label. */
const LABEL_WORDS = 3;

// Words too common to tell topics apart; the label takes the most shared of the others.
const STOP_WORDS = new Set(
  (
    'about above after again against also because been before being below between both cannot ' +
    'could does doing down during each from further have having here hers herself himself into ' +
    'itself just more most myself once only other ours ourselves over same should some such than ' +
    'that their theirs them themselves then there these they this those through under until very ' +
    'were what when where which while whom will with would your yours yourself yourselves please ' +
    'thanks thank like know want need make sure okay yeah well really think tell give much many ' +
    'sorry hello still even into onto upon every something anything nothing things thing using used'
  ).split(' '),
);

/** A turn and its embedding, as the summaries read them. */
export interface EmbeddedTurn {
  message: StoredMessage;
  vector: number[] | undefined;
}

/** The mean direction of some vectors (unit length), or null when there are none. */
export function meanDirection(vectors: readonly (readonly number[])[]): number[] | null {
  const first = vectors[0];
  if (!first) return null;
  const sum = new Array<number>(first.length).fill(0);
  for (const vector of vectors) vector.forEach((value, index) => (sum[index]! += value));
  return normalize(sum);
}

/** A vector scaled to unit length (a zero vector stays zero). */
export function normalize(vector: number[]): number[] {
  const length = Math.sqrt(vector.reduce((total, value) => total + value * value, 0));
  return length === 0 ? vector : vector.map((value) => value / length);
}

/**
 * The turns closest to a centre (the most central of a topic or a period), quoted in seq order.
 * Deterministic: ties go to the earlier turn, and turns without an embedding come last.
 */
export function centralTurns(
  turns: EmbeddedTurn[],
  centre: readonly number[] | null,
  count = SUMMARY_TURNS,
): StoredMessage[] {
  const scored = turns
    .filter((turn) => turn.message.content.trim() !== '')
    .map((turn) => ({
      message: turn.message,
      score: centre && turn.vector ? cosineSimilarity(turn.vector, centre) : -2,
    }));
  scored.sort((a, b) => b.score - a.score || a.message.seq - b.message.seq);
  return scored
    .slice(0, count)
    .map((entry) => entry.message)
    .sort((a, b) => a.seq - b.seq);
}

/** Quotes turns as `role: text…` lines. */
export function quoteTurns(turns: StoredMessage[]): string {
  return turns.map((turn) => `${turn.role}: ${quote(turn.content)}`).join('\n');
}

/**
 * A label: the words the turns share most, beyond how common they are in `background` (turns of
 * the whole instance), so words every topic uses do not name one. Deterministic.
 */
export function labelOf(turns: StoredMessage[], background: StoredMessage[] = []): string {
  const inTopic = wordCounts(turns);
  const overall = wordCounts(background);
  const scored = [...inTopic.entries()].map(([word, count]) => ({
    word,
    score:
      count / turns.length -
      (background.length === 0 ? 0 : (overall.get(word) ?? 0) / background.length),
  }));
  scored.sort((a, b) => b.score - a.score || (a.word < b.word ? -1 : 1));
  // Words no more common here than anywhere else name nothing, unless nothing else is left.
  const telling = scored.filter((entry) => entry.score > 0);
  return (telling.length > 0 ? telling : scored)
    .slice(0, LABEL_WORDS)
    .map((entry) => entry.word)
    .join(', ');
}

/** In how many of the turns each word (4+ letters, not a stop word) appears. */
function wordCounts(turns: StoredMessage[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const turn of turns) {
    const words = new Set(turn.content.toLowerCase().match(/\p{L}[\p{L}\p{N}'-]{3,}/gu) ?? []);
    for (const word of words) {
      if (!STOP_WORDS.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  return counts;
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > QUOTE_LENGTH ? `${flat.slice(0, QUOTE_LENGTH - 1)}…` : flat;
}
