import { createHash } from 'node:crypto';
import { ulid } from 'ulid';
import type { MemoryStore } from '../../src/store/memory-store';
import type { NewMessage, Scope, StoredMessage, TurnRole } from '../../src/store/types';
import { TEST_DIMENSIONS } from '../support/stores';

/** Gives a section of the suite the store its describe block opened. */
export type StoreGetter = () => MemoryStore;

/** A scope no other test uses: tests isolate by name, never by dropping data (Neo4j is shared). */
export function freshScope(): Scope {
  return { partition: `p-${ulid()}`, instance: `i-${ulid()}` };
}

/** A word no other test's content contains, so full-text assertions hold on a shared database. */
export function uniqueWord(): string {
  return `w${ulid().toLowerCase()}`;
}

/** A turn to store, hashed the way ingest would (role and text), with optional overrides. */
export function turn(role: TurnRole, content: string, extra: Partial<NewMessage> = {}): NewMessage {
  return {
    role,
    content,
    raw: { role, content },
    contentHash: createHash('sha256')
      .update(JSON.stringify([role, content]))
      .digest('hex')
      .slice(0, 32),
    tokenCount: 4 + Math.ceil(content.length / 4),
    ...extra,
  };
}

/** Appends a path and returns the stored turns. */
export async function append(
  store: MemoryStore,
  scope: Scope,
  parentId: string | null,
  messages: NewMessage[],
): Promise<StoredMessage[]> {
  const turns = await store.appendPath(scope, { parentId, messages });
  return turns.map((appended) => appended.message);
}

/** The ids of stored things, for order-sensitive comparisons. */
export function ids(items: readonly { id: string }[]): string[] {
  return items.map((item) => item.id);
}

/** A random unit vector of TEST_DIMENSIONS, so tests never share vectors with each other. */
export function randomUnitVector(): number[] {
  return normalize(Array.from({ length: TEST_DIMENSIONS }, () => Math.random() - 0.5));
}

/** A random unit vector orthogonal to `base` (a unit vector). */
export function orthogonalUnitVector(base: readonly number[]): number[] {
  const candidate = randomUnitVector();
  const projection = dot(candidate, base);
  return normalize(candidate.map((value, index) => value - projection * (base[index] ?? 0)));
}

/** `a * x + b * y`, scaled to unit length. */
export function combine(
  a: number,
  x: readonly number[],
  b: number,
  y: readonly number[],
): number[] {
  return normalize(x.map((value, index) => a * value + b * (y[index] ?? 0)));
}

function dot(x: readonly number[], y: readonly number[]): number {
  return x.reduce((sum, value, index) => sum + value * (y[index] ?? 0), 0);
}

function normalize(vector: number[]): number[] {
  const norm = Math.sqrt(dot(vector, vector));
  return vector.map((value) => value / norm);
}
