import type { PurgeResult } from '../management-types';
import { toNumber } from './map-record';
import { deleteChunks, dropSummaries, requireTurn, shiftDescendants } from './edit-message';
import { integerParam, lockInstance, scopeParams, type ScopedRunner } from './scope-params';

/** Nodes deleted per transaction when purging an instance, so a huge one never builds one huge transaction. */
const PURGE_BATCH = 2_000;

/**
 * Deletes a turn for good in one transaction: DETACH DELETE of the turn, its chunks and its tool
 * calls takes every relationship and vector and full-text index entry along. Its children reply
 * to its parent from then on and the branch totals below it drop by its tokens.
 */
export async function purgeMessage(scoped: ScopedRunner, id: string): Promise<PurgeResult> {
  const { runner, scope } = scoped;
  const params = { id, ...scopeParams(scope) };
  return runner.writeTransaction(async (transaction) => {
    await lockInstance(transaction, scope);
    const turn = await requireTurn(transaction, { scope, id, action: 'purge' });
    await shiftDescendants(transaction, { scope, id, delta: -turn.tokenCount });
    await transaction.run(
      `MATCH (child:Message)-[link:REPLIES_TO]->(m:Message {id: $id, partition: $partition, instance: $instance})
       WHERE child.partition = $partition AND child.instance = $instance
       OPTIONAL MATCH (m)-[:REPLIES_TO]->(parent:Message)
       FOREACH (_ IN CASE WHEN parent IS NULL THEN [] ELSE [1] END | CREATE (child)-[:REPLIES_TO]->(parent))
       DELETE link`,
      params,
    );
    const chunks = await deleteChunks(transaction, { scope, id });
    const calls = await transaction.run(
      `MATCH (t:ToolCall {partition: $partition, instance: $instance, message_id: $id})
       WITH collect(t) AS calls
       FOREACH (call IN calls | DETACH DELETE call)
       RETURN size(calls) AS count`,
      params,
    );
    await transaction.run(
      'MATCH (m:Message {id: $id, partition: $partition, instance: $instance}) DETACH DELETE m',
      params,
    );
    await dropSummaries(transaction, scope);
    return { messages: 1 + chunks, toolCalls: toNumber(calls[0]?.['count']) ?? 0 };
  });
}

/** Deletes every node of an instance (and so every relationship), batch by batch. */
export async function purgeInstance(scoped: ScopedRunner): Promise<PurgeResult> {
  const { runner, scope } = scoped;
  const params = { batch: integerParam(PURGE_BATCH), ...scopeParams(scope) };
  const drain = async (match: string): Promise<number> => {
    let total = 0;
    for (;;) {
      const rows = await runner.write(
        `${match} WITH n LIMIT $batch WITH collect(n) AS nodes
         FOREACH (node IN nodes | DETACH DELETE node) RETURN size(nodes) AS count`,
        params,
      );
      const count = toNumber(rows[0]?.['count']) ?? 0;
      total += count;
      if (count < PURGE_BATCH) return total;
    }
  };
  const toolCalls = await drain(
    'MATCH (n:ToolCall {partition: $partition, instance: $instance}) WHERE n.message_id IS NOT NULL',
  );
  const messages = await drain(
    'MATCH (n:Message {partition: $partition, instance: $instance}) WHERE n.seq >= 0',
  );
  await drain('MATCH (n:CoreMemory {partition: $partition, instance: $instance})');
  await drain('MATCH (n:Summary {partition: $partition, instance: $instance})');
  await drain('MATCH (n:Topic {partition: $partition, instance: $instance})');
  await drain('MATCH (n:PeriodSummary {partition: $partition, instance: $instance})');
  await drain('MATCH (n:Instance {partition: $partition, instance: $instance})');
  return { messages, toolCalls };
}
