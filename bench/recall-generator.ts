/**
 * Seeded conversations for bench/recall.ts: facts planted in the first turns among everyday
 * chatter (with distractors that share the facts' words), then a lexical and a paraphrased
 * question per fact at the end. Same seed, same conversation: no Math.random anywhere.
 */
import { checkString, FACT_KINDS, type FactKind } from './recall-facts';
import {
  ACKNOWLEDGEMENTS,
  FACT_LEAD_INS,
  FACT_TAILS,
  FILLER_TOPICS,
  GENERIC_REPLIES,
  QUESTION_REPLIES,
  SMALL_TALK,
  type FillerTopic,
} from './recall-filler';

/** Share of the conversation's turns the facts are planted in (from its second exchange on). */
export const FACT_ZONE = 0.08;

/** A fact as planted in one conversation. */
export interface PlantedFact {
  kind: FactKind;
  value: string;
  /** What must reach upstream for the fact to count as recalled. */
  check: string;
  /** The user message that states it. */
  statement: string;
}

/** How a question relates to the words of its fact. */
export type QuestionKind = 'lexical' | 'paraphrased';

/** One user message and the answer the fake upstream gives it. */
export interface Exchange {
  user: string;
  reply: string;
  role: 'filler' | 'fact' | 'question';
  /** Index into `facts` for a fact or a question. */
  fact?: number;
  questionKind?: QuestionKind;
}

/** A whole scripted conversation. */
export interface Conversation {
  index: number;
  facts: PlantedFact[];
  exchanges: Exchange[];
}

/** What a conversation is generated from. */
export interface GenerateOptions {
  seed: number;
  index: number;
  /** Stored turns at the end (a user message and its answer are two). */
  turns: number;
  facts: number;
}

/** Deterministic PRNG (mulberry32). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value ^= value + Math.imul(value ^ (value >>> 7), 61 | value);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;

function pick<T>(next: Random, items: readonly T[]): T {
  const item = items[Math.floor(next() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

function shuffle<T>(next: Random, items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/** Fills `{slot}` placeholders; a slot named again in the same text gets a different word when it can. */
function fill(
  next: Random,
  template: string,
  slots: FillerTopic['slots'],
  chosen: Map<string, string>,
  reuse: boolean,
): string {
  const usedHere = new Map<string, Set<string>>();
  const text = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const words = slots[name];
    if (!words) throw new Error(`template "${template}" names an unknown slot {${name}}`);
    const used = usedHere.get(name) ?? new Set<string>();
    const earlier = chosen.get(name);
    let word = reuse && earlier !== undefined && !used.has(earlier) ? earlier : pick(next, words);
    for (let tries = 0; used.has(word) && tries < 8; tries++) word = pick(next, words);
    used.add(word);
    usedHere.set(name, used);
    if (!chosen.has(name)) chosen.set(name, word);
    return word;
  });
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function topicExchange(next: Random, topic: FillerTopic): Exchange {
  const chosen = new Map<string, string>();
  const [ask, answer] = pick(next, topic.pairs);
  const user = fill(next, ask, topic.slots, chosen, false);
  const reply = fill(next, answer, topic.slots, chosen, true);
  return { user, reply, role: 'filler' };
}

