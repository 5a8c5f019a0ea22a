import { NotFoundError } from '../../errors';
import { idFactory } from '../../ids';
import { repeatedTurn } from '../repeated-turn';
import type { AppendedTurn, NewMessage, Scope } from '../types';
import { makeSnippet } from '../../text/snippet';
import { insertMessageRow, toStoredMessage, type MessageRow } from './message-row';
import { scopeParams } from './scope-sql';
import type { Statements } from './statements';

// Monotonic ids draw fresh randomness once per millisecond and count up within it: a ULID with
// fresh random characters for every turn cost more than the rest of storing a turn.
const nextId = idFactory();

/** What appendPath stores: a path of turns below `parentId` (null: a new root). */
export interface AppendPathInput {
  parentId: string | null;
  messages: NewMessage[];
}

/** Stores a path of turns; see createAppendPath. */
export type AppendPath = (scope: Scope, input: AppendPathInput) => AppendedTurn[];

/**
 * Builds appendPath. Run it in a transaction that took the write lock before it began (BEGIN
 * IMMEDIATE, as GroupCommit opens them): holding the lock over the dedupe lookup is what keeps
 * two processes from both missing the same child and storing it twice, and from handing out the
 * same seq. It opens no transaction of its own: nested in the caller's, one would be a savepoint,
 * whose journal grows with every page a bulk append changes.
 */
export function createAppendPath(options: {
  statements: Statements;
  clock: () => number;
}): AppendPath {
  const { statements, clock } = options;
  return (scope: Scope, input: AppendPathInput): AppendedTurn[] => {
    const params = scopeParams(scope);
    let parent: MessageRow | null = null;
    if (input.parentId !== null) {
      parent = statements.messageById.get({ id: input.parentId, ...params }) ?? null;
      if (parent === null || parent.is_chunk === 1) {
        throw new NotFoundError(`turn ${input.parentId} does not exist in this scope`, 'parentId');
      }
    }
    const now = clock();
    const turns: AppendedTurn[] = [];
    for (const message of input.messages) {
      // Once one turn is new, so is every later one (a turn stored just now has no children):
      // a bulk append looks up only until the path leaves what is stored.
      const existing = turns.at(-1)?.created
        ? undefined
        : statements.existingChild.get({
            parentId: parent?.id ?? null,
            role: message.role,
            contentHash: message.contentHash,
            ...params,
          });
      if (existing !== undefined) {
        turns.push({ message: toStoredMessage(existing), created: false });
        parent = existing;
        continue;
      }
      const row = insertTurn({
        statements,
        params,
        parent,
        message,
        timestamp: message.timestamp ?? now,
      });
      turns.push({ message: toStoredMessage(row), created: true });
      parent = row;
    }
    return turns;
  };
}

function insertTurn(options: {
  statements: Statements;
  params: { partition: string; instance: string };
  parent: MessageRow | null;
  message: NewMessage;
  timestamp: number;
}): MessageRow {
  const { statements, params, parent, message, timestamp } = options;
  const seq = statements.nextSeq.get(params);
  if (seq === undefined) throw new Error('instance counter returned no sequence number');
  const row = insertMessageRow(statements, {
    id: nextId(),
    role: message.role,
    seq,
    timestamp,
    tokenCount: message.tokenCount,
    branchTokens: (parent?.branch_tokens ?? 0) + message.tokenCount,
    contentHash: message.contentHash,
    parentId: parent?.id ?? null,
    model: message.model ?? null,
    traceId: message.traceId ?? null,
    isChunk: 0,
    chunkIndex: null,
    chunkParentId: null,
    snippet: makeSnippet(message.content),
    metadata: JSON.stringify(message.metadata ?? {}),
    content: message.content,
    raw: JSON.stringify(message.raw),
    ...params,
  });
  if (message.role === 'assistant' && parent?.role === 'user') {
    statements.insertEdge.run({
      type: 'RESPONDED_WITH',
      fromId: parent.id,
      toId: row.id,
      score: 1,
      ...params,
    });
  }
  return row;
}

/**
 * Builds continueLatest on top of `appendPath`, to run in the same kind of transaction: the
 * latest turn is read under the write lock, so a message and its retry sent at once store it
 * once.
 */
export function createContinueLatest(options: {
  statements: Statements;
  appendPath: AppendPath;
}): (scope: Scope, message: NewMessage) => AppendedTurn {
  const { statements, appendPath } = options;
  return (scope: Scope, message: NewMessage): AppendedTurn => {
    const params = scopeParams(scope);
    const latestRow = statements.latestTurn.get(params);
    const latest = latestRow === undefined ? null : toStoredMessage(latestRow);
    const questionRow =
      latest?.role === 'assistant' && latest.parentId !== null
        ? statements.messageById.get({ id: latest.parentId, ...params })
        : undefined;
    const question = questionRow === undefined ? null : toStoredMessage(questionRow);
    const repeated = repeatedTurn(latest, question, message);
    if (repeated !== null) return { message: repeated, created: false };
    return appendPath(scope, { parentId: latest?.id ?? null, messages: [message] })[0]!;
  };
}
