import { quantizeQuery, type CodePool, type QuantizedQuery } from './code-pool';
import { CoarseQuantizer, sampleSizeFor } from './coarse-quantizer';
import { sequence, type PackedRows } from './spherical-k-means';
import { TopK } from './top-k';
import { VectorArena } from './vector-arena';

/** Tuning of an IvfIndex; the defaults are what bench/scale.ts measured. */
export interface IvfOptions {
  /** Vectors searched exhaustively until the index has this many; then lists are trained. */
  trainAt?: number;
  /** Lists are retrained once the index has grown this many times since the last training. */
  retrainGrowth?: number;
  /** Share of the lists a search probes, nearest first. */
  probeShare?: number;
  /** Lists probed at least. */
  minProbes?: number;
  /** Seed of the sampling and k-means starts, so a build is reproducible. */
  seed?: number;
}

/** A candidate: the key its vector was added under and its approximate cosine with the query. */
export interface IvfHit {
  key: number;
  score: number;
}

/** Vectors added since the last layout before another is worth it: at least this many... */
const LAYOUT_MIN_ADDED = 4_096;
/** ...and more than this share of the vectors laid out then. */
const LAYOUT_GROWTH = 0.25;

/** Slots scored per pass of an exhaustive scan. */
const SCAN_BATCH = 8192;

const DEFAULTS: Required<IvfOptions> = {
  trainAt: 8_192,
  retrainGrowth: 4,
  probeShare: 1 / 64,
  minProbes: 12,
  seed: 0x5eed,
};

/** A growable list of slots. */
class SlotList {
  slots = new Int32Array(16);
  length = 0;

  push(slot: number): void {
    if (this.length === this.slots.length) {
      const grown = new Int32Array(this.slots.length * 2);
      grown.set(this.slots);
      this.slots = grown;
    }
    this.slots[this.length++] = slot;
  }
}

interface Lists {
  quantizer: CoarseQuantizer;
  lists: SlotList[];
  /** Slots below this were placed when the lists were built; later ones as they arrived. */
  trainedSize: number;
}

/**
 * An approximate nearest-neighbour index (inverted file over int8 codes) for one scope's
 * vectors. Small indexes are scanned whole; past `trainAt` vectors, k-means lists are trained
 * and a search scans only the lists nearest the query. Vectors are added one at a time as they
 * are stored; the lists are retrained as the index grows. Training runs in steps (a generator)
 * so a caller can spread it over event-loop turns; searches and adds stay valid in between.
 */
export class IvfIndex {
  readonly arena: VectorArena;
  private readonly options: Required<IvfOptions>;
  private trained: Lists | null = null;
  private training = false;
  /** Arena size when the lists were last laid out contiguously. */
  private laidOutSize = 0;
  private readonly random: () => number;
  private readonly scratch: Float32Array;

  constructor(
    private readonly pool: CodePool,
    options: IvfOptions = {},
  ) {
    this.arena = new VectorArena(pool);
    this.options = { ...DEFAULTS, ...options };
    this.random = seededRandom(this.options.seed);
    this.scratch = new Float32Array(pool.dimensions);
  }

  /** Vectors held, live or not. */
  get size(): number {
    return this.arena.size;
  }

  /** Lists the index searches (0 while it is scanned whole). */
  get listCount(): number {
    return this.trained?.quantizer.leafCount ?? 0;
  }

  /** Bytes held by codes, lists and centroids. */
  get bytes(): number {
    const lists = this.trained ? this.trained.lists.reduce((sum, list) => sum + list.slots.byteLength, 0) : 0;
    return this.arena.bytes + lists + (this.trained?.quantizer.bytes ?? 0);
  }

  /** Vectors a training for `size` vectors samples. */
  static sampleSizeFor(size: number): number {
    return sampleSizeFor(leafCountFor(size));
  }

  /** Whether the lists are missing or stale and no training is under way. */
  get needsTraining(): boolean {
    if (this.training) return false;
    const live = this.arena.liveCount;
    if (this.trained === null) return live >= this.options.trainAt;
    return live >= this.trained.trainedSize * this.options.retrainGrowth;
  }

