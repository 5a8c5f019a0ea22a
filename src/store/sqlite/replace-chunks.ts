import { createHash } from 'node:crypto';
import { newId } from '../../ids';
import { NotFoundError } from '../../errors';
import type { Scope, StoredMessage } from '../types';
import { makeSnippet } from '../../text/snippet';
import { insertMessageRow, toStoredMessage } from './message-row';
import { scopeParams } from './scope-sql';
import type { Statements } from './statements';

/**
 * Replaces the chunks of a long turn (run inside a transaction): old chunk rows and their
 * links go, new ones come in order. Chunks sit outside the conversation tree (no parent, seq
 * 0) and inherit the role, timestamp, model and trace of the turn they are `CHUNK_OF`.
 */
export function replaceChunks(options: {
  statements: Statements;
  scope: Scope;
  parentId: string;
  chunks: { content: string; tokenCount: number }[];
  /** The parent's content hash the chunks were cut from: none are stored if it changed since. */
  parentHash?: string | undefined;
}): StoredMessage[] {
  const { statements, scope, parentId, chunks } = options;
  const params = scopeParams(scope);
  const parent = statements.messageById.get({ id: parentId, ...params });
  if (parent === undefined || parent.is_chunk === 1) {
    throw new NotFoundError(`turn ${parentId} does not exist in this scope`, 'parentId');
  }
  if (options.parentHash !== undefined && parent.content_hash !== options.parentHash) return [];
  statements.deleteChunkEdges.run({ parentId, ...params });
  statements.deleteChunks.run({ parentId, ...params });
  return chunks.map((chunk, index) => {
    const row = insertMessageRow(statements, {
      id: newId(),
      role: parent.role,
      seq: 0,
      timestamp: parent.timestamp,
      tokenCount: chunk.tokenCount,
      // A chunk has no ancestors along REPLIES_TO, so its branch is itself.
      branchTokens: chunk.tokenCount,
      contentHash: createHash('sha256').update(chunk.content).digest('hex').slice(0, 32),
      parentId: null,
      model: parent.model,
      traceId: parent.trace_id,
      isChunk: 1,
      chunkIndex: index,
      chunkParentId: parent.id,
      snippet: makeSnippet(chunk.content),
      metadata: '{}',
      content: chunk.content,
      raw: JSON.stringify({ role: parent.role, content: chunk.content }),
      ...params,
    });
    return toStoredMessage(row);
  });
}
