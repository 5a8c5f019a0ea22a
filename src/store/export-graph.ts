import {
  RELATIONSHIP_TYPES,
  relationshipRecord,
  type CoreMemoryRecord,
  type GraphRecord,
  type InstanceRecord,
  type MessageRecord,
  type PeriodSummaryRecord,
  type RelationshipRecord,
  type SummaryRecord,
  type ToolCallRecord,
  type TopicRecord,
} from './graph-record';
import type { ExportFilter } from './management-types';
import { compareText } from './summarize-partitions';
import type { CursorJob } from './topic-types';
import type { Scope } from './types';

/** Records read per store call: an export never holds more than this many contents at once. */
export const EXPORT_PAGE = 500;

/** A relationship going out of a message (to a message, or to its topic) as an adapter reads it. */
export interface MessageLink {
  type: 'REPLIES_TO' | 'RESPONDED_WITH' | 'SYNAPSE' | 'BELONGS_TO';
  from: string;
  to: string;
  score: number | null;
}

/** An instance's counter as an adapter reads it; the jobs' cursors are added by exportGraph. */
export type InstanceCounter = Omit<InstanceRecord, 'topics_cursor' | 'periods_cursor'>;

/** The pages an adapter reads for an export; everything else (order, batching) is shared. */
export interface GraphPageReader {
  /** The scopes the filter names, by partition then instance, with the instance's counter when it has one. */
  scopes(filter: ExportFilter): Promise<{ scope: Scope; instance: InstanceCounter | null }[]>;
  /** Turns with seq > afterSeq, in seq order (deleted ones too). */
  turns(
    scope: Scope,
    page: { afterSeq: number; limit: number; embeddings: boolean },
  ): Promise<MessageRecord[]>;
  /** Chunks with id > afterId, in id order. */
  chunks(
    scope: Scope,
    page: { afterId: string; limit: number; embeddings: boolean },
  ): Promise<MessageRecord[]>;
  /** Tool calls with id > afterId, in id order. */
  toolCalls(
    scope: Scope,
    page: { afterId: string; limit: number; embeddings: boolean },
  ): Promise<ToolCallRecord[]>;
  coreMemory(scope: Scope): Promise<CoreMemoryRecord[]>;
  summaries(scope: Scope): Promise<SummaryRecord[]>;
  /** REPLIES_TO, RESPONDED_WITH and SYNAPSE relationships going out of the given messages, within the scope. */
  linksFrom(scope: Scope, ids: string[]): Promise<MessageLink[]>;
  /** The last seq the topic or period job finished in the instance (0: none). */
  jobCursor(scope: Scope, job: CursorJob): Promise<number>;
  /** The instance's topics, by id. */
  topics(scope: Scope): Promise<TopicRecord[]>;
  /** The instance's period summaries, days then weeks, oldest first. */
  periodSummaries(scope: Scope): Promise<PeriodSummaryRecord[]>;
  /** The topic each of the given turns BELONGS_TO, for those that have one. */
  topicLinks(scope: Scope, ids: string[]): Promise<Map<string, string>>;
}

/**
 * Every node and relationship of the filtered scopes, scope by scope: the instance (with the
 * jobs' cursors), turns in seq order, chunks, tool calls, core memory, summaries, topics and
 * period summaries, then the relationships, so an import that reads the lines in order always
 * finds both ends of a relationship already stored. Both adapters export through this, so their
 * lines come out in the same order. Topics live in the space of the vectors, so an export
 * without vectors leaves out the jobs' records and cursors: the jobs make them again.
 */
export async function* exportGraph(
  reader: GraphPageReader,
  filter: ExportFilter,
): AsyncGenerator<GraphRecord> {
  const embeddings = filter.embeddings !== false;
  for (const { scope, instance } of await reader.scopes(filter)) {
    if (instance) {
      yield {
        ...instance,
        topics_cursor: embeddings ? await reader.jobCursor(scope, 'topics') : 0,
        periods_cursor: embeddings ? await reader.jobCursor(scope, 'periods') : 0,
      };
    }
    const messageIds: string[] = [];
    const derived: RelationshipRecord[] = [];
    for (let afterSeq = 0; ;) {
      const page = await reader.turns(scope, { afterSeq, limit: EXPORT_PAGE, embeddings });
      for (const record of page) {
        messageIds.push(record.id);
        yield record;
      }
      if (page.length < EXPORT_PAGE) break;
      afterSeq = page[page.length - 1]!.seq;
    }
    for (let afterId = ''; ;) {
      const page = await reader.chunks(scope, { afterId, limit: EXPORT_PAGE, embeddings });
      for (const record of page) {
        messageIds.push(record.id);
        derived.push(
          relationshipRecord(scope, {
            type: 'CHUNK_OF',
            from: record.id,
            to: record.chunk_parent_id ?? '',
          }),
        );
        yield record;
      }
      if (page.length < EXPORT_PAGE) break;
      afterId = page[page.length - 1]!.id;
    }
    for (let afterId = ''; ;) {
      const page = await reader.toolCalls(scope, { afterId, limit: EXPORT_PAGE, embeddings });
      for (const record of page) {
        derived.push(
          relationshipRecord(scope, { type: 'CALLED_BY', from: record.id, to: record.message_id }),
        );
        yield record;
      }
      if (page.length < EXPORT_PAGE) break;
      afterId = page[page.length - 1]!.id;
    }
    yield* await reader.coreMemory(scope);
    yield* await reader.summaries(scope);
    if (embeddings) {
      yield* await reader.topics(scope);
      yield* await reader.periodSummaries(scope);
    }
    for (let start = 0; start < messageIds.length; start += EXPORT_PAGE) {
      const ids = messageIds.slice(start, start + EXPORT_PAGE);
      const links = await reader.linksFrom(scope, ids);
      if (embeddings) {
        for (const [from, to] of await reader.topicLinks(scope, ids))
          links.push({ type: 'BELONGS_TO', from, to, score: null });
      }
      yield* sortLinks(links, ids).map((link) => relationshipRecord(scope, link));
    }
    yield* derived;
  }
}

/** Relationships in the order of their start node in the page, then by type and end node. */
function sortLinks(links: MessageLink[], ids: string[]): MessageLink[] {
  const position = new Map(ids.map((id, index) => [id, index]));
  const typeOrder = (type: MessageLink['type']) => RELATIONSHIP_TYPES.indexOf(type);
  return [...links].sort(
    (a, b) =>
      (position.get(a.from) ?? 0) - (position.get(b.from) ?? 0) ||
      typeOrder(a.type) - typeOrder(b.type) ||
      compareText(a.to, b.to),
  );
}
