import type { Config } from '../config/load-config';
import type { Embedder } from './embedder';
import { LocalEmbedder } from './local-embedder';
import { OpenAIEmbedder } from './openai-embedder';

/** The configuration fields that choose and set up an embedder. */
export type EmbedderConfig = Pick<
  Config,
  'embeddingModel' | 'embeddingBaseUrl' | 'embeddingApiKey' | 'embeddingDimensions'
>;

/** EMBEDDING_MODEL=local: the built-in offline embedder; any other name: an OpenAI-compatible API. */
export function createEmbedder(config: EmbedderConfig): Embedder {
  if (config.embeddingModel.trim().toLowerCase() === 'local') {
    return new LocalEmbedder({ dimensions: config.embeddingDimensions });
  }
  return new OpenAIEmbedder({
    model: config.embeddingModel,
    baseUrl: config.embeddingBaseUrl,
    apiKey: config.embeddingApiKey,
    dimensions: config.embeddingDimensions,
  });
}
