import { quantizeQuery, type CodePool, type QuantizedQuery } from './code-pool';
import { CentroidSet, sphericalKMeans, toKMeansRows, type PackedRows } from './spherical-k-means';

/** k-means passes over the sample at each level. */
const ITERATIONS = 5;
/** Sample rows per leaf a leaf's centroid is trained from, at least. */
const SAMPLE_PER_LEAF = 10;
/** Sample rows per group the top level is trained from (groups are few and broad). */
const SAMPLE_PER_GROUP = 64;
/**
 * Groups whose leaves a vector is compared with when placed. The nearest group alone misplaces
 * enough vectors near group borders to cost several points of recall (searches rank every
 * leaf); four recover nearly all of it at a fraction of comparing with every leaf.
 */
const PLACEMENT_GROUPS = 4;

/**
 * The lists of an inverted-file index: leaves found by two levels of spherical k-means (about
 * sqrt(lists) groups, each split into about sqrt(lists) leaves), so placing a vector costs two
 * short scans instead of one over every leaf. Centroids are int8 codes in the pool.
 */
export class CoarseQuantizer {
  private constructor(
    private readonly top: CentroidSet,
    private readonly leaves: CentroidSet,
    /** Leaves of group g are childStart[g] .. childStart[g + 1] - 1. */
    private readonly childStart: Int32Array,
  ) {}

  /** Number of leaves (lists). */
  get leafCount(): number {
    return this.leaves.count;
  }

  /** Bytes held by the centroids. */
  get bytes(): number {
    return this.top.bytes + this.leaves.bytes;
  }

  /**
   * Trains on unit sample rows (in random order), one k-means iteration per generator step. Asks
   * for `leafCount` leaves, shared among the groups by their size; no leaf is trained from a
   * handful of rows.
   */
  static *train(options: {
    pool: CodePool;
    sample: PackedRows;
    leafCount: number;
    random: () => number;
  }): Generator<void, CoarseQuantizer> {
    const { pool, sample, random } = options;
    const { dimensions } = sample;
    const input = toKMeansRows(sample);
    const groups = Math.max(1, Math.round(Math.sqrt(options.leafCount)));
    const topCount = Math.min(sample.count, groups * SAMPLE_PER_GROUP);
    const topRows = {
      rows: { data: sample.data.subarray(0, topCount * dimensions), count: topCount, dimensions },
      queries: input.queries.slice(0, topCount),
    };
    const topCentroids = yield* sphericalKMeans({ pool, input: topRows, k: groups, iterations: ITERATIONS, random });
    const top = new CentroidSet(pool, topCentroids);
    const members: number[][] = Array.from({ length: top.count }, () => []);
    for (let row = 0; row < sample.count; row++) {
      const query = input.queries[row];
      if (!query) continue;
      pool.setQuery(query);
      members[top.nearest(query).index]!.push(row);
    }
    const parts: Float32Array[] = [];
    const childStart = new Int32Array(top.count + 1);
    let leafCount = 0;
    for (let group = 0; group < top.count; group++) {
      childStart[group] = leafCount;
      const rows = members[group]!;
      // Leaves in proportion to the group's share of the sample: a dense group (a subject the
      // conversation keeps coming back to) gets more leaves instead of lists ten times the median.
      const share = Math.round((options.leafCount * rows.length) / sample.count);
      const wanted = Math.max(1, Math.min(share, Math.floor(rows.length / SAMPLE_PER_LEAF)));
      if (wanted === 1) {
        parts.push(topCentroids.data.slice(group * dimensions, (group + 1) * dimensions));
        leafCount++;
        continue;
      }
      const data = new Float32Array(rows.length * dimensions);
      rows.forEach((row, index) => data.set(sample.data.subarray(row * dimensions, (row + 1) * dimensions), index * dimensions));
      const children = yield* sphericalKMeans({
        pool,
        input: { rows: { data, count: rows.length, dimensions }, queries: rows.map((row) => input.queries[row]!) },
        k: wanted,
        iterations: ITERATIONS,
        random,
      });
      parts.push(children.data);
      leafCount += children.count;
    }
    childStart[top.count] = leafCount;
    const leafData = new Float32Array(leafCount * dimensions);
    let offset = 0;
    for (const part of parts) {
      leafData.set(part, offset);
      offset += part.length;
    }
    const leaves = new CentroidSet(pool, { data: leafData, count: leafCount, dimensions });
    return new CoarseQuantizer(top, leaves, childStart);
  }

  private readonly placing: QuantizedQuery = { values: new Int16Array(0), scale: 0 };

  /** The leaf of a vector: the nearest leaf of its PLACEMENT_GROUPS nearest groups. Sets the pool's query. */
  assign(vector: ArrayLike<number>, pool: CodePool): number {
    const query = quantizeQuery(vector, this.placing);
    if (query === null) return 0;
    pool.setQuery(query);
    const groups = this.top.scoreAll(query);
    let best = 0;
    let bestScore = -Infinity;
    for (const group of highest(groups, PLACEMENT_GROUPS)) {
      const leaf = this.leaves.nearest(query, this.childStart[group]!, this.childStart[group + 1]!);
      if (leaf.score > bestScore) {
        bestScore = leaf.score;
        best = leaf.index;
      }
    }
    return best;
  }

  /** Every leaf's approximate cosine with the query the pool currently holds. */
  scoreLeaves(query: QuantizedQuery): Float64Array {
    return this.leaves.scoreAll(query);
  }

  /** Gives the centroids' codes back to the pool. */
  release(): void {
    this.top.release();
    this.leaves.release();
  }
}

/** Indices of the `count` highest values, in no particular order. */
function highest(values: Float64Array, count: number): number[] {
  const chosen: number[] = [];
  for (let index = 0; index < values.length; index++) {
    if (chosen.length < count) {
      chosen.push(index);
      continue;
    }
    let lowest = 0;
    for (let at = 1; at < count; at++) if (values[chosen[at]!]! < values[chosen[lowest]!]!) lowest = at;
    if (values[index]! > values[chosen[lowest]!]!) chosen[lowest] = index;
  }
  return chosen;
}

/** Sample rows needed to train `leafCount` leaves. */
export function sampleSizeFor(leafCount: number): number {
  return leafCount * SAMPLE_PER_LEAF * 2;
}
