import {
  body,
  json,
  list,
  nullable,
  OPENAPI_COMPONENTS,
  param,
  pathParam,
  ref,
  scopeName,
} from './openapi-components';
import { TOPIC_PATHS, TOPIC_SCHEMAS } from './openapi-topics';

// Every route can fail this way; the body is always OpenAI's error shape.
const ERRORS = {
  '400': json(ref('Error'), 'The request is malformed or names something invalid.'),
  '401': json(ref('Error'), 'An API key is required or wrong.'),
  '403': json(ref('Error'), 'The API key may not use this partition.'),
  '404': json(ref('Error'), 'No such partition, instance or message.'),
  '503': json(ref('Error'), 'The memory store is unavailable.'),
};

const PARTITION = pathParam('partition', 'Partition name (A-Z a-z 0-9 . _ -, 1-128 characters).');
const INSTANCE = pathParam('instance', 'Instance name (A-Z a-z 0-9 . _ -, 1-128 characters).');
const MESSAGE = pathParam('id', 'Message id (a ULID).');
const PURGE = param(
  'purge',
  'true: delete for good (no restore), with chunks, tool calls, relationships and search-index entries.',
  { type: 'boolean' },
);

/** The OpenAPI 3.1 description of the management API (served at GET /api/v1/openapi.json). */
export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'memory-proxy management API',
    version: '1.0.0',
    description:
      'List, read, search, write, edit, delete, restore, purge, fork and export the memory the proxy keeps, ' +
      'and read the topics and period summaries the background jobs make of it. ' +
      'Deleted turns never reach a model; purged ones are gone from the store and its search indexes.',
  },
  servers: [{ url: '/' }],
  security: [{ bearer: [] }, {}],
  paths: {
    '/api/v1/partitions': {
      get: {
        summary:
          'List partitions with their instances, turns, tokens and last activity (a key confined to some partitions sees those)',
        responses: { '200': json(list('Partition'), 'Partitions by name.'), ...ERRORS },
      },
    },
    '/api/v1/partitions/{partition}/instances': {
      get: {
        summary: 'List the instances of a partition with their figures',
        parameters: [PARTITION],
        responses: { '200': json(list('Instance'), 'Instances by name.'), ...ERRORS },
      },
    },
    '/api/v1/partitions/{partition}/instances/{instance}': {
      parameters: [PARTITION, INSTANCE],
      get: {
        summary: 'One instance and its figures',
        responses: { '200': json(ref('Instance'), 'The instance.'), ...ERRORS },
      },
      delete: {
        summary: 'Soft-delete an instance (restorable), or purge it for good with purge=true',
        parameters: [PURGE],
        responses: {
          '200': json({ type: 'object' }, 'The instance, deleted; or what the purge removed.'),
          ...ERRORS,
        },
      },
    },
    '/api/v1/partitions/{partition}/instances/{instance}/restore': {
      post: {
        summary: 'Restore a soft-deleted instance (turns deleted on their own stay deleted)',
        parameters: [PARTITION, INSTANCE],
        responses: { '200': json(ref('Instance'), 'The restored instance.'), ...ERRORS },
      },
    },
    '/api/v1/partitions/{partition}/instances/{instance}/fork': {
      post: {
        summary:
          'Copy the branch from the root to a message into a new instance (new ids, seq 1..n)',
        parameters: [PARTITION, INSTANCE],
        requestBody: body({
          type: 'object',
          required: ['message_id', 'new_instance'],
          properties: { message_id: { type: 'string' }, new_instance: scopeName },
        }),
        responses: {
          '201': json(
            {
              type: 'object',
              properties: { instance: scopeName, data: { type: 'array', items: ref('Message') } },
            },
            'The new instance and its turns.',
          ),
          '409': json(ref('Error'), 'The new instance already has turns.'),
          ...ERRORS,
        },
      },
    },
    '/api/v1/partitions/{partition}/instances/{instance}/messages': {
      parameters: [PARTITION, INSTANCE],
      get: {
        summary: 'Page through the turns of an instance by seq',
        parameters: [
          param(
            'cursor',
            'The last seq seen: the page starts after it. Stable under concurrent writes.',
            { type: 'integer', minimum: 0 },
          ),
          param('limit', 'Turns per page (default 100, at most 1000).', {
            type: 'integer',
            minimum: 1,
            maximum: 1000,
          }),
          param('role', 'Comma-separated roles to keep: user, assistant, tool.'),
          param('from', 'Only turns at or after this time (ISO 8601 or epoch ms).'),
          param('to', 'Only turns before this time (ISO 8601 or epoch ms).'),
          param(
            'as_of_seq',
            'Point in time: turns with seq <= N, with the text they had when turn N was stored.',
            { type: 'integer', minimum: 1 },
          ),
          param('leaf', 'Only the branch from the root to this message.'),
          param('token_budget', 'Only the newest turns whose tokens fit this budget.', {
            type: 'integer',
            minimum: 1,
          }),
          param('include_deleted', 'Soft-deleted turns too (plain listing only).', {
            type: 'boolean',
          }),
        ],
        responses: { '200': json(ref('MessagePage'), 'A page of turns, oldest first.'), ...ERRORS },
      },
      post: {
        summary: 'Append turns without a chat call (stored like a chat request, then embedded)',
        requestBody: body({
          type: 'object',
          required: ['messages'],
          properties: {
            messages: {
              type: 'array',
              minItems: 1,
              items: {
                type: 'object',
                description: 'OpenAI chat messages (user, assistant, tool).',
              },
            },
            parent_id: nullable('string', {
              description:
                'Append under this turn; absent: continue or match the conversation as a chat request would.',
            }),
          },
        }),
        responses: {
          '201': json(
            {
              type: 'object',
              properties: {
                data: { type: 'array', items: ref('Message') },
                leaf_id: nullable('string'),
              },
            },
            'The turns stored.',
          ),
          '200': json({ type: 'object' }, 'Every turn was stored before (a retry): nothing new.'),
          ...ERRORS,
        },
      },
    },
    '/api/v1/partitions/{partition}/instances/{instance}/messages/{id}': {
      parameters: [PARTITION, INSTANCE, MESSAGE],
      get: {
        summary: 'One message with its chunks, tool calls, RESPONDED_WITH partner and synapses',
        responses: { '200': json(ref('MessageDetail'), 'The message.'), ...ERRORS },
      },
      patch: {
        summary:
          'Edit a turn: the old text goes to edit_history; embedding, chunks and synapses are rebuilt',
        requestBody: body({
          type: 'object',
          required: ['content'],
          properties: { content: { type: ['string', 'array'] } },
        }),
        responses: { '200': json(ref('Message'), 'The edited turn.'), ...ERRORS },
      },
      delete: {
        summary:
          'Soft-delete a turn (it never reaches a model again until restored), or purge it with purge=true',
        parameters: [PURGE],
        responses: {
          '200': json({ type: 'object' }, 'The deleted turn, or what the purge removed.'),
          ...ERRORS,
        },
      },
    },
    '/api/v1/partitions/{partition}/instances/{instance}/messages/{id}/restore': {
      post: {
        summary: 'Restore a soft-deleted turn',
        parameters: [PARTITION, INSTANCE, MESSAGE],
        responses: { '200': json(ref('Message'), 'The restored turn.'), ...ERRORS },
      },
    },
    '/api/v1/partitions/{partition}/instances/{instance}/search': {
      post: {
        summary: 'Hybrid search (vector, full text, graph) as the proxy retrieves context',
        parameters: [PARTITION, INSTANCE],
        requestBody: body({
          type: 'object',
          required: ['query'],
          properties: {
            query: { type: 'string' },
            limit: { type: 'integer', minimum: 1, maximum: 100 },
          },
        }),
        responses: { '200': json(list('SearchResult'), 'Hits, best first.'), ...ERRORS },
      },
    },
    '/api/v1/stats': {
      get: {
        summary:
          'Store-wide figures (a key confined to some partitions gets the figures of those, with the store-wide ones null)',
        responses: { '200': json(ref('Stats'), 'The figures.'), ...ERRORS },
      },
    },
    '/api/v1/export': {
      get: {
        summary:
          'Every node and relationship as JSON Lines (all scopes, a partition or an instance; without partition, a key confined to some partitions exports those)',
        parameters: [
          param('partition', 'Only this partition.'),
          param('instance', 'Only this instance (with partition).'),
          param(
            'embeddings',
            'false: leave vectors out, and with them the topics, their BELONGS_TO links, period summaries and job cursors (the jobs make them again).',
            { type: 'boolean' },
          ),
        ],
        responses: {
          '200': {
            description:
              'A header line (format version 3), then one node or relationship per line with a type field: Instance (with the cursors of the topic and period jobs), Message, ToolCall, CoreMemory, Summary, Topic, PeriodSummary, then REPLIES_TO, RESPONDED_WITH, SYNAPSE, BELONGS_TO, CHUNK_OF, CALLED_BY. A vector of Float32 values is the base64 of its little-endian Float32 bytes, any other a list of numbers.',
            content: { 'application/x-ndjson': { schema: { type: 'string' } } },
          },
          ...ERRORS,
        },
      },
    },
    ...TOPIC_PATHS,
    '/api/v1/openapi.json': {
      get: {
        summary: 'This document',
        responses: { '200': json({ type: 'object' }, 'The OpenAPI document.') },
      },
    },
  },
  components: {
    ...OPENAPI_COMPONENTS,
    schemas: { ...OPENAPI_COMPONENTS.schemas, ...TOPIC_SCHEMAS },
  },
} as const;
