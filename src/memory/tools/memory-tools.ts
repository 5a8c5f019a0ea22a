import { rememberJson } from '../../text/request-json';
import { countTokens } from '../../tokens/count-tokens';
import { clusterTools } from './cluster-tools';
import { coreMemoryTools } from './core-memory-tools';
import { fitResult } from './fit-result';
import { MEMORY_TOOL_SPECS } from './memory-tool-specs';
import { messageTools } from './message-tools';
import { searchTools } from './search-tools';
import type { MemoryToolContext, ToolHandler } from './tool-handler';
import { toolCallTools } from './tool-call-tools';
import { ToolError } from './tool-error';
import { validateArguments } from './validate-arguments';

export type { MemoryToolContext } from './tool-handler';

/** Names of every memory tool. */
export const MEMORY_TOOL_NAMES: readonly string[] = MEMORY_TOOL_SPECS.map((spec) => spec.name);

/** A tool result for the model: always a string (JSON), never a thrown error. */
export interface MemoryToolResult {
  content: string;
  tokens: number;
  ok: boolean;
  truncated: boolean;
}

/** An OpenAI `tools` entry. */
export interface MemoryToolDefinition {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: Record<string, unknown>;
    strict: false;
  };
}

const HANDLERS: Readonly<Record<string, ToolHandler>> = {
  ...messageTools,
  ...searchTools,
  ...clusterTools,
  ...toolCallTools,
  ...coreMemoryTools,
};

/** Definitions by the names left out: built once per set (clients keep their tools), shared frozen. */
const definitionsCache = new Map<string, readonly MemoryToolDefinition[]>();
const DEFINITIONS_CACHE_SIZE = 64;

/**
 * OpenAI `tools` entries for the memory tools, leaving out names in `exclude` (a client tool with
 * the same name wins). The same frozen array for the same names left out, so the ~9 KB of JSON
 * is neither copied nor counted again on every request.
 */
export function memoryToolDefinitions(exclude: ReadonlySet<string> = new Set()): readonly MemoryToolDefinition[] {
  const key = MEMORY_TOOL_NAMES.filter((name) => exclude.has(name)).join('\u0000');
  let definitions = definitionsCache.get(key);
  if (definitions === undefined) {
    definitions = deepFreeze(
      MEMORY_TOOL_SPECS.filter((spec) => !exclude.has(spec.name)).map(
        (spec): MemoryToolDefinition => ({
          type: 'function',
          function: {
            name: spec.name,
            description: spec.description,
            parameters: structuredClone(spec.parameters) as Record<string, unknown>,
            strict: false,
          },
        }),
      ),
    );
    // Serialized once: every upstream request carries them.
    rememberJson(definitions);
    if (definitionsCache.size >= DEFINITIONS_CACHE_SIZE) definitionsCache.clear();
    definitionsCache.set(key, definitions);
  }
  return definitions;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Whether a tool name is one of the memory tools. */
export function isMemoryTool(name: string): boolean {
  return Object.hasOwn(HANDLERS, name);
}

/** Runs one memory tool call; bad arguments, unknown ids and store errors come back as readable error results the model can act on. */
export async function runMemoryTool(
  context: MemoryToolContext,
  name: string,
  argumentsJson: string,
): Promise<MemoryToolResult> {
  const spec = MEMORY_TOOL_SPECS.find((candidate) => candidate.name === name);
  const handler = HANDLERS[name];
  const fail = (message: string) => failure(message, context.maxResultTokens);
  if (!spec || !handler) {
    return fail(
      `${JSON.stringify(name)} is not a memory tool; the memory tools are: ${MEMORY_TOOL_NAMES.join(', ')}`,
    );
  }
  try {
    const args = validateArguments(spec.parameters, argumentsJson);
    const fitted = fitResult(await handler(context, args), context.maxResultTokens);
    return {
      content: fitted.content,
      tokens: fitted.tokens,
      ok: fitted.fits,
      truncated: fitted.truncated,
    };
  } catch (error) {
    if (error instanceof ToolError) return fail(`${name}: ${error.message}`);
    // Store and embedder failures are usually transient; the model may retry or answer without memory.
    return fail(
      `${name} failed: ${error instanceof Error ? error.message : String(error)}; memory may be briefly unavailable, so try again once or answer without it`,
    );
  }
}

/** Shortest error text kept when an error must be cut to the result's token limit. */
const MIN_ERROR_CHARS = 80;

/** An error result, its message cut (never below MIN_ERROR_CHARS) when it would pass the token limit. */
function failure(message: string, maxTokens: number): MemoryToolResult {
  let text = message;
  let content = JSON.stringify({ error: text });
  while (countTokens(content) > maxTokens && text.length > MIN_ERROR_CHARS) {
    text = `${text.slice(0, Math.max(MIN_ERROR_CHARS, Math.floor(text.length * 0.8)))}…`;
    content = JSON.stringify({ error: text });
  }
  return { content, tokens: countTokens(content), ok: false, truncated: text !== message };
}
