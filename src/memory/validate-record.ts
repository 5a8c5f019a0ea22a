import {
  EXPORT_FORMAT,
  READABLE_VERSIONS,
  type GraphRecord,
  type HeaderRecord,
} from '../store/graph-record';
import { toNumbers } from '../lists';
import { decodeBase64Vector, encodeBase64Vector } from '../store/vector-codec';

/** Partition and instance names in records: the rule the HTTP layer applies to paths. */
const SCOPE_NAME = /^[A-Za-z0-9._-]{1,128}$/;

type Kind =
  | 'scope'
  | 'id'
  | 'text'
  | 'text?'
  | 'count'
  | 'count?'
  | 'score'
  | 'flag'
  | 'object'
  | 'role'
  | 'history'
  | 'vector'
  | 'vector?'
  | 'cursor'
  | 'ids'
  | 'summary-kind'
  | 'granularity'
  | 'period-topics';

// Field kinds per record type, in the order records are written (so a validated record
// serializes exactly like an exported one).
const SCOPE = { partition: 'scope', instance: 'scope' } as const;
const LINK = { ...SCOPE, from: 'id', to: 'id' } as const;
const FIELDS: Record<GraphRecord['type'], Record<string, Kind>> = {
  // Version 1 files have no cursors: the jobs then start over in the instance.
  Instance: {
    ...SCOPE,
    last_seq: 'count',
    deleted_at: 'count?',
    topics_cursor: 'cursor',
    periods_cursor: 'cursor',
  },
  Message: {
    ...SCOPE,
    id: 'id',
    role: 'role',
    seq: 'count',
    timestamp: 'count',
    content: 'text',
    raw: 'object',
    snippet: 'text',
    token_count: 'count',
    branch_tokens: 'count',
    content_hash: 'text',
    model: 'text?',
    trace_id: 'text?',
    metadata: 'object',
    edited: 'flag',
    edit_history: 'history',
    deleted: 'flag',
    deleted_with_instance: 'flag',
    is_chunk: 'flag',
    chunk_index: 'count?',
    chunk_parent_id: 'text?',
    embedding: 'vector?',
  },
  ToolCall: {
    ...SCOPE,
    id: 'id',
    message_id: 'id',
    call_id: 'text',
    tool_name: 'text',
    arguments: 'text',
    result: 'text?',
    timestamp: 'count',
    token_count: 'count',
    duration_ms: 'count?',
    embedding: 'vector?',
  },
  CoreMemory: {
    ...SCOPE,
    name: 'text',
    content: 'text',
    token_count: 'count',
    updated_at: 'count',
  },
  Summary: {
    ...SCOPE,
    boundary_id: 'id',
    content: 'text',
    token_count: 'count',
    turns: 'count',
    updated_at: 'count',
  },
  Topic: {
    ...SCOPE,
    id: 'id',
    label: 'text',
    summary: 'text',
    summary_kind: 'summary-kind',
    highlight_ids: 'ids',
    size: 'count',
    centroid: 'vector',
    period_start: 'count',
    period_end: 'count',
    updated_at: 'count',
  },
  PeriodSummary: {
    ...SCOPE,
    granularity: 'granularity',
    period: 'id',
    start: 'count',
    end: 'count',
    messages: 'count',
    tokens: 'count',
    user_messages: 'count',
    topics: 'period-topics',
    summary: 'text',
    highlight_ids: 'ids',
    updated_at: 'count',
  },
  REPLIES_TO: LINK,
  RESPONDED_WITH: LINK,
  BELONGS_TO: LINK,
  CHUNK_OF: LINK,
  CALLED_BY: LINK,
  SYNAPSE: { ...LINK, score: 'score' },
};

/** The fields holding vectors, by record type. */
const VECTOR_FIELDS = Object.fromEntries(
  Object.entries(FIELDS).map(([type, fields]) => [
    type,
    Object.keys(fields).filter((field) => fields[field] === 'vector' || fields[field] === 'vector?'),
  ]),
) as Record<GraphRecord['type'], string[]>;

