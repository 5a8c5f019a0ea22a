import { parseArgs } from 'node:util';
import { MAINTENANCE_JOBS, type MaintenanceJob } from '../memory/maintenance/maintenance-runner';

/** A command line the CLI understood. */
export type Command =
  | { name: 'start' }
  | { name: 'help' }
  | { name: 'search'; partition: string; instance: string; query: string; limit: number }
  | { name: 'view'; partition: string; instance: string; limit: number }
  | { name: 'thread'; partition: string; instance: string; messageId: string }
  | { name: 'export'; partition?: string; instance?: string; out?: string; embeddings: boolean }
  | { name: 'import'; file: string }
  | { name: 'stats' }
  | { name: 'purge'; partition: string; instance: string; messageId?: string; yes: boolean }
  | { name: 'maintain'; jobs: MaintenanceJob[]; partition?: string; instance?: string }
  | { name: 'topics'; partition: string; instance: string };

/** A parsed command line: the command and how to print its result. */
export interface ParsedCommand {
  command: Command;
  json: boolean;
}

/** A command line that does not parse; the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** What `memory-proxy help` prints. */
export const USAGE = `Usage: memory-proxy [command] [options]

Commands:
  start                                     start the proxy (the default)
  search <partition> <instance> <query>     hybrid search, as the proxy retrieves context [--limit N]
  view <partition> <instance>               the most recent turns [--limit N]
  thread <partition> <instance> <message>   the conversation from its root to a message
  export                                    every node and relationship as JSON Lines, topics and
                                            period summaries included [--partition P [--instance I]]
                                            [--out FILE] [--no-embeddings: no vectors, no topics]
  import <file>                             import JSON Lines (- reads stdin); importing twice changes nothing
  stats                                     store-wide figures
  purge <partition> <instance>              delete an instance for good [--message ID: only that turn] [--yes]
  maintain                                  run the background jobs now: orphan cleanup, retention,
                                            topics, period summaries [--jobs topics,periods]
                                            [--partition P [--instance I]]
  topics <partition> <instance>             the topics of an instance with their summaries

Options:
  --json    machine-readable output
  --help    this text

The store is the one the proxy uses: NEO4J_URI (Neo4j) or DATA_DIR (the embedded store).`;

/** Parses argv (without node and the script). */
export function parseCommand(argv: string[]): ParsedCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        yes: { type: 'boolean', short: 'y', default: false },
        'no-embeddings': { type: 'boolean', default: false },
        limit: { type: 'string' },
        partition: { type: 'string' },
        instance: { type: 'string' },
        message: { type: 'string' },
        out: { type: 'string', short: 'o' },
        jobs: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const json = values.json === true;
  if (values.help) return { command: { name: 'help' }, json };
  const [name = 'start', ...rest] = positionals;
  const take = (count: number, usage: string): string[] => {
    if (rest.length !== count) throw new UsageError(`${name} takes ${usage}`);
    return rest;
  };
  switch (name) {
    case 'start':
      take(0, 'no arguments');
      return { command: { name: 'start' }, json };
    case 'help':
      return { command: { name: 'help' }, json };
    case 'search': {
      const [partition, instance, ...words] = rest;
      if (!partition || !instance || words.length === 0)
        throw new UsageError('search takes <partition> <instance> <query>');
      return {
        command: {
          name,
          partition,
          instance,
          query: words.join(' '),
          limit: limitOf(values.limit, 10),
        },
        json,
      };
    }
    case 'view': {
      const [partition, instance] = take(2, '<partition> <instance>');
      return {
        command: {
          name,
          partition: partition!,
          instance: instance!,
          limit: limitOf(values.limit, 20),
        },
        json,
      };
    }
    case 'thread': {
      const [partition, instance, messageId] = take(3, '<partition> <instance> <message-id>');
      return {
        command: { name, partition: partition!, instance: instance!, messageId: messageId! },
        json,
      };
    }
    case 'export':
      take(0, 'options only: [--partition P [--instance I]] [--out FILE] [--no-embeddings]');
      if (values.instance !== undefined && values.partition === undefined)
        throw new UsageError('export --instance needs --partition');
      return {
        command: {
          name,
          partition: values.partition,
          instance: values.instance,
          out: values.out,
          embeddings: values['no-embeddings'] !== true,
        },
        json,
      };
    case 'import': {
      const [file] = take(1, '<file> (or - for stdin)');
      return { command: { name, file: file! }, json };
    }
    case 'stats':
      take(0, 'no arguments');
      return { command: { name }, json };
    case 'purge': {
      const [partition, instance] = take(2, '<partition> <instance> [--message ID]');
      return {
        command: {
          name,
          partition: partition!,
          instance: instance!,
          messageId: values.message,
          yes: values.yes === true,
        },
        json,
      };
    }
    case 'maintain':
      take(0, 'options only: [--jobs topics,periods] [--partition P [--instance I]]');
      if (values.instance !== undefined && values.partition === undefined)
        throw new UsageError('maintain --instance needs --partition');
      return {
        command: {
          name,
          jobs: jobsOf(values.jobs),
          partition: values.partition,
          instance: values.instance,
        },
        json,
      };
    case 'topics': {
      const [partition, instance] = take(2, '<partition> <instance>');
      return { command: { name, partition: partition!, instance: instance! }, json };
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(name)}`);
  }
}

function limitOf(raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const limit = Number(raw);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 10_000)
    throw new UsageError('--limit takes a whole number from 1 to 10000');
  return limit;
}

function jobsOf(raw: string | undefined): MaintenanceJob[] {
  if (raw === undefined) return [...MAINTENANCE_JOBS];
  const jobs = raw.split(',').map((job) => job.trim());
  for (const job of jobs) {
    if (!(MAINTENANCE_JOBS as readonly string[]).includes(job))
      throw new UsageError(`--jobs takes ${MAINTENANCE_JOBS.join(', ')} (comma-separated)`);
  }
  return jobs as MaintenanceJob[];
}
