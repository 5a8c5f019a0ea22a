import type { MemoryStore } from '../../store/memory-store';
import type { TopicSummaryUpdate } from '../../store/topic-types';
import type { Scope, StoredMessage } from '../../store/types';
import { centralTurns, labelOf, quoteTurns, type EmbeddedTurn } from './extractive-summary';

/** Turns of a topic read to choose its most central ones (the first ones, by seq). */
const SAMPLE = 1_000;
/** Recent turns of the instance that labels are contrasted with. */
const BACKGROUND = 1_000;
/** Central turns a model is shown to write a summary from. */
const MODEL_TURNS = 8;

/** Writes a short summary of a topic from its most central turns (a model, through the upstream). */
export type TopicSummarizer = (input: { label: string; turns: StoredMessage[] }) => Promise<string>;

/**
 * Rewrites the labels and summaries of topics: the label from the words most of its turns share,
 * the summary from its most central turns (quoted: deterministic), or written by the summarizer
 * from them when one is configured; a summarizer that fails leaves the quoted summary.
 * Returns how many topics were summarized.
 */
export async function summarizeTopics(input: {
  store: MemoryStore;
  scope: Scope;
  ids: string[];
  summarizer: TopicSummarizer | null;
}): Promise<number> {
  const { store, scope } = input;
  if (input.ids.length === 0) return 0;
  const topics = new Map((await store.listTopics(scope)).map((topic) => [topic.id, topic]));
  const background = await store.listMessages(scope, { order: 'desc', limit: BACKGROUND });
  const updates: TopicSummaryUpdate[] = [];
  for (const id of [...input.ids].sort()) {
    const topic = topics.get(id);
    if (!topic) continue;
    const members = await store.listTopicMessages(scope, id, { limit: SAMPLE });
    if (members.length === 0) continue;
    const vectors = await store.getEmbeddings(
      scope,
      members.map((turn) => turn.id),
    );
    const turns: EmbeddedTurn[] = members.map((message) => ({
      message,
      vector: vectors.get(message.id),
    }));
    const label = labelOf(members, background);
    const quoted = centralTurns(turns, topic.centroid);
    let summary = quoteTurns(quoted);
    let summaryKind: TopicSummaryUpdate['summaryKind'] = 'extractive';
    let highlightIds = quoted.map((turn) => turn.id);
    if (input.summarizer) {
      try {
        const shown = centralTurns(turns, topic.centroid, MODEL_TURNS);
        const written = (await input.summarizer({ label, turns: shown })).trim();
        if (written !== '') {
          summary = written;
          summaryKind = 'model';
          highlightIds = shown.map((turn) => turn.id);
        }
      } catch {
        // The upstream may be down or refuse the summary model: the quoted summary stands.
      }
    }
    updates.push({ id, label, summary, summaryKind, highlightIds });
  }
  await store.setTopicSummaries(scope, updates);
  return updates.length;
}
