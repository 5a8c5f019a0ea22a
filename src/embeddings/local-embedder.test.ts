import { describe, expect, it } from 'vitest';
import { CATEGORY_GROUPS } from './category-groups';
import { ANSWER_TYPES } from './answer-types';
import { CONCEPT_GROUPS } from './concept-groups';
import { IRREGULAR_FORMS } from './irregular-forms';
import { cosineSimilarity } from './embedder';
import { fnv1a } from './hash-feature';
import { DEFAULT_LOCAL_TUNING, LOCAL_EMBEDDER_VERSION, LocalEmbedder } from './local-embedder';
import { COMMON_WORDS, STOP_WORDS } from './stop-words';

/** A fact a user states, and a later question about it in other words. */
const PARAPHRASES: readonly [fact: string, question: string][] = [
  ['I adopted a puppy named Biscuit last spring.', "What's my dog called?"],
  ['My locker code is 4812.', "What's the code of my locker?"],
  ['My husband Arjun works as an accountant in Leeds.', 'What does Arjun do for work?'],
  ['I bought a used Toyota Corolla in January.', 'When did I purchase my car?'],
  ['My daughter was born on 2 April 2018.', "When is my daughter's birthday?"],
  ["I'm allergic to shellfish, especially prawns.", 'Is there any food I react badly to?'],
  ['We live in a two-bedroom flat near the river.', 'What kind of home do we have?'],
  ['My favourite movie is Casablanca.', 'Which film do I like best?'],
  ['I started learning the cello three months ago.', 'What instrument am I learning?'],
  [
    'My doctor prescribed ibuprofen for my sore shoulder.',
    'What medicine did the physician give me?',
  ],
  ['I jog 10 kilometres every Sunday morning.', 'How far do I run at the weekend?'],
  ['Our son starts secondary school in September.', 'When does my kid begin at the new school?'],
  ['I hate mushrooms, I pick them off every pizza.', 'Is there a food I dislike?'],
  ['My boss Helga moved our weekly meeting to Thursdays.', 'When is the team meeting now?'],
  ['I am scared of spiders.', 'Do I have any phobias?'],
  ['My sister is getting married in Porto next summer.', "Where is my sister's wedding?"],
  ['I earn 52,000 a year as a junior architect.', 'What is my salary?'],
  ['We adopted two kittens from the shelter.', 'Do we have any pets?'],
  ['My wifi password is sunflower42.', 'What is the internet password?'],
  ['I quit my job at the bank to start a bakery.', 'Did I change careers?'],
];

const embedder = new LocalEmbedder();
const similarity = (a: string, b: string): number =>
  cosineSimilarity(embedder.embedText(a), embedder.embedText(b));

/** Texts ordered by similarity to a query, most similar first. */
function ranked(query: string, texts: readonly string[]): string[] {
  return [...texts].sort((a, b) => similarity(query, b) - similarity(query, a));
}

