/** Turns texts into unit-length vectors of a fixed dimension. */
export interface Embedder {
  /** The model name recorded in the store, so vectors of different models are never mixed. */
  readonly model: string;
  readonly dimensions: number;
  /** Embeds texts in order; every vector has `dimensions` entries and unit length. */
  embed(texts: string[]): Promise<number[][]>;
}

/** Cosine similarity of two vectors of the same length (dot product when both have unit length). */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  if (normA === 0 || normB === 0) return 0;
  return dot / Math.sqrt(normA * normB);
}
