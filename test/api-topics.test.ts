import Database from 'better-sqlite3';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../src/embeddings/local-embedder';
import type { MemoryStore } from '../src/store/memory-store';
import { Neo4jRunner } from '../src/store/neo4j/neo4j-runner';
import { SqliteStore } from '../src/store/sqlite/sqlite-store';
import type { Scope } from '../src/store/types';
import { apiClient, instancePath } from './support/api-client';
import { errorReply, startFakeUpstream, textReply, type FakeUpstream } from './support/fake-upstream';
import { expectOpenAiError } from './support/http-checks';
import { startProxy, type RunningProxy } from './support/proxy-harness';
import { orphanCounts } from './support/graph-checks';
import { neo4jTestConfig, storeFactories, TEST_DIMENSIONS } from './support/stores';
import { append as appendToStore, turn } from './store/contract-fixtures';

const embedder = new LocalEmbedder({ dimensions: TEST_DIMENSIONS });

/** Three subjects a conversation moves between, each in its own words. */
const SUBJECTS = [
  [
    'How long should I knead bread dough with wholemeal flour and yeast?',
    'Knead the wholemeal dough about ten minutes until the gluten makes it elastic, then let the yeast rise it.',
    'My sourdough bread crust is too pale after baking in the oven.',
    'Bake the sourdough bread hotter, with steam in the oven for the first minutes, for a darker crust.',
  ],
  [
    'Which telescope eyepiece shows Saturn rings and Jupiter moons best?',
    'A 10 mm eyepiece on that telescope shows Saturn rings and the four Jupiter moons clearly.',
    'When is the next meteor shower visible from the northern hemisphere at night?',
    'The Perseid meteor shower peaks in August; watch the night sky after midnight away from city lights.',
  ],
  [
    'My bicycle chain keeps slipping on the rear derailleur gears.',
    'Adjust the rear derailleur cable tension and check the bicycle chain for wear with a chain gauge.',
    'How often should I oil the bicycle chain and replace the brake pads?',
    'Oil the bicycle chain every few hundred kilometres and replace brake pads when the grooves are gone.',
  ],
];

/** Deletes a message row or node directly, as nothing in the proxy would. */
async function deleteBehindTheStore(store: MemoryStore, id: string): Promise<void> {
  if (store instanceof SqliteStore) {
    const db = new Database(store.file);
    try {
      db.prepare('DELETE FROM messages WHERE id = ?').run(id);
    } finally {
      db.close();
    }
    return;
  }
  const runner = new Neo4jRunner(neo4jTestConfig()!);
  try {
    await runner.write('MATCH (m:Message {id: $id}) DETACH DELETE m', { id });
  } finally {
    await runner.close();
  }
}

function freshScope(): Scope {
  return { partition: `p-${ulid()}`, instance: `i-${ulid()}` };
}

/** The subjects interleaved: a conversation that comes back to each one twice. */
function conversation(): { role: string; content: string }[] {
  const turns: { role: string; content: string }[] = [];
  for (const half of [0, 2]) {
    for (const subject of SUBJECTS) {
      turns.push({ role: 'user', content: subject[half]! });
      turns.push({ role: 'assistant', content: subject[half + 1]! });
    }
  }
  return turns;
}

interface TopicBody {
  id: string;
  highlight_ids: string[];
  label: string;
  summary: string;
  summary_kind: string;
  messages: number;
}

