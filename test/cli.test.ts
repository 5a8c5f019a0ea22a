import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../src/embeddings/local-embedder';
import type { MemoryStore } from '../src/store/memory-store';
import { SqliteStore } from '../src/store/sqlite/sqlite-store';
import type { Scope } from '../src/store/types';
import { exportJsonLines } from '../src/memory/export-import';
import { neo4jTestConfig, storeFactories, TEST_DIMENSIONS } from './support/stores';
import { turn } from './store/contract-fixtures';

const ROOT = path.resolve(import.meta.dirname, '..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (or until `until` sees its output), in the repository, with the given environment. */
function run(
  command: string,
  args: string[],
  options: { env: Record<string, string>; until?: (stderr: string) => boolean },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (options.until?.(stderr)) child.kill('SIGTERM');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `npx tsx src/cli/main.ts <args>`, as a user would run the CLI from a checkout. */
const cli = (env: Record<string, string>, ...args: string[]) =>
  run('npx', ['tsx', 'src/cli/main.ts', ...args], { env });
async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const line of lines) all.push(line);
  return all;
}

const json = (result: Run) => {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
};

/** A store of the kind `name` and the environment a CLI process needs to open the same one. */
async function openTarget(
  name: 'sqlite' | 'neo4j',
): Promise<{ store: MemoryStore; env: Record<string, string> }> {
  if (name === 'sqlite') {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'memory-proxy-cli-'));
    const store = new SqliteStore({ dataDir });
    await store.init({ embeddingDimensions: TEST_DIMENSIONS });
    return { store, env: { DATA_DIR: dataDir } };
  }
  const config = neo4jTestConfig()!;
  const factory = storeFactories().find((each) => each.name === 'neo4j')!;
  return {
    store: await factory.create(),
    env: {
      NEO4J_URI: config.uri,
      NEO4J_USER: config.user,
      NEO4J_PASSWORD: config.password,
      NEO4J_DATABASE: config.database,
    },
  };
}

async function seed(store: MemoryStore, scope: Scope, word: string) {
  const turns = (
    await store.appendPath(scope, {
      parentId: null,
      messages: [
        turn('user', `Where did I leave the ${word}?`),
        turn('assistant', 'In the kitchen drawer.'),
        turn('user', 'Thanks!'),
        turn('assistant', 'Any time.'),
      ],
    })
  ).map((appended) => appended.message);
  const vectors = await new LocalEmbedder({ dimensions: TEST_DIMENSIONS }).embed(
    turns.map((each) => each.content),
  );
  await store.setEmbeddings(
    scope,
    turns.map((each, index) => ({
      kind: 'message' as const,
      id: each.id,
      vector: vectors[index]!,
    })),
  );
  return turns;
}

