import { describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../../embeddings/local-embedder';
import { CodePool } from './code-pool';
import { jsDotKernel, simdDotKernel } from './dot-kernel';
import { IvfIndex } from './ivf-index';
import { VectorArena } from './vector-arena';
import { RESCORE_REACH, withinReach } from './vector-index-cache';

const DIMENSIONS = 384;
const K = 10;
/** What VectorIndexCache asks the index for before rescoring: k + 16 candidates. */
const CANDIDATES = K + 16;

/** Deterministic PRNG (mulberry32) and a normal variate from it. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value ^= value + Math.imul(value ^ (value >>> 7), 61 | value);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  const normal = (): number => Math.sqrt(-2 * Math.log(next() || 1e-12)) * Math.cos(2 * Math.PI * next());
  return { next, normal };
}

function unit(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  const scale = 1 / Math.sqrt(norm);
  for (let index = 0; index < vector.length; index++) vector[index]! *= scale;
  return vector;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index++) sum += a[index]! * b[index]!;
  return sum;
}

/** Exact top k by brute force: what the index must agree with. */
function exactTop(data: Float32Array[], query: Float32Array, k: number): number[] {
  return data
    .map((vector, index) => ({ index, score: dot(vector, query) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map((hit) => hit.index);
}

/**
 * 20,000 vectors: 16,000 in 200 clusters of different spreads (cosine to their centre from
 * about 0.65 to 0.9, like embeddings of turns on one subject) and 4,000 uniformly random.
 */
function dataset() {
  const random = generator(42);
  const randomUnit = () => unit(Float32Array.from({ length: DIMENSIONS }, random.normal));
  const centres = Array.from({ length: 200 }, randomUnit);
  const spreads = centres.map(() => 0.5 + random.next() * 0.7);
  const clustered = () => {
    const cluster = Math.floor(random.next() * centres.length);
    const spread = spreads[cluster]! / Math.sqrt(DIMENSIONS);
    return unit(Float32Array.from(centres[cluster]!, (value) => value + random.normal() * spread));
  };
  const data = [...Array.from({ length: 16_000 }, clustered), ...Array.from({ length: 4_000 }, randomUnit)];
  const clusterQueries = Array.from({ length: 100 }, clustered);
  // A query close to a random vector (a near-duplicate) must find that vector first.
  const duplicateOf = Array.from({ length: 50 }, () => 16_000 + Math.floor(random.next() * 4_000));
  const duplicateQueries = duplicateOf.map((index) =>
    unit(Float32Array.from(data[index]!, (value) => value + (random.normal() * 0.3) / Math.sqrt(DIMENSIONS))),
  );
  return { data, clusterQueries, duplicateOf, duplicateQueries };
}

/** The index's candidates within reach rescored with the exact vectors, as the store does. */
function search(index: IvfIndex, data: Float32Array[], query: Float32Array, stats: { scanned: number }): number[] {
  return withinReach(index.search(query, { candidates: CANDIDATES, stats }), K)
    .map((hit) => ({ index: hit.key, score: dot(data[hit.key]!, query) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, K)
    .map((hit) => hit.index);
}

describe('IvfIndex', () => {
  it('finds at least 95% of the exact top 10 on 20k random and clustered vectors, scanning a small share', () => {
    const { data, clusterQueries, duplicateOf, duplicateQueries } = dataset();
    const index = new IvfIndex(new CodePool(DIMENSIONS));
    data.forEach((vector, key) => index.add(key, vector));
    expect(index.needsTraining).toBe(true);
    index.train();
    expect(index.listCount).toBeGreaterThan(64);

    let found = 0;
    let scanned = 0;
    for (const query of clusterQueries) {
      const stats = { scanned: 0 };
      const approximate = new Set(search(index, data, query, stats));
      found += exactTop(data, query, K).filter((hit) => approximate.has(hit)).length;
      scanned += stats.scanned;
    }
    const recall = found / (clusterQueries.length * K);
    const scannedShare = scanned / (clusterQueries.length * data.length);
    expect(recall).toBeGreaterThanOrEqual(0.95);
    expect(scannedShare).toBeLessThan(0.2);

    const firstHits = duplicateQueries.filter((query, at) => search(index, data, query, { scanned: 0 })[0] === duplicateOf[at]);
    expect(firstHits.length / duplicateQueries.length).toBeGreaterThanOrEqual(0.95);
  });

  it('scores within half the rescoring reach of the exact cosine: no candidate left out could rank', async () => {
    // Text embeddings, whose few large components make int8 codes coarser than for the
    // synthetic vectors above.
    const random = generator(5);
    const words = [
      ...'memory graph turn answer question budget window token search vector index cluster'.split(' '),
      ...'summary period topic tool call stream model proxy user assistant latency store'.split(' '),
      ...'neo4j sqlite embed chunk link recall ranking'.split(' '),
    ];
    const word = () => words[Math.floor(random.next() * words.length)];
    const sentence = () => Array.from({ length: 6 + Math.floor(random.next() * 20) }, word).join(' ');
    const embedder = new LocalEmbedder({ dimensions: DIMENSIONS });
    const toUnit = (vector: number[]) => unit(Float32Array.from(vector));
    const data = (await embedder.embed(Array.from({ length: 3_000 }, sentence))).map(toUnit);
    const queries = (await embedder.embed(Array.from({ length: 100 }, sentence))).map(toUnit);
    const index = new IvfIndex(new CodePool(DIMENSIONS));
    data.forEach((vector, key) => index.add(key, vector));
    let worst = 0;
    for (const query of queries) {
      for (const hit of index.search(query, { candidates: 200 })) {
        worst = Math.max(worst, Math.abs(hit.score - dot(data[hit.key]!, query)));
      }
    }
    expect(worst).toBeGreaterThan(0);
    expect(worst).toBeLessThan(RESCORE_REACH / 2);
  });

  it('scans everything exactly until trained, and keeps adding to lists after', () => {
    const random = generator(7);
    const vectors = Array.from({ length: 300 }, () => unit(Float32Array.from({ length: 32 }, random.normal)));
    const index = new IvfIndex(new CodePool(32), { trainAt: 200 });
    vectors.slice(0, 100).forEach((vector, key) => index.add(key, vector));
    expect(index.search(vectors[5]!, { candidates: 1 })[0]?.key).toBe(5);
    vectors.slice(100).forEach((vector, key) => index.add(key + 100, vector));
    index.train();
    const late = unit(Float32Array.from({ length: 32 }, random.normal));
    index.add(999, late);
    expect(index.search(late, { candidates: 1, probes: 1 })[0]?.key).toBe(999);
  });

  it('lays the lists out contiguously when trained, and again once a quarter more vectors arrived', () => {
    const { data } = dataset();
    const index = new IvfIndex(new CodePool(DIMENSIONS));
    data.slice(0, 12_000).forEach((vector, key) => index.add(key, vector));
    index.train();
    expect(index.scattered).toBe(0);
    data.slice(12_000).forEach((vector, at) => index.add(12_000 + at, vector));
    expect(index.scattered).toBe(8_000);
    expect(index.needsLayout).toBe(true);
    index.layOut();
    expect(index.scattered).toBe(0);
    expect(index.needsLayout).toBe(false);
    // Every vector moved with its key: each is still the nearest to itself.
    for (let key = 0; key < data.length; key += 97) {
      expect(index.search(data[key]!, { candidates: 1 })[0]?.key).toBe(key);
    }
  });

  it('skips removed vectors and rejects vectors it cannot compare', () => {
    const index = new IvfIndex(new CodePool(4));
    const slot = index.add(1, [1, 0, 0, 0])!;
    index.add(2, [0.9, 0.1, 0, 0]);
    expect(index.add(3, [0, 0, 0, 0])).toBeNull();
    expect(index.add(4, [1, 0, 0])).toBeNull();
    index.remove(slot);
    expect(index.search([1, 0, 0, 0], { candidates: 5 }).map((hit) => hit.key)).toEqual([2]);
  });
});

describe('VectorArena.permute', () => {
  it('moves each vector with its key, scale and liveness, in place', () => {
    const random = generator(11);
    const pool = new CodePool(32);
    const arena = new VectorArena(pool);
    const vectors = Array.from({ length: 3_000 }, () => unit(Float32Array.from({ length: 32 }, random.normal)));
    vectors.forEach((vector, key) => arena.add(key, vector));
    for (let slot = 0; slot < 3_000; slot += 7) arena.kill(slot);
    const decoded = vectors.map((_, slot) => Array.from(arena.decode(slot, new Float32Array(32))));
    const order = Int32Array.from({ length: 3_000 }, (_, slot) => slot);
    for (let slot = order.length - 1; slot > 0; slot--) {
      const other = Math.floor(random.next() * (slot + 1));
      [order[slot], order[other]] = [order[other]!, order[slot]!];
    }
    arena.permute(order);
    for (let slot = 0; slot < 3_000; slot++) {
      const was = order[slot]!;
      expect(arena.key(slot)).toBe(was);
      expect(arena.isAlive(slot)).toBe(was % 7 !== 0);
      expect(Array.from(arena.decode(slot, new Float32Array(32)))).toEqual(decoded[was]);
    }
    expect(arena.liveCount).toBe(3_000 - Math.ceil(3_000 / 7));
  });
});

describe('dot kernel', () => {
  it('gives the same sums in WebAssembly SIMD as in JavaScript', () => {
    const memory = new WebAssembly.Memory({ initial: 4 });
    const simd = simdDotKernel(memory);
    expect(simd).not.toBeNull();
    const bytes = new Int8Array(memory.buffer);
    const words = new Int32Array(memory.buffer);
    const query = new Int16Array(memory.buffer, 0, 64);
    const random = generator(3);
    for (let index = 0; index < 64; index++) query[index] = Math.round((random.next() * 2 - 1) * 32_767);
    for (let index = 4096; index < 4096 + 64 * 50; index++) bytes[index] = Math.round(random.next() * 254 - 127);
    for (let row = 0; row < 50; row++) words[256 + row] = 4096 + ((row * 17) % 50) * 64;
    simd!(1024, 50, 0, 2048, 4);
    const fromSimd = Array.from(words.subarray(512, 562));
    jsDotKernel(memory)(1024, 50, 0, 2048, 4);
    expect(fromSimd).toEqual(Array.from(words.subarray(512, 562)));
    expect(fromSimd.some((sum) => sum !== 0)).toBe(true);
  });
});
