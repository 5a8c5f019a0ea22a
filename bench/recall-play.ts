/**
 * Plays scripted conversations through the real proxy (embedded SQLite store, local embedder,
 * fake upstream) the way a chat UI that relies on the proxy would: the system message and only
 * the newest user message each turn. Then asks the late questions and checks, in the request
 * upstream received, whether each planted fact got there and through which part of the context.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalEmbedder } from '../src/embeddings/local-embedder';
import { toNewMessage } from '../src/memory/normalize-message';
import { retrieve } from '../src/memory/retrieve';
import { SqliteStore } from '../src/store/sqlite/sqlite-store';
import type { Scope } from '../src/store/types';
import { startFakeUpstream, textReply } from '../test/support/fake-upstream';
import { startProxy } from '../test/support/proxy-harness';
import {
  containsValue,
  generateConversation,
  type Conversation,
  type QuestionKind,
} from './recall-generator';
import { messagesTokens, toolsTokens } from './recall-tokens';

/** Dimensions of the local embedder's vectors, as the test harness uses. */
export const EMBEDDING_DIMENSIONS = 384;
/** The client's system message on every request. */
export const SYSTEM_PROMPT = 'You are a helpful assistant. Answer briefly.';
/** A model name missing from config/models.json, so DEFAULT_CONTEXT_WINDOW applies. */
export const UNLISTED_MODEL = 'recall-bench-unlisted-model';
/** Hits the proxy retrieves before cutting the index to its share (the default MEMORY_RETRIEVAL_LIMIT). */
export const RETRIEVE_LIMIT = 60;

/** One configuration of the proxy to measure at one context window. */
export interface PlayJob {
  /** Short label of the configuration, e.g. "memory (defaults)". */
  label: string;
  /** Environment the proxy is configured from (besides DEFAULT_CONTEXT_WINDOW). */
  env: Record<string, string>;
  window: number;
  maxTokens: number;
  seed: number;
  turns: number;
  facts: number;
  conversations: number;
  /** Exchanges between drains of the background queue (embeddings, synapses). */
  drainEvery: number;
  /** Turns of a busier instance stored first in the same words (0: none). */
  neighbourTurns: number;
}

/** Where in the upstream request a fact was found. */
export type Channel = 'index' | 'summary' | 'core' | 'window' | 'system';

/** What one late question found. */
export interface QuestionRecord {
  conversation: number;
  fact: string;
  questionKind: QuestionKind;
  status: number;
  reached: boolean;
  via: Channel[];
  /** The fact's stored id appeared in the request (one memory-tool call away). */
  idShown: boolean;
  /** The fact's 0-based rank among the hits hybrid retrieval returns for the question (window turns left out); -1: not among them. */
  rank: number;
  hasSummary: boolean;
  hasIndex: boolean;
  /** Tokens of the messages upstream received, counted here. */
  messageTokens: number;
  /** Tokens of the tools array upstream received (the memory tools). */
  toolTokens: number;
  budget: number | null;
  strategy: string | null;
  /** Milliseconds from sending the request to upstream receiving it (ingest + context building). */
  proxyMs: number;
}

/** Figures over every request of a job, questions included. */
export interface RequestStats {
  count: number;
  errors: number;
  /** Requests whose messages + tools + max_tokens exceeded the context window. */
  overWindow: number;
  maxTokens: number;
  proxyMs: number[];
}

/** Everything a job measured. */
export interface PlayResult {
  job: PlayJob;
  questions: QuestionRecord[];
  requests: RequestStats;
  embedderModel: string;
  seconds: number;
  /** CPU time of the process that played the job (user + system), for runs on a shared machine. */
  cpuSeconds: number;
}

/**
 * Stores `job.neighbourTurns` turns of another instance, embedded, before the conversations:
 * exchanges of conversations generated with other seeds, so its words are the conversations'
 * words and a question's words are everyday in the store, as in a store many users share.
 */
async function storeNeighbour(store: SqliteStore, embedder: LocalEmbedder, job: PlayJob): Promise<void> {
  const scope: Scope = { partition: 'recall', instance: 'neighbour' };
  let left = job.neighbourTurns;
  let parentId: string | null = null;
  for (let index = 0; left > 0; index++) {
    const conversation = generateConversation({ seed: job.seed + 1000, index, turns: job.turns, facts: job.facts });
    const texts = conversation.exchanges.flatMap((exchange) => [exchange.user, exchange.reply]).slice(0, left);
    left -= texts.length;
    for (let start = 0; start < texts.length; start += 500) {
      const batch = texts.slice(start, start + 500);
      const appended = await store.appendPath(scope, {
        parentId,
        messages: batch.map((content, offset) => toNewMessage({ role: (start + offset) % 2 === 0 ? 'user' : 'assistant', content })),
      });
      parentId = appended.at(-1)!.message.id;
      const vectors = await embedder.embed(batch);
      await store.setEmbeddings(scope, appended.map((entry, offset) => ({ kind: 'message' as const, id: entry.message.id, vector: vectors[offset]! })));
    }
  }
}

