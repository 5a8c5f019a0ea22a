import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type GraphRecord,
  type HeaderRecord,
} from '../store/graph-record';

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
  | 'vector?';

// Field kinds per record type, in the order records are written (so a validated record
// serializes exactly like an exported one).
const SCOPE = { partition: 'scope', instance: 'scope' } as const;
const LINK = { ...SCOPE, from: 'id', to: 'id' } as const;
const FIELDS: Record<GraphRecord['type'], Record<string, Kind>> = {
  Instance: { ...SCOPE, last_seq: 'count', deleted_at: 'count?' },
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
  REPLIES_TO: LINK,
  RESPONDED_WITH: LINK,
  CHUNK_OF: LINK,
  CALLED_BY: LINK,
  SYNAPSE: { ...LINK, score: 'score' },
};

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
    const problem = checkField(input[field], kind);
    if (problem) throw new Error(`${type}.${field} ${problem}`);
    record[field] = input[field];
  }
  checkMessageShape(record);
  return record as unknown as GraphRecord;
}

function parseHeader(input: Record<string, unknown>): HeaderRecord {
  if (input['format'] !== EXPORT_FORMAT)
    throw new Error(`header.format must be "${EXPORT_FORMAT}"`);
  const version = input['version'];
  if (version !== EXPORT_VERSION) {
    throw new Error(
      `header.version ${JSON.stringify(version)} is not supported; this proxy reads version ${EXPORT_VERSION}`,
    );
  }
  const model = input['embedding_model'] ?? null;
  if (model !== null && typeof model !== 'string')
    throw new Error('header.embedding_model must be a string or null');
  return { type: 'header', format: EXPORT_FORMAT, version: EXPORT_VERSION, embedding_model: model };
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
    case 'vector?':
      return value === null ||
        (Array.isArray(value) &&
          value.length > 0 &&
          value.every((entry) => typeof entry === 'number' && Number.isFinite(entry)))
        ? null
        : 'must be a list of numbers or null';
  }
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
