import { RecordImportError } from '../../errors';
import type { ImportResult } from '../management-types';
import type { TransactionRunner } from './neo4j-runner';

/** A record and its position in the batch, so a failure names it. */
export interface Indexed<T> {
  index: number;
  record: T;
}

/** Where an import stands inside its transaction. */
export interface ImportState {
  transaction: TransactionRunner;
  result: ImportResult;
}

/** Counts a record as created or unchanged. */
export function count(state: ImportState, created: boolean): void {
  if (created) state.result.created += 1;
  else state.result.unchanged += 1;
}

/** Aborts the import (and its transaction) naming the record. */
export function fail(index: number, message: string): never {
  throw new RecordImportError(index, message);
}
