/**
 * How well the local embedder matches what belongs together, and how fast it is:
 *   npx tsx bench/embedder-quality.ts            figures for the default `local` model
 *   npx tsx bench/embedder-quality.ts --ablate   the same figures for variants of the tuning
 *   --dimensions N (default 384), --dev-only (hide the held-out set while tuning)
 * Cosines by category (follow-up turns, paraphrased question vs planted fact, unrelated pairs),
 * recall@k of planted facts among filler turns, the share of pairs above candidate synapse
 * thresholds, and milliseconds per embed.
 */
import { cosineSimilarity } from '../src/embeddings/embedder';
import { LocalEmbedder, type LocalEmbedderTuning } from '../src/embeddings/local-embedder';
import { DEV_CONVERSATIONS, DEV_FACTS, type PlantedFact } from './embedder-dataset';
import { FILLER_SENTENCES } from './embedder-filler';
import { HELDOUT_CONVERSATIONS, HELDOUT_FACTS } from './embedder-heldout';

interface Stats {
  mean: number;
  min: number;
  max: number;
  p95: number;
  p99: number;
  values: number[];
}

interface Figures {
  followUp: Stats;
  paraphrase: Stats;
  unrelated: Stats;
  recallAt1: number;
  recallAt5: number;
  meanReciprocalRank: number;
  /** recall@5 when each question has a typo in its longest word. */
  typoRecallAt5: number;
  /** recall@5 of questions sharing a word with their fact, that word misspelt in the question. */
  sharedTypoRecallAt5: number;
  sharedTypoCount: number;
  /** Facts plus filler turns the questions are ranked against. */
  corpusSize: number;
}

const THRESHOLDS = [0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.85];

function stats(values: number[]): Stats {
  const sum = values.reduce((total, value) => total + value, 0);
  const sorted = [...values].sort((a, b) => a - b);
  const at = (share: number): number => sorted[Math.floor(share * (sorted.length - 1))] ?? 0;
  return {
    mean: sum / values.length,
    min: at(0),
    max: at(1),
    p95: at(0.95),
    p99: at(0.99),
    values,
  };
}

/** Deterministic PRNG (mulberry32) so every run builds the same filler turns. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value ^= value + Math.imul(value ^ (value >>> 7), 61 | value);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** ~500 filler turns: the conversations' turns plus one to three filler sentences each. */
function fillerTurns(count: number, conversations: readonly (readonly string[])[]): string[] {
  const next = random(42);
  const turns = conversations.flat();
  while (turns.length < count) {
    const sentences = 1 + Math.floor(next() * 3);
    const parts: string[] = [];
    for (let index = 0; index < sentences; index++) {
      parts.push(FILLER_SENTENCES[Math.floor(next() * FILLER_SENTENCES.length)] ?? '');
    }
    turns.push(parts.join(' '));
  }
  return turns;
}

/**
 * Misspells the longest word of `text` the way people do: letters swapped, one dropped, or one
 * replaced by a neighbour on the keyboard (by `kind`). With `sharedWith`, only words that also
 * occur in that text are candidates; null when no word of four letters or more qualifies.
 */
function withTypo(text: string, kind: number, sharedWith?: string): string | null {
  const shared = sharedWith?.toLowerCase();
  const longest = text
    .split(/[^A-Za-z]+/)
    .filter(
      (word) => shared === undefined || new RegExp(`\\b${word.toLowerCase()}\\b`).test(shared),
    )
    .reduce((best, word) => (word.length > best.length ? word : best), '');
  if (longest.length < 4) return null;
  const middle = Math.floor(longest.length / 2);
  const head = longest.slice(0, middle - 1);
  const tail = longest.slice(middle + 1);
  const [left, right] = [longest.charAt(middle - 1), longest.charAt(middle)];
  const typos = [
    head + right + left + tail,
    head + left + tail,
    head + left + (KEYBOARD_NEIGHBOUR[right] ?? right) + tail,
  ];
  return text.replace(longest, typos[kind % typos.length] ?? longest);
}

/** A key next to each key on a QWERTY keyboard. */
const KEYBOARD_NEIGHBOUR: Record<string, string> = Object.fromEntries(
  'qw we er rt ty yu ui io op as sd df fg gh hj jk kl zx xc cv vb bn nm lk pl mn'
    .split(' ')
    .map((pair) => [pair.charAt(0), pair.charAt(1)]),
);

