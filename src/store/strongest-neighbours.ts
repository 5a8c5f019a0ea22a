import type { Neighbour } from './types';

/** Best score first, ties by id (byte order, as SQL's ORDER BY id), so equal scores list stably. */
export function byScoreThenId(
  a: { id: string; score: number },
  b: { id: string; score: number },
): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * The answer of MemoryStore.neighbours from every link a store found: each neighbour once, by
 * its strongest link (the first of equals), strongest first, at most `limit`.
 */
export function strongestNeighbours<T extends Neighbour>(links: Iterable<T>, limit: number): T[] {
  const strongest = new Map<string, T>();
  for (const link of links) {
    const known = strongest.get(link.id);
    if (known === undefined || link.score > known.score) strongest.set(link.id, link);
  }
  return [...strongest.values()].sort(byScoreThenId).slice(0, limit);
}
