import { idFactory } from '../../ids';
import { cosineSimilarity } from '../../embeddings/embedder';
import { toNumbers } from '../../lists';
import type { MemoryStore } from '../../store/memory-store';
import type { TopicWrite } from '../../store/topic-types';
import type { Scope, StoredMessage } from '../../store/types';
import { normalize } from './extractive-summary';
import { summarizeTopics, type TopicSummarizer } from './summarize-topics';
import { yieldToRequests } from './yield-to-requests';

/** Turns read and written per step; each step is one transaction. */
const DEFAULT_BATCH = 200;

/** Options of one run of the topic job over one instance. */
export interface ClusterTopicsOptions {
  store: MemoryStore;
  scope: Scope;
  now: () => number;
  /** Cosine similarity to a topic's centre needed to join it rather than start a new one. */
  threshold: number;
  /** Most topics an instance gets; past it every turn joins its nearest topic. */
  maxTopics: number;
  batchSize?: number;
  /** Stop after this many steps, as an interrupted run would (tests). */
  maxBatches?: number;
  /** Checked between steps: true stops the run (shutdown). */
  stopping?: () => boolean;
  /** Writes model summaries when set; extractive summaries otherwise. */
  summarizer?: TopicSummarizer | null;
}

/** What one run did. */
export interface ClusterTopicsResult {
  assigned: number;
  created: number;
  /** False when the run stopped early or waits for embeddings. */
  done: boolean;
  summarized: number;
}

/** A topic while the job works on it. */
type WorkingTopic = TopicWrite;

const nextId = idFactory();

/**
 * Assigns the instance's turns to topics, incrementally and in seq order: each turn joins the
 * topic whose centre is nearest to its embedding when it is similar enough, else starts a new
 * topic (up to maxTopics). Each step stores its topics, links and cursor in one transaction, so
 * a run stopped anywhere resumes after its last step and gives the same topics as a run that was
 * never stopped; a second run finds nothing new. Turns still waiting for their embedding stop the
 * run there; a turn without text (a tool call) joins the topic of the turn it replies to.
 */
export async function clusterTopics(options: ClusterTopicsOptions): Promise<ClusterTopicsResult> {
  const { store, scope } = options;
  const batchSize = options.batchSize ?? DEFAULT_BATCH;
  const topics = new Map<string, WorkingTopic>();
  for (const topic of await store.listTopics(scope)) topics.set(topic.id, { ...topic });
  let cursor = await store.getJobCursor(scope, 'topics');
  const changed = new Set<string>();
  const result: ClusterTopicsResult = { assigned: 0, created: 0, done: false, summarized: 0 };
  let batches = 0;
  for (;;) {
    if (
      options.stopping?.() ||
      (options.maxBatches !== undefined && batches >= options.maxBatches)
    ) {
      break;
    }
    await yieldToRequests();
    const turns = await store.listMessages(scope, {
      afterSeq: cursor,
      limit: batchSize,
      includeDeleted: true,
    });
    if (turns.length === 0) {
      result.done = true;
      break;
    }
    const step = await assignBatch(options, { turns, topics });
    if (step.links.length === 0 && step.lastSeq === cursor) break;
    const saved = await store.saveTopicBatch(scope, {
      topics: [...step.touched].map((id) => topics.get(id)!),
      links: step.links,
      after: cursor,
      cursor: step.lastSeq,
    });
    // Another process wrote this step first: its topics stand, and it carries on from there.
    if (!saved) break;
    for (const id of step.touched) changed.add(id);
    result.assigned += step.links.length;
    result.created += step.created;
    cursor = step.lastSeq;
    batches += 1;
    if (step.waiting) break;
  }
  const stale = await staleTopics(store, scope, [...topics.values()]);
  result.summarized = await summarizeTopics({
    store,
    scope,
    ids: [...new Set([...changed, ...stale])],
    summarizer: options.summarizer ?? null,
  });
  return result;
}

/**
 * Topics whose summary is missing or quotes a turn that was deleted or purged since:
 * their summaries are made again, so a purged turn's words do not outlive it there.
 */
