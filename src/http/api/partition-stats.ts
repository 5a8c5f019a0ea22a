import type { MemoryStore } from '../../store/memory-store';

/** Turns counted per store call. */
const PAGE = 1_000;

function iso(time: number): string {
  return new Date(time).toISOString();
}

/**
 * The figures of /stats for a key confined to some partitions: the same fields, added up over
 * its own instances only. What only the whole store can tell (its size, node and relationship
 * counts, tool calls) is null, so nothing about other partitions shows.
 */
export async function partitionStatsJson(
  store: MemoryStore,
  input: { partitions: string[]; since: number; backgroundPending: number },
) {
  const instances = (
    await Promise.all(input.partitions.map((partition) => store.listInstances(partition)))
  ).flat();
  const active = instances.filter(
    (instance) => instance.lastActivity !== null && instance.lastActivity >= input.since,
  );
  let messagesToday = 0;
  for (const instance of active) {
    for (let afterSeq = 0; ;) {
      const page = await store.listMessages(instance, {
        afterSeq,
        fromTime: input.since,
        limit: PAGE,
      });
      messagesToday += page.length;
      if (page.length < PAGE) break;
      afterSeq = page.at(-1)!.seq;
    }
  }
  return {
    object: 'memory.stats',
    store: { kind: store.kind, size_bytes: null, nodes: null, relationships: null },
    partitions: new Set(instances.map((instance) => instance.partition)).size,
    instances: instances.length,
    active_instances: active.length,
    messages_today: messagesToday,
    messages: instances.reduce((total, instance) => total + instance.messages, 0),
    tokens: instances.reduce((total, instance) => total + instance.tokens, 0),
    tool_calls: null,
    today_since: iso(input.since),
    background_pending: input.backgroundPending,
  };
}
