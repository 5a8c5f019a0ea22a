import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { ConfigError } from './config-error';
import { loadApiKeys, type ApiKeyTable } from './load-api-keys';

/** A model's entry in the model table. */
export interface ModelInfo {
  contextWindow: number;
  /** false: the model cannot call tools, so it is offered no memory tools. */
  tools: boolean;
}

/** Neo4j connection settings; present only when NEO4J_URI is set. */
export interface Neo4jConfig {
  uri: string;
  user: string;
  password: string;
  database: string;
}

/** Everything the proxy reads from its environment, validated once at startup. */
export interface Config {
  port: number;
  host: string;
  /** Processes serving the port (WORKERS); more than 1 forks workers that share the store. */
  workers: number;
  /** Seconds an idle client connection stays open for its next request. */
  keepAliveSeconds: number;
  upstreamBaseUrl: string;
  /** Used instead of the client's Authorization header when set. */
  upstreamApiKey: string | null;
  /** Milliseconds to wait for upstream's first byte before answering 504. */
  upstreamTimeoutMs: number;
  /** Retries of a failed upstream call before the first byte reached the client. */
  upstreamMaxRetries: number;
  neo4j: Neo4jConfig | null;
  /** Folder of the embedded store. */
  dataDir: string;
  /** The embedded store searches on a thread of its own (SEARCH_THREAD; by default when WORKERS leaves a core free). */
  searchThread: boolean;
  /** The embedded store commits the writes of a turn of the event loop together (GROUP_COMMIT; by default with one process). */
  groupCommit: boolean;
  embeddingModel: string;
  embeddingBaseUrl: string;
  embeddingApiKey: string | null;
  embeddingDimensions: number;
  /** Re-embed everything when the store's vectors came from another model (else refuse to start). */
  embeddingReembed: boolean;
  defaultContextWindow: number;
  /** Tokens reserved for the answer when the request sets no max_tokens. */
  defaultResponseReserve: number;
  /** Share of the context window held back for tokenizer differences. */
  safetyMargin: number;
  memoryTools: boolean;
  /** Put the memory index of retrieved turns into each request. */
  memoryIndex: boolean;
  /** Put the running summary of evicted turns into each request. */
  memorySummary: boolean;
  memoryToolsMaxDepth: number;
  memoryToolsTimeoutMs: number;
  indexSnippetLength: number;
  indexMaxTokens: number;
  /** Share of the budget held back for the memory index once the branch no longer fits whole. */
  indexBudgetShare: number;
  /** Share of the budget held back for the running summary (spec: at most 15%). */
  summaryBudgetShare: number;
  indexRecentWindow: number;
  indexClusteringThreshold: number;
  indexChunkThreshold: number;
  indexIncludeToolCalls: boolean;
  synapseThreshold: number;
  summaryModel: string | null;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** Most messages accepted in one request. */
  maxMessages: number;
  /** Warning text added when a conversation passes 90% of its budget; null: header only. */
  memoryPressureMessage: string | null;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  models: Record<string, ModelInfo>;
  /** 'closed': a request fails with 503 while the store is down; 'open': it is answered without memory. */
  storeFailureMode: 'closed' | 'open';
  /** Inbound API keys by hash (PROXY_API_KEYS_FILE); null: no key is asked for. */
  apiKeys: ApiKeyTable | null;
  /** Requests per minute one partition may make (token bucket); 0: no limit. */
  rateLimitPerMinute: number;
  /** Most retrieved turns the memory index is built from. */
  retrievalLimit: number;
  /** Seconds an Idempotency-Key's stored answer is replayed. */
  idempotencyTtlSeconds: number;
  /** Days after which turns are soft-deleted; null keeps them forever. */
  retentionDays: number | null;
  /** Days a soft-deleted turn stays restorable before retention purges it. */
  retentionGraceDays: number;
  /** Seconds between runs of the background upkeep (topics, periods, cleanup, retention); 0: never. */
  maintenanceIntervalSeconds: number;
  /** 'model': topic summaries written by SUMMARY_MODEL through the upstream; else quoted turns. */
  topicSummaries: 'extractive' | 'model';
  /** Similarity to a topic's centre a turn needs to join it. */
  topicThreshold: number;
  /** Most topics an instance gets. */
  topicMax: number;
}