/** Plays every conversation of a job through one proxy and store, returning what reached upstream. */
export async function playJob(
  job: PlayJob,
  progress: (line: string) => void = () => {},
): Promise<PlayResult> {
  const started = performance.now();
  const cpuAtStart = process.cpuUsage();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'memory-proxy-recall-'));
  const store = new SqliteStore({ dataDir });
  await store.init({ embeddingDimensions: EMBEDDING_DIMENSIONS });
  const embedder = new LocalEmbedder({ dimensions: EMBEDDING_DIMENSIONS });
  await storeNeighbour(store, embedder, job);
  const upstream = await startFakeUpstream();
  let reply = '';
  upstream.onChat((request) => textReply(request, reply));
  const proxy = await startProxy({
    store,
    upstreamUrl: upstream.url,
    env: { ...job.env, DEFAULT_CONTEXT_WINDOW: String(job.window) },
    deps: { embedder },
  });
  const requests: RequestStats = { count: 0, errors: 0, overWindow: 0, maxTokens: 0, proxyMs: [] };
  const questions: QuestionRecord[] = [];
  try {
    for (let index = 0; index < job.conversations; index++) {
      const conversation = generateConversation({
        seed: job.seed,
        index,
        turns: job.turns,
        facts: job.facts,
      });
      const scope = { partition: 'recall', instance: `conversation-${index}` };
      const url = `${proxy.baseUrl(scope.partition, scope.instance)}/chat/completions`;
      const factIds = new Map<number, string>();
      const conversationStart = performance.now();
      for (const [position, exchange] of conversation.exchanges.entries()) {
        if (
          exchange.role === 'question' &&
          conversation.exchanges[position - 1]?.role !== 'question'
        )
          await proxy.background.drain();
        else if (position % job.drainEvery === 0) await proxy.background.drain();
        reply = exchange.reply;
        upstream.requests.length = 0;
        const sentAt = Date.now();
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: UNLISTED_MODEL,
            max_tokens: job.maxTokens,
            messages: [
              { role: 'system', content: SYSTEM_PROMPT },
              { role: 'user', content: exchange.user },
            ],
          }),
        });
        await response.arrayBuffer();
        const received = upstream.chatRequests()[0];
        requests.count++;
        if (!response.ok || !received) requests.errors++;
        const messages = (received?.body?.messages ?? []) as { role: string; content: unknown }[];
        const messageTokens = received ? messagesTokens(messages) : 0;
        const toolTokens = received ? toolsTokens(received.body?.tools) : 0;
        const proxyMs = received ? received.receivedAt - sentAt : NaN;
        if (received) {
          requests.proxyMs.push(proxyMs);
          requests.maxTokens = Math.max(requests.maxTokens, messageTokens + toolTokens);
          if (messageTokens + toolTokens + job.maxTokens > job.window) requests.overWindow++;
        }
        if (exchange.role === 'fact' && exchange.fact !== undefined) {
          const answer = await store.latestTurn(scope);
          if (answer?.parentId) factIds.set(exchange.fact, answer.parentId);
        }
        if (exchange.role !== 'question' || exchange.fact === undefined || !exchange.questionKind)
          continue;
        const fact = conversation.facts[exchange.fact]!;
        const factId = factIds.get(exchange.fact);
        const context = messages.slice(0, -1);
        const via = [
          ...new Set(
            context.filter((message) => containsValue(textOf(message), fact.check)).map(channelOf),
          ),
        ];
        const channels = new Set(context.map(channelOf));
        const rank = factId
          ? await retrievalRank({
              store,
              embedder,
              scope,
              question: exchange.user,
              factId,
              windowSize: messages.filter((message) => message.role !== 'system').length,
            })
          : -1;
        questions.push({
          conversation: index,
          fact: fact.kind.id,
          questionKind: exchange.questionKind,
          status: response.status,
          reached: via.length > 0,
          via,
          idShown:
            factId !== undefined && context.some((message) => textOf(message).includes(factId)),
          rank,
          hasSummary: channels.has('summary'),
          hasIndex: channels.has('index'),
          messageTokens,
          toolTokens,
          budget: numberHeader(response.headers.get('x-memory-budget')),
          strategy: response.headers.get('x-memory-strategy'),
          proxyMs,
        });
      }
      progress(
        `${job.label} @${job.window}: conversation ${index + 1}/${job.conversations} (${conversation.exchanges.length} requests) in ${((performance.now() - conversationStart) / 1000).toFixed(0)} s`,
      );
    }
    await proxy.background.drain();
  } finally {
    await proxy.close();
    await upstream.close();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const cpu = process.cpuUsage(cpuAtStart);
  return {
    job,
    questions,
    requests,
    embedderModel: embedder.model,
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

/**
 * Where the proxy's hybrid retrieval ranks the fact for the question, with the request's window
 * left out as the proxy leaves it out: tells a fact retrieval missed from one the index dropped.
 */
async function retrievalRank(input: {
  store: SqliteStore;
  embedder: LocalEmbedder;
  scope: Scope;
  question: string;
  factId: string;
  windowSize: number;
}): Promise<number> {
  const { store, scope } = input;
  const answer = await store.latestTurn(scope);
  const window = answer?.parentId
    ? await store.getBranch(scope, answer.parentId, { limit: input.windowSize })
    : [];
  const [vector] = await input.embedder.embed([input.question]);
  const hits = await retrieve({
    store,
    scope,
    text: input.question,
    vector: vector ?? null,
    exclude: new Set(window.map((turn) => turn.id)),
    limit: RETRIEVE_LIMIT,
  });
  return hits.findIndex((hit) => hit.message.id === input.factId);
}

/** Tokens the whole conversation would take at each question, had the client sent all of it. */
export function fullHistoryTokens(
  conversation: Conversation,
): { questionKind: QuestionKind; tokens: number }[] {
  const history: { role: string; content: string }[] = [{ role: 'system', content: SYSTEM_PROMPT }];
  let total = messagesTokens(history);
  const figures: { questionKind: QuestionKind; tokens: number }[] = [];
  for (const exchange of conversation.exchanges) {
    const asked =
      total + messagesTokens([{ role: 'user', content: exchange.user }]) - messagesTokens([]);
    if (exchange.role === 'question' && exchange.questionKind)
      figures.push({ questionKind: exchange.questionKind, tokens: asked });
    total =
      asked + messagesTokens([{ role: 'assistant', content: exchange.reply }]) - messagesTokens([]);
  }
  return figures;
}

function textOf(message: { content: unknown }): string {
  return typeof message.content === 'string'
    ? message.content
    : JSON.stringify(message.content ?? '');
}

function channelOf(message: { role: string; content: unknown }): Channel {
  if (message.role !== 'system') return 'window';
  const text = textOf(message);
  if (text.startsWith('Memory index')) return 'index';
  if (text.startsWith('Summary of earlier turns')) return 'summary';
  if (text.startsWith('Core memory')) return 'core';
  return 'system';
}

function numberHeader(value: string | null): number | null {
  const parsed = value === null ? NaN : Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}

/** The budget the proxy plans for each window (x-memory-budget), with the memory tools on or off. */
export async function probeBudgets(options: {
  windows: number[];
  maxTokens: number;
  tools: boolean;
}): Promise<Map<number, number>> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'memory-proxy-recall-probe-'));
  const store = new SqliteStore({ dataDir });
  await store.init({ embeddingDimensions: EMBEDDING_DIMENSIONS });
  const upstream = await startFakeUpstream();
  upstream.onChat((request) => textReply(request, 'ok'));
  const proxy = await startProxy({
    store,
    upstreamUrl: upstream.url,
    env: { MEMORY_TOOLS: String(options.tools) },
    deps: { embedder: new LocalEmbedder({ dimensions: EMBEDDING_DIMENSIONS }) },
  });
  const budgets = new Map<number, number>();
  try {
    for (const window of options.windows) {
      const response = await fetch(
        `${proxy.baseUrl('recall-probe', `window-${window}`)}/chat/completions`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-memory-context-window': String(window),
          },
          body: JSON.stringify({
            model: UNLISTED_MODEL,
            max_tokens: options.maxTokens,
            messages: [{ role: 'user', content: 'hello' }],
          }),
        },
      );
      await response.arrayBuffer();
      const budget = numberHeader(response.headers.get('x-memory-budget'));
      if (budget === null)
        throw new Error(
          `the proxy sent no x-memory-budget for window ${window} (status ${response.status})`,
        );
      budgets.set(window, budget);
    }
  } finally {
    await proxy.close();
    await upstream.close();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return budgets;
}
