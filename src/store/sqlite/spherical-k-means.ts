import { quantizeQuery, type CodePool, type QuantizedQuery } from './code-pool';
import { VectorArena } from './vector-arena';

/** Rows of `dimensions` floats packed one after another. */
export interface PackedRows {
  data: Float32Array;
  count: number;
  dimensions: number;
}

/** Unit rows prepared for nearest-centroid lookups with the pool's kernel. */
export interface KMeansRows {
  rows: PackedRows;
  queries: (QuantizedQuery | null)[];
}

/** Prepares rows (unit length) for sphericalKMeans and nearestCentroid. */
export function toKMeansRows(rows: PackedRows): KMeansRows {
  const queries: (QuantizedQuery | null)[] = [];
  for (let row = 0; row < rows.count; row++) {
    queries.push(quantizeQuery(rows.data.subarray(row * rows.dimensions, (row + 1) * rows.dimensions)));
  }
  return { rows, queries };
}

/** Centroids as codes in the pool, for nearest-centroid lookups. */
export class CentroidSet {
  readonly arena: VectorArena;
  private scores: Float64Array;

  constructor(
    private readonly pool: CodePool,
    centroids: PackedRows,
  ) {
    this.arena = new VectorArena(pool);
    for (let row = 0; row < centroids.count; row++) {
      const vector = centroids.data.subarray(row * centroids.dimensions, (row + 1) * centroids.dimensions);
      // A zero centroid cannot be a code; a tiny stand-in keeps slot numbers aligned with rows.
      if (this.arena.add(row, vector) === null) this.arena.add(row, Float32Array.from(vector, (_, i) => (i === 0 ? 1e-6 : 0)));
    }
    this.scores = new Float64Array(Math.max(1, centroids.count));
  }

  /** Number of centroids. */
  get count(): number {
    return this.arena.size;
  }

  /** The nearest centroid among rows first..last-1 to the query the pool currently holds, and its score. */
  nearest(query: QuantizedQuery, first = 0, last = this.arena.size): { index: number; score: number } {
    const count = last - first;
    this.arena.score(query, sequence(first, count), 0, count, this.scores);
    let best = 0;
    for (let index = 1; index < count; index++) if (this.scores[index]! > this.scores[best]!) best = index;
    return { index: first + best, score: this.scores[best]! };
  }

  /** Scores of every centroid with the query the pool currently holds. */
  scoreAll(query: QuantizedQuery): Float64Array {
    const out = new Float64Array(this.arena.size);
    this.arena.score(query, sequence(0, this.arena.size), 0, this.arena.size, out);
    return out;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.arena.bytes;
  }

  /** Gives the codes back to the pool. */
  release(): void {
    this.arena.release();
  }
}

let sequenceCache = new Int32Array(0);

/** The slots first .. first + count - 1, from a shared buffer (valid until the next call). */
export function sequence(first: number, count: number): Int32Array {
  if (sequenceCache.length < first + count) {
    sequenceCache = Int32Array.from({ length: Math.max(first + count, sequenceCache.length * 2) }, (_, index) => index);
  }
  return sequenceCache.subarray(first, first + count);
}

/**
 * Spherical k-means (cosine): up to `k` unit centroids of unit rows, one iteration per
 * generator step so a caller can spread the work over event-loop turns. Nearest centroids are
 * found with the pool's SIMD kernel; empty clusters are reseeded with a random row.
 */
export function* sphericalKMeans(options: {
  pool: CodePool;
  input: KMeansRows;
  k: number;
  iterations: number;
  random: () => number;
}): Generator<void, PackedRows> {
  const { pool, input, iterations, random } = options;
  const { data, count, dimensions } = input.rows;
  const k = Math.min(options.k, count);
  const centroids = new Float32Array(k * dimensions);
  // Distinct random rows start as the centroids (a partial Fisher-Yates shuffle).
  const order = Int32Array.from({ length: count }, (_, index) => index);
  for (let index = 0; index < k; index++) {
    const pick = index + Math.floor(random() * (count - index));
    const chosen = order[pick]!;
    order[pick] = order[index]!;
    order[index] = chosen;
    centroids.set(data.subarray(chosen * dimensions, (chosen + 1) * dimensions), index * dimensions);
  }
  const sums = new Float64Array(k * dimensions);
  const sizes = new Int32Array(k);
  for (let iteration = 0; iteration < iterations; iteration++) {
    const set = new CentroidSet(pool, { data: centroids, count: k, dimensions });
    sums.fill(0);
    sizes.fill(0);
    for (let row = 0; row < count; row++) {
      const query = input.queries[row];
      if (!query) continue;
      pool.setQuery(query);
      const centroid = set.nearest(query).index;
      sizes[centroid]!++;
      const base = row * dimensions;
      const target = centroid * dimensions;
      for (let index = 0; index < dimensions; index++) sums[target + index]! += data[base + index]!;
    }
    set.release();
    for (let centroid = 0; centroid < k; centroid++) {
      const target = centroid * dimensions;
      if (sizes[centroid] === 0) {
        const row = Math.floor(random() * count);
        centroids.set(data.subarray(row * dimensions, (row + 1) * dimensions), target);
        continue;
      }
      let norm = 0;
      for (let index = 0; index < dimensions; index++) norm += sums[target + index]! * sums[target + index]!;
      const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      for (let index = 0; index < dimensions; index++) centroids[target + index] = sums[target + index]! * scale;
    }
    yield;
  }
  return { data: centroids, count: k, dimensions };
}
