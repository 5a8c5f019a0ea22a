import type { VectorHit, VectorSearchOptions } from '../memory-store';
import type { Scope } from '../types';
import { collectNearest, toUnitQuery } from './collect-nearest';
import { scopeParams } from './scope-sql';
import type { Statements } from './statements';
import { TopK } from './top-k';
import type { VectorIndexCache } from './vector-index-cache';

/**
 * Nearest turns and chunks of a scope (and its tool calls on request) by cosine similarity,
 * best first. Turns and chunks come from the scope's in-memory index; tool calls, few per
 * scope, are scanned exactly and compete with them for the same k places.
 */
export function searchVectors(options: {
  statements: Statements;
  vectors: VectorIndexCache;
  scope: Scope;
  vector: readonly number[];
  search: VectorSearchOptions;
}): VectorHit[] {
  const { statements, vectors, scope, vector, search } = options;
  const query = toUnitQuery(vector);
  if (query === null || search.k <= 0) return [];
  // The index's rescoring read each turn's head with its vector: hits asked `withMessages` bring it.
  const heads = search.withMessages === true;
  const messages = vectors.search(scope, vector, search.k).map((row): VectorHit => {
    const hit: VectorHit = { id: row.id, kind: 'message', score: row.score };
    return heads ? { ...hit, head: row.head } : hit;
  });
  if (search.includeToolCalls !== true) return messages;
  const top = new TopK<Omit<VectorHit, 'score'>>(search.k);
  for (const { score, ...hit } of messages) top.push(hit, score);
  collectNearest({
    rows: statements.toolCallVectors.iterate(scopeParams(scope)),
    query,
    top,
    toItem: (id) => ({ id, kind: 'toolcall' }),
  });
  return top.sorted().map(({ item, score }) => ({ ...item, score }));
}

/**
 * The exact nearest turns and chunks by brute force over every stored vector of the scope: the
 * reference the index's recall is measured against (slow: it reads the scope's vectors).
 */
export function exactSearchVectors(options: { statements: Statements; scope: Scope; vector: readonly number[]; k: number }): VectorHit[] {
  const query = toUnitQuery(options.vector);
  if (query === null || options.k <= 0) return [];
  const top = new TopK<Omit<VectorHit, 'score'>>(options.k);
  collectNearest({
    rows: options.statements.messageVectors.iterate(scopeParams(options.scope)),
    query,
    top,
    toItem: (id) => ({ id, kind: 'message' }),
  });
  return top.sorted().map(({ item, score }) => ({ ...item, score }));
}
