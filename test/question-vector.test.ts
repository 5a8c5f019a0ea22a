import OpenAI from 'openai';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../src/embeddings/embedder';
import { LocalEmbedder } from '../src/embeddings/local-embedder';
import type { MemoryStore } from '../src/store/memory-store';
import { startFakeUpstream, textReply, type FakeUpstream } from './support/fake-upstream';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { storeFactories, TEST_DIMENSIONS } from './support/stores';

const QUESTIONS = 14;

for (const factory of storeFactories()) {
  describe(`a question's vector (${factory.name})`, () => {
    let store: MemoryStore;
    let upstream: FakeUpstream;
    let proxy: RunningProxy;
    // Every text the proxy embedded, in order.
    const embedded: string[] = [];
    const local = new LocalEmbedder({ dimensions: TEST_DIMENSIONS });
    const embedder: Embedder = {
      dimensions: local.dimensions,
      model: local.model,
      embed: (texts) => {
        embedded.push(...texts);
        return local.embed(texts);
      },
    };

    beforeAll(async () => {
      store = await factory.create();
      upstream = await startFakeUpstream();
      // A small window: the conversation outgrows it after a few questions, and each question
      // after that is searched for its memory index.
      proxy = await startProxy({ store, upstreamUrl: upstream.url, env: { DEFAULT_CONTEXT_WINDOW: '600', MEMORY_TOOLS: 'false' }, deps: { embedder } });
    });
    afterAll(async () => {
      await proxy?.close();
      await upstream?.close();
      await store?.close();
    });

    it('is the one its retrieval searched with, stored without embedding the question again', async () => {
      const scope = { partition: `vector-${ulid()}`, instance: 'chat' };
      const client = new OpenAI({ apiKey: 'k', baseURL: proxy.baseUrl(scope.partition, scope.instance), maxRetries: 0 });
      upstream.onChat((request, index) => textReply(request, `Noted, entry ${index}: the ledger now lists the shipment of copper lanterns and violet harbour maps for the northern warehouse.`));
      const strategies: (string | null)[] = [];
      for (let turn = 1; turn <= QUESTIONS; turn++) {
        const { response } = await client.chat.completions
          .create({
            model: 'm',
            messages: [{ role: 'user', content: `Question ${turn}: please record that crate ${turn * 13} holds copper lanterns, violet harbour maps and a brass telescope for the northern warehouse.` }],
          })
          .withResponse();
        strategies.push(response.headers.get('x-memory-strategy'));
        await proxy.background.drain();
      }
      // The later questions had a memory index: their retrieval embedded them.
      const searched = strategies.flatMap((strategy, index) => (strategy === 'full' || strategy === 'snippets' ? [index + 1] : []));
      expect(searched.length).toBeGreaterThan(3);
      const turns = await store.listMessages(scope, { limit: 1_000 });
      expect(turns).toHaveLength(2 * QUESTIONS);
      for (const turn of searched) {
        const question = turns.find((stored) => stored.content.startsWith(`Question ${turn}:`))!;
        expect(embedded.filter((text) => text === question.content)).toHaveLength(1);
        const [expected] = await local.embed([question.content]);
        const vector = (await store.getEmbeddings(scope, [question.id])).get(question.id);
        expect(vector).toEqual(expected!.map((value) => expect.closeTo(value, 5)));
      }
      // Every turn has its vector, the answers embedded once each.
      expect((await store.getEmbeddings(scope, turns.map((stored) => stored.id))).size).toBe(2 * QUESTIONS);
    }, 60_000);
  });
}