export { ConfigError };

type Env = Record<string, string | undefined>;

const DEFAULT_MODELS_FILE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'config',
  'models.json',
);

/** Reads and validates the configuration from an environment (process.env in main.ts). */
export function loadConfig(env: Env): Config {
  const read = new EnvReader(env);
  const neo4jUri = read.string('NEO4J_URI', '');
  const apiKeysFile = read.optional('PROXY_API_KEYS_FILE');
  const allowUnauthenticated = read.bool('ALLOW_UNAUTHENTICATED', false);
  const upstreamBaseUrl = read.url('UPSTREAM_BASE_URL', 'https://api.openai.com/v1');
  const workers = read.int('WORKERS', 1, 1, 64);
  const config: Config = {
    port: read.int('PORT', 3017, 0, 65535),
    host: read.string('HOST', '127.0.0.1'),
    workers,
    keepAliveSeconds: read.int('KEEP_ALIVE_SECONDS', 65, 1, 3600),
    upstreamBaseUrl,
    upstreamApiKey: read.optional('UPSTREAM_API_KEY'),
    upstreamTimeoutMs: read.int('UPSTREAM_TIMEOUT_MS', 120_000, 100, 3_600_000),
    upstreamMaxRetries: read.int('UPSTREAM_MAX_RETRIES', 2, 0, 10),
    neo4j:
      neo4jUri === ''
        ? null
        : {
            uri: read.url('NEO4J_URI', neo4jUri, ['bolt:', 'bolt+s:', 'bolt+ssc:', 'neo4j:', 'neo4j+s:', 'neo4j+ssc:']),
            user: read.string('NEO4J_USER', 'neo4j'),
            password: read.string('NEO4J_PASSWORD', ''),
            database: read.string('NEO4J_DATABASE', 'neo4j'),
          },
    dataDir: read.string('DATA_DIR', './data'),
    // A search thread pays when a core is left for it: with a process on every core (WORKERS)
    // it only added its own cost (bench/NOTES.md, 11-29).
    searchThread: read.bool('SEARCH_THREAD', workers < availableParallelism()),
    // A batch holds the write lock until the event loop turns; the other processes sharing the
    // file (WORKERS) wait that long for it, asleep (bench/NOTES.md, 12-02).
    groupCommit: read.bool('GROUP_COMMIT', workers === 1),
    embeddingModel: read.string('EMBEDDING_MODEL', 'local'),
    embeddingBaseUrl: read.url('EMBEDDING_BASE_URL', upstreamBaseUrl),
    embeddingApiKey: read.optional('EMBEDDING_API_KEY') ?? read.optional('UPSTREAM_API_KEY'),
    embeddingDimensions: read.int('EMBEDDING_DIMENSIONS', 384, 8, 8192),
    embeddingReembed: read.bool('EMBEDDING_REEMBED', false),
    defaultContextWindow: read.int('DEFAULT_CONTEXT_WINDOW', 4096, 100, 10_000_000),
    defaultResponseReserve: read.int('DEFAULT_RESPONSE_RESERVE', 1024, 0, 1_000_000),
    safetyMargin: read.number('CONTEXT_SAFETY_MARGIN', 0.05, 0, 0.5),
    memoryTools: read.bool('MEMORY_TOOLS', true),
    memoryIndex: read.bool('MEMORY_INDEX', true),
    memorySummary: read.bool('MEMORY_SUMMARY', true),
    memoryToolsMaxDepth: read.int('MEMORY_TOOLS_MAX_DEPTH', 8, 0, 64),
    memoryToolsTimeoutMs: read.int('MEMORY_TOOLS_TIMEOUT_MS', 60_000, 100, 3_600_000),
    indexSnippetLength: read.int('INDEX_SNIPPET_LENGTH', 200, 20, 10_000),
    indexMaxTokens: read.int('INDEX_MAX_TOKENS', 2000, 0, 1_000_000),
    // Measured with `npm run bench:recall`: the window keeps 60% (README, "How memory works").
    indexBudgetShare: read.number('INDEX_BUDGET_SHARE', 0.3, 0, 0.6),
    summaryBudgetShare: read.number('SUMMARY_BUDGET_SHARE', 0.1, 0, 0.15),
    indexRecentWindow: read.int('INDEX_RECENT_WINDOW', 20, 0, 100_000),
    indexClusteringThreshold: read.int('INDEX_CLUSTERING_THRESHOLD', 500, 1, 10_000_000),
    indexChunkThreshold: read.int('INDEX_CHUNK_THRESHOLD', 4000, 50, 1_000_000),
    indexIncludeToolCalls: read.bool('INDEX_INCLUDE_TOOL_CALLS', true),
    synapseThreshold: read.number('SYNAPSE_THRESHOLD', defaultSynapseThreshold(read.string('EMBEDDING_MODEL', 'local')), -1, 1),
    summaryModel: read.optional('SUMMARY_MODEL'),
    maxBodyBytes: read.int('MAX_BODY_BYTES', 8 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxMessages: read.int('MAX_MESSAGES', 100_000, 1, 10_000_000),
    memoryPressureMessage: read.optional('MEMORY_PRESSURE_MESSAGE'),
    logLevel: read.oneOf('LOG_LEVEL', ['debug', 'info', 'warn', 'error', 'silent'] as const, 'info'),
    models: loadModelTable(read.string('MODELS_FILE', DEFAULT_MODELS_FILE)),
    storeFailureMode: read.oneOf('STORE_FAILURE_MODE', ['closed', 'open'] as const, 'closed'),
    apiKeys: apiKeysFile === null ? null : loadApiKeys(apiKeysFile),
    rateLimitPerMinute: read.int('RATE_LIMIT_PER_MINUTE', 0, 0, 1_000_000),
    retrievalLimit: read.int('MEMORY_RETRIEVAL_LIMIT', 60, 1, 20_000),
    idempotencyTtlSeconds: read.int('IDEMPOTENCY_TTL_SECONDS', 86_400, 1, 30 * 86_400),
    retentionDays: read.optional('RETENTION_DAYS') === null ? null : read.int('RETENTION_DAYS', 0, 1, 365_000),
    retentionGraceDays: read.int('RETENTION_GRACE_DAYS', 7, 0, 3650),
    maintenanceIntervalSeconds: read.int('MAINTENANCE_INTERVAL_SECONDS', 3600, 0, 30 * 86_400),
    topicSummaries: read.oneOf('TOPIC_SUMMARIES', ['extractive', 'model'] as const, 'extractive'),
    topicThreshold: read.number('TOPIC_THRESHOLD', defaultTopicThreshold(read.string('EMBEDDING_MODEL', 'local')), -1, 1),
    topicMax: read.int('TOPIC_MAX', 64, 1, 10_000),
  };
  if (config.topicSummaries === 'model' && config.summaryModel === null) {
    throw new ConfigError('TOPIC_SUMMARIES', 'model summaries need SUMMARY_MODEL, the model that writes them');
  }
  if (config.apiKeys === null && !isLoopback(config.host) && !allowUnauthenticated) {
    throw new ConfigError(
      'ALLOW_UNAUTHENTICATED',
      `HOST=${config.host} is not a loopback address and PROXY_API_KEYS_FILE is unset, so anyone who reaches the port could read and write every partition; set PROXY_API_KEYS_FILE, or ALLOW_UNAUTHENTICATED=true to accept that`,
    );
  }
  return config;
}

/** Whether a listen address only accepts connections from this machine. */
function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(?:\.\d{1,3}){3}$/.test(bare);
}