async function staleTopics(
  store: MemoryStore,
  scope: Scope,
  topics: WorkingTopic[],
): Promise<string[]> {
  const quoted = [...new Set(topics.flatMap((topic) => topic.highlightIds))];
  const live = new Set(
    (await store.getMessages(scope, quoted)).filter((turn) => !turn.deleted).map((turn) => turn.id),
  );
  return topics
    .filter((topic) => topic.summary === '' || topic.highlightIds.some((id) => !live.has(id)))
    .map((topic) => topic.id);
}

/** Assigns one page of turns; stops before a turn whose embedding is not made yet. */
async function assignBatch(
  options: ClusterTopicsOptions,
  state: { turns: StoredMessage[]; topics: Map<string, WorkingTopic> },
) {
  const { store, scope } = options;
  const { turns, topics } = state;
  const vectors = await store.getEmbeddings(
    scope,
    turns.map((turn) => turn.id),
  );
  const links: { messageId: string; topicId: string }[] = [];
  const touched = new Set<string>();
  const assignedHere = new Map<string, string>();
  const parentTopics = await store.getTopicIds(
    scope,
    turns.flatMap((turn) => (turn.parentId ? [turn.parentId] : [])),
  );
  let lastSeq = turns[0]!.seq - 1;
  let created = 0;
  let waiting = false;
  let previous: string | null = null;
  for (const turn of turns) {
    const vector = vectors.get(turn.id);
    let topicId: string | null = null;
    if (vector && vector.some((value) => value !== 0)) {
      const nearest = nearestTopic(topics, vector);
      if (!nearest || (nearest.score < options.threshold && topics.size < options.maxTopics)) {
        topicId = nextId(options.now());
        topics.set(topicId, newTopic(topicId, turn, vector, options.now()));
        created += 1;
      } else {
        topicId = nearest.id;
        joinTopic(topics.get(topicId)!, turn, vector, options.now());
      }
    } else if (turn.content.trim() !== '' && !turn.deleted) {
      // Its embedding is still being made: finish here and pick it up on the next run.
      waiting = true;
      break;
    } else {
      const parent = turn.parentId;
      topicId = (parent && (assignedHere.get(parent) ?? parentTopics.get(parent))) || previous;
      if (topicId) joinTopic(topics.get(topicId)!, turn, null, options.now());
    }
    lastSeq = turn.seq;
    if (topicId === null) continue;
    assignedHere.set(turn.id, topicId);
    links.push({ messageId: turn.id, topicId });
    touched.add(topicId);
    previous = topicId;
  }
  return { links, touched, lastSeq, created, waiting };
}

function nearestTopic(
  topics: Map<string, WorkingTopic>,
  vector: number[],
): { id: string; score: number } | null {
  let best: { id: string; score: number } | null = null;
  // By id, so a resumed run (topics read back from the store) breaks ties as the first run did.
  for (const id of [...topics.keys()].sort()) {
    const score = cosineSimilarity(vector, topics.get(id)!.centroid);
    if (!best || score > best.score) best = { id, score };
  }
  return best;
}

function newTopic(id: string, turn: StoredMessage, vector: number[], now: number): WorkingTopic {
  return {
    id,
    label: '',
    summary: '',
    summaryKind: 'extractive',
    highlightIds: [],
    size: 1,
    centroid: storable(normalize([...vector])),
    periodStart: turn.timestamp,
    periodEnd: turn.timestamp,
    updatedAt: now,
  };
}

/** Moves a topic's centre towards a new turn (a running mean) and widens its period. */
function joinTopic(topic: WorkingTopic, turn: StoredMessage, vector: number[] | null, now: number) {
  if (vector) {
    const unit = normalize([...vector]);
    const mean = topic.centroid.map((value, index) => value * topic.size + unit[index]!);
    topic.centroid = storable(normalize(mean));
  }
  topic.size += 1;
  topic.periodStart = Math.min(topic.periodStart, turn.timestamp);
  topic.periodEnd = Math.max(topic.periodEnd, turn.timestamp);
  topic.updatedAt = now;
}

// Centres are kept at the precision the embedded store writes them (Float32), so a resumed run
// reads back exactly the centres an uninterrupted run holds in memory.
function storable(vector: number[]): number[] {
  return toNumbers(Float32Array.from(vector));
}
