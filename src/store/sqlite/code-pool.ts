import { jsDotKernel, simdDotKernel, type DotKernel } from './dot-kernel';

/** Vectors per block. Blocks never move, so growing an index never copies its codes. */
export const BLOCK_VECTORS = 1024;
/** Codes scored per kernel call. */
const BATCH = 8192;
const PAGE_BYTES = 65_536;
/** Largest magnitude of a query component: int8 codes times this, summed, stay far below 2^31. */
export const QUERY_RANGE = 32_767;

/** A vector prepared for scoring codes: int16-range components and the scale that undoes them. */
export interface QuantizedQuery {
  values: Int16Array;
  /** Multiplies an integer dot product with a code (times the code's scale) into a cosine. */
  scale: number;
}

/**
 * The memory every vector index of a store keeps its int8 codes in: one WebAssembly memory cut
 * into blocks of BLOCK_VECTORS codes (freed blocks are reused), plus a scratch area where a
 * query, the addresses of the codes to score and the scores meet the SIMD dot-product kernel.
 * Codes are padded to a multiple of 16 components, the kernel's step.
 */
export class CodePool {
  /** Bytes per code. */
  readonly stride: number;
  private readonly chunks: number;
  private readonly memory: WebAssembly.Memory;
  private readonly kernel: DotKernel;
  private readonly queryOffset = 0;
  private readonly addressOffset: number;
  private readonly outOffset: number;
  private readonly free: number[] = [];
  private nextBlock: number;
  private buffer: ArrayBuffer | null = null;
  private bytesView = new Int8Array(0);
  private wordsView = new Int32Array(0);
  private blocksInUse = 0;

  constructor(
    readonly dimensions: number,
    options: { simd?: boolean } = {},
  ) {
    this.chunks = Math.max(1, Math.ceil(dimensions / 16));
    this.stride = this.chunks * 16;
    this.addressOffset = align(this.stride * 2, 64);
    this.outOffset = this.addressOffset + BATCH * 4;
    this.nextBlock = align(this.outOffset + BATCH * 4, PAGE_BYTES);
    this.memory = new WebAssembly.Memory({ initial: this.nextBlock / PAGE_BYTES });
    this.kernel = (options.simd !== false ? simdDotKernel(this.memory) : null) ?? jsDotKernel(this.memory);
  }

  /** Bytes of codes in use. */
  get bytesInUse(): number {
    return this.blocksInUse * this.blockBytes;
  }

  /** Bytes of one block. */
  get blockBytes(): number {
    return BLOCK_VECTORS * this.stride;
  }

  /** Takes a block and returns its byte offset. */
  allocate(): number {
    this.blocksInUse++;
    const reused = this.free.pop();
    if (reused !== undefined) return reused;
    const offset = this.nextBlock;
    this.nextBlock += this.blockBytes;
    const needed = Math.ceil(this.nextBlock / PAGE_BYTES) - this.memory.buffer.byteLength / PAGE_BYTES;
    if (needed > 0) this.memory.grow(needed);
    return offset;
  }

  /** Gives a block back (its codes become garbage). */
  release(offset: number): void {
    this.blocksInUse--;
    this.free.push(offset);
  }

  /** The memory as int8 (recreated after the memory grew). */
  get bytes(): Int8Array {
    this.refresh();
    return this.bytesView;
  }

  /** Quantizes a vector and writes it as the code at `address`; returns the scale that undoes it, or null without a direction. */
  writeCode(address: number, vector: ArrayLike<number>): number | null {
    const unitScale = unitScaleOf(vector);
    if (unitScale === null) return null;
    let largest = 0;
    for (let index = 0; index < vector.length; index++) largest = Math.max(largest, Math.abs(vector[index]!));
    const step = (largest * unitScale) / 127;
    const bytes = this.bytes;
    for (let index = 0; index < vector.length; index++) {
      bytes[address + index] = Math.round((vector[index]! * unitScale) / step);
    }
    return step;
  }

  /** Makes `query` the vector the next score calls compare codes with. */
  setQuery(query: QuantizedQuery): void {
    this.refresh();
    const target = new Int16Array(this.memory.buffer, this.queryOffset, this.stride);
    target.fill(0);
    target.set(query.values.subarray(0, this.dimensions));
  }

  /** Codes scored per kernel call, at most. */
  get batchSize(): number {
    return BATCH;
  }

  /** Where the byte addresses of the codes to score go (batchSize entries), before scoreBatch. */
  addresses(): Int32Array {
    this.refresh();
    return this.wordsView.subarray(this.addressOffset >>> 2, (this.addressOffset >>> 2) + BATCH);
  }

  /**
   * Raw dot products (code units times query units) of the current query with the codes whose
   * addresses fill the first `count` entries of addresses(); valid until the next call.
   */
  scoreBatch(count: number): Int32Array {
    this.kernel(this.addressOffset, count, this.queryOffset, this.outOffset, this.chunks);
    this.refresh();
    return this.wordsView.subarray(this.outOffset >>> 2, (this.outOffset >>> 2) + count);
  }

  private refresh(): void {
    if (this.buffer === this.memory.buffer) return;
    this.buffer = this.memory.buffer;
    this.bytesView = new Int8Array(this.buffer);
    this.wordsView = new Int32Array(this.buffer);
  }
}

/**
 * A vector as a query: unit length, rounded to int16-range integers; null without a direction.
 * `into` is reused when given (placing each vector of a bulk load allocated one otherwise).
 */
export function quantizeQuery(vector: ArrayLike<number>, into?: QuantizedQuery): QuantizedQuery | null {
  let norm = 0;
  let largest = 0;
  for (let index = 0; index < vector.length; index++) {
    const value = vector[index]!;
    norm += value * value;
    const magnitude = value < 0 ? -value : value;
    if (magnitude > largest) largest = magnitude;
  }
  if (norm === 0 || !Number.isFinite(norm)) return null;
  // Unit length and the int16 range in one scale: the largest component maps to QUERY_RANGE.
  const toRange = QUERY_RANGE / largest;
  const values = into && into.values.length === vector.length ? into.values : new Int16Array(vector.length);
  for (let index = 0; index < vector.length; index++) values[index] = Math.round(vector[index]! * toRange);
  const query = into ?? { values, scale: 0 };
  query.values = values;
  query.scale = largest / Math.sqrt(norm) / QUERY_RANGE;
  return query;
}

/** 1 / |vector|, or null for a vector of zeros or with a component that is not finite. */
function unitScaleOf(vector: ArrayLike<number>): number | null {
  let norm = 0;
  for (let index = 0; index < vector.length; index++) norm += vector[index]! * vector[index]!;
  if (norm === 0 || !Number.isFinite(norm)) return null;
  return 1 / Math.sqrt(norm);
}

function align(value: number, to: number): number {
  return Math.ceil(value / to) * to;
}