/** Statements that open with a name or "I" keep their capital after a lead-in. */
const KEEPS_CAPITAL = /^(I\b|I'|IT\b|Mr\.|Dr\.|Ingrid|Tobias|Freya|Dario|Kenji|Tbilisi|\{v\})/;

/** A fact said in passing: an optional lead-in, the statement, an optional tail. */
function stateFact(next: Random, kind: FactKind, value: string): string {
  const template = pick(next, kind.statements);
  const leadIn = pick(next, FACT_LEAD_INS);
  const opening =
    leadIn !== '' && !KEEPS_CAPITAL.test(template)
      ? template.charAt(0).toLowerCase() + template.slice(1)
      : template;
  const text = `${leadIn}${opening.replaceAll('{v}', value)}${pick(next, FACT_TAILS)}`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Generates one conversation of `turns` stored turns with `facts` planted facts. */
export function generateConversation(options: GenerateOptions): Conversation {
  if (options.facts > FACT_KINDS.length)
    throw new Error(`--facts is at most ${FACT_KINDS.length} (kinds of fact written)`);
  const next = random(options.seed * 7919 + options.index * 104729 + 1);
  const exchangeCount = Math.floor(options.turns / 2);
  const questionCount = options.facts * 2;
  const zoneEnd = Math.max(options.facts + 1, Math.round(exchangeCount * FACT_ZONE));
  if (zoneEnd + questionCount + 10 > exchangeCount) {
    throw new Error(
      `--turns ${options.turns} is too few for ${options.facts} facts: need at least ${2 * (zoneEnd + questionCount + 10)}`,
    );
  }

  const facts: PlantedFact[] = shuffle(next, FACT_KINDS)
    .slice(0, options.facts)
    .map((kind) => {
      const value = pick(next, kind.values);
      return {
        kind,
        value,
        check: checkString(kind, value),
        statement: stateFact(next, kind, value),
      };
    });
  const factAt = new Map<number, number>();
  shuffle(
    next,
    Array.from({ length: zoneEnd - 1 }, (_, i) => i + 1),
  )
    .slice(0, options.facts)
    .forEach((position, fact) => factAt.set(position, fact));

  const distractors = [
    ...facts.flatMap((fact) => fact.kind.distractors),
    ...FACT_KINDS.flatMap((kind) => kind.distractors),
  ];
  const exchanges: Exchange[] = [];
  let topic = pick(next, FILLER_TOPICS);
  for (let position = 0; position < exchangeCount - questionCount; position++) {
    const fact = factAt.get(position);
    if (fact !== undefined) {
      exchanges.push({
        user: facts[fact]!.statement,
        reply: pick(next, ACKNOWLEDGEMENTS),
        role: 'fact',
        fact,
      });
      continue;
    }
    // Conversations drift: a few exchanges on one topic, then another.
    if (next() < 0.3) topic = pick(next, FILLER_TOPICS);
    const roll = next();
    if (roll < 0.1)
      exchanges.push({
        user: pick(next, distractors),
        reply: pick(next, GENERIC_REPLIES),
        role: 'filler',
      });
    else if (roll < 0.22)
      exchanges.push({
        user: pick(next, SMALL_TALK),
        reply: pick(next, ACKNOWLEDGEMENTS),
        role: 'filler',
      });
    else exchanges.push(topicExchange(next, topic));
  }
  const questions = facts.flatMap((fact, index) => [
    { fact: index, questionKind: 'lexical' as const, user: fact.kind.lexical },
    { fact: index, questionKind: 'paraphrased' as const, user: fact.kind.paraphrased },
  ]);
  for (const question of shuffle(next, questions)) {
    exchanges.push({ ...question, reply: pick(next, QUESTION_REPLIES), role: 'question' });
  }
  const conversation = { index: options.index, facts, exchanges };
  checkConversation(conversation);
  return conversation;
}

/** A value is found as a whole word (so "42" is not found in "1420"). */
export function containsValue(text: string, check: string): boolean {
  const escaped = check.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'u').test(text);
}

/** Fails loudly when a fact's value leaks into any other turn, or two facts share a value. */
function checkConversation(conversation: Conversation): void {
  conversation.facts.forEach((fact, index) => {
    for (const exchange of conversation.exchanges) {
      const own = exchange.role === 'fact' && exchange.fact === index;
      if (
        (!own && containsValue(exchange.user, fact.check)) ||
        containsValue(exchange.reply, fact.check)
      ) {
        throw new Error(
          `fact ${fact.kind.id} value "${fact.check}" also occurs in: ${exchange.user} / ${exchange.reply}`,
        );
      }
    }
  });
}

const STOP = new Set(
  'the a an and or but of to in on at for with from by is are was were be been am do does did i me my mine we our us you your it its this that these those what which who whom when where why how again now new any some there here have has had get got not no so as if than then just about into over after before since ever every each all can could would should will shall may might must he she his her him they them their'.split(
    ' ',
  ),
);

/** Content words, crudely stemmed, for checking that paraphrases avoid the fact's words. */
export function contentWords(text: string): Set<string> {
  const words = text.toLowerCase().match(/[a-z][a-z'-]+/g) ?? [];
  return new Set(
    words
      .map((word) => word.replace(/'s$/, '').replace(/'.*$/, ''))
      .filter((word) => word.length > 2 && !STOP.has(word))
      .map((word) => word.replace(/(ing|ed|es|s)$/, '')),
  );
}

/** Words a question shares with any statement of its fact. */
export function sharedWords(kind: FactKind, question: string): string[] {
  const asked = contentWords(question);
  const stated = new Set(
    kind.statements.flatMap((statement) => [...contentWords(statement.replaceAll('{v}', ''))]),
  );
  return [...asked].filter((word) => stated.has(word));
}
