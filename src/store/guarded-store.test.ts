import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../errors';
import { guardStore } from './guarded-store';
import type { MemoryStore } from './memory-store';

/** A stand-in store whose availability a test switches; it counts the calls that reached it. */
function flakyStore() {
  const state = { down: false, calls: 0 };
  const store = {
    kind: 'sqlite',
    async countMessages() {
      state.calls++;
      if (state.down) throw new StoreUnavailableError('connection refused');
      return 7;
    },
    async getMessage() {
      state.calls++;
      throw new Error('a bug, not an outage');
    },
    async close() {},
    async health() {
      return state.down
        ? { ok: false, store: 'sqlite', detail: 'connection refused' }
        : { ok: true, store: 'sqlite', detail: 'ok' };
    },
  } as unknown as MemoryStore;
  return { store, state };
}

const scope = { partition: 'p', instance: 'i' };

describe('guardStore', () => {
  it('fails fast once the store is down, probes its health in the background, and closes when it is back', async () => {
    const { store, state } = flakyStore();
    const changes: boolean[] = [];
    const guard = guardStore(store, {
      now: () => 5,
      probeIntervalMs: 20,
      onChange: (next) => changes.push(next.up),
    });
    expect(await guard.store.countMessages(scope)).toBe(7);
    state.down = true;
    await expect(guard.store.countMessages(scope)).rejects.toThrow('connection refused');
    expect(guard.state()).toMatchObject({
      up: false,
      reason: expect.stringContaining('connection refused'),
      since: 5,
    });
    const reached = state.calls;
    for (let i = 0; i < 5; i++)
      await expect(guard.store.countMessages(scope)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(state.calls).toBe(reached);
    state.down = false;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(guard.state().up).toBe(true);
    expect(await guard.store.countMessages(scope)).toBe(7);
    expect(changes).toEqual([false, true]);
    await guard.store.close();
  });

  it('leaves other errors alone: they pass through and do not open the breaker', async () => {
    const { store } = flakyStore();
    const guard = guardStore(store);
    await expect(guard.store.getMessage(scope, 'x')).rejects.toThrow('a bug');
    expect(guard.state().up).toBe(true);
  });

  it('reports health through to the store and follows it', async () => {
    const { store, state } = flakyStore();
    const guard = guardStore(store);
    state.down = true;
    expect(await guard.store.health()).toMatchObject({ ok: false, detail: 'connection refused' });
    expect(guard.state().up).toBe(false);
    state.down = false;
    expect((await guard.store.health()).ok).toBe(true);
    expect(guard.state().up).toBe(true);
  });

  it('times every call with its outcome', async () => {
    const { store, state } = flakyStore();
    const seen: string[] = [];
    const guard = guardStore(store, {
      observe: (method, outcome) => seen.push(`${method}:${outcome}`),
    });
    await guard.store.countMessages(scope);
    await guard.store.getMessage(scope, 'x').catch(() => undefined);
    state.down = true;
    await guard.store.countMessages(scope).catch(() => undefined);
    expect(seen).toEqual(['countMessages:ok', 'getMessage:error', 'countMessages:unavailable']);
    expect(guard.store.kind).toBe('sqlite');
  });
});
