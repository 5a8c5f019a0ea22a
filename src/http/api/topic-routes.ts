import type { Context, Hono } from 'hono';
import { InvalidRequestError, NotFoundError } from '../../errors';
import {
  MAINTENANCE_JOBS,
  type MaintenanceJob,
  type MaintenanceRunOptions,
} from '../../memory/maintenance/maintenance-runner';
import type { PeriodGranularity } from '../../store/topic-types';
import type { Scope } from '../../store/types';
import type { AppEnv } from '../app-env';
import { validateScopeName } from '../scope';
import { API_PREFIX, INSTANCE_PATH, type ApiDeps } from './api-deps';
import { messageJson } from './api-json';
import { maintenanceJson, periodJson, topicJson } from './topic-json';
import { intParam, jsonObjectBody, pathScope, timeParam } from './api-params';

/** Most turns or periods one page lists. */
const MAX_PAGE = 1_000;
const GRANULARITIES: readonly PeriodGranularity[] = ['day', 'week'];

/** Registers topics, period summaries and the on-request run of the background jobs. */
export function registerTopicRoutes(app: Hono<AppEnv>, deps: ApiDeps): void {
  const { store } = deps;
  const topics = `${INSTANCE_PATH}/topics`;

  app.get(topics, async (c) => {
    const scope = pathScope(c);
    const [list, cursor] = await Promise.all([
      store.listTopics(scope),
      store.getJobCursor(scope, 'topics'),
    ]);
    return c.json({
      object: 'list',
      data: list.filter((topic) => topic.messages > 0).map(topicJson),
      assigned_through_seq: cursor,
    });
  });

  app.get(`${topics}/:topic`, async (c) => {
    const scope = pathScope(c);
    return c.json(topicJson(await requireTopic(deps, scope, topicParam(c))));
  });

  app.get(`${topics}/:topic/messages`, async (c) => {
    const scope = pathScope(c);
    const topic = await requireTopic(deps, scope, topicParam(c));
    const limit = intParam(c, 'limit', { min: 1, max: MAX_PAGE }) ?? 100;
    const afterSeq = intParam(c, 'cursor', { min: 0, max: Number.MAX_SAFE_INTEGER }) ?? 0;
    const page = await store.listTopicMessages(scope, topic.id, { afterSeq, limit: limit + 1 });
    const data = page.slice(0, limit);
    const hasMore = page.length > limit;
    return c.json({
      object: 'list',
      topic_id: topic.id,
      data: data.map(messageJson),
      next_cursor: data.at(-1)?.seq ?? afterSeq,
      has_more: hasMore,
    });
  });

  app.get(`${INSTANCE_PATH}/periods`, async (c) => {
    const scope = pathScope(c);
    const granularity = c.req.query('granularity') ?? 'day';
    if (!(GRANULARITIES as readonly string[]).includes(granularity)) {
      throw new InvalidRequestError(
        `'granularity' takes ${GRANULARITIES.join(' or ')}; got ${JSON.stringify(granularity.slice(0, 40))}.`,
        { param: 'granularity', code: 'invalid_parameter' },
      );
    }
    const summaries = await store.listPeriodSummaries(scope, {
      granularity: granularity as PeriodGranularity,
      fromTime: timeParam(c, 'from'),
      toTime: timeParam(c, 'to'),
      limit: intParam(c, 'limit', { min: 1, max: MAX_PAGE }) ?? 100,
    });
    return c.json({ object: 'list', data: summaries.map(periodJson) });
  });

  app.post(`${INSTANCE_PATH}/maintenance`, async (c) => {
    const scope = pathScope(c);
    const options = await runOptions(c, deps);
    const report = await deps.maintenance.run({ ...options, filter: scope });
    return c.json(maintenanceJson(report));
  });

  app.post(`${API_PREFIX}/maintenance`, async (c) => {
    const options = await runOptions(c, deps);
    const body = options.body;
    const partition = optionalName(body, 'partition');
    const instance = optionalName(body, 'instance');
    if (instance !== undefined && partition === undefined) {
      throw new InvalidRequestError(
        "'instance' names an instance of a partition: give 'partition' too.",
        { param: 'partition', code: 'invalid_parameter' },
      );
    }
    const report = await deps.maintenance.run({ ...options, filter: { partition, instance } });
    return c.json(maintenanceJson(report));
  });
}

/** The jobs and step limit a maintenance request asks for (`{}`: every job). */
async function runOptions(
  c: Context<AppEnv>,
  deps: ApiDeps,
): Promise<MaintenanceRunOptions & { body: Record<string, unknown> }> {
  const body = await jsonObjectBody(c, deps.config.maxBodyBytes);
  const jobs = body['jobs'] ?? [...MAINTENANCE_JOBS];
  if (
    !Array.isArray(jobs) ||
    jobs.length === 0 ||
    !jobs.every((job) => (MAINTENANCE_JOBS as readonly unknown[]).includes(job))
  ) {
    throw new InvalidRequestError(
      `'jobs' must be a non-empty array of ${MAINTENANCE_JOBS.join(', ')}.`,
      { param: 'jobs', code: 'invalid_parameter' },
    );
  }
  return {
    jobs: jobs as MaintenanceJob[],
    batchSize: countField(body, 'batch_size', MAX_PAGE),
    maxBatches: countField(body, 'max_batches', Number.MAX_SAFE_INTEGER),
    body,
  };
}

/** An optional whole-number field from 1 to `max`. */
function countField(body: Record<string, unknown>, name: string, max: number): number | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > max) {
    throw new InvalidRequestError(`'${name}' must be a whole number from 1 to ${max}.`, {
      param: name,
      code: 'invalid_parameter',
    });
  }
  return value as number;
}

function optionalName(body: Record<string, unknown>, name: 'partition' | 'instance') {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new InvalidRequestError(`'${name}' must be a string.`, {
      param: name,
      code: 'invalid_parameter',
    });
  }
  return validateScopeName(value, name);
}

function topicParam(c: Context<AppEnv>): string {
  const id = c.req.param('topic') ?? '';
  if (id === '' || id.length > 128) {
    throw new NotFoundError(
      `No topic ${JSON.stringify(id.slice(0, 140))} in this instance.`,
      'topic',
    );
  }
  return id;
}

async function requireTopic(deps: ApiDeps, scope: Scope, id: string) {
  const topic = (await deps.store.listTopics(scope)).find((each) => each.id === id);
  if (!topic) throw new NotFoundError(`No topic ${id} in this instance.`, 'topic');
  return topic;
}
