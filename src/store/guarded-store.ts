import { StoreUnavailableError } from '../errors';
import type { MemoryStore, StoreHealth } from './memory-store';

/** How often a store known to be down is asked whether it is back. */
const DEFAULT_PROBE_INTERVAL_MS = 1_000;
/** Methods that manage the store itself rather than read or write memory. */
const UNGUARDED = new Set(['init', 'close', 'health', 'constructor']);

/** Whether the store answers, as the guard last saw it. */
export interface StoreState {
  up: boolean;
  /** Why it is down (the last unavailability error); null while up. */
  reason: string | null;
  /** When it went down (ms); null while up. */
  since: number | null;
}

/** Options of the guard. */
export interface StoreGuardOptions {
  /** Called after every store call with its method, outcome and duration in seconds. */
  observe?: (method: string, outcome: 'ok' | 'error' | 'unavailable', seconds: number) => void;
  /** Called when the store goes down or comes back. */
  onChange?: (state: StoreState) => void;
  probeIntervalMs?: number;
  now?: () => number;
}

/** A store wrapped by the guard, and the state the guard keeps. */
export interface GuardedStore {
  store: MemoryStore;
  state(): StoreState;
}

/**
 * Wraps a store as a circuit breaker: once a call fails because the store is unreachable,
 * calls fail at once with StoreUnavailableError (a quick 503 instead of every request waiting
 * out the driver's retries) while a background probe asks the store's health every interval;
 * a healthy probe (or /ready check, or any call that succeeds) closes the breaker again.
 * Every call is timed for /metrics.
 */
export function guardStore(inner: MemoryStore, options: StoreGuardOptions = {}): GuardedStore {
  const now = options.now ?? Date.now;
  const probeInterval = options.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS;
  let state: StoreState = { up: true, reason: null, since: null };
  let probe: NodeJS.Timeout | null = null;
  let probing = false;

  const markUp = () => {
    if (probe) clearInterval(probe);
    probe = null;
    if (state.up) return;
    state = { up: true, reason: null, since: null };
    options.onChange?.(state);
  };
  const markDown = (reason: string) => {
    const wasUp = state.up;
    state = { up: false, reason, since: state.since ?? now() };
    if (wasUp) options.onChange?.(state);
    if (probe) return;
    probe = setInterval(() => {
      if (probing) return;
      probing = true;
      void health().finally(() => (probing = false));
    }, probeInterval);
    // The probe alone must not keep a process alive that is shutting down.
    probe.unref();
  };

  const wrap = (name: string, method: (...args: unknown[]) => unknown) =>
    function guarded(...args: unknown[]): unknown {
      if (!state.up && method.constructor.name === 'AsyncFunction') {
        options.observe?.(name, 'unavailable', 0);
        return Promise.reject(
          new StoreUnavailableError(
            `The memory store is unavailable (${state.reason}); try again shortly.`,
          ),
        );
      }
      const started = performance.now();
      const result = method.apply(inner, args);
      if (!isPromise(result)) return result;
      return result.then(
        (value) => {
          options.observe?.(name, 'ok', (performance.now() - started) / 1000);
          markUp();
          return value;
        },
        (error: unknown) => {
          const unavailable = error instanceof StoreUnavailableError;
          options.observe?.(
            name,
            unavailable ? 'unavailable' : 'error',
            (performance.now() - started) / 1000,
          );
          if (unavailable) markDown(error.message);
          throw error;
        },
      );
    };

  const wrappers = new Map<PropertyKey, unknown>();
  const store = new Proxy(inner, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property === 'health') return health;
      if (property === 'close') return close;
      if (typeof property !== 'string' || UNGUARDED.has(property))
        return (value as (...args: unknown[]) => unknown).bind(target);
      let wrapper = wrappers.get(property);
      if (!wrapper) {
        wrapper = wrap(property, value as (...args: unknown[]) => unknown);
        wrappers.set(property, wrapper);
      }
      return wrapper;
    },
  });

  async function health(): Promise<StoreHealth> {
    const result = await inner
      .health()
      .catch((error: unknown) => ({
        ok: false,
        store: inner.kind,
        detail: (error as Error).message,
      }));
    if (result.ok) markUp();
    else markDown(result.detail);
    return result;
  }

  const close = async () => {
    if (probe) clearInterval(probe);
    probe = null;
    await inner.close();
  };

  return { store, state: () => state };
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
