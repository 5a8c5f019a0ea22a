import { NEIGHBOUR_SCORES } from '../memory-store';
import { strongestNeighbours } from '../strongest-neighbours';
import type { Neighbour, Scope } from '../types';
import { scopeParams } from './scope-sql';
import type { Statements } from './statements';
import { headOf } from './turn-heads';

/**
 * MemoryStore.neighbours on one connection: the search thread's, or the store's own when there
 * is no thread. With `withMessages` each neighbour comes with its head, read in the same query.
 */
export function readNeighbours(
  statements: Statements,
  scope: Scope,
  ids: string[],
  options: { limit: number; withMessages?: boolean },
): Neighbour[] {
  if (ids.length === 0 || options.limit <= 0) return [];
  const rows = statements.neighbourLinks.all({
    ids: JSON.stringify(ids),
    respondedWithScore: NEIGHBOUR_SCORES.RESPONDED_WITH,
    repliesToScore: NEIGHBOUR_SCORES.REPLIES_TO,
    ...scopeParams(scope),
  });
  const links = rows.map((row) => ({ fromId: row[0], via: row[1], score: row[2], id: row[3], row }));
  return strongestNeighbours(links, options.limit).map(({ row, ...neighbour }) =>
    options.withMessages === true ? { ...neighbour, head: headOf(row, 3) } : neighbour,
  );
}