/**
 * One line of an export. A vector whose values are all Float32 values (every vector of the
 * embedded store, and those an embedding API sends) is written as the base64 of its
 * little-endian Float32 bytes, as OpenAI's embeddings API writes them with `encoding_format:
 * "base64"`: a quarter of the text of its numbers, and about a tenth of the time to parse. Any
 * other vector stays a list of numbers, so no value changes on its way through a file.
 */
export function formatRecordLine(record: HeaderRecord | GraphRecord): string {
  const fields = record.type === 'header' ? [] : VECTOR_FIELDS[record.type];
  if (fields.length === 0) return JSON.stringify(record);
  const line: Record<string, unknown> = { ...record };
  for (const field of fields) {
    const vector = line[field];
    if (Array.isArray(vector) && vector.every((value) => Math.fround(value) === value))
      line[field] = encodeBase64Vector(vector);
  }
  return JSON.stringify(line);
}

/** A parsed line: the header, or a record. */
export type ParsedLine = HeaderRecord | GraphRecord;

/**
 * Parses and checks one line of an export; throws an Error saying what is wrong (the caller adds
 * the line number). Unknown fields are dropped and known ones come back in the export's order.
 */
export function parseRecordLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new Error(`not valid JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error('a record must be a JSON object');
  const input = value as Record<string, unknown>;
  const type = input['type'];
  if (type === 'header') return parseHeader(input);
  if (typeof type !== 'string' || !Object.hasOwn(FIELDS, type)) {
    throw new Error(
      `unknown record type ${JSON.stringify(type)}; expected header or one of ${Object.keys(FIELDS).join(', ')}`,
    );
  }
  const record: Record<string, unknown> = { type };
  for (const [field, kind] of Object.entries(FIELDS[type as GraphRecord['type']])) {
    const given = kind === 'cursor' && input[field] === undefined ? 0 : input[field];
    const value = (kind === 'vector' || kind === 'vector?') && typeof given === 'string' ? fromBase64(given) : given;
    const problem = checkField(value, kind);
    if (problem) throw new Error(`${type}.${field} ${problem}`);
    record[field] = value;
  }
  checkMessageShape(record);
  checkJobShape(record);
  return record as unknown as GraphRecord;
}

function parseHeader(input: Record<string, unknown>): HeaderRecord {
  if (input['format'] !== EXPORT_FORMAT)
    throw new Error(`header.format must be "${EXPORT_FORMAT}"`);
  const version = READABLE_VERSIONS.find((readable) => readable === input['version']);
  if (version === undefined) {
    throw new Error(
      `header.version ${JSON.stringify(input['version'])} is not supported; this proxy reads versions ${READABLE_VERSIONS.slice(0, -1).join(', ')} and ${READABLE_VERSIONS.at(-1)}`,
    );
  }
  const model = input['embedding_model'] ?? null;
  if (model !== null && typeof model !== 'string')
    throw new Error('header.embedding_model must be a string or null');
  return { type: 'header', format: EXPORT_FORMAT, version, embedding_model: model };
}

function checkField(value: unknown, kind: Kind): string | null {
  switch (kind) {
    case 'scope':
      return typeof value === 'string' && SCOPE_NAME.test(value) && value !== '.' && value !== '..'
        ? null
        : 'must be 1-128 characters from A-Z, a-z, 0-9, ".", "_" and "-"';
    case 'id':
      return typeof value === 'string' && value.length > 0 && value.length <= 256
        ? null
        : 'must be a non-empty id';
    case 'text':
      return typeof value === 'string' ? null : 'must be a string';
    case 'text?':
      return value === null || typeof value === 'string' ? null : 'must be a string or null';
    case 'count':
      return Number.isSafeInteger(value) && (value as number) >= 0
        ? null
        : 'must be a whole number >= 0';
    case 'cursor':
      return Number.isSafeInteger(value) && (value as number) >= 0
        ? null
        : 'must be a whole number >= 0 (or absent)';
    case 'count?':
      return value === null || (Number.isSafeInteger(value) && (value as number) >= 0)
        ? null
        : 'must be a whole number >= 0 or null';
    case 'score':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'flag':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? null
        : 'must be an object';
    case 'role':
      return value === 'user' || value === 'assistant' || value === 'tool'
        ? null
        : 'must be user, assistant or tool';
    case 'history':
      return Array.isArray(value) &&
        value.every(
          (entry) => typeof entry?.content === 'string' && Number.isSafeInteger(entry?.timestamp),
        )
        ? null
        : 'must be a list of {content, timestamp}';
    case 'vector':
      return isVector(value)
        ? null
        : 'must be a non-empty list of numbers, or the base64 of little-endian Float32 values';
    case 'vector?':
      return value === null || isVector(value)
        ? null
        : 'must be a list of numbers, the base64 of little-endian Float32 values, or null';
    case 'ids':
      return Array.isArray(value) && value.every((entry) => checkField(entry, 'id') === null)
        ? null
        : 'must be a list of ids';
    case 'summary-kind':
      return value === 'extractive' || value === 'model' ? null : 'must be extractive or model';
    case 'granularity':
      return value === 'day' || value === 'week' ? null : 'must be day or week';
    case 'period-topics':
      return Array.isArray(value) &&
        value.every(
          (entry) =>
            checkField(entry?.id, 'id') === null &&
            typeof entry?.label === 'string' &&
            checkField(entry?.messages, 'count') === null,
        )
        ? null
        : 'must be a list of {id, label, messages}';
  }
}

/**
 * A vector written as base64 (formatRecordLine), as numbers; undefined when the text is not one
 * (not null, which a field that may be empty would take for "no vector"). Strict: a file says
 * exactly what it holds.
 */
function fromBase64(text: string): number[] | undefined {
  const values = decodeBase64Vector(text, { strict: true });
  return values === null ? undefined : toNumbers(values);
}

function isVector(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((entry) => typeof entry === 'number' && Number.isFinite(entry))
  );
}

/** A period ends after it starts; list entries keep only their own fields, in order. */
function checkJobShape(record: Record<string, unknown>): void {
  if (
    record['type'] === 'Topic' &&
    (record['period_end'] as number) < (record['period_start'] as number)
  ) {
    throw new Error('Topic.period_end must not come before its period_start');
  }
  if (record['type'] !== 'PeriodSummary') return;
  if ((record['end'] as number) <= (record['start'] as number))
    throw new Error('PeriodSummary.end must come after its start');
  record['topics'] = (record['topics'] as { id: string; label: string; messages: number }[]).map(
    (topic) => ({ id: topic.id, label: topic.label, messages: topic.messages }),
  );
}

/** A chunk sits outside the tree (seq 0, its turn named); a turn has a seq and no chunk fields. */
function checkMessageShape(record: Record<string, unknown>): void {
  if (record['type'] !== 'Message') return;
  if (record['is_chunk'] === true) {
    if (
      record['seq'] !== 0 ||
      typeof record['chunk_parent_id'] !== 'string' ||
      record['chunk_index'] === null
    ) {
      throw new Error('Message is a chunk, so it needs seq 0, a chunk_parent_id and a chunk_index');
    }
  } else if (
    (record['seq'] as number) < 1 ||
    record['chunk_parent_id'] !== null ||
    record['chunk_index'] !== null
  ) {
    throw new Error(
      'Message is a turn, so it needs a seq of 1 or more and no chunk_parent_id or chunk_index',
    );
  }
  if (record['deleted_with_instance'] === true && record['deleted'] !== true) {
    throw new Error('Message.deleted_with_instance needs deleted: true');
  }
  // The edit history's entries keep only their two fields, in order.
  record['edit_history'] = (record['edit_history'] as { content: string; timestamp: number }[]).map(
    (entry) => ({
      content: entry.content,
      timestamp: entry.timestamp,
    }),
  );
}
