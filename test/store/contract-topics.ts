import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import type { PeriodSummary, TopicWrite } from '../../src/store/topic-types';
import {
  append,
  freshScope,
  ids,
  randomUnitVector,
  turn,
  type StoreGetter,
} from './contract-fixtures';

function topic(extra: Partial<TopicWrite> = {}): TopicWrite {
  return {
    id: ulid(),
    label: 'bread, dough',
    summary: 'user: how long to knead',
    summaryKind: 'extractive',
    highlightIds: [],
    size: 1,
    centroid: Array.from(Float32Array.from(randomUnitVector())),
    periodStart: 1_000,
    periodEnd: 2_000,
    updatedAt: 3_000,
    ...extra,
  };
}

function period(extra: Partial<PeriodSummary> = {}): PeriodSummary {
  return {
    granularity: 'day',
    period: '2026-11-22',
    start: Date.UTC(2026, 10, 22),
    end: Date.UTC(2026, 10, 23),
    messages: 3,
    tokens: 30,
    userMessages: 2,
    topics: [{ id: 't1', label: 'bread', messages: 3 }],
    summary: 'user: hello',
    highlightIds: ['a', 'b'],
    updatedAt: 5,
    ...extra,
  };
}

/** Topics, period summaries, job cursors, orphan cleanup and deletion times. */
export function describeTopicContract(getStore: StoreGetter): void {
  describe('topics and background upkeep', () => {
    it('stores topics with their BELONGS_TO links and cursor; writing a step twice changes nothing', async () => {
      const store = getStore();
      const scope = freshScope();
      const turns = await append(store, scope, null, [
        turn('user', 'a'),
        turn('assistant', 'b'),
        turn('user', 'c'),
      ]);
      const first = topic({ size: 2 });
      const second = topic({ size: 1 });
      const batch = {
        topics: [first, second],
        links: [
          { messageId: turns[0]!.id, topicId: first.id },
          { messageId: turns[1]!.id, topicId: first.id },
          { messageId: turns[2]!.id, topicId: second.id },
        ],
        after: 0,
        cursor: 3,
      };
      expect(await store.getJobCursor(scope, 'topics')).toBe(0);
      expect(await store.saveTopicBatch(scope, batch)).toBe(true);
      // A second writer of the same step (another process) finds the cursor moved on.
      expect(await store.saveTopicBatch(scope, batch)).toBe(false);
      expect(await store.getJobCursor(scope, 'topics')).toBe(3);
      expect(await store.getJobCursor(scope, 'periods')).toBe(0);

      const listed = await store.listTopics(scope);
      expect(listed.map((each) => [each.id, each.messages, each.size])).toEqual([
        [first.id, 2, 2],
        [second.id, 1, 1],
      ]);
      expect(listed[0]).toMatchObject({ ...scope, label: first.label, summaryKind: 'extractive' });
      expect(listed[0]!.centroid).toEqual(first.centroid);
      expect(ids(await store.listTopicMessages(scope, first.id, { limit: 10 }))).toEqual(
        ids(turns.slice(0, 2)),
      );
      expect(
        ids(await store.listTopicMessages(scope, first.id, { afterSeq: 1, limit: 10 })),
      ).toEqual([turns[1]!.id]);

      // Moving a turn to another topic replaces its link.
      await store.saveTopicBatch(scope, {
        topics: [],
        links: [{ messageId: turns[1]!.id, topicId: second.id }],
        after: 3,
        cursor: 3,
      });
      const topicIds = await store.getTopicIds(scope, ids(turns));
      expect([...topicIds.entries()].sort()).toEqual(
        [
          [turns[0]!.id, first.id],
          [turns[1]!.id, second.id],
          [turns[2]!.id, second.id],
        ].sort(),
      );

      await store.setTopicSummaries(scope, [
        {
          id: first.id,
          label: 'new label',
          summary: 'written',
          summaryKind: 'model',
          highlightIds: [turns[0]!.id],
        },
      ]);
      expect((await store.listTopics(scope)).find((each) => each.id === first.id)).toMatchObject({
        label: 'new label',
        summary: 'written',
        summaryKind: 'model',
        highlightIds: [turns[0]!.id],
      });

      // Deleted turns stop counting; other scopes see nothing.
      await store.setMessageDeleted(scope, turns[2]!.id, true);
      const counts = Object.fromEntries(
        (await store.listTopics(scope)).map((each) => [each.id, each.messages]),
      );
      expect(counts).toEqual({ [first.id]: 1, [second.id]: 1 });
      const other = freshScope();
      expect(await store.listTopics(other)).toEqual([]);
      expect(await store.listTopicMessages(other, first.id, { limit: 10 })).toEqual([]);
      expect((await store.getTopicIds(other, ids(turns))).size).toBe(0);
    });

    it('never links a turn of another scope', async () => {
      const store = getStore();
      const scope = freshScope();
      const other = freshScope();
      const [mine] = await append(store, scope, null, [turn('user', 'mine')]);
      const [theirs] = await append(store, other, null, [turn('user', 'theirs')]);
      const own = topic();
      await store.saveTopicBatch(scope, {
        topics: [own],
        links: [
          { messageId: mine!.id, topicId: own.id },
          { messageId: theirs!.id, topicId: own.id },
        ],
        after: 0,
        cursor: 1,
      });
      expect((await store.listTopics(scope))[0]!.messages).toBe(1);
      expect((await store.getTopicIds(other, [theirs!.id])).size).toBe(0);
    });

    it('stores period summaries, replacing a period written again, and lists them by time', async () => {
      const store = getStore();
      const scope = freshScope();
      const monday = period();
      const tuesday = period({
        period: '2026-11-23',
        start: Date.UTC(2026, 10, 23),
        end: Date.UTC(2026, 10, 24),
      });
      const week = period({
        granularity: 'week',
        period: '2026-W48',
        start: Date.UTC(2026, 10, 23),
        end: Date.UTC(2026, 10, 30),
      });
      await store.savePeriodSummaries(scope, { summaries: [monday, tuesday, week], cursor: 7 });
      await store.savePeriodSummaries(scope, {
        summaries: [{ ...tuesday, messages: 9, highlightIds: [] }],
        cursor: 9,
      });
      expect(await store.getJobCursor(scope, 'periods')).toBe(9);
      const days = await store.listPeriodSummaries(scope, { granularity: 'day', limit: 10 });
      expect(days).toEqual([monday, { ...tuesday, messages: 9, highlightIds: [] }]);
      expect(
        await store.listPeriodSummaries(scope, {
          granularity: 'day',
          fromTime: Date.UTC(2026, 10, 23),
          limit: 10,
        }),
      ).toHaveLength(1);
      expect(await store.listPeriodSummaries(scope, { granularity: 'week', limit: 10 })).toEqual([
        week,
      ]);
      expect(
        await store.listPeriodSummaries(freshScope(), { granularity: 'day', limit: 10 }),
      ).toEqual([]);
    });

    it('deletes orphaned chunks only, and topics whose turns were all purged', async () => {
      const store = getStore();
      const scope = freshScope();
      const text = 'alpha beta gamma delta epsilon zeta eta theta iota kappa';
      const [long, short] = await append(store, scope, null, [
        turn('user', text),
        turn('assistant', 'short answer'),
      ]);
      // Chunk windows may cut a character in two at their edges (U+FFFD): still the turn's text.
      const kept = await store.setChunks(scope, long!.id, [
        { content: 'alpha beta gamma delta', tokenCount: 4 },
        { content: '\uFFFDdelta epsilon zeta', tokenCount: 4 },
        { content: 'zeta eta theta iota kappa\uFFFD', tokenCount: 5 },
      ]);
      await store.setChunks(scope, short!.id, [{ content: 'not in the answer', tokenCount: 4 }]);
      const gone = topic();
      const stays = topic();
      await store.saveTopicBatch(scope, {
        topics: [gone, stays],
        links: [
          { messageId: short!.id, topicId: gone.id },
          { messageId: long!.id, topicId: stays.id },
        ],
        after: 0,
        cursor: 2,
      });
      await store.purgeMessage(scope, short!.id);

      const cleaned = await store.deleteOrphans(scope);
      expect(cleaned).toEqual({ chunks: 0, topics: 1 });
      expect(ids(await store.getChunks(scope, long!.id))).toEqual(ids(kept));
      expect((await store.listTopics(scope)).map((each) => each.id)).toEqual([stays.id]);

      await store.setChunks(scope, long!.id, [
        ...kept.map((chunk) => ({ content: chunk.content, tokenCount: chunk.tokenCount })),
        { content: 'lambda mu', tokenCount: 2 },
      ]);
      expect(await store.deleteOrphans(scope)).toEqual({ chunks: 1, topics: 0 });
      expect((await store.getChunks(scope, long!.id)).map((chunk) => chunk.content)).toEqual(
        kept.map((chunk) => chunk.content),
      );
    });

    it('notes when turns were soft-deleted and lists those past a time, forgetting restored ones', async () => {
      const store = getStore();
      const scope = freshScope();
      const turns = await append(store, scope, null, [
        turn('user', 'one'),
        turn('assistant', 'two'),
        turn('user', 'three'),
      ]);
      const filter = { partition: scope.partition };
      await store.setMessageDeleted(scope, turns[0]!.id, true);
      await store.stampDeletions(1_000, filter);
      await store.setMessageDeleted(scope, turns[1]!.id, true);
      await store.stampDeletions(2_000, filter);
      await store.stampDeletions(3_000, filter);

      expect(await store.expiredDeletions(1_000, 10, filter)).toEqual([]);
      expect(await store.expiredDeletions(1_500, 10, filter)).toEqual([
        { scope, id: turns[0]!.id },
      ]);
      expect(await store.expiredDeletions(2_500, 10, filter)).toEqual([
        { scope, id: turns[0]!.id },
        { scope, id: turns[1]!.id },
      ]);
      expect(await store.expiredDeletions(2_500, 10, { partition: 'p-nobody' })).toEqual([]);

      await store.setMessageDeleted(scope, turns[0]!.id, false);
      await store.stampDeletions(4_000, filter);
      expect(await store.expiredDeletions(5_000, 10, filter)).toEqual([
        { scope, id: turns[1]!.id },
      ]);
      // Deleted again: its grace period starts over.
      await store.setMessageDeleted(scope, turns[0]!.id, true);
      await store.stampDeletions(6_000, filter);
      expect(await store.expiredDeletions(5_000, 10, filter)).toEqual([
        { scope, id: turns[1]!.id },
      ]);
      await store.purgeMessage(scope, turns[1]!.id);
      expect(await store.expiredDeletions(7_000, 10, filter)).toEqual([
        { scope, id: turns[0]!.id },
      ]);
    });
  });
}
