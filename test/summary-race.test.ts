import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNewMessage } from '../src/memory/normalize-message';
import { runningSummary } from '../src/memory/running-summary';
import { rewriteSummary } from '../src/memory/summary-rewriter';
import type { MemoryStore } from '../src/store/memory-store';
import type { Scope, StoredMessage } from '../src/store/types';
import { freshScope } from './store/contract-fixtures';
import { edit } from './store/contract-manage';
import { storeFactories } from './support/stores';

const WINDOW_TOKENS = 200;
const MAX_TOKENS = 600;

/** A branch of 60 turns, each naming its own locker, so a summary line shows which turn it quotes. */
async function storeBranch(store: MemoryStore, scope: Scope): Promise<StoredMessage[]> {
  const appended = await store.appendPath(scope, {
    parentId: null,
    messages: Array.from({ length: 60 }, (_, i) =>
      toNewMessage(
        {
          role: i % 2 ? 'assistant' : 'user',
          content: `Turn ${i}: my locker is number ${100 + i}.`,
        },
        {},
      ),
    ),
  });
  return appended.map((turn) => turn.message);
}

/**
 * The store, running `change` once, right after the `nth` call of `method` that `matches`
 * returned (the summary job has read what it read by then, and has not written yet).
 */
function changingAfter(
  store: MemoryStore,
  call: {
    method: 'getBranch' | 'getSummary';
    nth: number;
    matches?: (args: unknown[]) => boolean;
  },
  change: () => Promise<unknown>,
): MemoryStore {
  let calls = 0;
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (property !== call.method) return value.bind(target);
      return async (...args: unknown[]) => {
        const result = (await value.apply(target, args)) as unknown;
        if ((call.matches?.(args) ?? true) && ++calls === call.nth) await change();
        return result;
      };
    },
  });
}

describe.each(storeFactories())('running summary racing an edit ($name)', (factory) => {
  let store: MemoryStore;
  beforeAll(async () => {
    store = await factory.create();
  });
  afterAll(async () => {
    await store.close();
  });

  it('stores nothing it folded from a turn deleted before its write, and the next one leaves the turn out', async () => {
    const scope = freshScope();
    const turns = await storeBranch(store, scope);
    const boundary = turns[50]!;
    // The newest evicted turns are read first: turn 49 is on the first page.
    const deleted = turns[49]!;
    const racing = changingAfter(store, { method: 'getBranch', nth: 1 }, () =>
      store.setMessageDeleted(scope, deleted.id, true),
    );
    const input = { scope, boundary, windowTokens: WINDOW_TOKENS, maxTokens: MAX_TOKENS };

    expect(await runningSummary({ ...input, store: racing })).toBeNull();
    expect(await store.getSummary(scope, boundary.id)).toBeNull();

    const next = await runningSummary({ ...input, store });
    expect(next?.content).toContain('my locker is number 148.');
    expect(next?.content).not.toContain('number 149.');
    expect(await store.getSummary(scope, boundary.id)).toEqual(next);
  });

  it("stores no model-written summary when an edit lands between the rewriter's last check and its write", async () => {
    const scope = freshScope();
    const turns = await storeBranch(store, scope);
    const boundary = turns[50]!;
    const input = { scope, boundary, windowTokens: WINDOW_TOKENS, maxTokens: MAX_TOKENS };
    const extractive = await runningSummary({ ...input, store });
    expect(extractive).not.toBeNull();
    // The rewriter reads the summary it replaces, then again after the model wrote: the edit
    // commits right after that second read.
    const atBoundary = (args: unknown[]) => args[1] === boundary.id;
    const racing = changingAfter(store, { method: 'getSummary', nth: 2, matches: atBoundary }, () =>
      store.editMessage(scope, turns[49]!.id, edit('Turn 49: the locker was never mine.')),
    );
    const written = await rewriteSummary({
      ...input,
      summary: extractive!,
      store: racing,
      summarizer: async ({ evicted }) =>
        evicted.map((turn) => `Someone said: ${turn.content}`).join('\n'),
      now: () => 1,
    });
    expect(written).toBeNull();
    expect(await store.getSummary(scope, boundary.id)).toBeNull();
  });
});
