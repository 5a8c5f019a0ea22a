import { describe, expect, it } from 'vitest';
import { createEmbedder } from './create-embedder';
import { LocalEmbedder } from './local-embedder';
import { OpenAIEmbedder } from './openai-embedder';

const base = {
  embeddingBaseUrl: 'https://api.openai.com/v1',
  embeddingApiKey: 'sk-test',
  embeddingDimensions: 256,
};

describe('createEmbedder', () => {
  it('uses the built-in offline embedder for EMBEDDING_MODEL=local', () => {
    const embedder = createEmbedder({ ...base, embeddingModel: 'local' });
    expect(embedder).toBeInstanceOf(LocalEmbedder);
    expect(embedder.dimensions).toBe(256);
    expect(embedder.model).toMatch(/^local-v\d+$/);
  });

  it('uses an OpenAI-compatible API for any other model name', () => {
    const embedder = createEmbedder({ ...base, embeddingModel: 'text-embedding-3-small' });
    expect(embedder).toBeInstanceOf(OpenAIEmbedder);
    expect(embedder.model).toBe('text-embedding-3-small');
    expect(embedder.dimensions).toBe(256);
  });
});
