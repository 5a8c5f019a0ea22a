import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { append, freshScope, turn } from '../../test/store/contract-fixtures';
import { watchStore } from '../../test/support/watch-store';
import { LocalEmbedder } from '../embeddings/local-embedder';
import { SqliteStore } from '../store/sqlite/sqlite-store';
import type { Scope, StoredMessage } from '../store/types';
import { embedAndLink, type MemoryWriter, type TurnBatch } from './embed-and-link';
import { LinkBatches } from './link-batches';

/** A queue that runs nothing until told to: what a busy background queue is to a new request. */
function heldQueue() {
  const jobs: (() => Promise<void>)[] = [];
  return {
    push: (run: () => Promise<void>) => void jobs.push(run),
    get length() {
      return jobs.length;
    },
    async runAll() {
      while (jobs.length > 0) await jobs.shift()!();
    },
  };
}

describe('LinkBatches', () => {
  let store: SqliteStore;
  let writer: MemoryWriter;

  beforeAll(async () => {
    store = new SqliteStore({ dataDir: mkdtempSync(path.join(tmpdir(), 'memory-proxy-batches-')) });
    await store.init({ embeddingDimensions: 384 });
    writer = { store, embedder: new LocalEmbedder({ dimensions: 384 }), chunkThreshold: 2000, synapseThreshold: 0.5 };
  });
  afterAll(() => store.close());

  /** Stores `count` exchanges about one subject in `scope`, each continuing the last. */
  async function exchanges(scope: Scope, count: number, subject: string): Promise<StoredMessage[][]> {
    const stored: StoredMessage[][] = [];
    let parent: string | null = null;
    for (let index = 0; index < count; index++) {
      const pair = await append(store, scope, parent, [
        turn('user', `Question ${index} about ${subject}: what did we say of it?`),
        turn('assistant', `Answer ${index} about ${subject}: here is what we said of it.`),
      ]);
      stored.push(pair);
      parent = pair[1]!.id;
    }
    return stored;
  }

  it("joins a conversation's queued exchanges into one write, and links each turn as a write of its own would", async () => {
    const [first, second] = [freshScope(), freshScope()];
    const ofFirst = await exchanges(first, 3, 'the lighthouse keeper and his brass telescope');
    const ofSecond = await exchanges(second, 1, 'my sister baking rye bread with caraway');
    const writes: string[] = [];
    const watched = watchStore(store, 'setEmbeddings', ([scope]) => writes.push((scope as Scope).instance));
    const queue = heldQueue();
    const batches = new LinkBatches(queue.push, (batch) => embedAndLink({ ...writer, store: watched }, batch));
    for (const pair of ofFirst) batches.add({ scope: first, turns: pair });
    for (const pair of ofSecond) batches.add({ scope: second, turns: pair });
    expect(queue.length).toBe(2);
    expect(batches.joined).toBe(2);

    await queue.runAll();
    expect(writes.sort()).toEqual([first.instance, second.instance].sort());
    expect(batches.joined).toBe(0);
    const turns = ofFirst.flat();
    expect((await store.getEmbeddings(first, turns.map((stored) => stored.id))).size).toBe(turns.length);
    // Each question is linked to the answer before it, which was stored in the same write.
    for (let index = 1; index < ofFirst.length; index++) {
      const question = ofFirst[index]![0]!;
      expect((await store.getSynapses(first, question.id)).map((link) => link.fromId)).toContain(ofFirst[index - 1]![1]!.id);
    }
  });

  it('queues a batch of its own once the waiting one started or is full', async () => {
    const scope = freshScope();
    const pairs = await exchanges(scope, 4, 'the night train to Vienna');
    const queue = heldQueue();
    const finished: TurnBatch[] = [];
    const batches = new LinkBatches(queue.push, async (batch) => void finished.push(batch), 4);
    batches.add({ scope, turns: pairs[0]! });
    batches.add({ scope, turns: pairs[1]! });
    // Four turns: full.
    batches.add({ scope, turns: pairs[2]! });
    expect(queue.length).toBe(2);
    await queue.runAll();
    // Started (and done): the next request queues again.
    batches.add({ scope, turns: pairs[3]! });
    expect(queue.length).toBe(1);
    await queue.runAll();
    expect(finished.map((batch) => batch.turns.map((stored) => stored.id))).toEqual([
      [...pairs[0]!, ...pairs[1]!].map((stored) => stored.id),
      pairs[2]!.map((stored) => stored.id),
      pairs[3]!.map((stored) => stored.id),
    ]);
    expect(batches.joined).toBe(0);
  });

  it("keeps what each request knew of its turns: their retrieval's nearest turns and vectors, and their tool calls", async () => {
    const scope = freshScope();
    const [one, two] = await exchanges(scope, 2, 'the fig tree that dropped its leaves');
    const queue = heldQueue();
    const finished: TurnBatch[] = [];
    const batches = new LinkBatches(queue.push, async (batch) => void finished.push(batch));
    const nearest = (id: string) => new Map([[id, [{ id: 'x', kind: 'message' as const, score: 0.9 }]]]);
    const vectors = (id: string) => new Map([[id, [1, 0, 0]]]);
    batches.add({ scope, turns: one!, nearest: nearest(one![0]!.id), vectors: vectors(one![0]!.id), toolCallers: new Set([one![1]!.id]) });
    batches.add({ scope, turns: two!, nearest: nearest(two![0]!.id), vectors: vectors(two![0]!.id), toolCallers: new Set() });
    await queue.runAll();
    const [batch] = finished;
    expect([...batch!.nearest!.keys()]).toEqual([one![0]!.id, two![0]!.id]);
    expect([...batch!.vectors!.keys()]).toEqual([one![0]!.id, two![0]!.id]);
    expect([...batch!.toolCallers!]).toEqual([one![1]!.id]);
  });
});
