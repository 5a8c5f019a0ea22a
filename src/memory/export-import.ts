import { createInterface } from 'node:readline';
import { EMBEDDING_MODEL_META_KEY } from '../embeddings/ensure-embedding-model';
import { InvalidRequestError, RecordImportError } from '../errors';
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type GraphRecord,
  type HeaderRecord,
} from '../store/graph-record';
import type { ExportFilter, ImportResult } from '../store/management-types';
import type { MemoryStore } from '../store/memory-store';
import { formatRecordLine, parseRecordLine } from './validate-record';

/** Records stored per transaction: big enough to be quick, small enough to keep memory flat. */
const IMPORT_BATCH = 500;

/** How far an export or import has come (for a progress indicator). */
export interface TransferProgress {
  /** Records written or read so far. */
  records: number;
}

/** What an import did. */
export interface ImportSummary extends ImportResult {
  /** Records read (the header not counted). */
  records: number;
  /**
   * true when the file's vectors came from another embedding model and were left out, with the
   * topics, period summaries and job cursors made from them (all are made again).
   */
  embeddingsDropped: boolean;
}

/**
 * An export as JSON Lines: a header naming the format and the embedding model, then one node
 * or relationship per line with a `type` field, nodes of a scope before its relationships.
 */
export async function* exportJsonLines(
  store: MemoryStore,
  options: ExportFilter & {
    /** Several partitions, one after the other, in one export (instead of `partition`). */
    partitions?: string[];
    onProgress?: (progress: TransferProgress) => void;
  },
): AsyncGenerator<string> {
  const header: HeaderRecord = {
    type: 'header',
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    embedding_model:
      options.embeddings === false ? null : await store.getMeta(EMBEDDING_MODEL_META_KEY),
  };
  yield `${formatRecordLine(header)}\n`;
  let records = 0;
  const filters = options.partitions?.map((partition) => ({ ...options, partition })) ?? [options];
  for (const filter of filters) {
    for await (const record of store.exportRecords(filter)) {
      yield `${formatRecordLine(record)}\n`;
      records += 1;
      if (records % IMPORT_BATCH === 0) options.onProgress?.({ records });
    }
  }
  options.onProgress?.({ records });
}

/**
 * Imports JSON Lines as exportJsonLines writes them, streaming: lines are read one by one
 * (node:readline), each is validated, and records are stored in batches of one transaction
 * each. Any problem stops the import with a 400 naming the line; batches stored before it stay
 * stored, and since importing is idempotent the corrected file can simply be imported again.
 */
export async function importJsonLines(
  store: MemoryStore,
  input: NodeJS.ReadableStream,
  options: { onProgress?: (progress: TransferProgress) => void } = {},
): Promise<ImportSummary> {
  const summary: ImportSummary = { created: 0, unchanged: 0, records: 0, embeddingsDropped: false };
  let batch: { records: GraphRecord[]; lines: number[] } = { records: [], lines: [] };
  const flush = async () => {
    if (batch.records.length === 0) return;
    const stored = await storeBatch(store, batch);
    summary.created += stored.created;
    summary.unchanged += stored.unchanged;
    options.onProgress?.({ records: summary.records });
    batch = { records: [], lines: [] };
  };
  let lineNumber = 0;
  let sawRecord = false;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    lineNumber += 1;
    if (line.trim() === '') continue;
    const parsed = parseLine(line, lineNumber);
    if (parsed.type === 'header') {
      if (sawRecord) throw lineError(lineNumber, 'the header must be the first line');
      summary.embeddingsDropped = await adoptEmbeddingModel(store, parsed);
      sawRecord = true;
      continue;
    }
    sawRecord = true;
    summary.records += 1;
    const record = summary.embeddingsDropped ? withoutEmbedding(parsed) : parsed;
    if (record === null) continue;
    batch.records.push(record);
    batch.lines.push(lineNumber);
    if (batch.records.length >= IMPORT_BATCH) await flush();
  }
  await flush();
  return summary;
}

function parseLine(line: string, lineNumber: number) {
  try {
    return parseRecordLine(line);
  } catch (error) {
    throw lineError(lineNumber, (error as Error).message);
  }
}

async function storeBatch(
  store: MemoryStore,
  batch: { records: GraphRecord[]; lines: number[] },
): Promise<ImportResult> {
  try {
    return await store.importRecords(batch.records);
  } catch (error) {
    if (error instanceof RecordImportError)
      throw lineError(batch.lines[error.recordIndex] ?? 0, error.message);
    throw error;
  }
}

/**
 * Keeps the file's vectors when the store has none of its own yet or uses the same model (and
 * then records that model); otherwise they would be compared with vectors of another space, so
 * they are dropped and the startup sweep embeds the imported turns again.
 */
async function adoptEmbeddingModel(store: MemoryStore, header: HeaderRecord): Promise<boolean> {
  const model = header.embedding_model;
  if (model === null) return false;
  const current = await store.getMeta(EMBEDDING_MODEL_META_KEY);
  if (current === null) await store.setMeta(EMBEDDING_MODEL_META_KEY, model);
  return current !== null && current !== model;
}

/**
 * A record without the file's vectors. Topics are made of those vectors, so they go too, with
 * their links, the period summaries that name them and the jobs' cursors: the jobs make them
 * again once the turns are embedded again. null: the record is left out.
 */
function withoutEmbedding(record: GraphRecord): GraphRecord | null {
  switch (record.type) {
    case 'Message':
    case 'ToolCall':
      return { ...record, embedding: null };
    case 'Instance':
      return { ...record, topics_cursor: 0, periods_cursor: 0 };
    case 'Topic':
    case 'PeriodSummary':
    case 'BELONGS_TO':
      return null;
    default:
      return record;
  }
}

function lineError(lineNumber: number, message: string): InvalidRequestError {
  return new InvalidRequestError(`line ${lineNumber}: ${message}`, {
    param: `line ${lineNumber}`,
    code: 'invalid_import_line',
  });
}