/** Ranks of planted facts; questions[i] is about corpus[targets[i]]. */
function recall(
  questions: number[][],
  targets: number[],
  corpus: number[][],
): { at1: number; at5: number; reciprocal: number } {
  let at1 = 0;
  let at5 = 0;
  let reciprocal = 0;
  questions.forEach((question, position) => {
    const index = targets[position] ?? 0;
    const target = cosineSimilarity(question, corpus[index] ?? []);
    // Rank = 1 + candidates scoring strictly higher than the planted fact.
    const rank =
      1 +
      corpus.filter(
        (candidate, other) => other !== index && cosineSimilarity(question, candidate) > target,
      ).length;
    if (rank === 1) at1++;
    if (rank <= 5) at5++;
    reciprocal += 1 / rank;
  });
  return {
    at1: at1 / questions.length,
    at5: at5 / questions.length,
    reciprocal: reciprocal / questions.length,
  };
}

async function evaluate(
  embedder: LocalEmbedder,
  facts: readonly PlantedFact[],
  conversations: readonly (readonly string[])[],
): Promise<Figures> {
  const vector = (text: string): number[] => embedder.embedText(text);
  const followUps: number[] = [];
  const unrelated: number[] = [];
  for (const conversation of conversations) {
    for (let index = 1; index < conversation.length; index++) {
      followUps.push(
        cosineSimilarity(vector(conversation[index - 1] ?? ''), vector(conversation[index] ?? '')),
      );
    }
  }
  // Unrelated: every turn against the same position in every other conversation.
  conversations.forEach((conversation, index) => {
    conversations.forEach((other, otherIndex) => {
      if (otherIndex === index) return;
      conversation.forEach((turn, position) => {
        if (other[position] !== undefined)
          unrelated.push(cosineSimilarity(vector(turn), vector(other[position])));
      });
    });
  });
  const factVectors = facts.map((fact) => vector(fact.fact));
  const questionVectors = facts.map((fact) => vector(fact.question));
  const paraphrases = facts.map((_, index) =>
    cosineSimilarity(factVectors[index] ?? [], questionVectors[index] ?? []),
  );
  // And every question against every other fact.
  questionVectors.forEach((question, index) => {
    factVectors.forEach((fact, other) => {
      if (other !== index) unrelated.push(cosineSimilarity(fact, question));
    });
  });
  const corpus = [...factVectors, ...(await embedder.embed(fillerTurns(500, conversations)))];
  const all = facts.map((_, index) => index);
  const clean = recall(questionVectors, all, corpus);
  const typos = recall(
    facts.map((fact, index) => vector(withTypo(fact.question, index) ?? fact.question)),
    all,
    corpus,
  );
  const sharedTargets = all.filter(
    (index) => withTypo(facts[index]?.question ?? '', index, facts[index]?.fact) !== null,
  );
  const shared = recall(
    sharedTargets.map((index) =>
      vector(withTypo(facts[index]?.question ?? '', index, facts[index]?.fact) ?? ''),
    ),
    sharedTargets,
    corpus,
  );
  return {
    followUp: stats(followUps),
    paraphrase: stats(paraphrases),
    unrelated: stats(unrelated),
    recallAt1: clean.at1,
    recallAt5: clean.at5,
    meanReciprocalRank: clean.reciprocal,
    typoRecallAt5: typos.at5,
    sharedTypoRecallAt5: shared.at5,
    sharedTypoCount: sharedTargets.length,
    corpusSize: corpus.length,
  };
}

function formatStats(name: string, value: Stats): string {
  const f = (x: number): string => x.toFixed(3);
  return (
    `  ${name.padEnd(26)} mean ${f(value.mean)}  min ${f(value.min)}  max ${f(value.max)}  ` +
    `p95 ${f(value.p95)}  p99 ${f(value.p99)}  (n=${value.values.length})`
  );
}

function above(values: number[], threshold: number): string {
  const share = values.filter((value) => value >= threshold).length / values.length;
  return `${(100 * share).toFixed(0)}%`.padStart(5);
}

function printFigures(title: string, figures: Figures): void {
  console.log(title);
  console.log(formatStats('(a) follow-up turns', figures.followUp));
  console.log(formatStats('(b) paraphrase vs fact', figures.paraphrase));
  console.log(formatStats('(c) unrelated pairs', figures.unrelated));
  console.log(
    `  retrieval among ${figures.corpusSize} turns: recall@1 ${figures.recallAt1.toFixed(2)}  ` +
      `recall@5 ${figures.recallAt5.toFixed(2)}  MRR ${figures.meanReciprocalRank.toFixed(2)}  ` +
      `\n  recall@5 with a typo: in the question's longest word ${figures.typoRecallAt5.toFixed(2)}, ` +
      `in a word it shares with the fact ${figures.sharedTypoRecallAt5.toFixed(2)} (n=${figures.sharedTypoCount})`,
  );
  console.log(
    '  share of pairs at or above a synapse threshold (follow-up / paraphrase / unrelated):',
  );
  for (const threshold of THRESHOLDS) {
    console.log(
      `    ${threshold.toFixed(2)}: ${above(figures.followUp.values, threshold)} ${above(figures.paraphrase.values, threshold)} ${above(figures.unrelated.values, threshold)}`,
    );
  }
}

