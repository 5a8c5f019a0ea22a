/** A bounded map that forgets the least recently used entry first. */
export class LruCache<K, V> {
  // A Map iterates in insertion order, so re-inserting on every read keeps the oldest entry first.
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new Error(`LruCache capacity must be a whole number of at least 0, got ${capacity}`);
    }
  }

  /** Number of entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** The value for a key, marking it most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Stores a value, evicting the least recently used entry when full. */
  set(key: K, value: V): void {
    if (this.capacity === 0) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }
}
