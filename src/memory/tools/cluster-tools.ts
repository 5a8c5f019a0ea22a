import { loadMessages, requireMessage } from './load-messages';
import { messageItem } from './message-item';
import { parsePeriod } from './parse-period';
import type { MemoryToolContext, ToolHandler } from './tool-handler';
import type { ToolOutput } from './fit-result';
import { ToolError } from './tool-error';

/** A cluster id of the memory index: the run of turns with seq fromSeq..toSeq ("c:" optional). */
const CLUSTER_ID = /^(?:c:)?(\d{1,15})-(\d{1,15})$/i;

/** get_cluster and get_period_messages. */
export const clusterTools: Record<string, ToolHandler> = {
  get_cluster: async (context, args) => {
    const id = (args['cluster_id'] as string).trim();
    const limit = (args['limit'] as number | undefined) ?? 20;
    const range = CLUSTER_ID.exec(id);
    return range
      ? seqRange(context, { from: Number(range[1]), to: Number(range[2]), limit })
      : linkedTurns(context, id, limit);
  },

  get_period_messages: async (context, args) => {
    const limit = (args['limit'] as number | undefined) ?? 20;
    const period = parsePeriod(args['period'], context.now());
    const turns = await context.store.listMessages(context.scope, {
      fromTime: period.start,
      toTime: period.end,
      limit: limit + 1,
    });
    const next = turns[limit];
    const fields: Record<string, unknown> = {
      period: { start: iso(period.start), end: iso(period.end) },
    };
    if (next) fields['next_start'] = iso(next.timestamp);
    if (turns.length === 0) fields['note'] = 'no messages were stored in this period';
    return {
      fields,
      lists: [{ key: 'messages', pageWith: 'get_messages_by_ids' }],
      items: turns.slice(0, limit).map((turn) => messageItem(turn, 'messages')),
    };
  },
};

/** The turns with seq from..to, oldest first, and the cluster id of the rest when there are more. */
async function seqRange(
  context: MemoryToolContext,
  range: { from: number; to: number; limit: number },
): Promise<ToolOutput> {
  const { from, to, limit } = range;
  if (from > to)
    throw new ToolError(
      `cluster c:${from}-${to} ends before it starts; a cluster id is c:<fromSeq>-<toSeq> with fromSeq <= toSeq`,
    );
  const turns = await context.store.listMessages(context.scope, {
    afterSeq: from - 1,
    beforeSeq: to + 1,
    limit: limit + 1,
  });
  if (turns.length === 0) {
    throw new ToolError(
      `no stored messages have sequence numbers ${from}-${to}; use a cluster id from the memory index`,
    );
  }
  const next = turns[limit];
  const fields: Record<string, unknown> = { cluster_id: `c:${from}-${to}` };
  if (next) fields['next_cluster_id'] = `c:${next.seq}-${to}`;
  return {
    fields,
    lists: [{ key: 'messages', pageWith: 'get_messages_by_ids' }],
    items: turns.slice(0, limit).map((turn) => messageItem(turn, 'messages')),
  };
}

/** A message and the turns its SYNAPSE links lead to, strongest first. */
async function linkedTurns(
  context: MemoryToolContext,
  id: string,
  limit: number,
): Promise<ToolOutput> {
  const centre = await requireMessage(context, id).catch((error: unknown) => {
    if (!(error instanceof ToolError)) throw error;
    throw new ToolError(
      `${JSON.stringify(id)} is neither a cluster id (c:<fromSeq>-<toSeq>, from the memory index) nor a stored message id`,
    );
  });
  const synapses = await context.store.getSynapses(context.scope, centre.id);
  const scores = new Map<string, number>();
  for (const synapse of synapses) {
    const other = synapse.fromId === centre.id ? synapse.toId : synapse.fromId;
    if (!scores.has(other)) scores.set(other, synapse.score);
  }
  const linked = (await loadMessages(context, [...scores.keys()]))
    .filter((turn) => !turn.isChunk)
    .slice(0, Math.max(0, limit - 1));
  return {
    fields: {
      cluster_id: centre.id,
      links: linked.map((turn) => ({ id: turn.id, score: round(scores.get(turn.id) ?? 0) })),
    },
    lists: [{ key: 'messages', pageWith: 'get_messages_by_ids' }],
    items: [centre, ...linked].map((turn) => messageItem(turn, 'messages')),
  };
}

function iso(time: number): string {
  return new Date(time).toISOString();
}

function round(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}
