import neo4j from 'neo4j-driver';
import type { Driver, ManagedTransaction } from 'neo4j-driver';
import type { Neo4jConfig } from '../../config/load-config';
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

/**
 * The only place that talks to the driver: every call runs against the configured database and
 * every connection failure comes out as StoreUnavailableError.
 */
export class Neo4jRunner {
  private readonly driver: Driver;
  private readonly database: string;

  constructor(config: Neo4jConfig) {
    this.database = config.database;
    // A server with auth disabled accepts any basic credentials, so no special "none" case.
    this.driver = neo4j.driver(config.uri, neo4j.auth.basic(config.user, config.password), {
      disableLosslessIntegers: true,
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      connectionAcquisitionTimeout: ACQUISITION_TIMEOUT_MS,
      maxTransactionRetryTime: MAX_RETRY_TIME_MS,
      userAgent: 'memory-proxy',
    });
  }

  /** Runs one read query (retried by the driver on transient errors). */
  async read(cypher: string, parameters: Row = {}): Promise<Row[]> {
    return this.execute(cypher, parameters, neo4j.routing.READ);
  }

  /** Runs one write query in its own transaction. */
  async write(cypher: string, parameters: Row = {}): Promise<Row[]> {
    return this.execute(cypher, parameters, neo4j.routing.WRITE);
  }

  /** Runs several statements in one write transaction; `work` may run again on a transient error. */
  async writeTransaction<T>(work: (transaction: TransactionRunner) => Promise<T>): Promise<T> {
    const session = this.driver.session({
      database: this.database,
      defaultAccessMode: neo4j.session.WRITE,
    });
    try {
      return await session.executeWrite((transaction) => work(wrapTransaction(transaction)));
    } catch (error) {
      throw translateError(error);
    } finally {
      await session.close().catch(() => undefined);
    }
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

  private async execute(
    cypher: string,
    parameters: Row,
    routing: 'READ' | 'WRITE',
  ): Promise<Row[]> {
    try {
      const result = await this.driver.executeQuery(cypher, parameters, {
        database: this.database,
        routing,
      });
      return result.records.map((record) => record.toObject() as Row);
    } catch (error) {
      throw translateError(error);
    }
  }
}

function wrapTransaction(transaction: ManagedTransaction): TransactionRunner {
  return {
    async run(cypher, parameters = {}) {
      const result = await transaction.run(cypher, parameters);
      return result.records.map((record) => record.toObject() as Row);
    },
  };
}