describe('LocalEmbedder', () => {
  it('gives the same vector for the same text, in any instance and any batch', async () => {
    const text = 'Remind me: the quarterly report is due on Friday the 12th.';
    const [first] = await new LocalEmbedder().embed([text]);
    const [, second] = await new LocalEmbedder().embed(['something else first', text]);
    expect(second).toEqual(first);
  });

  it('returns unit vectors of the configured length, empty text included', async () => {
    for (const dimensions of [64, 384, 1536]) {
      const vectors = await new LocalEmbedder({ dimensions }).embed([
        'Hello there, how are you?',
        '',
        '?!',
        '猫が好きです',
      ]);
      for (const vector of vectors) {
        expect(vector).toHaveLength(dimensions);
        expect(Math.hypot(...vector)).toBeCloseTo(1, 10);
      }
    }
  });

  it('records its version and dimensions in the model name the store keeps', () => {
    const local = new LocalEmbedder({ dimensions: 256 });
    expect(local.model).toBe(`local-v${LOCAL_EMBEDDER_VERSION}`);
    expect(local.dimensions).toBe(256);
    expect(new LocalEmbedder({ tuning: { ngramWeight: 0 } }).model).toBe(
      `local-v${LOCAL_EMBEDDER_VERSION}-custom`,
    );
  });

  it('keeps vectors stable within a version, so stored vectors stay comparable', () => {
    const texts = [
      ...PARAPHRASES.flat(),
      'Café RÉSUMÉ: 1,450 € at 7:40',
      '我喜欢我的猫',
      'recieve',
      '',
    ];
    const vectors = texts.map((text) =>
      embedder
        .embedText(text)
        .map((value) => value.toFixed(5))
        .join(','),
    );
    const tables = [
      CONCEPT_GROUPS,
      CATEGORY_GROUPS,
      IRREGULAR_FORMS,
      ANSWER_TYPES,
      [...STOP_WORDS],
      [...COMMON_WORDS],
    ];
    // A change here means stored vectors no longer match new ones: bump LOCAL_EMBEDDER_VERSION (the
    // store then re-embeds) and only then update the expected fingerprints.
    expect({
      model: embedder.model,
      vectors: fnv1a(vectors.join(';')).toString(16),
      tables: fnv1a(JSON.stringify([tables, DEFAULT_LOCAL_TUNING])).toString(16),
    }).toEqual({ model: 'local-v1', vectors: '9936de7d', tables: 'b2548eb' });
  });

  it('finds the fact a question is about among other facts, even in other words', () => {
    const facts = PARAPHRASES.map(([fact]) => fact);
    const firstPlace = PARAPHRASES.filter(
      ([fact, question]) => ranked(question, facts)[0] === fact,
    );
    expect(firstPlace.length).toBeGreaterThanOrEqual(17);
  });

  it('scores paraphrase pairs well above unrelated pairs', () => {
    const own = PARAPHRASES.map(([fact, question]) => similarity(fact, question));
    const unrelated = PARAPHRASES.flatMap(([fact], index) =>
      PARAPHRASES.filter((_, other) => other !== index).map(([, question]) =>
        similarity(fact, question),
      ),
    );
    const mean = (values: number[]): number =>
      values.reduce((sum, value) => sum + value, 0) / values.length;
    expect(mean(own)).toBeGreaterThan(mean(unrelated) + 0.3);
    expect(Math.abs(mean(unrelated))).toBeLessThan(0.05);
  });

  it('matches related words: stems, synonyms and category members', () => {
    const unrelated = similarity('I need to renew my passport.', 'The soup needs more salt.');
    expect(similarity('She runs every day', 'I went running yesterday')).toBeGreaterThan(
      unrelated + 0.2,
    );
    expect(similarity('I bought a new automobile', 'We purchased a car')).toBeGreaterThan(
      unrelated + 0.2,
    );
    expect(similarity('I work as a paramedic', 'What is my profession?')).toBeGreaterThan(
      unrelated + 0.2,
    );
  });

  it('matches numbers and names exactly', () => {
    const codes = [
      'My locker code is 4812.',
      'My locker code is 4813.',
      'My bike lock code is 2291.',
    ];
    expect(ranked('Is 4812 my locker code?', codes)[0]).toBe(codes[0]);
    expect(ranked('Was it 4813 for the locker?', codes)[0]).toBe(codes[1]);
    const people = ['Priya lives in Lisbon.', 'Maria lives in Lisbon.', 'Priya lives in Oslo.'];
    expect(ranked('Where does Maria live?', people)[0]).toBe(people[1]);
    expect(ranked('Who lives in Oslo?', people)[0]).toBe(people[2]);
    expect(similarity('The budget is 1,450 euros', 'a budget of 1450 euros')).toBeGreaterThan(0.9);
  });

  it('still finds a related word through a one-letter typo', () => {
    const facts = [
      'I bought a second-hand car.',
      'My sister lives in Lisbon.',
      'I am allergic to peanuts.',
    ];
    expect(ranked('What vehicel do I have?', facts)[0]).toBe(facts[0]);
    expect(ranked('Do I have any alergies?', facts)[0]).toBe(facts[2]);
  });

  it('folds case, accents and typographic apostrophes', () => {
    expect(similarity('Café RÉSUMÉ', 'cafe resume')).toBeCloseTo(1, 10);
    expect(similarity('I’m sure it’s Tomás', "I'm sure it's tomas")).toBeCloseTo(1, 10);
  });

  it('relates texts in scripts written without spaces', () => {
    const related = similarity('我喜欢我的猫', '我的猫很可爱');
    const unrelated = similarity('我喜欢我的猫', '明天下雨吗');
    expect(related).toBeGreaterThan(unrelated + 0.2);
  });
});