/**
 * The spec's 0.85 suits model embeddings; the built-in local embedder scores related turns far
 * lower (follow-ups average 0.23, paraphrases 0.30, unrelated pairs 0.015: bench/embedder-quality.ts),
 * so it links at 0.30.
 */
export function defaultSynapseThreshold(embeddingModel: string): number {
  return embeddingModel === 'local' ? 0.3 : 0.85;
}

/**
 * A turn joins a topic when it is this similar to the topic's centre. Centres of the local
 * embedder's vectors score their own turns about 0.2-0.4 and unrelated ones near 0, so it
 * joins at 0.15; model embeddings score everything higher.
 */
export function defaultTopicThreshold(embeddingModel: string): number {
  return embeddingModel === 'local' ? 0.15 : 0.5;
}

/** Names a table's prefix search answered, by table: a request looks its model up twice. */
const prefixLookups = new WeakMap<Record<string, ModelInfo>, Map<string, ModelInfo | null>>();
/** Names remembered per table; the names come from requests, so the memo is bounded. */
const MAX_REMEMBERED_NAMES = 256;

/** Looks a model up in the table: exact name, else the longest key it starts with. */
export function lookupModel(models: Record<string, ModelInfo>, model: string): ModelInfo | null {
  const name = model.toLowerCase();
  const exact = models[name];
  if (exact) return exact;
  let remembered = prefixLookups.get(models);
  if (!remembered) prefixLookups.set(models, (remembered = new Map()));
  const known = remembered.get(name);
  if (known !== undefined) return known;
  let best: { key: string; info: ModelInfo } | null = null;
  for (const [key, info] of Object.entries(models)) {
    if (!name.startsWith(key)) continue;
    const next = name.charAt(key.length);
    if (!['-', ':', '.', '/', '@'].includes(next)) continue;
    if (!best || key.length > best.key.length) best = { key, info };
  }
  if (remembered.size >= MAX_REMEMBERED_NAMES) remembered.clear();
  remembered.set(name, best?.info ?? null);
  return best?.info ?? null;
}

