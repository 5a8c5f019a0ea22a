import type { VectorHit } from '../../store/memory-store';
import type { StoredMessage, StoredToolCall } from '../../store/types';
import { retrieve, type RetrievedTurn } from '../retrieve';
import { fitResult, type ResultItem, type ToolOutput } from './fit-result';
import { loadMessages } from './load-messages';
import { snippetOf } from '../../text/snippet';
import { toMessageJson, withPreview, type MessageJson } from './to-message-json';
import type { MemoryToolContext, ToolHandler } from './tool-handler';
import { ToolError } from './tool-error';

/** Most hits search_and_retrieve returns when it picks the count itself. */
export const AUTO_LIMIT_MAX = 20;
/**
 * With auto_limit, hits scoring below this share of the best one are left out as not clearly
 * relevant: under reciprocal rank fusion, a hit two retrievers agree on scores about twice one
 * only a single retriever found, so this keeps the agreed hits when there are any.
 */
const AUTO_RELATIVE_SCORE = 0.5;
/** Up to this many hits are shown whole (when they fit); more are shown as snippets, like the memory index. */
const FULL_RESULTS_MAX = 5;
/** Vector hits asked per result wanted: several chunks of one turn count once. */
const VECTOR_OVERFETCH = 3;

/** The spec's `SearchResult`, with where the excerpt came from. */
interface SearchResultJson {
  message: MessageJson;
  score: number;
  matched_by: string[];
  excerpt?: string;
  chunk_id?: string;
  tool_call_id?: string;
}

/** vector_search and search_and_retrieve. */
export const searchTools: Record<string, ToolHandler> = {
  vector_search: async (context, args) => {
    const query = args['query'] as string;
    const limit = (args['limit'] as number | undefined) ?? 10;
    const hits = await context.store.vectorSearch(context.scope, await embedQuery(context, query), {
      k: Math.min(limit * VECTOR_OVERFETCH, 150),
      includeToolCalls: context.includeToolCalls,
    });
    const results: SearchResultJson[] = [];
    const seen = new Set<string>();
    for (const result of await resolveVectorHits(context, hits)) {
      if (seen.has(result.message.id)) continue;
      seen.add(result.message.id);
      results.push(result);
      if (results.length >= limit) break;
    }
    return searchOutput({ query }, results);
  },

  search_and_retrieve: async (context, args) => {
    const query = args['query'] as string;
    const fixed = args['limit'] as number | undefined;
    const auto = fixed === undefined && args['auto_limit'] !== false;
    // Full text and graph still answer when the embedder is down.
    const vector = await embedQuery(context, query).catch(() => null);
    const hits = await retrieve({
      store: context.store,
      scope: context.scope,
      text: query,
      vector,
      exclude: new Set(),
      limit: auto ? AUTO_LIMIT_MAX : (fixed ?? 10),
    });
    const best = hits[0]?.score ?? 0;
    const kept = auto ? hits.filter((hit) => hit.score >= best * AUTO_RELATIVE_SCORE) : hits;
    if (kept.length <= FULL_RESULTS_MAX) {
      const full = searchOutput(
        { query, format: 'full' },
        kept.map((hit) => retrievedResult(context, hit, 'full')),
      );
      if (!fitResult(full, context.maxResultTokens).truncated) return full;
    }
    return searchOutput(
      {
        query,
        format: 'snippets',
        hint: 'contents are snippets; fetch whole messages with get_message_by_id or get_messages_by_ids',
      },
      kept.map((hit) => retrievedResult(context, hit, 'snippets')),
    );
  },
};

/**
 * Vector hits as SearchResults in hit order: a chunk hit shows its turn (as a preview) with the
 * chunk as the excerpt, a tool-call hit the turn that made the call; hits on deleted turns drop.
 */