function measureSpeed(dimensions: number): void {
  const next = random(7);
  const messages: string[] = [];
  for (let index = 0; index < 10_000; index++) {
    const words: string[] = [];
    while (words.length < 50) {
      words.push(
        ...(FILLER_SENTENCES[Math.floor(next() * FILLER_SENTENCES.length)] ?? '').split(' '),
      );
    }
    messages.push(words.slice(0, 50).join(' ') + ` ${index}`);
  }
  const embedder = new LocalEmbedder({ dimensions });
  const times: number[] = [];
  for (const message of messages) {
    const start = performance.now();
    embedder.embedText(message);
    times.push(performance.now() - start);
  }
  const first = times[0] ?? 0;
  const total = times.reduce((sum, time) => sum + time, 0);
  times.sort((a, b) => a - b);
  const at = (share: number): string =>
    (times[Math.floor(share * (times.length - 1))] ?? 0).toFixed(4);
  console.log(
    `speed over 10k 50-word messages: median ${at(0.5)} ms, mean ${(total / times.length).toFixed(4)} ms, ` +
      `p99 ${at(0.99)} ms; first call ${first.toFixed(2)} ms (builds the word tables once)`,
  );
}

const VARIANTS: Record<string, Partial<LocalEmbedderTuning>> = {
  'words only (no stem/ngram/concept/pair)': {
    stemmer: 'none',
    ngramWeight: 0,
    conceptWeight: 0,
    bigramWeight: 0,
  },
  'no concepts': { conceptWeight: 0 },
  'no n-grams': { ngramWeight: 0 },
  'no pairs': { bigramWeight: 0 },
  'light stemmer': { stemmer: 'light' },
  'no stemmer': { stemmer: 'none' },
  'one hash per feature': { hashes: 1 },
  'n-grams 0.3': { ngramWeight: 0.3 },
  'n-grams 1.0': { ngramWeight: 1 },
  'concepts 1': { conceptWeight: 1 },
  'concepts 1.5': { conceptWeight: 1.5 },
  'concepts 3': { conceptWeight: 3 },
  'concept split 0.25': { conceptSplit: 0.25 },
  'no answer types': { answerTypeWeight: 0 },
  'answer types 0.3': { answerTypeWeight: 0.3 },
  'answer types 1': { answerTypeWeight: 1 },
  'no categories': { categoryWeight: 0 },
  'categories 0.5': { categoryWeight: 0.5 },
  'stop words 0': { stopWeight: 0 },
  'stop words 0.3': { stopWeight: 0.3 },
  'common words 1': { commonWeight: 1 },
  'pairs 1.0': { bigramWeight: 1 },
};

function dimensionsArgument(): number {
  const position = process.argv.indexOf('--dimensions');
  return position === -1 ? 384 : Number(process.argv[position + 1]);
}

async function main(): Promise<void> {
  const dimensions = dimensionsArgument();
  const embedder = new LocalEmbedder({ dimensions });
  console.log(`model ${embedder.model}, ${embedder.dimensions} dimensions`);
  // Timed first, before the evaluation's garbage makes collector pauses part of the figures.
  measureSpeed(dimensions);
  console.log('');
  printFigures(
    'development set (the tuning was chosen on it):',
    await evaluate(embedder, DEV_FACTS, DEV_CONVERSATIONS),
  );
  const devOnly = process.argv.includes('--dev-only');
  if (!devOnly) {
    printFigures(
      '\nheld-out set (not looked at while tuning):',
      await evaluate(embedder, HELDOUT_FACTS, HELDOUT_CONVERSATIONS),
    );
  }
  if (!process.argv.includes('--ablate')) return;
  console.log(
    '\nvariants: dev paraphrase mean / unrelated mean / recall@5 (MRR, recall@5 with a typo: longest/shared word) | held-out recall@5',
  );
  for (const [name, tuning] of Object.entries(VARIANTS)) {
    const variant = new LocalEmbedder({ dimensions, tuning });
    const dev = await evaluate(variant, DEV_FACTS, DEV_CONVERSATIONS);
    const heldOut = devOnly ? null : await evaluate(variant, HELDOUT_FACTS, HELDOUT_CONVERSATIONS);
    console.log(
      `  ${name.padEnd(40)} ${dev.paraphrase.mean.toFixed(3)} / ${dev.unrelated.mean.toFixed(3)} / ` +
        `${dev.recallAt5.toFixed(2)} (MRR ${dev.meanReciprocalRank.toFixed(2)}, typo ${dev.typoRecallAt5.toFixed(2)}/${dev.sharedTypoRecallAt5.toFixed(2)})` +
        (heldOut ? ` | ${heldOut.recallAt5.toFixed(2)}` : ''),
    );
  }
}

await main();
