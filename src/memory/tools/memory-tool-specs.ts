import type { ParameterSchema } from './validate-arguments';

/** A memory tool as the model is shown it. */
export interface MemoryToolSpec {
  name: string;
  description: string;
  parameters: ParameterSchema;
}

// Ids are ULIDs (26 characters); the bound only keeps junk out of the store's queries.
const MESSAGE_ID: ParameterSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  description:
    'A message id, as shown in brackets in the memory index or returned by another memory tool.',
};
const LIMIT = (fallback: number, what: string): ParameterSchema => ({
  type: 'integer',
  minimum: 1,
  maximum: 50,
  default: fallback,
  description: `Most ${what} to return (1-50, default ${fallback}).`,
});
const QUERY: ParameterSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 2000,
  description: 'What to look for, in natural language or keywords.',
};
const BLOCK: ParameterSchema = {
  type: 'string',
  pattern: '^[a-z0-9_-]{1,32}$',
  description:
    'Block name: 1-32 lowercase letters, digits, _ or -, e.g. "human", "persona", "notes".',
};
const DATE_OR_TIME =
  'ISO date (YYYY-MM-DD, whole UTC day) or date-time (e.g. 2025-03-01T09:00:00Z)';

const objectOf = (
  properties: Record<string, ParameterSchema>,
  required: string[],
): ParameterSchema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/**
 * The spec's memory tools. Every result is JSON; `Message` objects carry id, role, content,
 * timestamp, seq, parent_id, token_count, chunk fields and edited.
 */
