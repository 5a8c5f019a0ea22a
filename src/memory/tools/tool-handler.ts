import type { Embedder } from '../../embeddings/embedder';
import type { MemoryStore } from '../../store/memory-store';
import type { Scope } from '../../store/types';
import type { ToolOutput } from './fit-result';

/** Everything a tool call runs against. */
export interface MemoryToolContext {
  store: MemoryStore;
  embedder: Embedder;
  scope: Scope;
  /** Milliseconds since the epoch: what "today" and the core-memory timestamps mean. */
  now: () => number;
  /** tokens the result may use */
  maxResultTokens: number;
  /** the request's token budget (core memory may use at most 25% of it in all) */
  budget: number;
  /** Vector search also finds stored tool calls (INDEX_INCLUDE_TOOL_CALLS). */
  includeToolCalls: boolean;
  /** Characters of a snippet (INDEX_SNIPPET_LENGTH). */
  snippetLength: number;
}

/**
 * Runs one memory tool on validated arguments, returning its output before token accounting
 * (the caller fits it to the limit); throws ToolError for problems the model can fix.
 */
export type ToolHandler = (
  context: MemoryToolContext,
  args: Record<string, unknown>,
) => Promise<ToolOutput>;
