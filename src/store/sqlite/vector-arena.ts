import { BLOCK_VECTORS, type CodePool, type QuantizedQuery } from './code-pool';

const BLOCK_BITS = Math.log2(BLOCK_VECTORS);
const BLOCK_MASK = BLOCK_VECTORS - 1;

interface Block {
  /** Byte offset of the block's codes in the pool. */
  offset: number;
  scales: Float32Array;
  keys: Float64Array;
  alive: Uint8Array;
}

/**
 * Unit-length vectors kept as int8 codes (one scale each) in blocks of a CodePool, addressed by
 * slot: about 400 bytes a vector at 384 dimensions instead of 1,536 as Float32. Scores are
 * approximate cosines, close enough to choose candidates; callers rescore the few they keep.
 */
export class VectorArena {
  private readonly blocks: Block[] = [];
  private count = 0;
  private dead = 0;

  constructor(private readonly pool: CodePool) {}

  /** Slots used so far, dead ones included. */
  get size(): number {
    return this.count;
  }

  /** Slots whose vector still counts. */
  get liveCount(): number {
    return this.count - this.dead;
  }

  /** Bytes held: codes in the pool and the per-vector arrays. */
  get bytes(): number {
    return this.blocks.length * (this.pool.blockBytes + BLOCK_VECTORS * (4 + 8 + 1));
  }

  /**
   * Stores a vector under a key (a row's pk) and returns its slot; null for a vector of other
   * dimensions or without a direction (all zeros, not finite), which nothing can be compared with.
   */
  add(key: number, vector: ArrayLike<number>): number | null {
    if (vector.length !== this.pool.dimensions) return null;
    const slot = this.count;
    const blockIndex = slot >>> BLOCK_BITS;
    if (blockIndex === this.blocks.length) {
      this.blocks.push({
        offset: this.pool.allocate(),
        scales: new Float32Array(BLOCK_VECTORS),
        keys: new Float64Array(BLOCK_VECTORS),
        alive: new Uint8Array(BLOCK_VECTORS),
      });
    }
    const block = this.blocks[blockIndex]!;
    const offset = slot & BLOCK_MASK;
    const scale = this.pool.writeCode(block.offset + offset * this.pool.stride, vector);
    if (scale === null) return null;
    block.scales[offset] = scale;
    block.keys[offset] = key;
    block.alive[offset] = 1;
    this.count++;
    return slot;
  }

  /** The key stored in a slot. */
  key(slot: number): number {
    return this.blocks[slot >>> BLOCK_BITS]!.keys[slot & BLOCK_MASK]!;
  }

  /** Whether a slot's vector still counts. */
  isAlive(slot: number): boolean {
    return this.blocks[slot >>> BLOCK_BITS]!.alive[slot & BLOCK_MASK] === 1;
  }

  /** Marks a slot dead: searches skip it from now on. */
  kill(slot: number): void {
    const block = this.blocks[slot >>> BLOCK_BITS];
    if (block?.alive[slot & BLOCK_MASK] === 1) {
      block.alive[slot & BLOCK_MASK] = 0;
      this.dead++;
    }
  }

  /** A slot's vector decoded to floats (unit length up to rounding). */
  decode(slot: number, out: Float32Array): Float32Array {
    const block = this.blocks[slot >>> BLOCK_BITS]!;
    const offset = slot & BLOCK_MASK;
    const scale = block.scales[offset]!;
    const bytes = this.pool.bytes;
    const base = block.offset + offset * this.pool.stride;
    for (let index = 0; index < this.pool.dimensions; index++) out[index] = bytes[base + index]! * scale;
    return out;
  }

  /**
   * Approximate cosines of the pool's current query (set with pool.setQuery; `query` gives its
   * scale) with slots[from .. from + count - 1], written to out[0 .. count - 1]; dead slots
   * score -Infinity.
   */
  score(query: QuantizedQuery, slots: Int32Array, from: number, count: number, out: Float64Array): void {
    const { pool, blocks } = this;
    const { stride } = pool;
    const batch = pool.batchSize;
    for (let done = 0; done < count; done += batch) {
      const size = Math.min(batch, count - done);
      const addresses = pool.addresses();
      for (let index = 0; index < size; index++) {
        const slot = slots[from + done + index]!;
        addresses[index] = blocks[slot >>> BLOCK_BITS]!.offset + (slot & BLOCK_MASK) * stride;
      }
      const sums = pool.scoreBatch(size);
      for (let index = 0; index < size; index++) {
        const slot = slots[from + done + index]!;
        const block = blocks[slot >>> BLOCK_BITS]!;
        const offset = slot & BLOCK_MASK;
        out[done + index] = block.alive[offset] === 1 ? sums[index]! * block.scales[offset]! * query.scale : -Infinity;
      }
    }
  }

  /**
   * Moves the vectors so that slot i holds what slot order[i] held (order: a permutation of
   * every slot), in place: one record at a time along each cycle of the permutation, so no
   * second copy of the codes is ever allocated (at 10^6 vectors that copy would be 400 MB).
   */
  permute(order: Int32Array): void {
    const { stride } = this.pool;
    const bytes = this.pool.bytes;
    const address = (slot: number) => this.blocks[slot >>> BLOCK_BITS]!.offset + (slot & BLOCK_MASK) * stride;
    const held = new Int8Array(stride);
    const placed = new Uint8Array(this.count);
    for (let start = 0; start < this.count; start++) {
      if (placed[start] === 1) continue;
      const first = this.blocks[start >>> BLOCK_BITS]!;
      const firstOffset = start & BLOCK_MASK;
      held.set(bytes.subarray(address(start), address(start) + stride));
      const heldScale = first.scales[firstOffset]!;
      const heldKey = first.keys[firstOffset]!;
      const heldAlive = first.alive[firstOffset]!;
      let target = start;
      for (;;) {
        placed[target] = 1;
        const source = order[target]!;
        const into = this.blocks[target >>> BLOCK_BITS]!;
        const at = target & BLOCK_MASK;
        if (source === start) {
          bytes.set(held, address(target));
          into.scales[at] = heldScale;
          into.keys[at] = heldKey;
          into.alive[at] = heldAlive;
          break;
        }
        const from = this.blocks[source >>> BLOCK_BITS]!;
        const fromAt = source & BLOCK_MASK;
        bytes.copyWithin(address(target), address(source), address(source) + stride);
        into.scales[at] = from.scales[fromAt]!;
        into.keys[at] = from.keys[fromAt]!;
        into.alive[at] = from.alive[fromAt]!;
        target = source;
      }
    }
  }

  /** Returns every block to the pool; the arena is empty afterwards. */
  release(): void {
    for (const block of this.blocks) this.pool.release(block.offset);
    this.blocks.length = 0;
    this.count = 0;
    this.dead = 0;
  }
}
