import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { append, freshScope, turn } from '../../test/store/contract-fixtures';
import { edit } from '../../test/store/contract-manage';
import { watchStore } from '../../test/support/watch-store';
import { cosineSimilarity } from '../embeddings/embedder';
import { LocalEmbedder } from '../embeddings/local-embedder';
import { SqliteStore } from '../store/sqlite/sqlite-store';
import { countTokens } from '../tokens/count-tokens';
import { embedAndLink, NearestForSweep, sweepMissingEmbeddings, type MemoryWriter } from './embed-and-link';

describe('embedAndLink', () => {
  let store: SqliteStore;
  let writer: MemoryWriter;

  beforeAll(async () => {
    store = new SqliteStore({ dataDir: mkdtempSync(path.join(tmpdir(), 'memory-proxy-link-')) });
    await store.init({ embeddingDimensions: 384 });
    writer = { store, embedder: new LocalEmbedder({ dimensions: 384 }), chunkThreshold: 2000, synapseThreshold: 0.5 };
  });
  afterAll(() => store.close());

  it('links an answer to the question stored with it, and a later turn to an earlier similar one, scored by their stored vectors', async () => {
    const scope = freshScope();
    const [question, answer] = await append(store, scope, null, [
      turn('user', 'Where did my sister Marguerite move with her cat Pistachio?'),
      turn('assistant', 'Your sister Marguerite moved to Lisbon with her cat Pistachio.'),
    ]);
    await embedAndLink(writer, { scope, turns: [question!, answer!] });
    const [later] = await append(store, scope, answer!.id, [turn('user', 'Is Pistachio, the cat of my sister Marguerite, happy in Lisbon?')]);
    // Alone in its batch: its parent's vector comes from the store, in the read of its own.
    const reads: unknown[] = [];
    const watched = watchStore(store, 'getEmbeddings', ([, ids]) => reads.push(ids));
    await embedAndLink({ ...writer, store: watched }, { scope, turns: [later!] });
    expect(reads).toEqual([[later!.id, answer!.id]]);

    const vectors = await store.getEmbeddings(scope, [question!.id, answer!.id, later!.id]);
    const score = (a: string, b: string) => cosineSimilarity(vectors.get(a)!, vectors.get(b)!);
    expect(score(question!.id, answer!.id)).toBeGreaterThan(0.5);
    expect(await store.getSynapses(scope, answer!.id)).toContainEqual({ fromId: question!.id, toId: answer!.id, score: expect.closeTo(score(question!.id, answer!.id), 5) });
    expect(await store.getSynapses(scope, later!.id)).toEqual(
      expect.arrayContaining([
        { fromId: answer!.id, toId: later!.id, score: expect.closeTo(score(answer!.id, later!.id), 5) },
        { fromId: question!.id, toId: later!.id, score: expect.closeTo(score(question!.id, later!.id), 5) },
      ]),
    );
  });

  it('links a turn to a similar earlier turn stored in the same batch, and writes the batch\'s vectors and links at once', async () => {
    const scope = freshScope();
    // A resent history stores several turns at once: the third is not the first's reply, but its subject.
    const turns = await append(store, scope, null, [
      turn('user', 'Where did my sister Marguerite move with her cat Pistachio?'),
      turn('assistant', 'I do not know yet; tell me more.'),
      turn('user', 'Is Pistachio, the cat of my sister Marguerite, happy in Lisbon?'),
    ]);
    const [first, , third] = turns;
    const writes: string[] = [];
    const watched = watchStore(store, ['setEmbeddings', 'addSynapses'], () => writes.push('write'));
    await embedAndLink({ ...writer, store: watched }, { scope, turns });

    expect(writes).toHaveLength(1);
    const vectors = await store.getEmbeddings(scope, turns.map((stored) => stored!.id));
    expect(vectors.size).toBe(3);
    const score = cosineSimilarity(vectors.get(first!.id)!, vectors.get(third!.id)!);
    expect(score).toBeGreaterThan(writer.synapseThreshold);
    expect(await store.getSynapses(scope, third!.id)).toContainEqual({ fromId: first!.id, toId: third!.id, score: expect.closeTo(score, 5) });
    // The pair is linked once, by the later turn: not again from the first to the third.
    const pair = (await store.getSynapses(scope, first!.id)).filter((link) => [link.fromId, link.toId].includes(third!.id));
    expect(pair).toHaveLength(1);
  });

  it('reads the tool calls of the turns the caller names, or of every answer when it names none', async () => {
    const exchange = async () => {
      const scope = freshScope();
      const turns = await append(store, scope, null, [
        turn('user', 'Send the report to Ada.'),
        turn('assistant', 'Sending it now.'),
        turn('user', 'And to Grace?'),
        turn('assistant', 'Sent to Grace too.'),
      ]);
      const [call] = await store.addToolCalls(scope, turns[3]!.id, [{ callId: 'call_1', toolName: 'send_email', arguments: '{"to":"grace"}', result: null, tokenCount: 5 }]);
      return { scope, turns, call: call! };
    };
    const reads: unknown[] = [];
    const watched = watchStore(store, 'getToolCallsByMessage', ([, id]) => reads.push(id));

    const named = await exchange();
    await embedAndLink({ ...writer, store: watched }, { scope: named.scope, turns: named.turns, toolCallers: new Set([named.turns[3]!.id]) });
    expect(reads).toEqual([named.turns[3]!.id]);
    expect((await store.pendingEmbeddings(10_000)).map((item) => item.id)).not.toContain(named.call.id);
    reads.length = 0;
    const unnamed = await exchange();
    await embedAndLink({ ...writer, store: watched }, { scope: unnamed.scope, turns: unnamed.turns });
    expect(reads).toEqual([unnamed.turns[1]!.id, unnamed.turns[3]!.id]);
  });

  it('leaves turns whose vectors are stored as they are: a second run, or another process sweeping them, repeats nothing', async () => {
    const scope = freshScope();
    const turns = await append(store, scope, null, [
      turn('user', 'Which harbour did the schooner Albatross leave from?'),
      turn('assistant', 'The schooner Albatross left from the harbour of Brest.'),
      turn('user', 'When did the Albatross leave Brest harbour?'),
    ]);
    await embedAndLink(writer, { scope, turns: turns.slice(0, 2) });
    const stored = await store.getEmbeddings(scope, turns.map((each) => each.id));
    expect(stored.size).toBe(2);
    const embedded: string[][] = [];
    const searches: unknown[] = [];
    const counting = {
      model: writer.embedder.model,
      dimensions: writer.embedder.dimensions,
      embed: (texts: string[]) => (embedded.push(texts), writer.embedder.embed(texts)),
    };
    const watched = watchStore(store, 'vectorSearch', (args) => searches.push(args));

    await embedAndLink({ ...writer, embedder: counting, store: watched }, { scope, turns });

    // Only the third turn was embedded and searched for; it is linked to the earlier ones.
    expect(embedded).toEqual([[turns[2]!.content]]);
    expect(searches).toHaveLength(1);
    const after = await store.getEmbeddings(scope, turns.map((each) => each.id));
    expect(after.get(turns[0]!.id)).toEqual(stored.get(turns[0]!.id));
    expect(after.size).toBe(3);
    const links = await store.getSynapses(scope, turns[2]!.id);
    expect(links.map((link) => link.fromId)).toContain(turns[0]!.id);
  });

  it('finishes the turns a crash left without an embedding as the answer\'s own work would: chunks, vectors, links', async () => {
    const scope = freshScope();
    // Stored, never embedded: the background work did not run (a crash, or a queue that overflowed).
    const long = Array.from({ length: 700 }, (_, i) => `Lighthouse keeper log entry ${i}: the lamp at Cape Verity burned all night.`).join(' ');
    const [question, answer, later, longTurn] = await append(store, scope, null, [
      turn('user', 'Where did my sister Marguerite move with her cat Pistachio?'),
      turn('assistant', 'Your sister Marguerite moved to Lisbon with her cat Pistachio.'),
      turn('user', 'Is Pistachio, the cat of my sister Marguerite, happy in Lisbon?'),
      turn('assistant', long, { tokenCount: countTokens(long) }),
    ]);
    await store.addToolCalls(scope, longTurn!.id, [{ callId: 'call_1', toolName: 'read_log', arguments: '{"cape":"Verity"}', result: 'lamp lit', tokenCount: 6 }]);
    const inScope = async () => (await store.pendingEmbeddings(10_000)).filter((item) => item.scope.instance === scope.instance);
    expect(await inScope()).toHaveLength(5);

    await sweepMissingEmbeddings(writer, { batchSize: 2 });

    expect(await inScope()).toEqual([]);
    const chunks = await store.getChunks(scope, longTurn!.id);
    expect(chunks.length).toBeGreaterThan(1);
    expect((await store.getEmbeddings(scope, chunks.map((chunk) => chunk.id))).size).toBe(chunks.length);
    const vectors = await store.getEmbeddings(scope, [question!.id, answer!.id, later!.id]);
    const score = (a: string, b: string) => cosineSimilarity(vectors.get(a)!, vectors.get(b)!);
    expect(await store.getSynapses(scope, answer!.id)).toContainEqual({ fromId: question!.id, toId: answer!.id, score: expect.closeTo(score(question!.id, answer!.id), 5) });
    // Across the sweep's batches (two items each here): the later question links back to the first.
    expect(await store.getSynapses(scope, later!.id)).toContainEqual({ fromId: question!.id, toId: later!.id, score: expect.closeTo(score(question!.id, later!.id), 5) });
  });

  it('sweeps a question past a full queue with the nearest turns its retrieval kept, searching only for the answer', async () => {
    const scope = freshScope();
    const [earlier, reply] = await append(store, scope, null, [
      turn('user', 'Where did my sister Marguerite move with her cat Pistachio?'),
      turn('assistant', 'Your sister Marguerite moved to Lisbon with her cat Pistachio.'),
    ]);
    await embedAndLink(writer, { scope, turns: [earlier!, reply!] });
    // The next exchange overflowed the queue: stored, not embedded, its question's retrieval kept.
    const [question, answer] = await append(store, scope, reply!.id, [
      turn('user', 'Is Pistachio, the cat of my sister Marguerite, happy in Lisbon?'),
      turn('assistant', 'Pistachio loves the sunny windows of Lisbon.'),
    ]);
    const [questionVector] = await writer.embedder.embed([question!.content]);
    const found = await store.vectorSearch(scope, questionVector!, { k: 30 });
    const kept = new NearestForSweep();
    kept.keep(new Map([[question!.id, found]]));
    const searched: string[] = [];
    const watched = watchStore(store, 'vectorSearch', ([searchedScope, vector]) => {
      if ((searchedScope as typeof scope).instance === scope.instance) searched.push(cosineSimilarity(vector as number[], questionVector!) > 0.999 ? 'question' : 'other');
    });

    await sweepMissingEmbeddings({ ...writer, store: watched }, { nearest: kept });

    expect(searched).toEqual(['other']);
    expect(kept.size).toBe(0);
    const vectors = await store.getEmbeddings(scope, [earlier!.id, question!.id]);
    const score = cosineSimilarity(vectors.get(earlier!.id)!, vectors.get(question!.id)!);
    expect(score).toBeGreaterThan(writer.synapseThreshold);
    expect(await store.getSynapses(scope, question!.id)).toContainEqual({ fromId: earlier!.id, toId: question!.id, score: expect.closeTo(score, 5) });
    expect((await store.getEmbeddings(scope, [answer!.id])).size).toBe(1);
  });

  it('keeps the nearest turns of at most its capacity of questions, forgetting the oldest', () => {
    const kept = new NearestForSweep(2);
    const hit = (id: string) => [{ id, kind: 'message' as const, score: 0.9 }];
    const turnOf = (id: string) => ({ id }) as Parameters<NearestForSweep['take']>[0][number];
    kept.keep(new Map([['q1', hit('a')], ['q2', hit('b')]]));
    kept.keep(new Map([['q3', hit('c')]]));
    expect(kept.size).toBe(2);
    expect([...kept.take(['q1', 'q2', 'q3'].map(turnOf)).keys()]).toEqual(['q2', 'q3']);
    expect(kept.size).toBe(0);
  });

  it('lets requests in while it sweeps: the embedded store never waits on I/O, so the sweep yields itself', async () => {
    const scope = freshScope();
    let parent: string | null = null;
    for (let i = 0; i < 40; i++) {
      const [, answer] = await append(store, scope, parent, [turn('user', `Question ${i} about the lighthouse`), turn('assistant', `Answer ${i} about the lamp`)]);
      parent = answer!.id;
    }
    let finished = false;
    const turnsOfTheLoop: boolean[] = [];
    // A request arriving during the sweep is an I/O callback: it runs only when the loop turns.
    const ticker = setInterval(() => turnsOfTheLoop.push(finished), 0);
    await sweepMissingEmbeddings(writer).finally(() => (finished = true));
    clearInterval(ticker);
    expect(turnsOfTheLoop.filter((afterwards) => !afterwards).length).toBeGreaterThan(0);
    const pending = (await store.pendingEmbeddings(10_000)).filter((item) => item.scope.instance === scope.instance);
    expect(pending).toEqual([]);
  });

  it("links a new question to the nearest turns its retrieval found, without a search or an embedding of its own", async () => {
    const scope = freshScope();
    const [question, answer] = await append(store, scope, null, [
      turn('user', 'Which instrument does my neighbour Theodora play at the harbour festival?'),
      turn('assistant', 'Your neighbour Theodora plays the accordion at the harbour festival.'),
    ]);
    await embedAndLink(writer, { scope, turns: [question!, answer!] });
    const [later] = await append(store, scope, answer!.id, [turn('user', 'Will Theodora bring her accordion to the harbour festival again?')]);
    // What the retrieval's vector search for the new question found, before the question was embedded.
    const [vector] = await writer.embedder.embed([later!.content]);
    const found = await store.vectorSearch(scope, vector!, { k: 40, withMessages: true });
    let searches = 0;
    const watched = watchStore(store, 'vectorSearch', () => searches++);

    const embedded: string[] = [];
    const embedder = { ...writer.embedder, embed: (texts: string[]) => (embedded.push(...texts), writer.embedder.embed(texts)) };
    await embedAndLink(
      { ...writer, store: watched, embedder },
      { scope, turns: [later!], nearest: new Map([[later!.id, found]]), vectors: new Map([[later!.id, vector!]]) },
    );
    expect(searches).toBe(0);
    expect(embedded).toEqual([]);
    // The vector stored is the one the retrieval searched with.
    expect((await store.getEmbeddings(scope, [later!.id])).get(later!.id)).toEqual(vector!.map((value) => expect.closeTo(value, 6)));
    // Linked to each earlier turn that scores at least the threshold, by its stored vectors.
    const vectors = await store.getEmbeddings(scope, [question!.id, answer!.id, later!.id]);
    const score = (id: string) => cosineSimilarity(vectors.get(id)!, vectors.get(later!.id)!);
    const expected = [question!.id, answer!.id]
      .filter((id) => score(id) >= writer.synapseThreshold)
      .map((id) => ({ fromId: id, toId: later!.id, score: expect.closeTo(score(id), 5) }));
    expect(expected.length).toBeGreaterThan(0);
    const links = await store.getSynapses(scope, later!.id);
    expect(links).toHaveLength(expected.length);
    expect(links).toEqual(expect.arrayContaining(expected));
  });

  it('leaves nothing of a turn\'s old text when it was edited after its job read it: the edit\'s job embeds and chunks the new text', async () => {
    const scope = freshScope();
    const chunking = { ...writer, chunkThreshold: 20 };
    const long = (subject: string) => Array.from({ length: 12 }, (_, i) => `Note ${i} about the ${subject}.`).join(' ');
    const [question, answer] = await append(store, scope, null, [
      turn('user', 'Tell me about my garden.'),
      turn('assistant', long('roses in the garden')),
    ]);
    const edited = await store.editMessage(scope, answer!.id, edit(long('violin lessons')));
    // The job queued with the exchange runs after the edit, with the turns as they were read.
    await embedAndLink(chunking, { scope, turns: [question!, answer!] });
    expect((await store.getEmbeddings(scope, [answer!.id])).has(answer!.id)).toBe(false);
    expect(await store.getChunks(scope, answer!.id)).toEqual([]);

    await embedAndLink(chunking, { scope, turns: [edited] });
    const [expected] = await writer.embedder.embed([edited.content]);
    const stored = (await store.getEmbeddings(scope, [answer!.id])).get(answer!.id)!;
    expect(cosineSimilarity(stored, expected!)).toBeCloseTo(1, 5);
    const chunks = await store.getChunks(scope, answer!.id);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((chunk) => chunk.content).join(' ')).toContain('violin');
    expect(chunks.map((chunk) => chunk.content).join(' ')).not.toContain('roses');
  });
});
