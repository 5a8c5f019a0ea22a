/** A JSON Schema reference into the document's components. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** A JSON response of a schema. */
export const json = (schema: object, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
/** The `{object: 'list', data}` envelope of a schema. */
export const list = (item: string) => ({
  type: 'object',
  required: ['object', 'data'],
  properties: { object: { const: 'list' }, data: { type: 'array', items: ref(item) } },
});
/** A required JSON request body of a schema. */
export const body = (schema: object) => ({
  required: true,
  content: { 'application/json': { schema } },
});
/** An optional query parameter. */
export const param = (name: string, description: string, schema: object = { type: 'string' }) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
/** A path parameter. */
export const pathParam = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});
/** A partition or instance name. */
export const scopeName = { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$' };
/** A type that may also be null. */
export const nullable = (type: string, extra: object = {}) => ({ type: [type, 'null'], ...extra });

/** The fields every message has, as the API returns it. */
export const MESSAGE_FIELDS = {
  object: { const: 'memory.message' },
  id: { type: 'string' },
  partition: scopeName,
  instance: scopeName,
  role: { enum: ['user', 'assistant', 'tool'] },
  content: { type: 'string', description: 'Plain text of the turn (text parts joined).' },
  seq: { type: 'integer', description: 'Instance-wide sequence number; 0 for chunks.' },
  timestamp: { type: 'string', format: 'date-time' },
  token_count: { type: 'integer' },
  parent_id: nullable('string', { description: 'The turn this one REPLIES_TO.' }),
  model: nullable('string'),
  trace_id: nullable('string'),
  metadata: { type: 'object' },
  edited: { type: 'boolean' },
  edit_history: {
    type: 'array',
    description: 'Earlier versions, oldest first, each with when it was replaced.',
    items: {
      type: 'object',
      properties: {
        content: { type: 'string' },
        replaced_at: { type: 'string', format: 'date-time' },
      },
    },
  },
  deleted: { type: 'boolean' },
  is_chunk: { type: 'boolean' },
  chunk_index: nullable('integer'),
  chunk_parent_id: nullable('string'),
  raw: { type: 'object', description: 'The OpenAI message as it is replayed upstream.' },
};

/** The components of the OpenAPI document: security schemes and the shapes the routes return. */
export const OPENAPI_COMPONENTS = {
  securitySchemes: {
    bearer: {
      type: 'http',
      scheme: 'bearer',
      description: 'Needed when the proxy has PROXY_API_KEYS_FILE.',
    },
  },
  schemas: {
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['message', 'type'],
          properties: {
            message: { type: 'string' },
            type: { type: 'string' },
            param: nullable('string'),
            code: nullable('string'),
          },
        },
      },
    },
    Message: {
      type: 'object',
      required: ['id', 'role', 'content', 'seq'],
      properties: MESSAGE_FIELDS,
    },
    MessageDetail: {
      type: 'object',
      properties: {
        ...MESSAGE_FIELDS,
        chunks: { type: 'array', items: ref('Message') },
        tool_calls: { type: 'array', items: ref('ToolCall') },
        responded_with: { oneOf: [ref('Message'), { type: 'null' }] },
        synapses: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              from_id: { type: 'string' },
              to_id: { type: 'string' },
              score: { type: 'number' },
            },
          },
        },
      },
    },
    MessagePage: {
      type: 'object',
      properties: {
        object: { const: 'list' },
        data: { type: 'array', items: ref('Message') },
        next_cursor: nullable('integer', {
          description: 'The last seq seen: pass it as cursor (also to poll for new turns).',
        }),
        has_more: { type: 'boolean' },
      },
    },
    ToolCall: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        call_id: { type: 'string' },
        message_id: { type: 'string' },
        tool_name: { type: 'string' },
        arguments: { type: 'string' },
        result: nullable('string'),
        timestamp: { type: 'string', format: 'date-time' },
        token_count: { type: 'integer' },
        duration_ms: nullable('integer'),
      },
    },
    Instance: {
      type: 'object',
      properties: {
        partition: scopeName,
        instance: scopeName,
        messages: { type: 'integer' },
        deleted_messages: { type: 'integer' },
        tokens: { type: 'integer' },
        first_activity: nullable('string', { format: 'date-time' }),
        last_activity: nullable('string', { format: 'date-time' }),
        last_seq: { type: 'integer' },
        deleted: { type: 'boolean' },
        deleted_at: nullable('string', { format: 'date-time' }),
      },
    },
    Partition: {
      type: 'object',
      properties: {
        partition: scopeName,
        instances: { type: 'integer' },
        messages: { type: 'integer' },
        tokens: { type: 'integer' },
        last_activity: nullable('string', { format: 'date-time' }),
      },
    },
    SearchResult: {
      type: 'object',
      properties: {
        score: { type: 'number' },
        matched_by: { type: 'array', items: { enum: ['vector', 'fulltext', 'graph'] } },
        message: ref('Message'),
        chunk: {
          oneOf: [
            {
              type: 'object',
              properties: {
                id: { type: 'string' },
                chunk_index: { type: 'integer' },
                content: { type: 'string' },
              },
            },
            { type: 'null' },
          ],
        },
      },
    },
    Stats: {
      type: 'object',
      properties: {
        store: {
          type: 'object',
          properties: {
            kind: { enum: ['sqlite', 'neo4j'] },
            size_bytes: nullable('integer'),
            nodes: nullable('integer', { description: 'Null for a key confined to partitions.' }),
            relationships: nullable('integer', {
              description: 'Null for a key confined to partitions.',
            }),
          },
        },
        partitions: { type: 'integer' },
        instances: { type: 'integer' },
        active_instances: {
          type: 'integer',
          description: 'Instances with a turn stored today (UTC).',
        },
        messages_today: { type: 'integer' },
        messages: { type: 'integer' },
        tokens: { type: 'integer' },
        tool_calls: nullable('integer', { description: 'Null for a key confined to partitions.' }),
        today_since: { type: 'string', format: 'date-time' },
        background_pending: { type: 'integer' },
      },
    },
  },
};
