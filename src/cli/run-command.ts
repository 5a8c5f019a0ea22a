import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Embedder } from '../embeddings/embedder';
import { NotFoundError } from '../errors';
import { messageJson, searchHitJson, statsJson } from '../http/api/api-json';
import { maintenanceJson, topicJson } from '../http/api/topic-json';
import { validateScopeName } from '../http/scope';
import { exportJsonLines, importJsonLines } from '../memory/export-import';
import type { MaintenanceRunner } from '../memory/maintenance/maintenance-runner';
import { retrieve } from '../memory/retrieve';
import type { MemoryStore } from '../store/memory-store';
import type { Scope, StoredMessage } from '../store/types';
import type { Command } from './parse-command';
import type { Progress } from './progress';

/** The longest thread `thread` prints. */
const MAX_THREAD = 100_000;
const DAY_MS = 86_400_000;

/** What the commands work with; main.ts builds it from the environment. */
export interface CliDeps {
  store: MemoryStore;
  /** The embedder search queries are embedded with (made on first use). */
  embedder(): Promise<Embedder>;
  now: () => number;
  /** Where an export goes: the file, or stdout when none is named. */
  openOutput(file: string | undefined): { stream: Writable; close(): Promise<void> };
  /** Where an import comes from: the file, or stdin for "-". */
  openInput(file: string): NodeJS.ReadableStream;
  /** A progress indicator for exports and imports (null: none). */
  progress(label: string): Progress | null;
  /** Asks before destroying data; true without asking when nobody can be asked. */
  confirm(question: string): Promise<boolean>;
  /** The background jobs, as the proxy runs them (made on first use). */
  maintenance(): Promise<MaintenanceRunner>;
}

/** A command's result: JSON for --json, text for people; null when the command printed its own output. */
export type CommandResult = { json: unknown; text: string } | null;

/** Runs one command (not start or help) against the store. */
export async function runCommand(
  deps: CliDeps,
  command: Exclude<Command, { name: 'start' | 'help' }>,
): Promise<CommandResult> {
  const { store } = deps;
  switch (command.name) {
    case 'search': {
      const scope = scopeOf(command);
      const [vector] = await (await deps.embedder()).embed([command.query]);
      const hits = await retrieve({
        store,
        scope,
        text: command.query,
        vector: vector ?? null,
        exclude: new Set(),
        limit: command.limit,
      });
      return {
        json: { object: 'list', data: hits.map(searchHitJson) },
        text:
          hits
            .map(
              (hit) =>
                `${hit.score.toFixed(4)}  ${turnLine(hit.message)}  (${hit.sources.join(', ')})`,
            )
            .join('\n') || 'no matches',
      };
    }
    case 'view': {
      const turns = (
        await store.listMessages(scopeOf(command), { order: 'desc', limit: command.limit })
      ).reverse();
      return turnsResult(turns);
    }
    case 'thread': {
      const scope = scopeOf(command);
      const message = await store.getMessage(scope, command.messageId);
      if (!message || message.isChunk)
        throw new NotFoundError(
          `no turn ${command.messageId} in ${scope.partition}/${scope.instance}`,
          'message',
        );
      return turnsResult(
        (await store.getBranch(scope, message.id, { limit: MAX_THREAD })).reverse(),
      );
    }
    case 'export':
      return exportCommand(deps, command);
    case 'import': {
      const progress = deps.progress('importing');
      const summary = await importJsonLines(store, deps.openInput(command.file), {
        onProgress: ({ records }) => progress?.update(records),
      });
      progress?.done(summary.records);
      const json = {
        object: 'memory.import',
        records: summary.records,
        created: summary.created,
        unchanged: summary.unchanged,
        embeddings_dropped: summary.embeddingsDropped,
      };
      const dropped = summary.embeddingsDropped
        ? '; its vectors came from another embedding model and will be made again when the proxy starts'
        : '';
      return {
        json,
        text: `imported ${summary.records} records: ${summary.created} new, ${summary.unchanged} already stored${dropped}`,
      };
    }
    case 'stats': {
      const since = Math.floor(deps.now() / DAY_MS) * DAY_MS;
      const stats = statsJson(await store.stats({ since }), { since, backgroundPending: 0 });
      const size =
        stats.store.size_bytes === null
          ? ''
          : `, ${stats.store.size_bytes.toLocaleString('en-US')} bytes`;
      const text = [
        `store: ${stats.store.kind}${size}, ${stats.store.nodes} nodes, ${stats.store.relationships} relationships`,
        `partitions: ${stats.partitions}, instances: ${stats.instances} (${stats.active_instances} active today)`,
        `messages: ${stats.messages} (${stats.messages_today} today), tokens: ${stats.tokens}, tool calls: ${stats.tool_calls}`,
      ].join('\n');
      return { json: stats, text };
    }
    case 'purge':
      return purgeCommand(deps, command);
    case 'maintain': {
      const filter = {
        partition:
          command.partition === undefined
            ? undefined
            : validateScopeName(command.partition, 'partition'),
        instance:
          command.instance === undefined
            ? undefined
            : validateScopeName(command.instance, 'instance'),
      };
      const report = await (await deps.maintenance()).run({ jobs: command.jobs, filter });
      const json = maintenanceJson(report);
      const lines = [
        json.orphans &&
          `orphans: ${json.orphans.chunks} chunks, ${json.orphans.topics} empty topics removed`,
        json.retention &&
          `retention: ${json.retention.soft_deleted} turns soft-deleted, ${json.retention.purged} purged`,
        json.topics &&
          `topics: ${json.topics.assigned} turns assigned in ${json.topics.instances} instances, ${json.topics.created} new topics`,
        json.periods && `periods: ${json.periods.periods} summaries written`,
      ];
      return { json, text: lines.filter(Boolean).join('\n') };
    }
    case 'topics': {
      const topics = (await store.listTopics(scopeOf(command))).filter(
        (topic) => topic.messages > 0,
      );
      return {
        json: { object: 'list', data: topics.map(topicJson) },
        text:
          topics
            .map(
              (topic) =>
                `${topic.id} (${topic.messages} turns) ${topic.label}\n  ${topic.summary.replace(/\n/g, '\n  ')}`,
            )
            .join('\n') || 'no topics yet (run: memory-proxy maintain --jobs topics)',
      };
    }
  }
}

