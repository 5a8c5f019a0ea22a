import { ulid } from 'ulid';
import { expect } from 'vitest';
import { fakeEmbedding } from '../../../test/support/fake-embedding';
import { TEST_DIMENSIONS } from '../../../test/support/stores';
import type { Embedder } from '../../embeddings/embedder';
import type { MemoryStore } from '../../store/memory-store';
import type { Scope, StoredMessage, StoredToolCall } from '../../store/types';
import { countTokens } from '../../tokens/count-tokens';
import { toNewMessage } from '../normalize-message';
import { runMemoryTool, type MemoryToolContext, type MemoryToolResult } from './memory-tools';

/*
 * Shared by the memory tool suites (beside the code and in test/): a seeded conversation, a
 * deterministic embedder, and a tool runner that checks what every result promises.
 */

/** The tests' clock, a Wednesday afternoon; the seeded conversation ran last week, yesterday and today. */
export const NOW = Date.parse('2025-03-12T15:30:00Z');
/** When the seeded turns were stored (UTC). */
export const LAST_WEEK = Date.parse('2025-03-04T10:00:00Z');
export const YESTERDAY = Date.parse('2025-03-11T18:00:00Z');
export const TODAY = Date.parse('2025-03-12T09:00:00Z');

/** A deterministic test embedder (hashed bag of words): texts sharing words are close. */
export const testEmbedder: Embedder = {
  model: 'test-bag-of-words',
  dimensions: TEST_DIMENSIONS,
  embed: async (texts) => texts.map((text) => fakeEmbedding(text, TEST_DIMENSIONS)),
};

/** The chunks the long checklist answer is split into. */
export const CHUNKS = [
  'Step one: drain the nodes and cordon them before the upgrade window opens.',
  'Step two: rotate the etcd encryption keys and back up the etcd snapshot.',
  'Step three: roll the deployment with a canary and watch the error budget.',
];

/** The seeded conversation: one branch of eight turns, a regenerated answer, chunks, a tool call and synapses. */
export interface Seeded {
  scope: Scope;
  turns: StoredMessage[];
  alternative: StoredMessage;
  chunks: StoredMessage[];
  call: StoredToolCall;
}

/** Stores the seeded conversation in a fresh scope: turns, chunks, embeddings, a tool call, synapses. */
export async function seedConversation(store: MemoryStore): Promise<Seeded> {
  const scope = freshScope();
  const at = (timestamp: number, message: Record<string, unknown>) => ({
    ...toNewMessage(message),
    timestamp,
  });
  const path = await store.appendPath(scope, {
    parentId: null,
    messages: [
      at(LAST_WEEK, {
        role: 'user',
        content: 'What is a good name for my golden retriever puppy?',
      }),
      at(LAST_WEEK + 1000, {
        role: 'assistant',
        content: 'How about Sunny, Maple or Biscuit for a golden retriever?',
      }),
      at(YESTERDAY, { role: 'user', content: 'I am planning a trip to Lisbon in May.' }),
      at(YESTERDAY + 1000, {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_weather_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' },
          },
        ],
      }),
      at(YESTERDAY + 2000, { role: 'tool', tool_call_id: 'call_weather_1', content: 'Sunny, 24C' }),
      at(YESTERDAY + 3000, {
        role: 'assistant',
        content: 'Lisbon in May is warm and sunny: pack light clothes.',
      }),
      at(TODAY, { role: 'user', content: 'Remind me of the Kubernetes deployment checklist.' }),
      at(TODAY + 1000, {
        role: 'assistant',
        content: `The Kubernetes deployment checklist:\n${CHUNKS.join('\n')}`,
      }),
    ],
  });
  const turns = path.map((entry) => entry.message);
  const [alternative] = (
    await store.appendPath(scope, {
      parentId: turns[2]!.id,
      messages: [
        at(YESTERDAY + 5000, {
          role: 'assistant',
          content: 'Lisbon is lovely in May; book early.',
        }),
      ],
    })
  ).map((entry) => entry.message);
  const chunks = await store.setChunks(
    scope,
    turns[7]!.id,
    CHUNKS.map((content) => ({ content, tokenCount: countTokens(content) })),
  );
  const [call] = await store.addToolCalls(scope, turns[3]!.id, [
    {
      callId: 'call_weather_1',
      toolName: 'get_weather',
      arguments: '{"city":"Lisbon"}',
      result: 'Sunny, 24C',
      tokenCount: 12,
      timestamp: YESTERDAY + 1500,
    },
  ]);
  const embedded = [...turns, alternative!, ...chunks].filter((message) => message.content !== '');
  const vectors = await testEmbedder.embed(embedded.map((message) => message.content));
  await store.setEmbeddings(scope, [
    ...embedded.map((message, index) => ({
      kind: 'message' as const,
      id: message.id,
      vector: vectors[index]!,
    })),
    {
      kind: 'toolcall',
      id: call!.id,
      vector: fakeEmbedding('get_weather {"city":"Lisbon"} Sunny, 24C', TEST_DIMENSIONS),
    },
  ]);
  await store.addSynapses(scope, [
    { fromId: turns[0]!.id, toId: turns[1]!.id, score: 0.91 },
    { fromId: turns[5]!.id, toId: turns[2]!.id, score: 0.88 },
  ]);
  return { scope, turns, alternative: alternative!, chunks, call: call! };
}

/** A store that reports some turns as soft-deleted, the way getMessage/getMessages flag them (the interface has no delete yet). */
export function withDeleted(store: MemoryStore, deleted: Set<string>): MemoryStore {
  const flag = (message: StoredMessage): StoredMessage =>
    deleted.has(message.id) ? { ...message, deleted: true } : message;
  return Object.assign(Object.create(store) as MemoryStore, {
    getMessage: async (scope: Scope, id: string) => {
      const message = await store.getMessage(scope, id);
      return message && flag(message);
    },
    getMessages: async (scope: Scope, ids: string[]) =>
      (await store.getMessages(scope, ids)).map(flag),
  });
}

/** A scope no other test uses: the Neo4j test database is shared, so tests isolate by name. */
export function freshScope(): Scope {
  return { partition: `p-${ulid()}`, instance: `i-${ulid()}` };
}

/** The context the suites run tools in: a fixed clock, a roomy result limit, 60-character snippets. */
export function testContext(store: MemoryStore, scope: Scope): MemoryToolContext {
  return {
    store,
    embedder: testEmbedder,
    scope,
    now: () => NOW,
    maxResultTokens: 4000,
    budget: 8000,
    includeToolCalls: true,
    snippetLength: 60,
  };
}

/** What a tool returned, and its content parsed. */
export interface ToolRun {
  result: MemoryToolResult;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- results are loose JSON; the assertions check their shape
  json: any;
}

/** Runs a tool and checks what every result promises: JSON within its token limit, counted right. */
export async function runTool(
  context: MemoryToolContext,
  name: string,
  args: unknown,
): Promise<ToolRun> {
  const result = await runMemoryTool(
    context,
    name,
    typeof args === 'string' ? args : JSON.stringify(args),
  );
  expect(result.tokens).toBe(countTokens(result.content));
  if (result.ok) expect(result.tokens).toBeLessThanOrEqual(context.maxResultTokens);
  return { result, json: JSON.parse(result.content) };
}
