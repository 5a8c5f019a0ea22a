import type { Config } from '../config/load-config';
import type { Embedder } from '../embeddings/embedder';
import { runMemoryTool } from '../memory/tools/memory-tools';
import type { MemoryStore } from '../store/memory-store';
import type { NewToolCall, Scope } from '../store/types';
import { countMessageTokens, countTokens } from '../tokens/count-tokens';

/** Below this many tokens left, the loop asks for a final answer instead of another round. */
export const MIN_TOKENS_LEFT = 256;
/** Largest single tool result, whatever the budget. */
const MAX_RESULT_TOKENS = 4000;

/** A tool call as an assistant message carries it. */
export interface ToolCallLike {
  id: string;
  type?: string;
  function: { name: string; arguments: string };
}

/** OpenAI usage counters, summed over rounds. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** What the memory tool loop needs to run calls. */
export interface ToolLoopDeps {
  store: MemoryStore;
  embedder: Embedder;
  config: Pick<Config, 'memoryToolsMaxDepth' | 'memoryToolsTimeoutMs' | 'indexIncludeToolCalls' | 'indexSnippetLength'>;
  now: () => number;
}

/** The state of one request's tool loop. */
export class ToolLoop {
  /** Messages sent upstream: the built context, then each memory round's call and results. */
  readonly messages: Record<string, unknown>[];
  rounds = 0;
  /** Why the loop stopped offering tools, once it did. */
  stopReason: string | null = null;
  private tokens: number;
  private readonly startedAt: number;
  private readonly seen = new Set<string>();
  private readonly executed: NewToolCall[] = [];
  private usage: Usage | null = null;

  constructor(
    private readonly deps: ToolLoopDeps,
    private readonly scope: Scope,
    context: { messages: Record<string, unknown>[]; tokens: number; budget: number },
    readonly memoryNames: ReadonlySet<string>,
  ) {
    this.messages = [...context.messages];
    this.tokens = context.tokens;
    this.budget = context.budget;
    this.startedAt = deps.now();
  }

  private readonly budget: number;

  /** Whether this round may still offer the memory tools. */
  get offering(): boolean {
    return this.memoryNames.size > 0 && this.stopReason === null;
  }

  /** Splits a round's calls into the proxy's memory calls and the client's own. */
  split(calls: ToolCallLike[]): { memory: ToolCallLike[]; client: ToolCallLike[] } {
    const memory = calls.filter((call) => this.memoryNames.has(call.function.name));
    const client = calls.filter((call) => !this.memoryNames.has(call.function.name));
    return { memory, client };
  }

  /** Adds one round's usage to the running sum. */
  addUsage(usage: unknown): void {
    if (typeof usage !== 'object' || usage === null) return;
    const record = usage as Partial<Usage>;
    const sum = this.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    sum.prompt_tokens += record.prompt_tokens ?? 0;
    sum.completion_tokens += record.completion_tokens ?? 0;
    sum.total_tokens += record.total_tokens ?? 0;
    this.usage = sum;
  }

  /** Usage of every round so far, or null when upstream reported none. */
  get totalUsage(): Usage | null {
    return this.usage;
  }

  /** Tool calls run so far, with their results, to store `CALLED_BY` the answer. */
  get executedCalls(): NewToolCall[] {
    return this.executed;
  }

  /**
   * Runs a round's memory calls in parallel and appends the call and its results to the
   * messages; then decides whether another round may offer tools.
   */
  async runRound(content: string | null, calls: ToolCallLike[]): Promise<void> {
    const left = this.budget - this.tokens;
    const perCall = Math.max(64, Math.min(MAX_RESULT_TOKENS, Math.floor((left - MIN_TOKENS_LEFT) / Math.max(1, calls.length))));
    let repeated = false;
    const results = await Promise.all(
      calls.map(async (call) => {
        const key = `${call.function.name}\u0000${call.function.arguments}`;
        if (this.seen.has(key)) {
          repeated = true;
          return { call, content: JSON.stringify({ error: 'This exact call was already made in this request; its result is above. Answer with what you have.' }), durationMs: 0 };
        }
        this.seen.add(key);
        const started = this.deps.now();
        const result = await runMemoryTool(
          {
            store: this.deps.store,
            embedder: this.deps.embedder,
            scope: this.scope,
            now: this.deps.now,
            maxResultTokens: perCall,
            budget: this.budget,
            includeToolCalls: this.deps.config.indexIncludeToolCalls,
            snippetLength: this.deps.config.indexSnippetLength,
          },
          call.function.name,
          call.function.arguments,
        );
        return { call, content: result.content, durationMs: this.deps.now() - started };
      }),
    );
    const assistant = { role: 'assistant', content, tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: call.function })) };
    this.messages.push(assistant);
    this.tokens += countMessageTokens(assistant);
    for (const { call, content: result, durationMs } of results) {
      const message = { role: 'tool', tool_call_id: call.id, content: result };
      this.messages.push(message);
      this.tokens += countMessageTokens(message);
      this.executed.push({
        callId: call.id,
        toolName: call.function.name,
        arguments: call.function.arguments,
        result,
        tokenCount: countTokens(call.function.arguments) + countTokens(result),
        durationMs,
        timestamp: this.deps.now(),
      });
    }
    this.rounds++;
    this.stopReason = this.checkStop(repeated);
  }

  private checkStop(repeated: boolean): string | null {
    if (repeated) return 'repeated_call';
    if (this.rounds >= this.deps.config.memoryToolsMaxDepth) return 'max_depth';
    if (this.deps.now() - this.startedAt >= this.deps.config.memoryToolsTimeoutMs) return 'timeout';
    if (this.budget - this.tokens < MIN_TOKENS_LEFT) return 'tokens_exhausted';
    return null;
  }
}

/** The request body for a round: memory tools added while offering, left out for the final answer. */
export function roundBody(
  clientBody: Record<string, unknown>,
  messages: Record<string, unknown>[],
  memoryTools: readonly unknown[],
  offering: boolean,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...clientBody, messages };
  const clientTools = Array.isArray(clientBody['tools']) ? clientBody['tools'] : [];
  if (offering && memoryTools.length > 0) {
    body['tools'] = [...clientTools, ...memoryTools];
  } else if (clientTools.length === 0 && memoryTools.length > 0) {
    // The final answer of a loop: no tools at all unless the client brought its own.
    delete body['tools'];
    delete body['tool_choice'];
    delete body['parallel_tool_calls'];
  }
  return body;
}
