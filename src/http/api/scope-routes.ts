import type { Hono } from 'hono';
import { InvalidRequestError, NotFoundError } from '../../errors';
import { exportJsonLines } from '../../memory/export-import';
import type { Scope } from '../../store/types';
import type { AppEnv } from '../app-env';
import { mayUse } from '../access-control';
import { validateScopeName } from '../scope';
import { API_PREFIX, INSTANCE_PATH, type ApiDeps } from './api-deps';
import { instanceJson, messageJson, partitionJson, statsJson } from './api-json';
import { flagParam, jsonObjectBody, pathScope, stringField } from './api-params';
import { partitionStatsJson } from './partition-stats';

const DAY_MS = 86_400_000;

/** Registers partitions and instances (list, delete, restore, purge, fork), stats and export. */
export function registerScopeRoutes(app: Hono<AppEnv>, deps: ApiDeps): void {
  const { store } = deps;

  // A key confined to some partitions sees only those (access-control lets it through).
  app.get(`${API_PREFIX}/partitions`, async (c) => {
    const grant = c.get('grant');
    const partitions = (await store.listPartitions()).filter((each) =>
      mayUse(grant, each.partition),
    );
    return c.json({ object: 'list', data: partitions.map(partitionJson) });
  });

  app.get(`${API_PREFIX}/partitions/:partition/instances`, async (c) => {
    const partition = validateScopeName(c.req.param('partition'), 'partition');
    return c.json({
      object: 'list',
      data: (await store.listInstances(partition)).map(instanceJson),
    });
  });

  app.get(INSTANCE_PATH, async (c) =>
    c.json(instanceJson(await requireInstance(deps, pathScope(c)))),
  );

  app.delete(INSTANCE_PATH, async (c) => {
    const scope = pathScope(c);
    await requireInstance(deps, scope);
    if (flagParam(c, 'purge')) {
      const removed = await store.purgeInstance(scope);
      return c.json({
        object: 'memory.instance.deleted',
        ...scope,
        deleted: true,
        purged: true,
        removed: { messages: removed.messages, tool_calls: removed.toolCalls },
      });
    }
    const changed = await store.setInstanceDeleted(scope, true);
    return c.json({
      ...instanceJson(await requireInstance(deps, scope)),
      messages_changed: changed,
    });
  });

  app.post(`${INSTANCE_PATH}/restore`, async (c) => {
    const scope = pathScope(c);
    const changed = await store.setInstanceDeleted(scope, false);
    if (changed > 0) deps.editor.afterRestore();
    return c.json({
      ...instanceJson(await requireInstance(deps, scope)),
      messages_changed: changed,
    });
  });

  app.post(`${INSTANCE_PATH}/fork`, async (c) => {
    const scope = pathScope(c);
    const body = await jsonObjectBody(c, deps.config.maxBodyBytes);
    const messageId = stringField(body, 'message_id');
    const newInstance = validateScopeName(stringField(body, 'new_instance'), 'instance');
    const copied = await store.forkInstance(scope, { messageId, newInstance });
    // The copies keep their embeddings; this embeds their tool calls and links the new turns.
    deps.editor.afterWrite({ partition: scope.partition, instance: newInstance }, copied);
    return c.json(
      {
        object: 'memory.fork',
        partition: scope.partition,
        instance: newInstance,
        source_instance: scope.instance,
        data: copied.map(messageJson),
      },
      201,
    );
  });

  app.get(`${API_PREFIX}/stats`, async (c) => {
    const since = Math.floor(deps.now() / DAY_MS) * DAY_MS;
    const granted = c.get('grant')?.partitions;
    if (granted !== undefined && granted !== 'all') {
      return c.json(
        await partitionStatsJson(store, {
          partitions: [...granted].sort(),
          since,
          backgroundPending: deps.backgroundPending(),
        }),
      );
    }
    return c.json(
      statsJson(await store.stats({ since }), {
        since,
        backgroundPending: deps.backgroundPending(),
      }),
    );
  });

  app.get(`${API_PREFIX}/export`, async (c) => {
    const partitionParam = c.req.query('partition');
    const instanceParam = c.req.query('instance');
    const partition =
      partitionParam === undefined ? undefined : validateScopeName(partitionParam, 'partition');
    const instance =
      instanceParam === undefined ? undefined : validateScopeName(instanceParam, 'instance');
    if (instance !== undefined && partition === undefined) {
      throw new InvalidRequestError(
        "'instance' names an instance of a partition: give 'partition' too.",
        { param: 'partition', code: 'invalid_parameter' },
      );
    }
    const granted = c.get('grant')?.partitions;
    // Without ?partition=, a key confined to some partitions exports those, one after the other.
    const partitions =
      partition === undefined && granted !== undefined && granted !== 'all'
        ? (await store.listPartitions())
            .map((each) => each.partition)
            .filter((each) => granted.has(each))
        : undefined;
    const lines = exportJsonLines(store, {
      partition,
      instance,
      partitions,
      embeddings: c.req.query('embeddings') !== 'false',
    });
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await lines.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await lines.return(undefined);
      },
    });
    return new Response(body, {
      headers: {
        'content-type': 'application/x-ndjson; charset=utf-8',
        'content-disposition': 'attachment; filename="memory-export.jsonl"',
      },
    });
  });
}

/** The instance's summary, or 404. */
async function requireInstance(deps: ApiDeps, scope: Scope) {
  const found = (await deps.store.listInstances(scope.partition)).find(
    (instance) => instance.instance === scope.instance,
  );
  if (!found)
    throw new NotFoundError(
      `No instance ${scope.instance} in partition ${scope.partition}.`,
      'instance',
    );
  return found;
}
