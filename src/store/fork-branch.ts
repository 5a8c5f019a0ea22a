import { idFactory } from '../ids';
import { ConflictError, InvalidRequestError, NotFoundError, RecordImportError } from '../errors';
import {
  relationshipRecord,
  toMessageRecord,
  toToolCallRecord,
  type GraphRecord,
  type MessageRecord,
} from './graph-record';
import type { MemoryStore } from './memory-store';
import type { ForkInput } from './management-types';
import type { Scope, StoredMessage } from './types';

/** Longest branch a fork copies (a bound, so a corrupt cycle cannot loop forever). */
const MAX_FORK_TURNS = 1_000_000;

/**
 * Forks through records: reads the live branch root→message with the interface's reads and
 * writes its copy with importRecords, one transaction, so both adapters fork the same way.
 * Copies keep contents, timestamps and embeddings and get new ids, seq 1..n and branch token
 * totals of the new branch; REPLIES_TO, RESPONDED_WITH, CHUNK_OF, CALLED_BY and the synapses
 * between copied turns are rebuilt. Tool calls come without embeddings (embedAndLink or the
 * startup sweep adds them).
 */
export async function forkBranch(
  store: MemoryStore,
  scope: Scope,
  input: ForkInput,
): Promise<StoredMessage[]> {
  const target: Scope = { partition: scope.partition, instance: input.newInstance };
  const leaf = await store.getMessage(scope, input.messageId);
  if (!leaf)
    throw new NotFoundError(
      `message ${input.messageId} does not exist in this instance`,
      'message_id',
    );
  if (leaf.isChunk) {
    throw new InvalidRequestError(
      `message ${leaf.id} is a chunk of ${leaf.chunkParentId}; fork at that turn instead`,
      {
        param: 'message_id',
        code: 'chunk_not_allowed',
      },
    );
  }
  if (leaf.deleted) {
    throw new InvalidRequestError(
      `message ${leaf.id} is deleted; restore it or fork at another turn`,
      { param: 'message_id', code: 'message_deleted' },
    );
  }
  await requireEmpty(store, target);
  const branch = (await store.getBranch(scope, leaf.id, { limit: MAX_FORK_TURNS })).reverse();
  const records = await branchRecords(store, { scope, target, branch });
  try {
    await store.importRecords(records);
  } catch (error) {
    // Another writer stored turns in the new instance between the check and the copy.
    if (error instanceof RecordImportError) throw instanceExists(target);
    throw error;
  }
  return store.listMessages(target, { limit: branch.length });
}

async function requireEmpty(store: MemoryStore, target: Scope): Promise<void> {
  const existing = await store.listMessages(target, { limit: 1, includeDeleted: true });
  if (existing.length > 0) throw instanceExists(target);
}

function instanceExists(target: Scope): ConflictError {
  return new ConflictError(
    `instance ${target.instance} already has turns; fork into a new instance`,
    {
      param: 'new_instance',
      code: 'instance_exists',
    },
  );
}

async function branchRecords(
  store: MemoryStore,
  options: { scope: Scope; target: Scope; branch: StoredMessage[] },
): Promise<GraphRecord[]> {
  const { scope, target, branch } = options;
  const newId = idFactory();
  const ids = new Map(branch.map((turn) => [turn.id, newId()]));
  const copy = (id: string) => ids.get(id) ?? '';
  const vectors = await store.getEmbeddings(
    scope,
    branch.map((turn) => turn.id),
  );
  const nodes: GraphRecord[] = [
    {
      type: 'Instance',
      ...target,
      last_seq: branch.length,
      deleted_at: null,
      topics_cursor: 0,
      periods_cursor: 0,
    },
  ];
  const links: GraphRecord[] = [];
  let branchTokens = 0;
  let parent: StoredMessage | null = null;
  for (const [index, turn] of branch.entries()) {
    branchTokens += turn.tokenCount;
    const metadata = {
      ...turn.metadata,
      forked_from: { partition: scope.partition, instance: scope.instance, message_id: turn.id },
    };
    const copied = {
      ...turn,
      ...target,
      id: copy(turn.id),
      seq: index + 1,
      branchTokens,
      metadata,
    };
    nodes.push(
      toMessageRecord(copied, {
        embedding: vectors.get(turn.id) ?? null,
        deletedWithInstance: false,
      }),
    );
    if (parent) {
      links.push(
        relationshipRecord(target, { type: 'REPLIES_TO', from: copied.id, to: copy(parent.id) }),
      );
      if (parent.role === 'user' && turn.role === 'assistant') {
        links.push(
          relationshipRecord(target, {
            type: 'RESPONDED_WITH',
            from: copy(parent.id),
            to: copied.id,
          }),
        );
      }
    }
    parent = turn;
    nodes.push(
      ...(await chunkRecords(store, { scope, target, turn, parentId: copied.id, newId, links })),
    );
    for (const call of await store.getToolCallsByMessage(scope, turn.id)) {
      const callId = newId();
      nodes.push(toToolCallRecord({ ...call, ...target, id: callId, messageId: copied.id }, null));
      links.push(relationshipRecord(target, { type: 'CALLED_BY', from: callId, to: copied.id }));
    }
    for (const synapse of await store.getSynapses(scope, turn.id)) {
      // Each synapse is seen from both ends: keep it once, from its start.
      if (synapse.fromId !== turn.id || !ids.has(synapse.toId)) continue;
      links.push(
        relationshipRecord(target, {
          type: 'SYNAPSE',
          from: copied.id,
          to: copy(synapse.toId),
          score: synapse.score,
        }),
      );
    }
  }
  return [...nodes, ...links];
}

async function chunkRecords(
  store: MemoryStore,
  options: {
    scope: Scope;
    target: Scope;
    turn: StoredMessage;
    parentId: string;
    newId: () => string;
    links: GraphRecord[];
  },
): Promise<MessageRecord[]> {
  const { scope, target, turn, parentId, newId, links } = options;
  const chunks = await store.getChunks(scope, turn.id);
  if (chunks.length === 0) return [];
  const vectors = await store.getEmbeddings(
    scope,
    chunks.map((chunk) => chunk.id),
  );
  return chunks.map((chunk) => {
    const id = newId();
    links.push(relationshipRecord(target, { type: 'CHUNK_OF', from: id, to: parentId }));
    return toMessageRecord(
      { ...chunk, ...target, id, chunkParentId: parentId },
      { embedding: vectors.get(chunk.id) ?? null, deletedWithInstance: false },
    );
  });
}
