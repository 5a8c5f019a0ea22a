import { body, json, list, nullable, param, pathParam, ref, scopeName } from './openapi-components';

const ERRORS = {
  '400': json(ref('Error'), 'The request is malformed or names something invalid.'),
  '401': json(ref('Error'), 'An API key is required or wrong.'),
  '403': json(ref('Error'), 'The API key may not use this partition.'),
  '404': json(ref('Error'), 'No such partition, instance or topic.'),
  '503': json(ref('Error'), 'The memory store is unavailable.'),
};
const PARTITION = pathParam('partition', 'Partition name (A-Z a-z 0-9 . _ -, 1-128 characters).');
const INSTANCE = pathParam('instance', 'Instance name (A-Z a-z 0-9 . _ -, 1-128 characters).');
const TOPIC = pathParam('topic', 'Topic id (a ULID).');
const INSTANCE_PATH = '/api/v1/partitions/{partition}/instances/{instance}';
const JOBS = { enum: ['orphans', 'retention', 'topics', 'periods'] };

const RUN_BODY = {
  type: 'object',
  properties: {
    jobs: {
      type: 'array',
      minItems: 1,
      items: JOBS,
      description:
        'The jobs to run (default: all, in the order orphans, retention, topics, periods).',
    },
    batch_size: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      description: 'Topic job: turns per step (default 200); each step is one transaction.',
    },
    max_batches: {
      type: 'integer',
      minimum: 1,
      description:
        'Topic job: stop after this many steps per instance, as an interrupted run would.',
    },
  },
};

/** The paths of topics, period summaries and the background jobs. */
export const TOPIC_PATHS = {
  [`${INSTANCE_PATH}/topics`]: {
    get: {
      summary: 'The topics of an instance (clusters of its turns), largest first',
      parameters: [PARTITION, INSTANCE],
      responses: {
        '200': json(
          {
            ...list('Topic'),
            properties: {
              ...list('Topic').properties,
              assigned_through_seq: {
                type: 'integer',
                description: 'Turns up to this seq have been assigned to topics.',
              },
            },
          },
          'Topics with at least one live turn.',
        ),
        ...ERRORS,
      },
    },
  },
  [`${INSTANCE_PATH}/topics/{topic}`]: {
    get: {
      summary: 'One topic',
      parameters: [PARTITION, INSTANCE, TOPIC],
      responses: { '200': json(ref('Topic'), 'The topic.'), ...ERRORS },
    },
  },
  [`${INSTANCE_PATH}/topics/{topic}/messages`]: {
    get: {
      summary: 'The live turns of a topic, by seq',
      parameters: [
        PARTITION,
        INSTANCE,
        TOPIC,
        param('cursor', 'The last seq seen: the page starts after it.', {
          type: 'integer',
          minimum: 0,
        }),
        param('limit', 'Turns per page (default 100, at most 1000).', {
          type: 'integer',
          minimum: 1,
          maximum: 1000,
        }),
      ],
      responses: { '200': json(ref('MessagePage'), 'A page of the topic’s turns.'), ...ERRORS },
    },
  },
  [`${INSTANCE_PATH}/periods`]: {
    get: {
      summary: 'What the instance held day by day or week by week (UTC, ISO weeks)',
      parameters: [
        PARTITION,
        INSTANCE,
        param('granularity', 'day (default) or week.', { enum: ['day', 'week'] }),
        param('from', 'Only periods that end after this time (ISO 8601 or epoch ms).'),
        param('to', 'Only periods that start before this time (ISO 8601 or epoch ms).'),
        param('limit', 'Periods per page (default 100, at most 1000).', {
          type: 'integer',
          minimum: 1,
          maximum: 1000,
        }),
      ],
      responses: { '200': json(list('PeriodSummary'), 'Periods, oldest first.'), ...ERRORS },
    },
  },
  [`${INSTANCE_PATH}/maintenance`]: {
    post: {
      summary: 'Run the background jobs for this instance now (they also run on a timer)',
      parameters: [PARTITION, INSTANCE],
      requestBody: body(RUN_BODY),
      responses: { '200': json(ref('MaintenanceReport'), 'What the jobs did.'), ...ERRORS },
    },
  },
  '/api/v1/maintenance': {
    post: {
      summary: 'Run the background jobs now, for every instance or a partition or instance',
      requestBody: body({
        ...RUN_BODY,
        properties: {
          ...RUN_BODY.properties,
          partition: scopeName,
          instance: { ...scopeName, description: 'Only with partition.' },
        },
      }),
      responses: { '200': json(ref('MaintenanceReport'), 'What the jobs did.'), ...ERRORS },
    },
  },
};

/** The shapes the topic and period routes return. */
export const TOPIC_SCHEMAS = {
  Topic: {
    type: 'object',
    properties: {
      object: { const: 'memory.topic' },
      id: { type: 'string' },
      partition: scopeName,
      instance: scopeName,
      label: { type: 'string', description: 'Words most of its turns share.' },
      summary: {
        type: 'string',
        description: 'Its most central turns quoted, or a model’s summary of them.',
      },
      summary_kind: { enum: ['extractive', 'model'] },
      highlight_ids: {
        type: 'array',
        items: { type: 'string' },
        description: 'The turns the summary quotes or was written from.',
      },
      messages: { type: 'integer', description: 'Live turns that belong to it.' },
      size: { type: 'integer', description: 'Turns ever assigned to it, deleted ones included.' },
      period_start: { type: 'string', format: 'date-time' },
      period_end: { type: 'string', format: 'date-time' },
      updated_at: { type: 'string', format: 'date-time' },
    },
  },
  PeriodSummary: {
    type: 'object',
    properties: {
      object: { const: 'memory.period_summary' },
      granularity: { enum: ['day', 'week'] },
      period: { type: 'string', description: '2026-11-22 for a day, 2026-W47 for a week.' },
      start: { type: 'string', format: 'date-time' },
      end: { type: 'string', format: 'date-time' },
      messages: { type: 'integer' },
      user_messages: { type: 'integer' },
      tokens: { type: 'integer' },
      topics: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            label: { type: 'string' },
            messages: { type: 'integer' },
          },
        },
      },
      summary: { type: 'string', description: 'The period’s most central turns, quoted.' },
      highlight_ids: { type: 'array', items: { type: 'string' } },
      updated_at: { type: 'string', format: 'date-time' },
    },
  },
  MaintenanceReport: {
    type: 'object',
    properties: {
      object: { const: 'memory.maintenance' },
      completed: { type: 'boolean' },
      orphans: nullable('object', {
        properties: { chunks: { type: 'integer' }, topics: { type: 'integer' } },
      }),
      retention: nullable('object', {
        properties: { soft_deleted: { type: 'integer' }, purged: { type: 'integer' } },
      }),
      topics: nullable('object'),
      periods: nullable('object'),
    },
  },
};