export const MEMORY_TOOL_SPECS: readonly MemoryToolSpec[] = [
  {
    name: 'get_message_by_id',
    description:
      'Fetch one stored message in full by its id (ids come from the memory index or other memory tools). Use it when the memory index shows only a snippet and you need the whole text. Returns {message}.',
    parameters: objectOf({ message_id: MESSAGE_ID }, ['message_id']),
  },
  {
    name: 'get_messages_by_ids',
    description:
      'Fetch several stored messages in full by id, in the order given (ids from the memory index, omitted_ids of a cut result, or other memory tools). Returns {messages, not_found}.',
    parameters: objectOf(
      {
        message_ids: {
          type: 'array',
          items: MESSAGE_ID,
          minItems: 1,
          maxItems: 50,
          description: 'Up to 50 message ids.',
        },
      },
      ['message_ids'],
    ),
  },
  {
    name: 'get_message_with_chunks',
    description:
      'Fetch a long message and the chunks its text was split into, in order. Use it to read a message that was too long to show whole. Returns {message, chunks}; when there are chunks, message.content is a preview and the chunks hold the full text.',
    parameters: objectOf({ message_id: MESSAGE_ID }, ['message_id']),
  },
  {
    name: 'vector_search',
    description:
      'Semantic search over everything stored in this conversation memory, by meaning rather than exact words. Use it to find earlier discussion of a topic that is not in the memory index. Returns {results: [{message, score (cosine, -1..1), matched_by, excerpt?}]}, best first; excerpt is the matching part of a long message.',
    parameters: objectOf({ query: QUERY, limit: LIMIT(10, 'results') }, ['query']),
  },
  {
    name: 'search_and_retrieve',
    description:
      'The best general memory search: combines semantic search, keyword (full-text) search and linked turns. Use it first when you need to recall something. With few hits it returns whole messages, with many it returns snippets (format "full" or "snippets"); fetch a whole message with get_message_by_id. Returns {format, results: [{message, score, matched_by, excerpt?}]}.',
    parameters: objectOf(
      {
        query: QUERY,
        auto_limit: {
          type: 'boolean',
          default: true,
          description:
            'true (default): return as many hits as are clearly relevant (up to 20). Ignored when limit is given.',
        },
        limit: LIMIT(10, 'results; when given, exactly this many hits are asked for'),
      },
      ['query'],
    ),
  },
  {
    name: 'get_cluster',
    description:
      'Open a cluster from the memory index: cluster_id "c:<fromSeq>-<toSeq>" returns the messages with sequence numbers in that range, oldest first. A message id instead returns that message and the messages semantically linked to it. Returns {cluster_id, messages}.',
    parameters: objectOf(
      {
        cluster_id: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
          description: 'A cluster id like "c:120-164" from the memory index, or a message id.',
        },
        limit: LIMIT(20, 'messages'),
      },
      ['cluster_id'],
    ),
  },
  {
    name: 'get_period_messages',
    description:
      'List the messages stored in a period of time (UTC), oldest first. Use it for questions like "what did we discuss yesterday". Returns {period: {start, end}, messages, next_start?}; when next_start is present, call again with period {start: next_start, end} for more.',
    parameters: objectOf(
      {
        period: {
          description: `"today", "yesterday", "this_week", "last_week", "this_month", "last_month", a date "YYYY-MM-DD", a month "YYYY-MM", a range "YYYY-MM-DD..YYYY-MM-DD" (end day included), or an object {start, end} of ${DATE_OR_TIME} values`,
          anyOf: [
            { type: 'string', minLength: 1, maxLength: 64 },
            objectOf(
              {
                start: {
                  type: 'string',
                  minLength: 1,
                  maxLength: 64,
                  description: `Start, inclusive: ${DATE_OR_TIME}.`,
                },
                end: {
                  type: 'string',
                  minLength: 1,
                  maxLength: 64,
                  description: `End: a date includes that whole day; a date-time is exclusive.`,
                },
              },
              ['start', 'end'],
            ),
          ],
        },
        limit: LIMIT(20, 'messages'),
      },
      ['period'],
    ),
  },
  {
    name: 'get_conversation_thread',
    description:
      'The conversation leading to a message: the message and up to `depth` earlier turns of its branch, oldest first, plus the direct replies to it. Use it to see what a remembered message was answering. Returns {thread, replies}.',
    parameters: objectOf(
      {
        message_id: MESSAGE_ID,
        depth: {
          type: 'integer',
          minimum: 1,
          maximum: 50,
          default: 10,
          description: 'Most turns of the thread, the message included (1-50, default 10).',
        },
      },
      ['message_id'],
    ),
  },
  {
    name: 'get_tool_call',
    description:
      'Fetch one stored tool call (name, arguments, result) by its id, as listed by get_tool_calls_by_message. Returns {tool_call}.',
    parameters: objectOf(
      {
        tool_call_id: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
          description: 'The id field of a tool call from get_tool_calls_by_message.',
        },
      },
      ['tool_call_id'],
    ),
  },
  {
    name: 'get_tool_calls_by_message',
    description:
      'List the tool calls made by (or answering) a stored message, with arguments and results. Use it when a remembered assistant turn called tools. Returns {message_id, tool_calls}.',
    parameters: objectOf({ message_id: MESSAGE_ID }, ['message_id']),
  },
  {
    name: 'core_memory_append',
    description:
      'Add a lasting fact to a core-memory block (created if missing). Core memory is shown at the top of every future request, so keep it short: facts about the user (block "human"), about yourself ("persona"), or notes ("notes"). All blocks share a small token limit; a refusal says how many tokens are left. Returns the block after the change.',
    parameters: objectOf(
      {
        block: BLOCK,
        content: {
          type: 'string',
          minLength: 1,
          maxLength: 20000,
          description: 'Text to add as a new line of the block.',
        },
      },
      ['block', 'content'],
    ),
  },
  {
    name: 'core_memory_replace',
    description:
      'Change a core-memory block: every occurrence of old_content (exact text currently in the block) becomes new_content; an empty new_content deletes it. Use it to correct outdated facts and to condense the block when core memory is full. Returns the block after the change.',
    parameters: objectOf(
      {
        block: BLOCK,
        old_content: {
          type: 'string',
          minLength: 1,
          maxLength: 20000,
          description: 'Exact text to find in the block.',
        },
        new_content: {
          type: 'string',
          maxLength: 20000,
          description: 'Replacement text; empty to delete.',
        },
      },
      ['block', 'old_content', 'new_content'],
    ),
  },
];
