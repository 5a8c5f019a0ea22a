import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger';
import { BackgroundQueue, type BackgroundJob } from '../src/memory/background-queue';
import type { MemoryStore } from '../src/store/memory-store';
import type { BranchSummary, Scope } from '../src/store/types';
import { startFakeUpstream, textReply, type FakeUpstream } from './support/fake-upstream';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { watchStore } from './support/watch-store';
import { storeFactories } from './support/stores';

const CONTEXT_WINDOW = 1600;
const MAX_TOKENS = 200;
const REQUESTS = 60;
const SUMMARY_HEADER = 'Summary of earlier turns';

/** A background queue that drops the jobs preparing the next window's summary: the proxy as it was without them. */
class UnpreparedQueue extends BackgroundQueue {
  override push(name: string, run: BackgroundJob, options?: { lane?: string }): void {
    if (name !== 'next-summary') super.push(name, run, options);
  }
}

/** A stored summary and the request during or after which it was written (1-based). */
interface Put {
  summary: BranchSummary;
  request: number;
}

for (const factory of storeFactories()) {
  describe(`running summary of the next window, written ahead (${factory.name})`, () => {
    let store: MemoryStore;
    let upstream: FakeUpstream;
    let prepared: RunningProxy;
    let unprepared: RunningProxy;
    /** The request in flight, or the last one answered. */
    let request = 0;
    const puts: Put[] = [];

    beforeAll(async () => {
      store = await factory.create();
      // Every summary the proxies store, with when they stored it.
      const recorded = watchStore(store, 'putSummary', ([, summary]) => puts.push({ summary: summary as BranchSummary, request }));
      upstream = await startFakeUpstream();
      // Each answer follows from its question, so both proxies' conversations read the same.
      upstream.onChat((chat) => {
        const messages = chat.body.messages as { content: string }[];
        const turn = Number(/^Question (\d+)/.exec(messages.at(-1)!.content)?.[1]);
        return textReply(chat, `Answer ${turn}: the ledger by the harbour balances at ${turn * 7} coins.`);
      });
      const env = { MEMORY_TOOLS: 'false' };
      prepared = await startProxy({ store: recorded, upstreamUrl: upstream.url, env });
      unprepared = await startProxy({ store: recorded, upstreamUrl: upstream.url, env, deps: { background: new UnpreparedQueue(createLogger('silent')) } });
    });
    afterAll(async () => {
      await prepared?.close();
      await unprepared?.close();
      await upstream?.close();
      await store?.close();
    });

    /** Sends one new user turn with a small context window; the messages that went upstream. */
    async function ask(proxy: RunningProxy, scope: Scope, content: string): Promise<{ role: string; content: string }[]> {
      const before = upstream.chatRequests().length;
      const response = await fetch(`${proxy.baseUrl(scope.partition, scope.instance)}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-memory-context-window': String(CONTEXT_WINDOW) },
        body: JSON.stringify({ model: 'chat-model', max_tokens: MAX_TOKENS, messages: [{ role: 'user', content }] }),
      });
      expect(response.status).toBe(200);
      await response.text();
      await proxy.background.drain();
      const sent = upstream.chatRequests().slice(before);
      expect(sent).toHaveLength(1);
      return sent[0]!.body.messages as { role: string; content: string }[];
    }

    it('lets the request that moves the window read its summary instead of building it on its way upstream', async () => {
      const scope = { partition: `ahead-${ulid()}`, instance: 'chat' };
      let moves = 0;
      let previous: string | null = null;
      for (let turn = 1; turn <= REQUESTS; turn++) {
        request = turn;
        const sent = await ask(prepared, scope, question(turn));
        const summary = sent.find((message) => message.role === 'system' && message.content.startsWith(SUMMARY_HEADER))?.content ?? null;
        if (summary === null) continue;
        // It summarises exactly the turns before the window (question k is turn 2k-1, its answer 2k).
        const first = /^(Question|Answer) (\d+)/.exec(sent.find((message) => message.role !== 'system')!.content)!;
        const before = 2 * Number(first[2]) - (first[1] === 'Question' ? 2 : 1);
        expect(summary).toContain(`(${before} turns;`);
        if (summary === previous) continue;
        previous = summary;
        moves++;
        const writes = puts.filter((put) => put.summary.content === summary);
        expect(writes).toHaveLength(1);
        // The first summary of a conversation has no earlier window to prepare it; every later one
        // was stored before the request that sends it started.
        if (moves > 1) expect(writes[0]!.request).toBeLessThan(turn);
      }
      expect(moves).toBeGreaterThanOrEqual(3);
    }, 120_000);

    it('without the jobs that prepare it, builds the summary during the request that moves the window', async () => {
      const scope = { partition: `ahead-${ulid()}`, instance: 'chat' };
      const during: number[] = [];
      let previous: string | null = null;
      for (let turn = 1; turn <= REQUESTS; turn++) {
        request = turn;
        const sent = await ask(unprepared, scope, question(turn));
        const summary = sent.find((message) => message.role === 'system' && message.content.startsWith(SUMMARY_HEADER))?.content ?? null;
        if (summary === null || summary === previous) continue;
        previous = summary;
        during.push(...puts.filter((put) => put.summary.content === summary && put.request === turn).map((put) => put.request));
      }
      expect(during.length).toBeGreaterThanOrEqual(3);
    }, 120_000);
  });
}

function question(turn: number): string {
  return `Question ${turn}: my cousin Amalia counted ${turn * 3} lanterns along the river, did she miss any?`;
}
