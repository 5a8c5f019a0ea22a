import type { Scope } from './types';

/** How a topic's or period's summary was written. */
export type SummaryKind = 'extractive' | 'model';

/** A cluster of an instance's turns (a `Topic` node; turns point at it with `BELONGS_TO`). */
export interface StoredTopic {
  id: string;
  partition: string;
  instance: string;
  /** A few words that most of its turns share. */
  label: string;
  summary: string;
  summaryKind: SummaryKind;
  /** The turns its summary quotes (or was written from); a summary is made again when one goes. */
  highlightIds: string[];
  /** Turns the topic job assigned to it (deleted ones included until they are purged). */
  size: number;
  /** Live turns that belong to it now (read from the links, not stored). */
  messages: number;
  /** The mean direction of its turns' embeddings (unit length). */
  centroid: number[];
  /** Timestamps (ms) of its oldest and newest assigned turn. */
  periodStart: number;
  periodEnd: number;
  updatedAt: number;
}

/** A topic as the topic job writes it: everything but the live count. */
export type TopicWrite = Omit<StoredTopic, 'messages' | 'partition' | 'instance'>;

/**
 * One step of the topic job, written atomically: the topics it changed, the `BELONGS_TO` links
 * of the turns it assigned (each replacing any earlier link of that turn) and the last seq done,
 * so an interrupted run resumes after the last finished step and never counts a turn twice.
 */
export interface TopicBatch {
  topics: TopicWrite[];
  links: { messageId: string; topicId: string }[];
  /** The cursor the step started from: the step is written only if it is still the stored one. */
  after: number;
  cursor: number;
}

/** New summaries of topics (the job rewrites them after their turns changed). */
export interface TopicSummaryUpdate {
  id: string;
  label: string;
  summary: string;
  summaryKind: SummaryKind;
  highlightIds: string[];
}

/** The length of a summarized period. */
export type PeriodGranularity = 'day' | 'week';

/** A topic's share of a period. */
export interface PeriodTopic {
  id: string;
  label: string;
  messages: number;
}

/** What an instance held during one day or week (UTC). */
export interface PeriodSummary {
  granularity: PeriodGranularity;
  /** `2026-11-22` for a day, `2026-W47` (ISO week) for a week. */
  period: string;
  /** Bounds in ms: start inclusive, end exclusive. */
  start: number;
  end: number;
  /** Live turns stored in the period, their tokens, and how many were users'. */
  messages: number;
  tokens: number;
  userMessages: number;
  /** Its topics, most turns first. */
  topics: PeriodTopic[];
  summary: string;
  /** The turns the summary quotes, in seq order. */
  highlightIds: string[];
  updatedAt: number;
}

/** Which period summaries a listing returns. */
export interface PeriodQuery {
  granularity: PeriodGranularity;
  /** Only periods that end after this (ms). */
  fromTime?: number;
  /** Only periods that start before this (ms). */
  toTime?: number;
  limit: number;
}

/** The background jobs that keep a cursor per instance. */
export type CursorJob = 'topics' | 'periods';

/** What the orphan cleanup removed. */
export interface OrphanCleanup {
  /** Chunks whose turn is gone or no longer holds their text. */
  chunks: number;
  /** Topics left without any turn (their turns were purged). */
  topics: number;
}

/** A soft-deleted turn whose grace period is over. */
export interface ExpiredDeletion {
  scope: Scope;
  id: string;
}

/** Which scopes store-wide upkeep touches: everything, a partition, or one instance of it. */
export interface ScopeFilter {
  partition?: string;
  instance?: string;
}