function loadModelTable(file: string): Record<string, ModelInfo> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError('MODELS_FILE', `cannot read model table ${file}: ${(error as Error).message}`);
  }
  const entries = (parsed as { models?: unknown }).models;
  if (typeof entries !== 'object' || entries === null) {
    throw new ConfigError('MODELS_FILE', `${file} has no "models" object`);
  }
  const models: Record<string, ModelInfo> = {};
  for (const [name, value] of Object.entries(entries)) {
    const entry = value as { context_window?: unknown; tools?: unknown };
    if (typeof entry.context_window !== 'number' || entry.context_window < 100) {
      throw new ConfigError('MODELS_FILE', `model "${name}" needs a context_window of at least 100`);
    }
    models[name.toLowerCase()] = { contextWindow: entry.context_window, tools: entry.tools !== false };
  }
  return models;
}

class EnvReader {
  constructor(private readonly env: Env) {}

  optional(name: string): string | null {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? null : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.optional(name) ?? fallback;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const value = this.number(name, fallback, min, max);
    if (!Number.isInteger(value)) throw new ConfigError(name, `must be a whole number, got "${this.env[name]}"`);
    return value;
  }

  number(name: string, fallback: number, min: number, max: number): number {
    const raw = this.optional(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value)) throw new ConfigError(name, `must be a number, got "${raw}"`);
    if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.optional(name);
    if (raw === null) return fallback;
    const lowered = raw.toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(lowered)) return true;
    if (['false', '0', 'no', 'off'].includes(lowered)) return false;
    throw new ConfigError(name, `must be true or false, got "${raw}"`);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.optional(name);
    if (raw === null) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
    }
    return raw as T;
  }

  url(name: string, fallback: string, protocols: string[] = ['http:', 'https:']): string {
    const raw = this.optional(name) ?? fallback;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(name, `must be a URL, got "${raw}"`);
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
    }
    return raw.replace(/\/+$/, '');
  }
}
