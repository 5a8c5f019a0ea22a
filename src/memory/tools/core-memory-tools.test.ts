import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFactories } from '../../../test/support/stores';
import type { MemoryStore } from '../../store/memory-store';
import type { Scope } from '../../store/types';
import { countTokens } from '../../tokens/count-tokens';
import type { MemoryToolContext } from './memory-tools';
import { freshScope, NOW, runTool, testContext } from './seed-conversation.fixture';

for (const factory of storeFactories()) {
  describe(`core memory tools: ${factory.name}`, () => {
    let store: MemoryStore;
    const run = (
      name: string,
      args: unknown,
      overrides: Partial<MemoryToolContext> & { scope: Scope },
    ) => runTool({ ...testContext(store, overrides.scope), ...overrides }, name, args);

    beforeAll(async () => {
      store = await factory.create();
    });

    afterAll(async () => {
      await store?.close();
    });

    const blocks = async (scope: Scope) =>
      Object.fromEntries(
        (await store.getCoreMemory(scope)).map((block) => [block.name, block.content]),
      );

    it('appends to named blocks and replaces text in them', async () => {
      const scope = freshScope();
      const first = await run(
        'core_memory_append',
        { block: 'human', content: 'Name: Ana.' },
        { scope },
      );
      expect(first.result.ok).toBe(true);
      expect(first.json).toMatchObject({
        block: { name: 'human', content: 'Name: Ana.' },
        limit_tokens: 2000,
      });
      await run(
        'core_memory_append',
        { block: 'human', content: 'Has a golden retriever called Maple.' },
        { scope },
      );
      await run(
        'core_memory_append',
        { block: 'notes', content: 'Trip to Lisbon in May.' },
        { scope },
      );
      expect(await blocks(scope)).toEqual({
        human: 'Name: Ana.\nHas a golden retriever called Maple.',
        notes: 'Trip to Lisbon in May.',
      });
      const replaced = await run(
        'core_memory_replace',
        { block: 'human', old_content: 'Maple', new_content: 'Biscuit' },
        { scope },
      );
      expect(replaced.json).toMatchObject({
        replaced: 1,
        block: { content: 'Name: Ana.\nHas a golden retriever called Biscuit.' },
      });
      expect(replaced.json.core_memory_tokens).toBe(
        countTokens('Name: Ana.\nHas a golden retriever called Biscuit.') +
          countTokens('Trip to Lisbon in May.'),
      );
      const stored = (await store.getCoreMemory(scope)).find((block) => block.name === 'human');
      expect(stored).toMatchObject({ tokenCount: countTokens(stored!.content), updatedAt: NOW });
    });

    it('fails clearly when old_content or the block is not there', async () => {
      const scope = freshScope();
      await run('core_memory_append', { block: 'human', content: 'Likes tea.' }, { scope });
      const missing = await run(
        'core_memory_replace',
        { block: 'human', old_content: 'likes coffee', new_content: 'x' },
        { scope },
      );
      expect(missing.result.ok).toBe(false);
      expect(missing.json.error).toMatch(
        /old_content was not found in block "human".*"Likes tea\."/,
      );
      const noBlock = await run(
        'core_memory_replace',
        { block: 'persona', old_content: 'a', new_content: 'b' },
        { scope },
      );
      expect(noBlock.json.error).toMatch(/no block "persona"; its blocks are: human/);
      expect(await blocks(scope)).toEqual({ human: 'Likes tea.' });
    });

    it('keeps results, errors included, within a small token limit', async () => {
      const scope = freshScope();
      const long = `Travel notes: ${'Lisbon, Porto and Sintra in spring. '.repeat(40)}`;
      const written = await run(
        'core_memory_append',
        { block: 'notes', content: long },
        { scope, maxResultTokens: 64 },
      );
      expect(written.result.ok).toBe(true);
      expect(written.json).toMatchObject({ ok: true });
      expect(await blocks(scope)).toEqual({ notes: long.trim() });
      const missing = await run(
        'core_memory_replace',
        { block: 'notes', old_content: 'Madrid', new_content: 'x' },
        { scope, maxResultTokens: 64 },
      );
      expect(missing.result).toMatchObject({ ok: false, truncated: true });
      expect(missing.result.tokens).toBeLessThanOrEqual(64);
      expect(missing.json.error).toMatch(/^core_memory_replace: old_content was not found/);
    });

    it('refuses writes past 25% of the budget, saying how much is left, but always lets memory shrink', async () => {
      const scope = freshScope();
      const budget = 200; // core memory may hold 50 tokens
      const fact = 'The user prefers metric units and short answers.';
      expect(
        (await run('core_memory_append', { block: 'persona', content: fact }, { scope, budget }))
          .result.ok,
      ).toBe(true);
      const used = countTokens(fact);
      const refused = await run(
        'core_memory_append',
        { block: 'notes', content: 'word '.repeat(60) },
        { scope, budget },
      );
      expect(refused.result.ok).toBe(false);
      expect(refused.json.error).toContain(`${50 - used} tokens are left`);
      expect(refused.json.error).toMatch(/core_memory_replace/);
      expect(await blocks(scope)).toEqual({ persona: fact });
      // A smaller model's budget: memory is over its share, but condensing is allowed.
      const shrunk = await run(
        'core_memory_replace',
        { block: 'persona', old_content: ' and short answers', new_content: '' },
        { scope, budget: 40 },
      );
      expect(shrunk.result.ok).toBe(true);
      expect(await blocks(scope)).toEqual({ persona: 'The user prefers metric units.' });
    });
  });
}