  /** Adds a vector under a key; returns its slot, or null when it cannot be compared (see VectorArena.add). */
  add(key: number, vector: ArrayLike<number>): number | null {
    const slot = this.arena.add(key, vector);
    if (slot !== null && this.trained) this.place(this.trained, slot);
    return slot;
  }

  /** Marks a slot's vector dead (deleted, or replaced); searches skip it. */
  remove(slot: number): void {
    this.arena.kill(slot);
  }

  /** Trains (or retrains) the lists now, in one go. */
  train(expectedSize?: number): void {
    const steps = this.trainSteps(expectedSize);
    while (steps.next().done !== true);
  }

  /**
   * Trains the lists one unit of work per step: sample, k-means iterations, then placing every
   * vector a few thousand at a time. The new lists replace the old ones only at the end. With
   * `expectedSize`, lists are sized for that many vectors (a scope still loading), so they are
   * not retrained until the index outgrows it.
   */
  *trainSteps(expectedSize?: number): Generator<void, void> {
    if (this.training) return;
    this.training = true;
    try {
      const size = this.arena.size;
      const live = this.arena.liveCount;
      if (live === 0) return;
      const planned = Math.max(live, expectedSize ?? 0);
      const leafCount = leafCountFor(planned);
      const sample = this.sample(size, Math.min(live, sampleSizeFor(leafCount)));
      yield;
      const quantizer = yield* CoarseQuantizer.train({ pool: this.pool, sample, leafCount, random: this.random });
      const next: Lists = {
        quantizer,
        lists: Array.from({ length: quantizer.leafCount }, () => new SlotList()),
        trainedSize: planned,
      };
      for (let slot = 0; slot < size; slot++) {
        if (this.arena.isAlive(slot)) this.place(next, slot);
        if ((slot & 4095) === 4095) yield;
      }
      // Vectors added while the steps ran went to the old lists (or none): place them too.
      for (let slot = size; slot < this.arena.size; slot++) {
        if (this.arena.isAlive(slot)) this.place(next, slot);
      }
      this.trained?.quantizer.release();
      this.layOutByList(next);
      this.trained = next;
    } finally {
      this.training = false;
    }
  }

  /**
   * The `candidates` vectors with the highest approximate cosine with the query, best first:
   * all vectors while untrained, else those in the nearest lists.
   */
  search(
    query: ArrayLike<number>,
    options: { candidates: number; probes?: number; stats?: { scanned: number } },
  ): IvfHit[] {
    const quantized = quantizeQuery(query);
    if (quantized === null || options.candidates <= 0 || this.arena.size === 0) return [];
    const top = new TopK<number>(options.candidates);
    const trained = this.trained;
    let scanned = 0;
    this.pool.setQuery(quantized);
    if (trained === null) {
      for (let first = 0; first < this.arena.size; first += SCAN_BATCH) {
        const count = Math.min(SCAN_BATCH, this.arena.size - first);
        this.scan(quantized, sequence(first, count), count, top);
      }
      scanned = this.arena.size;
    } else {
      const leafScores = trained.quantizer.scoreLeaves(quantized);
      const probes = Math.min(
        leafScores.length,
        options.probes ?? Math.max(this.options.minProbes, Math.ceil(leafScores.length * this.options.probeShare)),
      );
      // One pass over the probed lists' slots: one kernel call instead of one per list.
      const lists = bestLeaves(leafScores, probes).map((leaf) => trained.lists[leaf]!);
      scanned = lists.reduce((sum, list) => sum + list.length, 0);
      if (this.gathered.length < scanned) this.gathered = new Int32Array(scanned * 2);
      let at = 0;
      for (const list of lists) {
        this.gathered.set(list.slots.subarray(0, list.length), at);
        at += list.length;
      }
      this.scan(quantized, this.gathered, scanned, top);
    }
    if (options.stats) options.stats.scanned = scanned;
    return top.sorted().map(({ item, score }) => ({ key: this.arena.key(item), score }));
  }

  /** Vectors added to lists since they were last laid out contiguously. */
  get scattered(): number {
    return this.trained === null ? 0 : this.arena.size - this.laidOutSize;
  }

