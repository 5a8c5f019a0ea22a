import neo4j from 'neo4j-driver';
import type { Driver, ManagedTransaction, SessionMode } from 'neo4j-driver';
import type { Neo4jConfig } from '../../config/load-config';
import { ConnectionGate } from './connection-gate';
import { translateError } from './translate-error';

/** One result row as a plain object keyed by the RETURN names. */
export type Row = Record<string, unknown>;

/** Runs Cypher inside an open transaction. */
export interface TransactionRunner {
  run(cypher: string, parameters?: Row): Promise<Row[]>;
}

// Short timeouts: an unreachable server must become a quick 503, not a request that hangs.
const CONNECTION_TIMEOUT_MS = 3_000;
const ACQUISITION_TIMEOUT_MS = 5_000;
const MAX_RETRY_TIME_MS = 5_000;
/** Connections per process (the driver's default): more only queue on the server's cores. */
const MAX_CONNECTIONS = 100;
/** First wait before a single statement is tried again; doubled per attempt. */
const FIRST_RETRY_DELAY_MS = 50;

/**
 * The only place that talks to the driver: every call runs against the configured database and
 * every connection failure comes out as StoreUnavailableError.
 */
export class Neo4jRunner {
  private readonly driver: Driver;
  private readonly database: string;
  private readonly gate = new ConnectionGate(MAX_CONNECTIONS);

  constructor(config: Neo4jConfig) {
    this.database = config.database;
    // A server with auth disabled accepts any basic credentials, so no special "none" case.
    this.driver = neo4j.driver(config.uri, neo4j.auth.basic(config.user, config.password), {
      disableLosslessIntegers: true,
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      connectionAcquisitionTimeout: ACQUISITION_TIMEOUT_MS,
      maxConnectionPoolSize: MAX_CONNECTIONS,
      maxTransactionRetryTime: MAX_RETRY_TIME_MS,
      userAgent: 'memory-proxy',
    });
  }

  /** Runs one read query (tried again on transient errors). */
  async read(cypher: string, parameters: Row = {}): Promise<Row[]> {
    return this.autoCommit(cypher, parameters, neo4j.session.READ);
  }

  /** Runs one write query in its own transaction (tried again on transient errors). */
  async write(cypher: string, parameters: Row = {}): Promise<Row[]> {
    return this.autoCommit(cypher, parameters, neo4j.session.WRITE);
  }

  /** Runs several statements in one write transaction; `work` may run again on a transient error. */
  async writeTransaction<T>(work: (transaction: TransactionRunner) => Promise<T>): Promise<T> {
    return this.gate.run(async () => {
      const session = this.session(neo4j.session.WRITE);
      try {
        return await session.executeWrite((transaction) => work(wrapTransaction(transaction)));
      } catch (error) {
        throw translateError(error);
      } finally {
        await session.close().catch(() => undefined);
      }
    });
  }

  /** The server's agent string, e.g. "Neo4j/2026.08.1" (used for feature detection). */
  async serverAgent(): Promise<string> {
    try {
      const info = await this.driver.getServerInfo({ database: this.database });
      return info.agent ?? '';
    } catch (error) {
      throw translateError(error);
    }
  }

  /** Closes every connection; the store is unusable afterwards. */
  async close(): Promise<void> {
    await this.driver.close();
  }

  /**
   * A single statement as an auto-commit query: one round trip, where a managed transaction
   * takes two (BEGIN/RUN/PULL, then COMMIT). It is tried again like the driver's managed
   * transactions would, so a leader switch or a deadlock is not a failed request; a statement
   * may therefore run twice, which every single-statement write here tolerates (MERGE, SET,
   * DELETE, or an append that then finds its first turn stored and keeps it).
   */
  private async autoCommit(cypher: string, parameters: Row, mode: SessionMode): Promise<Row[]> {
    const deadline = Date.now() + MAX_RETRY_TIME_MS;
    for (let delay = FIRST_RETRY_DELAY_MS; ; delay *= 2) {
      try {
        return await this.gate.run(() => this.runOnce(cypher, parameters, mode));
      } catch (error) {
        if (!neo4j.isRetryableError(error) || Date.now() + delay > deadline)
          throw translateError(error);
      }
      await new Promise((resolve) => setTimeout(resolve, delay * (0.8 + Math.random() * 0.4)));
    }
  }

  private async runOnce(cypher: string, parameters: Row, mode: SessionMode): Promise<Row[]> {
    const session = this.session(mode);
    try {
      const result = await withoutCallerStack(() => session.run(cypher, parameters));
      return result.records.map((record) => record.toObject() as Row);
    } finally {
      await session.close().catch(() => undefined);
    }
  }

  /**
   * Every session shares the driver's bookmark manager, so a read sees the writes this process
   * committed before it even when a cluster routes it to another member.
   */
  private session(mode: SessionMode) {
    return this.driver.session({
      database: this.database,
      defaultAccessMode: mode,
      bookmarkManager: this.driver.executeQueryBookmarkManager,
    });
  }
}

function wrapTransaction(transaction: ManagedTransaction): TransactionRunner {
  return {
    async run(cypher, parameters = {}) {
      const result = await withoutCallerStack(() => transaction.run(cypher, parameters));
      return result.records.map((record) => record.toObject() as Row);
    },
  };
}

/**
 * Creates a driver result without the caller's stack. The driver captures one for every result,
 * to put on an error the server may send later, and formatting a stack costs ~40 us (source
 * maps on): a tenth of the proxy's CPU under load on Neo4j. The stack it would capture is this
 * runner's own frames, the same for every statement, so an error loses nothing it needs: its
 * message and code, and the cypher the caller knows.
 */
function withoutCallerStack<T>(create: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return create();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
