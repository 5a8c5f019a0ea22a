import type { CoreMemoryBlock } from '../../store/types';
import { countTokens } from '../../tokens/count-tokens';
import { fitResult, type ToolOutput } from './fit-result';
import { snippetOf } from '../../text/snippet';
import type { MemoryToolContext, ToolHandler } from './tool-handler';
import { ToolError } from './tool-error';

/** Share of the request budget all pinned core-memory blocks together may use. */
export const CORE_MEMORY_SHARE = 0.25;
/** Characters of the current block quoted when old_content is not found, so the model can retry. */
const QUOTE_LENGTH = 600;

/** core_memory_append and core_memory_replace. */
export const coreMemoryTools: Record<string, ToolHandler> = {
  core_memory_append: async (context, args) => {
    const name = args['block'] as string;
    const content = (args['content'] as string).trim();
    const blocks = await context.store.getCoreMemory(context.scope);
    const current = blocks.find((block) => block.name === name)?.content ?? '';
    const next = current.trim() === '' ? content : `${current}\n${content}`;
    return write(context, { blocks, name, content: next });
  },

  core_memory_replace: async (context, args) => {
    const name = args['block'] as string;
    const oldContent = args['old_content'] as string;
    const newContent = args['new_content'] as string;
    const blocks = await context.store.getCoreMemory(context.scope);
    const block = blocks.find((candidate) => candidate.name === name);
    if (!block) {
      const names = blocks.map((candidate) => candidate.name);
      throw new ToolError(
        `core memory has no block "${name}"; ${names.length > 0 ? `its blocks are: ${names.join(', ')}` : 'it has no blocks yet'} (create one with core_memory_append)`,
      );
    }
    const parts = block.content.split(oldContent);
    if (parts.length === 1) {
      throw new ToolError(
        `old_content was not found in block "${name}"; it must match the block's text exactly (case and spacing included). The block reads: ${JSON.stringify(snippetOf(block.content, QUOTE_LENGTH))}`,
      );
    }
    return write(context, {
      blocks,
      name,
      content: parts.join(newContent),
      replaced: parts.length - 1,
    });
  },
};

/**
 * Stores a block unless core memory would pass its share of the budget. A change that does not
 * grow core memory is always allowed, so a model can condense memory that a smaller model's
 * budget finds too large.
 */
async function write(
  context: MemoryToolContext,
  change: { blocks: CoreMemoryBlock[]; name: string; content: string; replaced?: number },
): Promise<ToolOutput> {
  const { blocks, name, content } = change;
  const limit = Math.floor(context.budget * CORE_MEMORY_SHARE);
  const others = blocks
    .filter((block) => block.name !== name)
    .reduce((sum, block) => sum + countTokens(block.content), 0);
  const before = others + countTokens(blocks.find((block) => block.name === name)?.content ?? '');
  const tokenCount = countTokens(content);
  const total = others + tokenCount;
  if (total > limit && total > before) {
    const left = Math.max(0, limit - before);
    throw new ToolError(
      `refused: this would bring core memory to ${total} tokens, over its limit of ${limit} (25% of this conversation's ${context.budget}-token budget); ${left} tokens are left. ` +
        'Condense first: use core_memory_replace to shorten or remove older or less important text, then add something shorter.',
    );
  }
  await context.store.putCoreMemory(context.scope, {
    name,
    content,
    tokenCount,
    updatedAt: context.now(),
  });
  const block = { name, content, tokens: tokenCount };
  const left = Math.max(0, limit - total);
  const output: ToolOutput = {
    fields: {
      ok: true,
      ...(change.replaced === undefined ? {} : { replaced: change.replaced }),
      core_memory_tokens: total,
      limit_tokens: limit,
      tokens_left: left,
    },
    lists: [{ key: 'block', single: true, pageWith: 'core_memory_replace' }],
    items: [
      {
        id: name,
        list: 'block',
        value: block,
        shorten: (chars) => ({
          ...block,
          content: snippetOf(content, chars),
          content_truncated: true,
        }),
      },
    ],
  };
  // The write happened: a limit too small to show the block must still say it succeeded.
  if (fitResult(output, context.maxResultTokens).fits) return output;
  return { fields: { ok: true, block: name, tokens_left: left }, lists: [], items: [] };
}
