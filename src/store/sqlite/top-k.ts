/**
 * Keeps the k highest-scored items seen so far in a binary min-heap: O(n log k) over n
 * candidates and O(k) memory, instead of scoring into an array and sorting all n.
 */
export class TopK<T> {
  private readonly heap: { item: T; score: number }[] = [];

  constructor(private readonly k: number) {}

  /** Whether an item with this score would enter the top k (check before building the item). */
  accepts(score: number): boolean {
    if (this.k <= 0 || Number.isNaN(score)) return false;
    if (this.heap.length < this.k) return true;
    return score > (this.heap[0]?.score ?? -Infinity);
  }

  /** Offers an item; it is kept only if it belongs to the top k. */
  push(item: T, score: number): void {
    if (!this.accepts(score)) return;
    if (this.heap.length < this.k) {
      this.heap.push({ item, score });
      this.siftUp(this.heap.length - 1);
    } else {
      this.heap[0] = { item, score };
      this.siftDown(0);
    }
  }

  /** The kept items, best first. */
  sorted(): { item: T; score: number }[] {
    return [...this.heap].sort((a, b) => b.score - a.score);
  }

  private siftUp(start: number): void {
    let index = start;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (this.score(parent) <= this.score(index)) return;
      this.swap(parent, index);
      index = parent;
    }
  }

  private siftDown(start: number): void {
    let index = start;
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let smallest = index;
      if (left < this.heap.length && this.score(left) < this.score(smallest)) smallest = left;
      if (right < this.heap.length && this.score(right) < this.score(smallest)) smallest = right;
      if (smallest === index) return;
      this.swap(smallest, index);
      index = smallest;
    }
  }

  private score(index: number): number {
    return this.heap[index]?.score ?? -Infinity;
  }

  private swap(a: number, b: number): void {
    const first = this.heap[a];
    const second = this.heap[b];
    if (first === undefined || second === undefined) return;
    this.heap[a] = second;
    this.heap[b] = first;
  }
}
