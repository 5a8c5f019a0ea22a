import type { StoredMessage, StoredToolCall } from '../../store/types';
import { loadMessages, requireMessage } from './load-messages';
import { toolCallItem } from './message-item';
import type { MemoryToolContext, ToolHandler } from './tool-handler';
import { ToolError } from './tool-error';

/** Turns walked back from a tool result to the assistant turn that made its call. */
const CALLER_SEARCH_DEPTH = 16;

/** get_tool_call and get_tool_calls_by_message. */
export const toolCallTools: Record<string, ToolHandler> = {
  get_tool_call: async (context, args) => {
    const id = args['tool_call_id'] as string;
    const call = await context.store.getToolCall(context.scope, id);
    // A call of a deleted turn is gone with it.
    if (!call || (await loadMessages(context, [call.messageId])).length === 0) {
      throw new ToolError(
        `no stored tool call has id ${JSON.stringify(id)}; use the id field of a tool call listed by get_tool_calls_by_message (not its call_id)`,
      );
    }
    return {
      fields: {},
      lists: [{ key: 'tool_call', single: true, pageWith: 'get_tool_call' }],
      items: [toolCallItem(call, 'tool_call')],
    };
  },

  get_tool_calls_by_message: async (context, args) => {
    const message = await requireMessage(context, args['message_id'] as string);
    let calls = await context.store.getToolCallsByMessage(context.scope, message.id);
    if (calls.length === 0 && message.role === 'tool')
      calls = await callsAnsweredBy(context, message);
    return {
      fields: { message_id: message.id },
      lists: [{ key: 'tool_calls', pageWith: 'get_tool_call' }],
      items: calls.map((call) => toolCallItem(call, 'tool_calls')),
    };
  },
};

/** The stored call a tool-result turn answers: calls hang off the assistant turn that made them. */
async function callsAnsweredBy(
  context: MemoryToolContext,
  message: StoredMessage,
): Promise<StoredToolCall[]> {
  const callId = message.raw['tool_call_id'];
  if (typeof callId !== 'string') return [];
  const branch = await context.store.getBranch(context.scope, message.id, {
    limit: CALLER_SEARCH_DEPTH,
  });
  const caller = branch.find((turn) => turn.role === 'assistant');
  if (!caller) return [];
  const calls = await context.store.getToolCallsByMessage(context.scope, caller.id);
  return calls.filter((call) => call.callId === callId);
}
