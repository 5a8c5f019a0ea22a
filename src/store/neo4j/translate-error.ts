import { Neo4jError, error as neo4jErrorCodes } from 'neo4j-driver';
import { StoreUnavailableError } from '../../errors';

// Codes the server sends when it is up but cannot serve the database right now.
const UNAVAILABLE_SERVER_CODES = new Set([
  'Neo.TransientError.General.DatabaseUnavailable',
  'Neo.TransientError.Database.DatabaseUnavailable',
  'Neo.TransientError.Cluster.NotALeader',
  'Neo.ClientError.Cluster.NotALeader',
  'Neo.TransientError.General.MemoryPoolOutOfMemoryError',
]);

/** Whether an error means Neo4j cannot be reached or cannot serve right now (answered as 503). */
export function isUnavailableError(error: unknown): boolean {
  if (error instanceof Neo4jError) {
    if (
      error.code === neo4jErrorCodes.SERVICE_UNAVAILABLE ||
      error.code === neo4jErrorCodes.SESSION_EXPIRED
    ) {
      return true;
    }
    if (UNAVAILABLE_SERVER_CODES.has(error.code)) return true;
    // The pool's acquisition timeout carries no code, only this message.
    if (error.message.includes('Connection acquisition timed out')) return true;
    if (error.message.startsWith('Failed to establish connection')) return true;
    // A server killed mid-request resets the socket; the driver reports that as a ProtocolError
    // (or a closed connection) carrying one of these messages, not as ServiceUnavailable.
    if (error.message.startsWith('Failed to connect to server')) return true;
    if (error.message.startsWith('Connection was closed by server')) return true;
  }
  const code = (error as { code?: unknown } | null)?.code;
  // Socket errors that escape the driver's own wrapping.
  return (
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'ETIMEDOUT' ||
    code === 'EHOSTUNREACH'
  );
}

/** Turns connection failures into StoreUnavailableError; every other error passes through unchanged. */
export function translateError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError) return error;
  if (isUnavailableError(error)) {
    const reason = error instanceof Error ? error.message : String(error);
    return new StoreUnavailableError(`Neo4j is unavailable: ${reason}`, error);
  }
  return error;
}
