import { describe, expect, it } from 'vitest';
import { append, freshScope, ids, turn, type StoreGetter } from './contract-fixtures';

const BASE_TIME = 1_700_000_000_000;

/** `length` turns of a conversation, user first, with the texts `text` gives. */
function alternating(length: number, text: (index: number) => string) {
  return Array.from({ length }, (_, index) => turn(index % 2 === 0 ? 'user' : 'assistant', text(index)));
}

/** Reading turns back: latest, by hash, branches, by id, listing, counting, exact content. */
export function describeReadContract(getStore: StoreGetter): void {
  describe('reading turns', () => {
    it('finds the latest turn of an instance, never a chunk', async () => {
      const store = getStore();
      const scope = freshScope();
      expect(await store.latestTurn(scope)).toBeNull();
      const [, second] = await append(store, scope, null, [
        turn('user', 'a'),
        turn('assistant', 'b'),
      ]);
      const [sibling] = await append(store, scope, null, [turn('user', 'another root')]);
      expect((await store.latestTurn(scope))?.id).toBe(sibling!.id);
      await store.setChunks(scope, second!.id, [{ content: 'chunk', tokenCount: 1 }]);
      expect((await store.latestTurn(scope))?.id).toBe(sibling!.id);
    });

    it('finds turns by content hash, newest first, up to the limit', async () => {
      const store = getStore();
      const scope = freshScope();
      const repeated = turn('user', 'same words');
      const [first] = await append(store, scope, null, [repeated, turn('assistant', 'x')]);
      const [, second] = await append(store, scope, first!.id, [turn('assistant', 'y'), repeated]);
      const [, third] = await append(store, scope, null, [turn('user', 'root 2'), repeated]);
      await store.setChunks(scope, first!.id, [{ content: 'same words', tokenCount: 2 }]);

      expect(ids(await store.findByHash(scope, repeated.contentHash, 10))).toEqual([
        third!.id,
        second!.id,
        first!.id,
      ]);
      expect(ids(await store.findByHash(scope, repeated.contentHash, 2))).toEqual([
        third!.id,
        second!.id,
      ]);
      expect(await store.findByHash(scope, 'no-such-hash', 10)).toEqual([]);
    });

    it('walks a branch leaf first up to the root, within the limit, and not into siblings', async () => {
      const store = getStore();
      const scope = freshScope();
      const chain = await append(store, scope, null, alternating(6, (index) => `t${index}`));
      await append(store, scope, chain[2]!.id, [turn('assistant', 'sibling branch')]);
      const leaf = chain[5]!;

      expect(ids(await store.getBranch(scope, leaf.id, { limit: 100 }))).toEqual(
        ids(chain).reverse(),
      );
      expect(ids(await store.getBranch(scope, leaf.id, { limit: 2 }))).toEqual([
        chain[5]!.id,
        chain[4]!.id,
      ]);
      expect(ids(await store.getBranch(scope, chain[1]!.id, { limit: 100 }))).toEqual([
        chain[1]!.id,
        chain[0]!.id,
      ]);
      expect(await store.getBranch(scope, '01ARZ3NDEKTSV4RRFFQ69G5FAV', { limit: 10 })).toEqual([]);
    });

    it('walks a branch longer than one read, through deleted turns and past siblings forked along it', async () => {
      const store = getStore();
      const scope = freshScope();
      const chain = await append(store, scope, null, alternating(600, (index) => `turn ${index}`));
      // Siblings hang off the chain on both sides of where the store's reads break it up.
      for (const at of [10, 63, 64, 65, 255, 256, 257, 400]) await append(store, scope, chain[at]!.id, [turn('user', `sibling of ${at}`)]);
      const deleted = new Set([chain[5]!.id, chain[64]!.id, chain[300]!.id]);
      for (const id of deleted) await store.setMessageDeleted(scope, id, true);
      const live = ids(chain)
        .reverse()
        .filter((id) => !deleted.has(id));
      const leaf = chain.at(-1)!;

      for (const limit of [1, 16, 17, 64, 65, 200, 256, 257, 597, 1000]) {
        expect(ids(await store.getBranch(scope, leaf.id, { limit }))).toEqual(live.slice(0, limit));
      }
      // A deleted turn is walked through even where the walk starts.
      const below = ids(chain.slice(0, 300))
        .reverse()
        .filter((id) => !deleted.has(id));
      expect(ids(await store.getBranch(scope, chain[300]!.id, { limit: 1000 }))).toEqual(below);
    });

    it('gets turns by id in the order asked, leaving out unknown ids', async () => {
      const store = getStore();
      const scope = freshScope();
      const [a, b, c] = await append(store, scope, null, [
        turn('user', 'a'),
        turn('assistant', 'b'),
        turn('user', 'c'),
      ]);
      const found = await store.getMessages(scope, [c!.id, 'missing', a!.id, b!.id]);
      expect(ids(found)).toEqual([c!.id, a!.id, b!.id]);
      expect(await store.getMessages(scope, [])).toEqual([]);
      expect(await store.getMessage(scope, 'missing')).toBeNull();
    });

    it('lists turns by seq with cursor, role, time, order and limit filters, without chunks', async () => {
      const store = getStore();
      const scope = freshScope();
      const stored = await append(
        store,
        scope,
        null,
        Array.from({ length: 6 }, (_, index) =>
          turn(index % 2 === 0 ? 'user' : 'assistant', `m${index}`, {
            timestamp: BASE_TIME + index * 1000,
          }),
        ),
      );
      await store.setChunks(scope, stored[0]!.id, [{ content: 'chunk', tokenCount: 1 }]);
      const seqs = async (options: Parameters<typeof store.listMessages>[1]): Promise<number[]> =>
        (await store.listMessages(scope, options)).map((message) => message.seq);

      expect(await seqs({ limit: 100 })).toEqual([1, 2, 3, 4, 5, 6]);
      expect(await seqs({ limit: 2 })).toEqual([1, 2]);
      expect(await seqs({ limit: 2, afterSeq: 2 })).toEqual([3, 4]);
      expect(await seqs({ limit: 100, beforeSeq: 3 })).toEqual([1, 2]);
      expect(await seqs({ limit: 100, afterSeq: 1, beforeSeq: 5, order: 'desc' })).toEqual([
        4, 3, 2,
      ]);
      expect(await seqs({ limit: 2, order: 'desc' })).toEqual([6, 5]);
      expect(await seqs({ limit: 100, roles: ['assistant'] })).toEqual([2, 4, 6]);
      expect(await seqs({ limit: 100, roles: ['user', 'assistant'] })).toEqual([1, 2, 3, 4, 5, 6]);
      expect(await seqs({ limit: 100, roles: ['tool'] })).toEqual([]);
      // fromTime is inclusive, toTime exclusive.
      expect(
        await seqs({ limit: 100, fromTime: BASE_TIME + 2000, toTime: BASE_TIME + 4000 }),
      ).toEqual([3, 4]);
      expect(await seqs({ limit: 100, fromTime: BASE_TIME + 5000 })).toEqual([6]);
    });

    it('counts the turns of an instance, not their chunks', async () => {
      const store = getStore();
      const scope = freshScope();
      expect(await store.countMessages(scope)).toBe(0);
      const [first] = await append(store, scope, null, [turn('user', 'a'), turn('assistant', 'b')]);
      await store.setChunks(scope, first!.id, [
        { content: 'c1', tokenCount: 1 },
        { content: 'c2', tokenCount: 1 },
      ]);
      expect(await store.countMessages(scope)).toBe(2);
    });
  });

  describe('content fidelity', () => {
    it('round-trips unicode exactly: emoji, CJK, RTL, combining marks, control characters', async () => {
      const store = getStore();
      const scope = freshScope();
      const content =
        'Emoji 👩🏽‍💻 👨‍👩‍👧‍👦 🇯🇵 — 中文：记忆代理 日本語のテキスト 한국어 — ' +
        'עברית ועוד العربية مرحبا — e\u0301 n\u0303 a\u030A Z\u0351\u0363 — tab\there\r\nline \u0000 nul \uFEFF';
      const [stored] = await append(store, scope, null, [
        turn('user', content, { metadata: { note: '注释 🚀', rtl: 'שלום' } }),
      ]);
      const read = await store.getMessage(scope, stored!.id);
      expect(read?.content).toBe(content);
      expect(read?.raw).toEqual({ role: 'user', content });
      expect(read?.metadata).toEqual({ note: '注释 🚀', rtl: 'שלום' });
      expect(read?.snippet.startsWith('Emoji 👩🏽‍💻 👨‍👩‍👧‍👦 🇯🇵')).toBe(true);
    });

    it('round-trips a 1 MB turn exactly and keeps its snippet short', async () => {
      const store = getStore();
      const scope = freshScope();
      const line = 'The quick brown fox jumps over the lazy dog. 速い茶色の狐。 🦊\n';
      const content = line.repeat(Math.ceil((1024 * 1024) / line.length));
      const [stored] = await append(store, scope, null, [turn('user', content)]);
      const read = await store.getMessage(scope, stored!.id);
      expect(read?.content.length).toBe(content.length);
      expect(read?.content === content).toBe(true);
      expect(Array.from(read!.snippet).length).toBeLessThanOrEqual(200);
      expect(read!.snippet.length).toBeGreaterThan(100);
    });

    it('round-trips the raw OpenAI message: content parts with images, tool calls, tool results', async () => {
      const store = getStore();
      const scope = freshScope();
      const userRaw = {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this image?' },
          {
            type: 'image_url',
            image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' },
          },
        ],
        name: 'alice',
      };
      const assistantRaw = {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'lookup', arguments: '{"q":"cat","nested":{"n":[1,2.5,null,true]}}' },
          },
        ],
      };
      const toolRaw = { role: 'tool', tool_call_id: 'call_1', content: '{"answer":"a cat"}' };
      const stored = await append(store, scope, null, [
        turn('user', 'What is in this image?', { raw: userRaw }),
        turn('assistant', '', { raw: assistantRaw }),
        turn('tool', '{"answer":"a cat"}', { raw: toolRaw }),
      ]);
      const read = await store.getMessages(scope, ids(stored));
      expect(read.map((message) => message.raw)).toEqual([userRaw, assistantRaw, toolRaw]);
      expect(read[1]!.content).toBe('');
    });
  });
}
