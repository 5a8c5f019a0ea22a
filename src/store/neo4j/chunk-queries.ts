import { createHash } from 'node:crypto';
import { NotFoundError } from '../../errors';
import type { Scope, StoredMessage } from '../types';
import { makeSnippet } from '../../text/snippet';
import { projectMessage, toMessageProperties, toStoredMessage } from './map-record';
import { toMessages } from './message-queries';
import type { Neo4jRunner } from './neo4j-runner';
import { lockInstance, scopeParams, type ScopedRunner } from './scope-params';

/** Inputs of setChunks. */
export interface SetChunksOptions {
  runner: Neo4jRunner;
  scope: Scope;
  parentId: string;
  chunks: { content: string; tokenCount: number }[];
  newId: () => string;
  /** The parent's content hash the chunks were cut from: none are stored if it changed since. */
  parentHash?: string | undefined;
}

const FIND_TURN = `
MATCH (m:Message {id: $parentId, partition: $partition, instance: $instance})
WHERE m.is_chunk = false
RETURN ${projectMessage('m')} AS message`;

// DETACH: a chunk's CHUNK_OF and any SYNAPSE links go with it.
const DELETE_CHUNKS = `
MATCH (chunk:Message {chunk_parent_id: $parentId})
WHERE chunk.partition = $partition AND chunk.instance = $instance AND chunk.is_chunk = true
DETACH DELETE chunk`;

const CREATE_CHUNKS = `
MATCH (parent:Message {id: $parentId, partition: $partition, instance: $instance})
UNWIND $rows AS row
CREATE (chunk:Message)-[:CHUNK_OF]->(parent)
SET chunk = row`;

/**
 * Replaces the chunks of a long turn in one transaction (under the instance lock, so two
 * writers cannot interleave two sets). Chunks sit outside the conversation tree (seq 0, no
 * REPLIES_TO) and inherit the role, timestamp, model and trace of their turn.
 */
export async function setChunks(options: SetChunksOptions): Promise<StoredMessage[]> {
  const { runner, scope, parentId } = options;
  const params = { parentId, ...scopeParams(scope) };
  return runner.writeTransaction(async (transaction) => {
    await lockInstance(transaction, scope);
    const rows = await transaction.run(FIND_TURN, params);
    if (!rows[0])
      throw new NotFoundError(`turn ${parentId} does not exist in this scope`, 'parentId');
    const parent = toStoredMessage(rows[0]['message']);
    if (options.parentHash !== undefined && parent.contentHash !== options.parentHash) return [];
    await transaction.run(DELETE_CHUNKS, params);
    const chunks = options.chunks.map((chunk, index) =>
      newChunk({ parent, chunk, index, id: options.newId() }),
    );
    if (chunks.length > 0)
      await transaction.run(CREATE_CHUNKS, { rows: chunks.map(toMessageProperties), ...params });
    return chunks;
  });
}

/** The chunks of a turn, in order. */
export async function getChunks(scoped: ScopedRunner, parentId: string): Promise<StoredMessage[]> {
  const { runner, scope } = scoped;
  const rows = await runner.read(
    `MATCH (m:Message {chunk_parent_id: $parentId})
     WHERE m.partition = $partition AND m.instance = $instance AND m.is_chunk = true
     RETURN ${projectMessage('m')} AS message ORDER BY m.chunk_index`,
    { parentId, ...scopeParams(scope) },
  );
  return toMessages(rows);
}

function newChunk(options: {
  parent: StoredMessage;
  chunk: { content: string; tokenCount: number };
  index: number;
  id: string;
}): StoredMessage {
  const { parent, chunk } = options;
  return {
    id: options.id,
    partition: parent.partition,
    instance: parent.instance,
    role: parent.role,
    content: chunk.content,
    raw: { role: parent.role, content: chunk.content },
    snippet: makeSnippet(chunk.content),
    timestamp: parent.timestamp,
    seq: 0,
    tokenCount: chunk.tokenCount,
    // A chunk has no ancestors along REPLIES_TO, so its branch is itself.
    branchTokens: chunk.tokenCount,
    contentHash: createHash('sha256').update(chunk.content).digest('hex').slice(0, 32),
    parentId: null,
    model: parent.model,
    traceId: parent.traceId,
    metadata: {},
    edited: false,
    deleted: false,
    editHistory: [],
    isChunk: true,
    chunkIndex: options.index,
    chunkParentId: parent.id,
  };
}