for (const factory of storeFactories()) {
  describe(`topics, period summaries, cleanup and retention (${factory.name})`, () => {
    let store: MemoryStore;
    let upstream: FakeUpstream;
    let proxy: RunningProxy;
    let api: ReturnType<typeof apiClient>;
    let clockOffset = 0;

    beforeAll(async () => {
      store = await factory.create();
      upstream = await startFakeUpstream();
      proxy = await startProxy({
        store,
        upstreamUrl: upstream.url,
        env: { RETENTION_DAYS: '30', RETENTION_GRACE_DAYS: '7', INDEX_CHUNK_THRESHOLD: '400' },
        deps: { now: () => Date.now() + clockOffset },
      });
      api = apiClient(proxy.origin);
    });
    afterAll(async () => {
      await proxy?.close();
      await upstream?.close();
      await store?.close();
    });

    const append = async (scope: Scope, messages: Record<string, unknown>[]) => {
      const reply = await api.post(`${instancePath(scope)}/messages`, { messages });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      await proxy.background.drain();
      return reply.body.data as { id: string; seq: number; content: string }[];
    };
    const maintain = async (scope: Scope, body: Record<string, unknown>) => {
      const reply = await api.post(`${instancePath(scope)}/maintenance`, body);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body;
    };
    const topicsOf = async (scope: Scope): Promise<TopicBody[]> => {
      const reply = await api.get(`${instancePath(scope)}/topics`);
      expect(reply.status).toBe(200);
      return reply.body.data;
    };
    /** Each turn's topic, by seq, read through the topic messages route. */
    const membership = async (scope: Scope): Promise<Map<number, string>> => {
      const bySeq = new Map<number, string>();
      for (const topic of await topicsOf(scope)) {
        const page = await api.get(`${instancePath(scope)}/topics/${topic.id}/messages?limit=1000`);
        expect(page.status).toBe(200);
        for (const message of page.body.data as { seq: number }[]) {
          expect(bySeq.has(message.seq), `turn ${message.seq} is in two topics`).toBe(false);
          bySeq.set(message.seq, topic.id);
        }
      }
      return bySeq;
    };
    /** The topics as sets of seqs, independent of their ids. */
    const grouping = (bySeq: Map<number, string>) => {
      const groups = new Map<string, number[]>();
      for (const [seq, topic] of [...bySeq].sort((a, b) => a[0] - b[0])) {
        groups.set(topic, [...(groups.get(topic) ?? []), seq]);
      }
      return [...groups.values()].map((seqs) => seqs.join(',')).sort();
    };

    it('puts every turn in exactly one topic with a quoted summary; a second run changes nothing', async () => {
      const scope = freshScope();
      const stored = await append(scope, conversation());
      const first = await maintain(scope, { jobs: ['topics'] });
      expect(first.topics).toMatchObject({ instances: 1, assigned: 12, done: true });

      const bySeq = await membership(scope);
      expect([...bySeq.keys()].sort((a, b) => a - b)).toEqual(stored.map((turn) => turn.seq));
      const topics = await topicsOf(scope);
      expect(topics.length).toBeGreaterThanOrEqual(2);
      expect(topics.length).toBeLessThan(12);
      expect(topics.reduce((total, topic) => total + topic.messages, 0)).toBe(12);
      for (const topic of topics) {
        expect(topic.summary_kind).toBe('extractive');
        expect(topic.label).not.toBe('');
        // The summary quotes the topic's own turns.
        const quoted = topic.summary.split('\n')[0]!.replace(/^(user|assistant): /, '');
        const page = await api.get(`${instancePath(scope)}/topics/${topic.id}/messages`);
        const texts = (page.body.data as { content: string }[]).map((turn) => turn.content);
        expect(texts.some((text) => text.startsWith(quoted.replace(/…$/, '')))).toBe(true);
      }
      // The bread turns share a topic, and it is not the telescope's.
      expect(bySeq.get(1)).toBe(bySeq.get(7));
      expect(bySeq.get(1)).not.toBe(bySeq.get(3));

      const again = await maintain(scope, { jobs: ['topics'] });
      expect(again.topics).toMatchObject({ assigned: 0, created: 0, done: true });
      expect(await topicsOf(scope)).toEqual(topics);
      expect(await membership(scope)).toEqual(bySeq);

      // New turns join incrementally; nothing is assigned twice.
      await append(scope, [
        { role: 'user', content: 'Should I proof the bread dough overnight in the fridge?' },
        {
          role: 'assistant',
          content: 'A cold overnight proof gives the bread dough more flavour.',
        },
      ]);
      const third = await maintain(scope, { jobs: ['topics'] });
      expect(third.topics).toMatchObject({ assigned: 2 });
      const after = await membership(scope);
      expect(after.size).toBe(14);
      expect(after.get(13)).toBe(bySeq.get(1));

      const metrics = await (await fetch(`${proxy.origin}/metrics`)).text();
      expect(metrics).toMatch(/^memory_proxy_maintenance_runs_total\{outcome="completed"\} [1-9]/m);
      expect(metrics).toMatch(
        /^memory_proxy_maintenance_items_total\{job="topics",item="assigned"\} [1-9]\d*/m,
      );
      expect(metrics).toMatch(/^memory_proxy_maintenance_duration_seconds_count [1-9]/m);
    });

    it('resumes an interrupted run and ends with the topics of an uninterrupted one', async () => {
      const interrupted = freshScope();
      const whole = freshScope();
      await append(interrupted, conversation());
      await append(whole, conversation());

      const stopped = await maintain(interrupted, {
        jobs: ['topics'],
        batch_size: 5,
        max_batches: 1,
      });
      expect(stopped.topics).toMatchObject({ assigned: 5, done: false });
      const partial = await api.get(`${instancePath(interrupted)}/topics`);
      expect(partial.body.assigned_through_seq).toBe(5);
      expect((await membership(interrupted)).size).toBe(5);

      const resumed = await maintain(interrupted, { jobs: ['topics'], batch_size: 5 });
      expect(resumed.topics).toMatchObject({ assigned: 7, done: true });
      await maintain(whole, { jobs: ['topics'] });

      expect(grouping(await membership(interrupted))).toEqual(grouping(await membership(whole)));
      const summaries = async (scope: Scope) =>
        (await topicsOf(scope)).map((topic) => [topic.label, topic.summary, topic.messages]).sort();
      expect(await summaries(interrupted)).toEqual(await summaries(whole));
    });

    it('serves topics and their turns with OpenAI-shaped errors for bad input', async () => {
      const scope = freshScope();
      await append(scope, conversation());
      await maintain(scope, { jobs: ['topics'] });
      const [topic] = await topicsOf(scope);
      const one = await api.get(`${instancePath(scope)}/topics/${topic!.id}`);
      expect(one.body).toMatchObject({ object: 'memory.topic', id: topic!.id });

      const first = await api.get(`${instancePath(scope)}/topics/${topic!.id}/messages?limit=1`);
      expect(first.body.data).toHaveLength(1);
      expect(first.body.has_more).toBe(topic!.messages > 1);
      const next = await api.get(
        `${instancePath(scope)}/topics/${topic!.id}/messages?limit=1&cursor=${first.body.next_cursor}`,
      );
      expect(next.body.data[0]?.seq ?? Infinity).toBeGreaterThan(first.body.data[0].seq);

      const origin = proxy.origin;
      const other = freshScope();
      await expectOpenAiError(
        await fetch(`${origin}${instancePath(other)}/topics/${topic!.id}`),
        404,
      );
      const badLimit = await expectOpenAiError(
        await fetch(`${origin}${instancePath(scope)}/topics/${topic!.id}/messages?limit=0`),
        400,
      );
      expect(badLimit.error.param).toBe('limit');
      const badJobs = await expectOpenAiError(
        await fetch(`${origin}${instancePath(scope)}/maintenance`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jobs: ['everything'] }),
        }),
        400,
      );
      expect(badJobs.error.param).toBe('jobs');
      const openapi = await api.get('/api/v1/openapi.json');
      expect(Object.keys(openapi.body.paths)).toEqual(
        expect.arrayContaining([
          '/api/v1/partitions/{partition}/instances/{instance}/topics',
          '/api/v1/partitions/{partition}/instances/{instance}/topics/{topic}/messages',
          '/api/v1/partitions/{partition}/instances/{instance}/periods',
          '/api/v1/maintenance',
        ]),
      );
    });

    it('summarizes each day and week: counts, main topics and the most central turns', async () => {
      const scope = freshScope();
      const stored = await append(scope, conversation());
      const report = await maintain(scope, { jobs: ['topics', 'periods'] });
      expect(report.periods).toMatchObject({ instances: 1, done: true });

      const days = await api.get(`${instancePath(scope)}/periods?granularity=day`);
      expect(days.status).toBe(200);
      expect(days.body.data.length).toBeGreaterThanOrEqual(1);
      const today = days.body.data.at(-1);
      expect(today.period).toBe(new Date().toISOString().slice(0, 10));
      expect(
        days.body.data.reduce((sum: number, day: { messages: number }) => sum + day.messages, 0),
      ).toBe(12);
      expect(today.topics.length).toBeGreaterThanOrEqual(1);
      expect(today.highlight_ids.length).toBe(3);
      const ids = stored.map((turn) => turn.id);
      for (const id of today.highlight_ids) expect(ids).toContain(id);
      expect(today.summary.split('\n')).toHaveLength(3);

      const weeks = await api.get(`${instancePath(scope)}/periods?granularity=week`);
      expect(weeks.body.data.at(-1).period).toMatch(/^\d{4}-W\d{2}$/);
      expect(weeks.body.data.at(-1).messages).toBeGreaterThanOrEqual(today.messages);

      // A second run writes nothing new; new turns update their period.
      const again = await maintain(scope, { jobs: ['periods'] });
      expect(again.periods.periods).toBe(0);
      await append(scope, [{ role: 'user', content: 'One more question about telescopes.' }]);
      await maintain(scope, { jobs: ['periods'] });
      const updated = await api.get(`${instancePath(scope)}/periods?granularity=day`);
      expect(updated.body.data.at(-1).messages).toBe(today.messages + 1);

      const bad = await expectOpenAiError(
        await fetch(`${proxy.origin}${instancePath(scope)}/periods?granularity=month`),
        400,
      );
      expect(bad.error.param).toBe('granularity');
    });

    it('summarizes each day and week of turns spread over several days', async () => {
      const scope = freshScope();
      const day = 86_400_000;
      // Saturday 21, Sunday 22 and Monday 23 November 2026: two ISO weeks.
      const saturday = Date.UTC(2026, 10, 21, 10);
      let parentId: string | null = null;
      for (const [offset, content] of [
        [0, 'Saturday question about bread'],
        [0, 'Saturday answer about bread'],
        [day, 'Sunday question about telescopes'],
        [2 * day, 'Monday question about bicycles'],
      ] as const) {
        const role = content.includes('answer') ? 'assistant' : 'user';
        const timestamp = saturday + offset;
        const [stored] = await appendToStore(store, scope, parentId, [
          turn(role, content, { timestamp }),
        ]);
        parentId = stored!.id;
      }
      await maintain(scope, { jobs: ['periods'] });
      const days = (await api.get(`${instancePath(scope)}/periods`)).body.data;
      expect(
        days.map((each: { period: string; messages: number; user_messages: number }) => [
          each.period,
          each.messages,
          each.user_messages,
        ]),
      ).toEqual([
        ['2026-11-21', 2, 1],
        ['2026-11-22', 1, 1],
        ['2026-11-23', 1, 1],
      ]);
      expect(days[0].summary).toContain('Saturday question about bread');
      const weeks = (await api.get(`${instancePath(scope)}/periods?granularity=week`)).body.data;
      expect(
        weeks.map((each: { period: string; messages: number }) => [each.period, each.messages]),
      ).toEqual([
        ['2026-W47', 3],
        ['2026-W48', 1],
      ]);
      const sunday = await api.get(
        `${instancePath(scope)}/periods?from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z`,
      );
      expect(sunday.body.data.map((each: { period: string }) => each.period)).toEqual([
        '2026-11-22',
      ]);
    });

    it("drops a purged turn's words from topic and period summaries at the next run", async () => {
      const scope = freshScope();
      await append(scope, conversation());
      await maintain(scope, { jobs: ['topics', 'periods'] });
      const [topic] = await topicsOf(scope);
      const quotedId = topic!.highlight_ids[0]!;
      const quoted = (await api.get(`${instancePath(scope)}/messages/${quotedId}`)).body.content;
      expect(topic!.summary).toContain(quoted.slice(0, 40));

      const purged = await api.delete(`${instancePath(scope)}/messages/${quotedId}?purge=true`);
      expect(purged.status).toBe(200);
      const report = await maintain(scope, { jobs: ['orphans', 'topics', 'periods'] });
      expect(report.topics.summarized).toBeGreaterThanOrEqual(1);
      const topics = JSON.stringify(await topicsOf(scope));
      const periods = JSON.stringify([
        ...(await api.get(`${instancePath(scope)}/periods`)).body.data,
        ...(await api.get(`${instancePath(scope)}/periods?granularity=week`)).body.data,
      ]);
      for (const text of [topics, periods]) {
        expect(text).not.toContain(quotedId);
        expect(text).not.toContain(quoted.slice(0, 40));
      }
    });

    it('cleans up orphaned chunks and leaves the chunks of long turns alone', async () => {
      const scope = freshScope();
      const long = Array.from(
        { length: 120 },
        (_, index) =>
          `Sentence ${index} of the long design note covers storage engine detail ${index}.`,
      ).join(' ');
      const [longTurn, shortTurn] = await append(scope, [
        { role: 'user', content: long },
        { role: 'assistant', content: 'Noted.' },
      ]);
      const kept = await store.getChunks(scope, longTurn!.id);
      expect(kept.length).toBeGreaterThan(1);
      // Chunks whose text the turn does not hold: what a change behind the edit path leaves.
      await store.setChunks(scope, shortTurn!.id, [
        { content: 'text that was never in the turn', tokenCount: 6 },
        { content: 'and more of it', tokenCount: 4 },
      ]);

      const report = await maintain(scope, { jobs: ['orphans'] });
      expect(report.orphans.chunks).toBe(2);
      expect(await store.getChunks(scope, shortTurn!.id)).toEqual([]);
      expect((await store.getChunks(scope, longTurn!.id)).map((chunk) => chunk.id)).toEqual(
        kept.map((chunk) => chunk.id),
      );
      expect((await maintain(scope, { jobs: ['orphans'] })).orphans.chunks).toBe(0);

      // A turn removed behind the store's back (a hand edit, a tool of its own) strands its chunks.
      await deleteBehindTheStore(store, longTurn!.id);
      expect((await orphanCounts(store, [scope.partition])).chunksWithoutParent).toBe(kept.length);
      const stranded = await maintain(scope, { jobs: ['orphans'] });
      expect(stranded.orphans.chunks).toBe(kept.length);
      expect((await orphanCounts(store, [scope.partition])).chunksWithoutParent).toBe(0);
    });

    it('soft-deletes turns past RETENTION_DAYS (gone from the next upstream request) and purges them after the grace period', async () => {
      const scope = freshScope();
      const secret = `zebra${ulid().toLowerCase()}`;
      const chat = (content: string) =>
        fetch(`${proxy.baseUrl(scope.partition, scope.instance)}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
        });
      expect((await chat(`Remember the code word ${secret}.`)).status).toBe(200);
      await proxy.background.drain();
      const old = await store.listMessages(scope, { limit: 10 });
      expect(old).toHaveLength(2);

      try {
        clockOffset = 31 * 86_400_000;
        const first = await maintain(scope, { jobs: ['retention'] });
        expect(first.retention).toEqual({ soft_deleted: 2, purged: 0 });
        upstream.reset();
        expect((await chat('What was the code word?')).status).toBe(200);
        const sent = JSON.stringify(upstream.chatRequests().map((request) => request.body));
        expect(sent).toContain('What was the code word?');
        expect(sent).not.toContain(secret);
        const hidden = await api.get(`${instancePath(scope)}/messages/${old[0]!.id}`);
        expect(hidden.body.deleted).toBe(true);

        // Still within the grace period: restorable, nothing purged.
        clockOffset = 35 * 86_400_000;
        expect((await maintain(scope, { jobs: ['retention'] })).retention.purged).toBe(0);

        clockOffset = 39 * 86_400_000;
        const second = await maintain(scope, { jobs: ['retention'] });
        expect(second.retention.purged).toBe(2);
        for (const turn of old) {
          expect((await api.get(`${instancePath(scope)}/messages/${turn.id}`)).status).toBe(404);
        }
        expect(await store.fullTextSearch(scope, secret, { k: 10 })).toEqual([]);
        const [vector] = await embedder.embed([`Remember the code word ${secret}.`]);
        const hits = await store.vectorSearch(scope, vector!, { k: 10 });
        for (const turn of old) expect(hits.map((hit) => hit.id)).not.toContain(turn.id);
      } finally {
        clockOffset = 0;
      }
    });
  });

  describe(`model-written topic summaries (${factory.name})`, () => {
    let store: MemoryStore;
    let upstream: FakeUpstream;
    let proxy: RunningProxy;
    let api: ReturnType<typeof apiClient>;

    beforeAll(async () => {
      store = await factory.create();
      upstream = await startFakeUpstream();
      proxy = await startProxy({
        store,
        upstreamUrl: upstream.url,
        env: {
          TOPIC_SUMMARIES: 'model',
          SUMMARY_MODEL: 'summary-model',
          UPSTREAM_API_KEY: 'sk-proxy-own-key',
        },
      });
      api = apiClient(proxy.origin);
    });
    afterAll(async () => {
      await proxy?.close();
      await upstream?.close();
      await store?.close();
    });

    it('asks SUMMARY_MODEL for each topic in the background, and keeps the quoted summary when it fails', async () => {
      const scope = freshScope();
      const reply = await api.post(`${instancePath(scope)}/messages`, { messages: conversation() });
      expect(reply.status).toBe(201);
      await proxy.background.drain();
      upstream.onChat((request) => textReply(request, 'A written summary of the topic.'));
      const report = await api.post(`${instancePath(scope)}/maintenance`, { jobs: ['topics'] });
      expect(report.status).toBe(200);
      const topics = (await api.get(`${instancePath(scope)}/topics`)).body.data as TopicBody[];
      expect(topics.length).toBeGreaterThanOrEqual(2);
      for (const topic of topics) {
        expect(topic).toMatchObject({
          summary_kind: 'model',
          summary: 'A written summary of the topic.',
        });
      }
      const asked = upstream.chatRequests();
      expect(asked).toHaveLength(topics.length);
      expect(asked[0]!.body['model']).toBe('summary-model');
      expect(asked[0]!.headers['authorization']).toBe('Bearer sk-proxy-own-key');
      expect(JSON.stringify(asked.map((request) => request.body))).toContain('sourdough');

      // The upstream fails: the next summaries quote the turns instead.
      upstream.onChat(() => errorReply(400, 'no such model'));
      await api.post(`${instancePath(scope)}/messages`, {
        messages: [
          { role: 'user', content: 'Bake the sourdough bread with steam for a darker crust?' },
        ],
      });
      await proxy.background.drain();
      await api.post(`${instancePath(scope)}/maintenance`, { jobs: ['topics'] });
      const after = (await api.get(`${instancePath(scope)}/topics`)).body.data as TopicBody[];
      expect(after.some((topic) => topic.summary_kind === 'extractive')).toBe(true);
      upstream.reset();
    });
  });
}
