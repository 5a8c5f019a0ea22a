import type { InstanceSummary, PartitionSummary } from './management-types';

/** Adds up instance figures per partition, by partition name (both adapters list partitions this way). */
export function summarizePartitions(instances: readonly InstanceSummary[]): PartitionSummary[] {
  const partitions = new Map<string, PartitionSummary>();
  for (const instance of instances) {
    const summary = partitions.get(instance.partition) ?? {
      partition: instance.partition,
      instances: 0,
      messages: 0,
      tokens: 0,
      lastActivity: null,
    };
    summary.instances += 1;
    summary.messages += instance.messages;
    summary.tokens += instance.tokens;
    if (instance.lastActivity !== null) {
      summary.lastActivity = Math.max(summary.lastActivity ?? 0, instance.lastActivity);
    }
    partitions.set(instance.partition, summary);
  }
  return [...partitions.values()].sort((a, b) => compareText(a.partition, b.partition));
}

/** Code-point order, the order both stores sort names in. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
