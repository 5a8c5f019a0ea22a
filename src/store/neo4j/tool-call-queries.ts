import { NotFoundError } from '../../errors';
import type { NewToolCall, Scope, StoredToolCall } from '../types';
import { projectToolCall, toStoredToolCall, toToolCallProperties } from './map-record';
import type { Neo4jRunner } from './neo4j-runner';
import { lockInstance, scopeParams, type ScopedRunner } from './scope-params';

/** Inputs of addToolCalls. */
export interface AddToolCallsOptions {
  runner: Neo4jRunner;
  scope: Scope;
  messageId: string;
  calls: NewToolCall[];
  clock: () => number;
  newId: () => string;
}

// A call the message already has keeps what it has, except that a result learned later (a
// client tool's answer) fills in a missing one.
const UPDATE_EXISTING = `
MATCH (t:ToolCall {partition: $partition, instance: $instance, message_id: $messageId})
WHERE t.call_id = $callId
WITH t ORDER BY t.id LIMIT 1
SET t.result = coalesce(t.result, $result)
RETURN ${projectToolCall('t')} AS call`;

const CREATE_CALL = `
MATCH (message:Message {id: $messageId, partition: $partition, instance: $instance})
CREATE (t:ToolCall)-[:CALLED_BY]->(message)
SET t = $row
RETURN ${projectToolCall('t')} AS call`;

/**
 * Stores tool calls CALLED_BY a message in one transaction, under the instance lock so two
 * writers cannot both store the same call id; returns the stored calls in the order given.
 */
export async function addToolCalls(options: AddToolCallsOptions): Promise<StoredToolCall[]> {
  const { runner, scope, messageId, calls } = options;
  if (calls.length === 0) return [];
  const params = { messageId, ...scopeParams(scope) };
  return runner.writeTransaction(async (transaction) => {
    await lockInstance(transaction, scope);
    const found = await transaction.run(
      'MATCH (m:Message {id: $messageId, partition: $partition, instance: $instance}) RETURN m.id AS id',
      params,
    );
    if (!found[0])
      throw new NotFoundError(`turn ${messageId} does not exist in this scope`, 'messageId');
    const now = options.clock();
    const rows = calls.map((call) =>
      toToolCallProperties({
        id: options.newId(),
        ...scopeParams(scope),
        callId: call.callId,
        toolName: call.toolName,
        arguments: call.arguments,
        result: call.result,
        timestamp: call.timestamp ?? now,
        messageId,
        tokenCount: call.tokenCount,
        durationMs: call.durationMs ?? null,
      }),
    );
    const stored: StoredToolCall[] = [];
    for (const row of rows) {
      // Looked up call by call, so a batch that repeats a call id sees its own first insert.
      const lookup = { callId: row['call_id'], result: row['result'], ...params };
      const existing = await transaction.run(UPDATE_EXISTING, lookup);
      const result = existing[0]
        ? existing
        : await transaction.run(CREATE_CALL, { row, ...params });
      if (result[0]) stored.push(toStoredToolCall(result[0]['call']));
    }
    return stored;
  });
}

/** One tool call by id, or null. */
export async function getToolCall(
  scoped: ScopedRunner,
  id: string,
): Promise<StoredToolCall | null> {
  const { runner, scope } = scoped;
  const rows = await runner.read(
    `MATCH (t:ToolCall {id: $id}) WHERE t.partition = $partition AND t.instance = $instance
     RETURN ${projectToolCall('t')} AS call`,
    { id, ...scopeParams(scope) },
  );
  return rows[0] ? toStoredToolCall(rows[0]['call']) : null;
}

/** The tool calls of a message, oldest first. */
export async function getToolCallsByMessage(
  scoped: ScopedRunner,
  messageId: string,
): Promise<StoredToolCall[]> {
  const { runner, scope } = scoped;
  const rows = await runner.read(
    `MATCH (t:ToolCall {partition: $partition, instance: $instance, message_id: $messageId})
     RETURN ${projectToolCall('t')} AS call ORDER BY t.timestamp, t.id`,
    { messageId, ...scopeParams(scope) },
  );
  return rows.map((row) => toStoredToolCall(row['call']));
}
