import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../src/store/memory-store';
import type { Scope } from '../src/store/types';
import {
  lastUserText,
  startFakeUpstream,
  textReply,
  type FakeUpstream,
} from './support/fake-upstream';
import { expectConsistentTree } from './support/graph-checks';
import { readAnswer } from './support/http-checks';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { storeFactories } from './support/stores';

const REQUESTS = 200;

for (const factory of storeFactories()) {
  describe(`concurrency and load (${factory.name})`, () => {
    let store: MemoryStore;
    let upstream: FakeUpstream;
    let proxy: RunningProxy;

    beforeAll(async () => {
      store = await factory.create();
      upstream = await startFakeUpstream();
      // Answers take a little while, so the requests really overlap in the proxy.
      upstream.onChat((request) =>
        textReply(request, `answer to ${lastUserText(request)}`, { chunkDelayMs: 5 }),
      );
      // Client, proxy, fake upstream and the proxy's background embedding share one event loop
      // here, so upstream gets the production-like timeout rather than the harness's short one.
      proxy = await startProxy({
        store,
        upstreamUrl: upstream.url,
        env: { UPSTREAM_TIMEOUT_MS: '60000' },
      });
    });
    afterAll(async () => {
      await proxy?.close();
      await upstream?.close();
      await store?.close();
    });

    const ask = (scope: Scope, content: string, stream: boolean) =>
      fetch(`${proxy.baseUrl(scope.partition, scope.instance)}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'gpt-4o-mini',
          stream,
          messages: [{ role: 'user', content }],
        }),
        signal: AbortSignal.timeout(120_000),
      }).then(readAnswer);

    /** Every answer well formed and successful, every question stored once with exactly its own answer. */
    async function expectAllStored(
      scopes: Scope[],
      questions: string[][],
      answers: Awaited<ReturnType<typeof ask>>[],
    ): Promise<void> {
      const failed = answers.filter(
        (answer) => answer.kind === 'error' || (answer.kind === 'stream' && answer.error !== null),
      );
      expect(failed.map((answer) => JSON.stringify(answer).slice(0, 300))).toEqual([]);
      for (const [index, scope] of scopes.entries()) {
        const turns = await expectConsistentTree(store, scope);
        const users = turns.filter((turn) => turn.role === 'user');
        expect(users.map((turn) => turn.content).sort()).toEqual([...questions[index]!].sort());
        const assistants = turns.filter((turn) => turn.role === 'assistant');
        expect(assistants).toHaveLength(users.length);
        const byId = new Map(turns.map((turn) => [turn.id, turn]));
        for (const answer of assistants)
          expect(answer.content).toBe(`answer to ${byId.get(answer.parentId!)!.content}`);
      }
    }

    it(
      `takes ${REQUESTS} concurrent requests on one instance, streaming and not, losing and doubling nothing`,
      { timeout: 180_000 },
      async () => {
        const scope = { partition: `load-${ulid()}`, instance: 'one' };
        const questions = Array.from({ length: REQUESTS }, (_, index) => `question ${index}`);
        const answers = await Promise.all(
          questions.map((question, index) => ask(scope, question, index % 2 === 0)),
        );
        await expectAllStored([scope], [questions], answers);
        expect(await store.countMessages(scope)).toBe(REQUESTS * 2);
      },
    );

    it('bounds the background queue under overload: new turns wait for one sweep instead of piling up', async () => {
      // Work left by the tests before (slower on Neo4j) must not count against the bound.
      await proxy.background.drain();
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      for (let i = 0; i < 1_000; i++) proxy.background.push('stuck', () => gate);
      const scope = { partition: `load-${ulid()}`, instance: 'overload' };
      // The last question is long enough to be chunked (past INDEX_CHUNK_THRESHOLD).
      const long = `overloaded 4: ${'the harbour lamp burned through the night again. '.repeat(600)}`;
      const questions = ['overloaded 0', 'overloaded 1', 'overloaded 2', 'overloaded 3', long];
      for (const question of questions)
        expect((await ask(scope, question, false)).kind).toBe('json');
      // 1000 stuck jobs plus the one sweep queued for all five answers.
      expect(proxy.background.pending).toBe(1_001);
      release();
      await proxy.background.drain();
      const turns = await store.listMessages(scope, { limit: 20 });
      const embedded = await store.getEmbeddings(
        scope,
        turns.map((turn) => turn.id),
      );
      expect(embedded.size).toBe(10);
      // The sweep finished them as the answers' own jobs would have: linked and chunked.
      for (const answer of turns.filter((turn) => turn.role === 'assistant')) {
        const links = await store.getSynapses(scope, answer.id);
        expect(links.map((link) => link.fromId)).toContain(answer.parentId);
      }
      const longTurn = turns.find((turn) => turn.content === long)!;
      expect(longTurn.tokenCount).toBeGreaterThan(proxy.config.indexChunkThreshold);
      expect((await store.getChunks(scope, longTurn.id)).length).toBeGreaterThan(1);
    });

    it(
      `takes ${REQUESTS} concurrent requests on ${REQUESTS} instances, each a gapless tree of its own`,
      { timeout: 180_000 },
      async () => {
        const partition = `load-${ulid()}`;
        const scopes = Array.from({ length: REQUESTS }, (_, index) => ({
          partition,
          instance: `i${index}`,
        }));
        const answers = await Promise.all(
          scopes.map((scope, index) =>
            ask(scope, `only question of ${scope.instance}`, index % 2 === 1),
          ),
        );
        await expectAllStored(
          scopes,
          scopes.map((scope) => [`only question of ${scope.instance}`]),
          answers,
        );
      },
    );
  });
}