  /**
   * Whether enough vectors arrived since the lists were last laid out (each added one lands at
   * the end of the arena, away from its list) that laying them out again pays.
   */
  get needsLayout(): boolean {
    if (this.trained === null || this.training) return false;
    const added = this.scattered;
    return added >= LAYOUT_MIN_ADDED && added > this.laidOutSize * LAYOUT_GROWTH;
  }

  /** Lays the current lists out again (see layOutByList); nothing while training runs. */
  layOut(): void {
    if (this.trained !== null && !this.training) this.layOutByList(this.trained);
  }

  /**
   * Renumbers the slots so each list's vectors sit next to each other, in list order (dead
   * vectors, in no list, go last). A search then reads each probed list as one run of memory:
   * with vectors in arrival order it jumped between blocks and waited on memory, which made a
   * search at 10^6 vectors about five times slower (7-8 ms of CPU against 1.45). Runs in one
   * go, as searches between steps would see half-moved vectors: about 40 ms at 10^5 vectors and
   * 600 ms at 10^6, once per training or per quarter of growth.
   */
  private layOutByList(lists: Lists): void {
    const size = this.arena.size;
    const order = new Int32Array(size);
    const listed = new Uint8Array(size);
    let next = 0;
    for (const list of lists.lists) {
      for (let index = 0; index < list.length; index++) {
        const slot = list.slots[index]!;
        order[next] = slot;
        listed[slot] = 1;
        list.slots[index] = next++;
      }
    }
    for (let slot = 0; slot < size; slot++) if (listed[slot] === 0) order[next++] = slot;
    this.arena.permute(order);
    this.laidOutSize = size;
  }

  /** Releases the codes to the pool; the index is empty afterwards. */
  release(): void {
    this.trained?.quantizer.release();
    this.trained = null;
    this.arena.release();
  }

  private place(lists: Lists, slot: number): void {
    const leaf = lists.quantizer.assign(this.arena.decode(slot, this.scratch), this.pool);
    lists.lists[leaf]!.push(slot);
  }

  /** `count` distinct live slots below `size`, decoded, in random order. */
  private sample(size: number, count: number): PackedRows {
    const { dimensions } = this.pool;
    const live: number[] = [];
    for (let slot = 0; slot < size; slot++) if (this.arena.isAlive(slot)) live.push(slot);
    for (let index = 0; index < count; index++) {
      const pick = index + Math.floor(this.random() * (live.length - index));
      const chosen = live[pick]!;
      live[pick] = live[index]!;
      live[index] = chosen;
    }
    const data = new Float32Array(count * dimensions);
    for (let index = 0; index < count; index++) {
      data.set(this.arena.decode(live[index]!, this.scratch), index * dimensions);
    }
    return { data, count, dimensions };
  }

  private scores = new Float64Array(SCAN_BATCH);
  private gathered = new Int32Array(SCAN_BATCH);

  private scan(query: QuantizedQuery, slots: Int32Array, count: number, top: TopK<number>): void {
    if (this.scores.length < count) this.scores = new Float64Array(count);
    const scores = this.scores;
    this.arena.score(query, slots, 0, count, scores);
    for (let index = 0; index < count; index++) {
      const score = scores[index]!;
      // Dead slots score -Infinity, which a heap with room would still take.
      if (score !== -Infinity && top.accepts(score)) top.push(slots[index]!, score);
    }
  }
}

/** About sqrt(n) lists, a power of two, from 16 to 4,096. */
export function leafCountFor(size: number): number {
  const wanted = Math.sqrt(size);
  return Math.min(4096, Math.max(16, 2 ** Math.round(Math.log2(wanted))));
}

/** Indices of the `count` highest scores, highest first. */
function bestLeaves(scores: Float64Array, count: number): number[] {
  const top = new TopK<number>(count);
  for (let leaf = 0; leaf < scores.length; leaf++) top.push(leaf, scores[leaf]!);
  return top.sorted().map((entry) => entry.item);
}

/** Deterministic PRNG (mulberry32). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value ^= value + Math.imul(value ^ (value >>> 7), 61 | value);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
