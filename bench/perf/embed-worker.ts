/**
 * The CPU half of a bulk load, in a helper process: writing seeded turns, hashing and counting
 * their tokens (toNewMessage) and embedding them, while the loader stores the previous batch.
 * Answers {id, messages, vectors} to each {id, stream, first, count} request over IPC; a stream
 * is one branch of turns, written in order. Usage: fork(embed-worker.ts, [dimensions]).
 */
import { LocalEmbedder } from '../../src/embeddings/local-embedder';
import { toNewMessage } from '../../src/memory/normalize-message';
import { Corpus } from './corpus';

/** What the loader asks for: `count` turns of stream `stream`, the first one numbered `first`. */
export interface BatchRequest {
  id: number;
  stream: number;
  /** Seed of the stream's text (same seed, same text). */
  seed: number;
  first: number;
  count: number;
  startTime: number;
}

const dimensions = Number(process.argv[2]);
const embedder = new LocalEmbedder({ dimensions });
const corpora = new Map<number, Corpus>();

process.on('message', (request: BatchRequest) => {
  let corpus = corpora.get(request.stream);
  if (!corpus) {
    corpus = new Corpus(request.seed);
    corpora.set(request.stream, corpus);
  }
  const vectors = new Float32Array(request.count * dimensions);
  const messages = Array.from({ length: request.count }, (_, offset) => {
    const index = request.first + offset;
    const content = corpus.turn(index);
    const role = index % 2 === 0 ? 'user' : 'assistant';
    vectors.set(embedder.embedText(content), offset * dimensions);
    return { ...toNewMessage({ role, content }, { model: 'bench' }), timestamp: request.startTime + index * 1000 };
  });
  process.send?.({ id: request.id, messages, vectors });
});
process.on('disconnect', () => process.exit(0));
