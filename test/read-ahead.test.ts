import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load-config';
import { LocalEmbedder } from '../src/embeddings/local-embedder';
import { embedAndLink } from '../src/memory/embed-and-link';
import { createMemoryContext } from '../src/memory/memory-context';
import { toNewMessage } from '../src/memory/normalize-message';
import { prepareRequest, type PreparedRequest } from '../src/memory/prepare-request';
import type { MemoryStore } from '../src/store/memory-store';
import type { Scope } from '../src/store/types';
import { storeFactories, TEST_DIMENSIONS } from './support/stores';

const REQUESTS = 70;
const CONTEXT_WINDOW = '2000';

// Topics the questions come back to, so retrieval finds earlier turns and graph expansion has
// synapses to follow; each question names its turn, so no two are the same text.
const TOPICS = [
  'the lighthouse keeper on Sorrel island and his brass telescope',
  'my sister Ilse baking rye bread with caraway seeds',
  'the night train from Trieste to Vienna and its sleeper cabins',
  'repotting the fig tree that dropped its leaves in November',
  'the chess club that meets above the bakery on Thursdays',
  'fixing the bicycle chain that keeps slipping on the hill',
  'the old radio that only picks up the shipping forecast',
];

// The embedded store only. Neo4j's full-text index takes writes in a moment after they commit and
// ranks tied turns in the order of its segments, which change as it merges them: a request and
// its retry there can list tied turns in another order, reading ahead or not (this check failed
// on Neo4j before any read ahead). What is checked is the memory layer's, the same on either store.
for (const factory of storeFactories().filter((candidate) => candidate.name === 'sqlite')) {
  describe(`reads started before a request's turns are stored (${factory.name})`, () => {
    let store: MemoryStore;

    beforeAll(async () => {
      store = await factory.create();
    });
    afterAll(async () => {
      await store?.close();
    });

    it('send upstream exactly what a process that never saw the conversation sends', async () => {
      // Searches asked for more hits than the instance holds return every match. With fewer, the
      // last one depends on whether the question itself was stored yet: a search started before
      // that returns one older turn more.
      const config = loadConfig({
        LOG_LEVEL: 'silent',
        DEFAULT_CONTEXT_WINDOW: CONTEXT_WINDOW,
        MEMORY_TOOLS: 'false',
        MEMORY_RETRIEVAL_LIMIT: String(3 * REQUESTS),
      });
      const embedder = new LocalEmbedder({ dimensions: TEST_DIMENSIONS });
      const writer = { store, embedder, chunkThreshold: config.indexChunkThreshold, synapseThreshold: config.synapseThreshold };
      const deps = { store, embedder, config };
      // One memory layer serves the whole conversation and learns where each request left its
      // window; the reference is a new one per request, which knows nothing of the scope.
      const served = createMemoryContext(deps);
      const scope: Scope = { partition: `ahead-${ulid()}`, instance: 'chat' };
      const prepare = (content: string, enrich: ReturnType<typeof createMemoryContext>): Promise<PreparedRequest> =>
        prepareRequest({
          store,
          config,
          scope,
          body: { model: 'chat-model', messages: [{ role: 'user', content }] },
          requestId: ulid(),
          contextWindowOverride: null,
          enrich,
        });

      const windowStarts = new Set<string | null>();
      let indexed = 0;
      let summarized = 0;
      for (let turn = 1; turn <= REQUESTS; turn++) {
        const topic = TOPICS[(turn * 3) % TOPICS.length]!;
        const content = `Question ${turn}: I wrote down ${turn * 7} coins for ${topic}, tell me again?`;
        // Stored turns reach the full-text index in batches, and this conversation is written
        // faster than a batch is due: both builds must search the same index, the one a proxy
        // has a moment after the previous answer.
        await store.fullTextSearch(scope, content, { k: 1 });
        const first = await prepare(content, served);
        // The same message again is a retry: nothing more is stored, and the context is built
        // afresh from the same stored turns.
        const again = await prepare(content, createMemoryContext(deps));
        expect(again.created).toHaveLength(0);
        expect(again.leaf?.id).toBe(first.leaf?.id);
        expect(first.messages).toEqual(again.messages);
        expect(first.indexStrategy).toBe(again.indexStrategy);
        windowStarts.add(first.windowStartId);
        if (first.indexStrategy !== null) indexed++;
        if (first.summaryIncluded) summarized++;

        const [answer] = await store.appendPath(scope, {
          parentId: first.leaf!.id,
          messages: [toNewMessage({ role: 'assistant', content: `Answer ${turn}: about ${topic}, here is what I recall.` }, { model: 'chat-model', traceId: null })],
        });
        for (const job of first.afterAnswer) await job.run();
        await embedAndLink(writer, { scope, turns: [...first.created, answer!.message] });
      }
      // The conversation outgrew its window, which moved several times, and most requests had a
      // memory index and a running summary.
      expect(windowStarts.size).toBeGreaterThanOrEqual(4);
      expect(indexed).toBeGreaterThan(REQUESTS / 2);
      expect(summarized).toBeGreaterThan(REQUESTS / 2);
    }, 120_000);
  });
}