describe('memory-proxy CLI', () => {
  it.concurrent('views, threads, searches and shows stats with --json (sqlite)', async () => {
    const { store, env } = await openTarget('sqlite');
    const scope = { partition: `cli-${ulid()}`, instance: 'notes' };
    // A real word: the local embedder put a random one (w + a ULID) under the vector floor from
    // its own sentence about once in 1,500, and the search then found it by full text only.
    const word = 'umbrella';
    try {
      const turns = await seed(store, scope, word);
      const file = path.join(env['DATA_DIR']!, 'export.jsonl');
      const [view, thread, search, stats, exported] = await Promise.all([
        cli(env, 'view', scope.partition, scope.instance, '--limit', '3', '--json'),
        cli(env, 'thread', scope.partition, scope.instance, turns[2]!.id, '--json'),
        cli(env, 'search', scope.partition, scope.instance, word, '--json'),
        cli(env, 'stats', '--json'),
        cli(env, 'export', '--out', file, '--json'),
      ]);
      expect(json(view).data.map((message: { seq: number }) => message.seq)).toEqual([2, 3, 4]);
      expect(json(thread).data.map((message: { id: string }) => message.id)).toEqual(
        turns.slice(0, 3).map((each) => each.id),
      );
      // The whole answer on failure: which turns came back, by which retriever, with what score.
      expect(json(search).data[0], search.stdout).toMatchObject({
        message: { id: turns[0]!.id },
        matched_by: expect.arrayContaining(['fulltext', 'vector']),
      });
      expect(json(stats)).toMatchObject({
        object: 'memory.stats',
        store: { kind: 'sqlite' },
        partitions: 1,
        instances: 1,
        messages: 4,
      });
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
      expect(json(exported)).toEqual({
        object: 'memory.export',
        records: lines.length - 1,
        out: file,
      });
      expect(lines.filter((line) => JSON.parse(line).type === 'Message')).toHaveLength(4);
    } finally {
      await store.close();
    }
  });

  for (const factory of storeFactories()) {
    it.concurrent(
      `runs the background jobs for a partition and lists the topics, with --json (${factory.name})`,
      async () => {
        const { store, env } = await openTarget(factory.name);
        const scope = { partition: `cli-${ulid()}`, instance: 'notes' };
        try {
          await seed(store, scope, `w${ulid().toLowerCase()}`);
          const report = json(
            await cli(
              env,
              'maintain',
              '--jobs',
              'topics,periods',
              '--partition',
              scope.partition,
              '--json',
            ),
          );
          expect(report).toMatchObject({
            object: 'memory.maintenance',
            completed: true,
            topics: { instances: 1, assigned: 4, done: true },
            periods: { instances: 1, done: true },
            retention: null,
          });
          const topics = json(await cli(env, 'topics', scope.partition, scope.instance, '--json'));
          expect(
            topics.data.reduce(
              (sum: number, topic: { messages: number }) => sum + topic.messages,
              0,
            ),
          ).toBe(4);
          const text = await cli(env, 'topics', scope.partition, scope.instance);
          expect(text.stdout).toContain(topics.data[0].id);
          const usage = await cli(env, 'maintain', '--jobs', 'everything');
          expect(usage.code).toBe(2);
        } finally {
          await store.close();
        }
      },
    );

    it.concurrent(
      `exports, purges and imports the same graph back, and purges one turn, with --json (${factory.name})`,
      async () => {
        const { store, env } = await openTarget(factory.name);
        const scope = { partition: `cli-${ulid()}`, instance: 'notes' };
        const scratch = { ...scope, instance: 'scratch' };
        try {
          await seed(store, scope, `w${ulid().toLowerCase()}`);
          const doomed = await seed(store, scratch, 'keys');
          const jobs = await cli(
            env,
            'maintain',
            '--jobs',
            'topics,periods',
            '--partition',
            scope.partition,
            '--instance',
            scope.instance,
          );
          expect(jobs.code, jobs.stderr).toBe(0);
          const [exported, purgedTurn] = await Promise.all([
            cli(env, 'export', '--partition', scope.partition, '--instance', scope.instance),
            cli(
              env,
              'purge',
              scratch.partition,
              scratch.instance,
              '--message',
              doomed[3]!.id,
              '--json',
            ),
          ]);
          expect(exported.code, exported.stderr).toBe(0);
          const lines = exported.stdout.split('\n').filter(Boolean);
          expect(lines.map((line) => JSON.parse(line).type)).toEqual(
            expect.arrayContaining(['Topic', 'PeriodSummary', 'BELONGS_TO']),
          );
          expect(
            lines
              .map((line) => JSON.parse(line).instance ?? 'header')
              .every((name) => name !== 'scratch'),
          ).toBe(true);
          expect(json(purgedTurn)).toMatchObject({
            purged: true,
            message_id: doomed[3]!.id,
            removed: { messages: 1, tool_calls: 0 },
          });
          expect((await store.listMessages(scratch, { limit: 10 })).map((each) => each.id)).toEqual(
            doomed.slice(0, 3).map((each) => each.id),
          );

          expect(
            json(await cli(env, 'purge', scope.partition, scope.instance, '--json')),
          ).toMatchObject({ purged: true, removed: { messages: 4 } });
          expect(await store.listMessages(scope, { limit: 10, includeDeleted: true })).toEqual([]);
          const file = path.join(
            mkdtempSync(path.join(tmpdir(), 'memory-proxy-cli-out-')),
            'export.jsonl',
          );
          writeFileSync(file, exported.stdout);
          expect(json(await cli(env, 'import', file, '--json'))).toMatchObject({
            object: 'memory.import',
            records: lines.length - 1,
            embeddings_dropped: false,
          });
          const again = await collect(exportJsonLines(store, scope));
          expect(again.map((line) => line.trimEnd()).sort()).toEqual([...lines].sort());
        } finally {
          await store.close();
        }
      },
    );
  }

  it.concurrent('names the line of a malformed import, and usage errors exit 2', async () => {
    const env = { DATA_DIR: mkdtempSync(path.join(tmpdir(), 'memory-proxy-cli-')) };
    const file = path.join(env.DATA_DIR, 'bad.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ type: 'header', format: 'memory-proxy-graph', version: 1, embedding_model: null })}\n{"type":"Message"\n`,
    );
    const [bad, usage] = await Promise.all([
      cli(env, 'import', file, '--json'),
      cli(env, 'view', 'only-partition'),
    ]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stderr.trim().split('\n').at(-1)!).error).toMatchObject({
      message: expect.stringMatching(/^line 2: not valid JSON/),
      code: 'invalid_import_line',
    });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('view takes <partition> <instance>');
  });

  it.concurrent(
    'starts the proxy for `start` through bin/memory-proxy.js, as npx memory-proxy does',
    async () => {
      const env = {
        DATA_DIR: mkdtempSync(path.join(tmpdir(), 'memory-proxy-cli-')),
        PORT: '0',
        UPSTREAM_BASE_URL: 'http://127.0.0.1:9/v1',
      };
      const started = await run(process.execPath, ['bin/memory-proxy.js', 'start'], {
        env,
        until: (stderr) => stderr.includes('memory-proxy listening'),
      });
      expect(started.stderr).toContain('memory-proxy listening');
      expect(started.code).toBe(0);
    },
  );
});