async function resolveVectorHits(
  context: MemoryToolContext,
  hits: VectorHit[],
): Promise<SearchResultJson[]> {
  const messageIds = hits.filter((hit) => hit.kind === 'message').map((hit) => hit.id);
  const messages = new Map(
    (await loadMessages(context, messageIds)).map((message) => [message.id, message]),
  );
  const calls = new Map<string, StoredToolCall>();
  for (const hit of hits.filter((candidate) => candidate.kind === 'toolcall')) {
    const call = await context.store.getToolCall(context.scope, hit.id);
    if (call) calls.set(call.id, call);
  }
  const turnIds = [
    ...[...messages.values()].flatMap((message) =>
      message.isChunk ? [message.chunkParentId ?? ''] : [],
    ),
    ...[...calls.values()].map((call) => call.messageId),
  ];
  const turns = new Map((await loadMessages(context, turnIds)).map((turn) => [turn.id, turn]));
  return hits.flatMap((hit): SearchResultJson[] => {
    const base = { score: round(hit.score), matched_by: ['vector'] };
    const message = messages.get(hit.id);
    const call = calls.get(hit.id);
    if (message && !message.isChunk) return [{ message: toMessageJson(message), ...base }];
    const chunkTurn = message && turns.get(message.chunkParentId ?? '');
    if (message && chunkTurn) {
      return [
        {
          message: preview(context, chunkTurn),
          ...base,
          excerpt: message.content,
          chunk_id: message.id,
        },
      ];
    }
    const callTurn = call && turns.get(call.messageId);
    if (call && callTurn) {
      const excerpt = `${call.toolName}(${call.arguments}) -> ${call.result ?? ''}`;
      return [{ message: toMessageJson(callTurn), ...base, excerpt, tool_call_id: call.id }];
    }
    return [];
  });
}

/** A hybrid hit as a SearchResult: the whole turn or a snippet, and the matching chunk as the excerpt. */
function retrievedResult(
  context: MemoryToolContext,
  hit: RetrievedTurn,
  format: 'full' | 'snippets',
): SearchResultJson {
  const whole = format === 'full' && !hit.chunk;
  const result: SearchResultJson = {
    message: whole ? toMessageJson(hit.message) : preview(context, hit.message),
    score: round(hit.score),
    matched_by: hit.sources,
  };
  if (hit.chunk) {
    result.excerpt =
      format === 'full' ? hit.chunk.content : snippetOf(hit.chunk.content, context.snippetLength);
    result.chunk_id = hit.chunk.id;
  }
  return result;
}

function searchOutput(fields: Record<string, unknown>, results: SearchResultJson[]): ToolOutput {
  const note =
    results.length === 0
      ? { note: 'nothing stored matches; try other words or a broader query' }
      : {};
  return {
    fields: { ...fields, ...note },
    lists: [{ key: 'results', pageWith: 'get_messages_by_ids' }],
    items: results.map((result): ResultItem => ({
      id: result.message.id,
      list: 'results',
      value: result,
      shorten: (chars) => shorten(result, chars),
    })),
  };
}

/** A search result whose message content and excerpt are cut to share `chars` characters. */
function shorten(result: SearchResultJson, chars: number): SearchResultJson {
  const share = Math.max(1, Math.floor(chars / (result.excerpt ? 2 : 1)));
  const shortened: SearchResultJson = { ...result, message: withPreview(result.message, share) };
  if (result.excerpt !== undefined) shortened.excerpt = snippetOf(result.excerpt, share);
  return shortened;
}

/** A turn shown by a snippet of its content (flagged as cut when it is longer). */
function preview(context: MemoryToolContext, turn: StoredMessage): MessageJson {
  const json = toMessageJson(turn);
  const short = snippetOf(turn.content, context.snippetLength);
  return short === json.content ? json : { ...json, content: short, content_truncated: true };
}

async function embedQuery(context: MemoryToolContext, query: string): Promise<number[]> {
  const [vector] = await context.embedder.embed([query]);
  if (!vector)
    throw new ToolError(
      'the query could not be embedded; try search_and_retrieve, which also matches words',
    );
  return vector;
}

function round(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}
