import type { TopK } from './top-k';
import { decodeVector } from '../vector-codec';

/** A stored vector as the raw vector statements return it: the id and its Float32 BLOB. */
export type VectorRow = [id: string, blob: Uint8Array];

/** A query vector scaled to unit length, ready to score stored vectors with one pass. */
export interface UnitQuery {
  values: Float64Array;
}

/** Scales a query to unit length; null for a zero vector, which has no direction to compare. */
export function toUnitQuery(vector: readonly number[]): UnitQuery | null {
  // Indexed loops: a mapping Float64Array.from took ~30 us for 384 values, these ~3.
  let norm = 0;
  for (let index = 0; index < vector.length; index++) norm += vector[index]! * vector[index]!;
  if (norm === 0 || !Number.isFinite(norm)) return null;
  const scale = 1 / Math.sqrt(norm);
  const values = new Float64Array(vector.length);
  for (let index = 0; index < vector.length; index++) values[index] = vector[index]! * scale;
  return { values };
}

/** Cosine similarity of a unit query and a stored vector; null when they cannot be compared. */
export function cosineToUnit(query: UnitQuery, vector: Float32Array): number | null {
  if (vector.length !== query.values.length) return null;
  return cosineToUnitAt(query, vector, 0);
}

/**
 * cosineToUnit of the vector of the query's length at `offset` in `vectors` (several stored
 * vectors one after another); null for a zero vector.
 */
export function cosineToUnitAt(query: UnitQuery, vectors: Float32Array, offset: number): number | null {
  const values = query.values;
  if (offset + values.length > vectors.length) return null;
  let dot = 0;
  let norm = 0;
  for (let index = 0; index < values.length; index++) {
    const value = vectors[offset + index] as number;
    dot += value * (values[index] as number);
    norm += value * value;
  }
  if (norm === 0) return null;
  return dot / Math.sqrt(norm);
}

/**
 * Exact nearest neighbours by brute force: scores every row into a top-k heap. This is the
 * seam where an approximate index can take over for large scopes; callers only see the hits.
 */
export function collectNearest<T>(options: {
  rows: Iterable<VectorRow>;
  query: UnitQuery;
  top: TopK<T>;
  toItem: (id: string) => T;
}): void {
  const { rows, query, top, toItem } = options;
  for (const [id, blob] of rows) {
    const score = cosineToUnit(query, decodeVector(blob));
    // Vectors of another model's dimensions (before a re-embed finishes) are not comparable.
    if (score === null || !top.accepts(score)) continue;
    top.push(toItem(id), score);
  }
}
