import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestTurns } from '../src/memory/ingest';
import { toNewMessage } from '../src/memory/normalize-message';
import type { MemoryStore } from '../src/store/memory-store';
import type { Scope } from '../src/store/types';
import { storeFactories } from './support/stores';

const user = (content: string) => toNewMessage({ role: 'user', content });
const assistant = (content: string) => toNewMessage({ role: 'assistant', content });

for (const factory of storeFactories()) {
  describe(`a single new message continues the latest turn (${factory.name})`, () => {
    let store: MemoryStore;
    beforeAll(async () => {
      store = await factory.create();
    });
    afterAll(async () => {
      await store?.close();
    });
    const newScope = (): Scope => ({ partition: 'ingest', instance: `i-${ulid().toLowerCase()}` });

    it('stores nothing for a message resent after its answer, however often the same words were said', async () => {
      const scope = newScope();
      const [question] = await store.appendPath(scope, { parentId: null, messages: [user('ok')] });
      // Twenty later "ok"s on other branches, then the answer to the first: the question is
      // not among the newest turns with its words, so it is found by id.
      for (let i = 0; i < 20; i++) {
        const later = await store.appendPath(scope, { parentId: null, messages: [user(`topic ${i}`), user('ok')] });
        expect(later.every((turn) => turn.created)).toBe(true);
      }
      const [answer] = await store.appendPath(scope, { parentId: question!.message.id, messages: [assistant('noted')] });

      const resent = await ingestTurns(store, scope, [user('ok')]);
      expect(resent.created).toEqual([]);
      expect(resent.leaf?.id).toBe(question!.message.id);

      const next = await ingestTurns(store, scope, [user('and now?')]);
      expect(next.created.map((turn) => [turn.content, turn.parentId])).toEqual([['and now?', answer!.message.id]]);
    });

    it('stores a message that repeats older words when the latest answer replied to something else', async () => {
      const scope = newScope();
      const [, welcome] = await store.appendPath(scope, { parentId: null, messages: [user('thanks'), assistant('you are welcome')] });
      const [, answer] = await store.appendPath(scope, { parentId: welcome!.message.id, messages: [user('one more thing'), assistant('sure')] });
      const again = await ingestTurns(store, scope, [user('thanks')]);
      expect(again.created.map((turn) => [turn.content, turn.parentId])).toEqual([['thanks', answer!.message.id]]);
    });
  });
}