async function exportCommand(
  deps: CliDeps,
  command: Extract<Command, { name: 'export' }>,
): Promise<CommandResult> {
  const partition =
    command.partition === undefined ? undefined : validateScopeName(command.partition, 'partition');
  const instance =
    command.instance === undefined ? undefined : validateScopeName(command.instance, 'instance');
  const progress = command.out === undefined ? null : deps.progress('exporting');
  let records = 0;
  const lines = exportJsonLines(deps.store, {
    partition,
    instance,
    embeddings: command.embeddings,
    onProgress: (done) => {
      records = done.records;
      progress?.update(records);
    },
  });
  const output = deps.openOutput(command.out);
  try {
    for await (const line of lines) {
      if (!output.stream.write(line)) await once(output.stream, 'drain');
    }
  } finally {
    await output.close();
  }
  progress?.done(records);
  // Without --out the lines themselves were the output.
  if (command.out === undefined) return null;
  return {
    json: { object: 'memory.export', records, out: command.out },
    text: `exported ${records} records to ${command.out}`,
  };
}

async function purgeCommand(
  deps: CliDeps,
  command: Extract<Command, { name: 'purge' }>,
): Promise<CommandResult> {
  const scope = scopeOf(command);
  const what =
    command.messageId === undefined
      ? `instance ${scope.partition}/${scope.instance}`
      : `message ${command.messageId} of ${scope.partition}/${scope.instance}`;
  if (
    !command.yes &&
    !(await deps.confirm(`Delete ${what} for good? This cannot be undone. [y/N] `))
  ) {
    return { json: { object: 'memory.purge', purged: false }, text: 'nothing purged' };
  }
  if (command.messageId === undefined) {
    const found = (await deps.store.listInstances(scope.partition)).find(
      (each) => each.instance === scope.instance,
    );
    if (!found)
      throw new NotFoundError(
        `no instance ${scope.instance} in partition ${scope.partition}`,
        'instance',
      );
  }
  const removed =
    command.messageId === undefined
      ? await deps.store.purgeInstance(scope)
      : await deps.store.purgeMessage(scope, command.messageId);
  return {
    json: {
      object: 'memory.purge',
      purged: true,
      ...scope,
      message_id: command.messageId ?? null,
      removed: { messages: removed.messages, tool_calls: removed.toolCalls },
    },
    text: `purged ${what}: ${removed.messages} messages, ${removed.toolCalls} tool calls`,
  };
}

function scopeOf(command: { partition: string; instance: string }): Scope {
  return {
    partition: validateScopeName(command.partition, 'partition'),
    instance: validateScopeName(command.instance, 'instance'),
  };
}

function turnsResult(turns: StoredMessage[]): CommandResult {
  return {
    json: { object: 'list', data: turns.map(messageJson) },
    text: turns.map(turnLine).join('\n') || 'no turns',
  };
}

/** One turn as a line for people: seq, time, role, id and the start of its text. */
function turnLine(turn: StoredMessage): string {
  const text = turn.content.replace(/\s+/g, ' ').trim();
  const shown = text.length > 160 ? `${text.slice(0, 160)}…` : text;
  return `#${turn.seq} ${new Date(turn.timestamp).toISOString()} ${turn.role} ${turn.id}: ${shown}`;
}
