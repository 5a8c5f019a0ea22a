import type { VectorHit, VectorSearchOptions } from '../memory-store';
import type { Scope } from '../types';
import { collectNearest, toUnitQuery } from './collect-nearest';
import { scopeParams } from './scope-sql';
import type { Statements } from './statements';
import { TopK } from './top-k';

/**
 * Nearest turns and chunks of a scope (and its tool calls on request) by cosine similarity,
 * best first. Exact brute force over the scope's vectors; an approximate index for very large
 * scopes would replace the scans here and leave the callers alone.
 */
export function searchVectors(options: {
  statements: Statements;
  scope: Scope;
  vector: readonly number[];
  search: VectorSearchOptions;
}): VectorHit[] {
  const { statements, scope, vector, search } = options;
  const query = toUnitQuery(vector);
  if (query === null || search.k <= 0) return [];
  const params = scopeParams(scope);
  // One heap across both tables, so tool calls compete with turns for the same k places.
  const top = new TopK<Omit<VectorHit, 'score'>>(search.k);
  collectNearest({
    rows: statements.messageVectors.iterate(params),
    query,
    top,
    toItem: (id) => ({ id, kind: 'message' }),
  });
  if (search.includeToolCalls === true) {
    collectNearest({
      rows: statements.toolCallVectors.iterate(params),
      query,
      top,
      toItem: (id) => ({ id, kind: 'toolcall' }),
    });
  }
  return top.sorted().map(({ item, score }) => ({ ...item, score }));
}
