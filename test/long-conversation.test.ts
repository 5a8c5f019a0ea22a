import { countTokens } from 'gpt-tokenizer';
import OpenAI from 'openai';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryStore } from '../src/store/memory-store';
import { startFakeUpstream, textReply, type FakeUpstream } from './support/fake-upstream';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { storeFactories } from './support/stores';

const CONTEXT_WINDOW = 4096;
const MAX_TOKENS = 256;
const TURNS = 2000;

/** Tokens of a request's messages, counted here independently of the proxy's own accounting. */
function requestTokens(messages: { content?: unknown }[]): number {
  let total = 3;
  for (const message of messages) total += 4 + (typeof message.content === 'string' ? countTokens(message.content) : countTokens(JSON.stringify(message.content ?? '')));
  return total;
}

/** The fact planted early and asked about at the end. */
const FACT = 'By the way, my locker code at the gym is 4812, please remember it.';

/** The messages before the memory index, or before the newest question when there is none. */
function stablePrefix(messages: { role: string; content: string }[]): string[] {
  const index = messages.findIndex((message) => message.role === 'system' && message.content.startsWith('Memory index'));
  const end = index >= 0 ? index : messages.length - 1;
  return messages.slice(0, end).map((message) => JSON.stringify(message));
}

/** A deterministic sentence generator (no Math.random: runs must be reproducible). */
function sentence(seed: number): string {
  const words = ['river', 'garden', 'quantum', 'ledger', 'violet', 'harbor', 'matrix', 'pepper', 'comet', 'lantern', 'oak', 'signal', 'tundra', 'copper', 'melody'];
  let state = seed * 2654435761;
  const length = 8 + (seed % 40);
  const out: string[] = [];
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    out.push(words[state % words.length]!);
  }
  return out.join(' ');
}

for (const factory of storeFactories()) {
  describe(`token budget over a ${TURNS}-turn conversation (${factory.name})`, () => {
    let store: MemoryStore;
    let upstream: FakeUpstream;
    let proxy: RunningProxy;

    beforeAll(async () => {
      store = await factory.create();
      upstream = await startFakeUpstream();
      proxy = await startProxy({ store, upstreamUrl: upstream.url, env: { DEFAULT_CONTEXT_WINDOW: String(CONTEXT_WINDOW) } });
    });
    afterAll(async () => {
      await proxy?.close();
      await upstream?.close();
      await store?.close();
    });

    it('stays within the window on every request, keeps recent turns, recalls a fact from turn 10, and keeps a stable prefix', async () => {
      const scope = { partition: `budget-${ulid()}`, instance: 'chat' };
      const client = new OpenAI({ apiKey: 'k', baseURL: proxy.baseUrl(scope.partition, scope.instance), maxRetries: 0 });
      upstream.onChat((request, index) => textReply(request, `answer ${index}: ${sentence(index + 7)}`));
      const ask = async (question: string) => {
        const completion = await client.chat.completions.create({
          model: 'unlisted-local-model',
          max_tokens: MAX_TOKENS,
          messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: question }],
        });
        const sent = upstream.chatRequests().at(-1)!.body.messages as { role: string; content: string }[];
        expect(requestTokens(sent) + MAX_TOKENS).toBeLessThanOrEqual(CONTEXT_WINDOW);
        expect(sent[0]).toEqual({ role: 'system', content: 'You are terse.' });
        expect(sent.at(-1)!.content).toBe(question);
        return { sent, answer: completion.choices[0]!.message.content! };
      };
      let previousAnswer = '';
      let previousStable: string[] | null = null;
      let moves = 0;
      for (let turn = 0; turn < TURNS / 2 - 2; turn++) {
        const question = turn === 5 ? FACT : `question ${turn}: ${sentence(turn)}`;
        const { sent, answer } = await ask(question);
        const turnsSent = sent.filter((message) => message.role !== 'system');
        if (turn > 0) expect(turnsSent.at(-2)!.content).toBe(previousAnswer);
        previousAnswer = answer;
        // Everything before the memory index (or before the new question) is the cacheable prefix.
        const stable = stablePrefix(sent);
        if (previousStable) {
          const shared = previousStable.every((message, i) => JSON.stringify(sent[i]) === message);
          if (!shared) moves++;
        }
        previousStable = stable;
        if (turn % 100 === 0) await proxy.background.drain();
      }
      await proxy.background.drain();
      // The window moves in blocks: most consecutive requests share their prefix byte for byte.
      expect(moves).toBeGreaterThan(0);
      expect(moves).toBeLessThan(TURNS / 2 / 10);

      const direct = await ask('What is my locker code at the gym?');
      expect(JSON.stringify(direct.sent)).toContain('4812');
      const paraphrased = await ask('Which digits open the locker where I keep my stuff while I work out?');
      expect(JSON.stringify(paraphrased.sent)).toContain('4812');
      expect(await store.countMessages(scope)).toBe(TURNS);
      // Late requests still carry a full window, not a trickle.
      expect(requestTokens(paraphrased.sent)).toBeGreaterThan((CONTEXT_WINDOW - MAX_TOKENS) / 4);
    }, 600_000);
  });
}
