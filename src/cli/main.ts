import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import { createInterface } from 'node:readline/promises';
import { ConfigError, loadConfig, type Config } from '../config/load-config';
import { ProxyError } from '../errors';
import { openStore } from '../store/open-store';
import { parseCommand, USAGE, UsageError, type ParsedCommand } from './parse-command';
import { createProgress } from './progress';
import type { CliDeps } from './run-command';

/**
 * `memory-proxy <command>`: the proxy itself (`start`, the default) and tools to look into and
 * manage its memory from a shell. Like src/main.ts, the only other reader of process.env, it
 * opens the store the environment names.
 */
async function main(): Promise<number | null> {
  let parsed: ParsedCommand;
  try {
    parsed = parseCommand(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`memory-proxy: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  const { command, json } = parsed;
  if (command.name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command.name === 'start') {
    // The server's own entry point: it reads the environment, listens and handles signals.
    await import('../main');
    return null;
  }
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return fail(`invalid configuration: ${error.message}`, json);
  }
  let store;
  try {
    store = await openStore(config);
  } catch (error) {
    const where = config.neo4j
      ? `Neo4j at ${config.neo4j.uri}`
      : `the embedded store in ${config.dataDir}`;
    return fail(`cannot open ${where}: ${(error as Error).message}`, json);
  }
  try {
    // Loaded once the command is known, so --help and usage errors answer at once.
    const { runCommand } = await import('./run-command');
    const result = await runCommand(cliDeps({ store, config }), command);
    if (result)
      process.stdout.write(json ? `${JSON.stringify(result.json, null, 2)}\n` : `${result.text}\n`);
    return 0;
  } catch (error) {
    if (error instanceof ProxyError) return fail(error.message, json, error);
    throw error;
  } finally {
    await store.close();
  }
}

function cliDeps(options: { store: CliDeps['store']; config: Config }): CliDeps {
  return {
    store: options.store,
    // Only search embeds; the embedder's tables are not worth loading for anything else.
    embedder: async () =>
      (await import('../embeddings/create-embedder')).createEmbedder(options.config),
    now: Date.now,
    openOutput(file) {
      if (file === undefined) return { stream: process.stdout, close: async () => undefined };
      const stream = createWriteStream(file);
      return {
        stream,
        close: async () => {
          stream.end();
          await finished(stream);
        },
      };
    },
    openInput(file) {
      if (file === '-') return process.stdin;
      if (!existsSync(file))
        throw new ProxyError(`no such file: ${file}`, {
          status: 400,
          type: 'invalid_request_error',
          code: 'file_not_found',
        });
      return createReadStream(file);
    },
    progress: (label) => createProgress(process.stderr, label),
    async maintenance() {
      const { createMaintenance } = await import('../app');
      const { createLogger } = await import('../logger');
      return createMaintenance({
        config: options.config,
        store: options.store,
        logger: createLogger(options.config.logLevel),
      });
    },
    async confirm(question) {
      // Nobody to ask (a script, a pipe): the command line said what to do.
      if (!process.stdin.isTTY || !process.stderr.isTTY) return true;
      const prompt = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return /^y(es)?$/i.test((await prompt.question(question)).trim());
      } finally {
        prompt.close();
      }
    },
  };
}

/** Reports a failure on stderr (as OpenAI-shaped JSON with --json) and gives exit code 1. */
function fail(message: string, json: boolean, error?: ProxyError): number {
  const body = error
    ? error.toJSON()
    : { error: { message, type: 'cli_error', param: null, code: null } };
  process.stderr.write(json ? `${JSON.stringify(body)}\n` : `memory-proxy: ${message}\n`);
  return 1;
}

main().then(
  (code) => {
    if (code !== null) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`memory-proxy: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
