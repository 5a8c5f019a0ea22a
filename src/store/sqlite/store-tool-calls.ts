import { newId } from '../../ids';
import { NotFoundError } from '../../errors';
import type { NewToolCall, Scope, StoredToolCall } from '../types';
import { toStoredToolCall } from './message-row';
import { scopeParams } from './scope-sql';
import type { Statements } from './statements';

/**
 * Stores tool calls `CALLED_BY` a message (run inside a transaction). A call id the message
 * already has returns the stored call, so a retried request stores nothing twice.
 */
export function storeToolCalls(options: {
  statements: Statements;
  scope: Scope;
  messageId: string;
  calls: NewToolCall[];
  now: number;
}): StoredToolCall[] {
  const { statements, scope, messageId, calls, now } = options;
  const params = scopeParams(scope);
  if (statements.messageById.get({ id: messageId, ...params }) === undefined) {
    throw new NotFoundError(`turn ${messageId} does not exist in this scope`, 'messageId');
  }
  return calls.map((call) => {
    const row = statements.insertToolCall.get({
      id: newId(),
      messageId,
      callId: call.callId,
      toolName: call.toolName,
      timestamp: call.timestamp ?? now,
      tokenCount: call.tokenCount,
      durationMs: call.durationMs ?? null,
      arguments: call.arguments,
      result: call.result,
      ...params,
    });
    if (row === undefined) throw new Error('insert returned no row');
    return toStoredToolCall(row);
  });
}
