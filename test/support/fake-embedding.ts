import type { FakeReply, RecordedRequest } from './fake-replies';

/** Dimensions of the fake embeddings when the request names none (the store suites' size). */
export const FAKE_EMBEDDING_DIMENSIONS = 384;

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let position = 0; position < text.length; position++) {
    hash ^= text.charCodeAt(position);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * A deterministic unit vector for a text: hashed bag of lower-cased words, so texts that share
 * words are closer than texts that do not (retrieval tests can rank by it). Values are float32,
 * so the float and base64 encodings decode to the same numbers.
 */
export function fakeEmbedding(text: string, dimensions = FAKE_EMBEDDING_DIMENSIONS): number[] {
  const vector = new Float64Array(dimensions);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const hash = fnv1a(word);
    vector[hash % dimensions] = (vector[hash % dimensions] ?? 0) + (hash & 0x80000000 ? -1 : 1);
  }
  const norm = Math.hypot(...vector);
  if (norm === 0) vector[0] = 1;
  else
    for (let position = 0; position < dimensions; position++)
      vector[position] = (vector[position] ?? 0) / norm;
  return Array.from(new Float32Array(vector));
}

/** The texts of an embeddings request: a string, strings, or token arrays (embedded as their ids). */
function inputsOf(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input)) return [];
  if (input.every((item) => typeof item === 'number')) return [input.join(' ')];
  return input.map((item) => (Array.isArray(item) ? item.join(' ') : String(item)));
}

/** The default `/v1/embeddings` answer: one fake embedding per input, as float or base64 as asked. */
export function embeddingsReply(request: RecordedRequest): FakeReply {
  const dimensions =
    typeof request.body?.dimensions === 'number'
      ? request.body.dimensions
      : FAKE_EMBEDDING_DIMENSIONS;
  // The openai SDK asks for base64 unless the caller chose a format, and decodes it itself.
  const base64 = request.body?.encoding_format === 'base64';
  const inputs = inputsOf(request.body?.input);
  const tokens = inputs.reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0);
  return {
    kind: 'json',
    body: {
      object: 'list',
      data: inputs.map((text, index) => {
        const vector = fakeEmbedding(text, dimensions);
        const embedding = base64
          ? Buffer.from(new Float32Array(vector).buffer).toString('base64')
          : vector;
        return { object: 'embedding', index, embedding };
      }),
      model:
        typeof request.body?.model === 'string' ? request.body.model : 'text-embedding-3-small',
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
  };
}
