import { CATEGORY_GROUPS } from './category-groups';
import { CONCEPT_GROUPS } from './concept-groups';
import { IRREGULAR_FORMS } from './irregular-forms';
import { stemWord, type StemLevel } from './stem-word';

/** A related-word group a word belongs to. */
export interface ConceptGroup {
  /** The group's own text: a stable feature name, unchanged when other groups are added. */
  key: string;
  /** A category list (paramedic ~ job) rather than a group of near-synonyms. */
  category: boolean;
}

/** The groups of a word, and whether they were found through a one-letter typo. */
export interface ConceptMatch {
  groups: readonly ConceptGroup[];
  typo: boolean;
}

interface ConceptIndex {
  byStem: Map<string, ConceptGroup[]>;
  /** Each table word and its one-letter deletions -> table words (SymSpell's trick). */
  byDeletion: Map<string, string[]>;
  /** Table word -> its stem. */
  stems: Map<string, string>;
}

// Short words are too close to each other (cat, car, bat) for a typo guess to be safe.
const MIN_TYPO_LENGTH = 5;
const NO_MATCH: ConceptMatch = { groups: [], typo: false };
const indexes = new Map<StemLevel, ConceptIndex>();

/** The concept and category groups of a token: by its stem, else through a likely typo. */
export function findConcepts(token: string, stem: string, level: StemLevel): ConceptMatch {
  const index = conceptIndex(level);
  const exact = index.byStem.get(stem);
  if (exact) return { groups: exact, typo: false };
  if (token.length < MIN_TYPO_LENGTH || !/^[a-z]+$/.test(token)) return NO_MATCH;
  const candidates = new Set<string>();
  for (const variant of withDeletions(token)) {
    for (const word of index.byDeletion.get(variant) ?? []) {
      if (isOneEditApart(token, word)) candidates.add(word);
    }
  }
  // Two different corrections are a guess between meanings; take neither.
  if (candidates.size !== 1) return NO_MATCH;
  const [word] = candidates;
  const groups = index.byStem.get(index.stems.get(word ?? '') ?? '') ?? [];
  return groups.length === 0 ? NO_MATCH : { groups, typo: true };
}

function conceptIndex(level: StemLevel): ConceptIndex {
  const cached = indexes.get(level);
  if (cached) return cached;
  const index: ConceptIndex = { byStem: new Map(), byDeletion: new Map(), stems: new Map() };
  const groups = [
    ...CONCEPT_GROUPS.map((key) => ({ key, category: false })),
    ...CATEGORY_GROUPS.map((key) => ({ key, category: true })),
  ];
  for (const group of groups) {
    for (const word of group.key.split(/\s+/)) {
      if (word === '') continue;
      const stem = stemWord(IRREGULAR_FORMS[word] ?? word, level);
      const entries = index.byStem.get(stem) ?? [];
      if (!entries.some((entry) => entry.key === group.key)) entries.push(group);
      index.byStem.set(stem, entries);
      if (word.length < MIN_TYPO_LENGTH || index.stems.has(word)) continue;
      index.stems.set(word, stem);
      for (const variant of withDeletions(word)) {
        const words = index.byDeletion.get(variant) ?? [];
        words.push(word);
        index.byDeletion.set(variant, words);
      }
    }
  }
  indexes.set(level, index);
  return index;
}

/** The word itself and every form of it with one letter left out. */
function withDeletions(word: string): Set<string> {
  const variants = new Set([word]);
  for (let index = 0; index < word.length; index++)
    variants.add(word.slice(0, index) + word.slice(index + 1));
  return variants;
}

/** One insertion, deletion, substitution or swap of neighbours apart (and not equal). */
function isOneEditApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let start = 0;
  while (start < a.length && a.charAt(start) === b.charAt(start)) start++;
  let endA = a.length - 1;
  let endB = b.length - 1;
  while (endA >= start && endB >= start && a.charAt(endA) === b.charAt(endB)) {
    endA--;
    endB--;
  }
  const restA = endA - start + 1;
  const restB = endB - start + 1;
  if (restA <= 1 && restB <= 1) return true;
  return (
    restA === 2 &&
    restB === 2 &&
    a.charAt(start) === b.charAt(endB) &&
    a.charAt(endA) === b.charAt(start)
  );
}
