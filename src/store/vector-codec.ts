import type { VectorInput } from './types';

// Float32Array uses the platform's byte order; every platform Node ships for is little-endian,
// which is the order the BLOBs are written in.
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Encodes a vector as the BLOB of little-endian Float32 values the embedding columns hold. */
export function encodeVector(vector: VectorInput): Buffer {
  // A copy of exactly the vector's values: a Float32Array may be a view into a larger buffer.
  if (LITTLE_ENDIAN) return Buffer.from(new Float32Array(vector).buffer);
  const buffer = Buffer.alloc(vector.length * 4);
  for (let index = 0; index < vector.length; index++) buffer.writeFloatLE(vector[index]!, index * 4);
  return buffer;
}

/**
 * Reads a Float32 BLOB. On the usual aligned, little-endian case the result is a view over
 * the BLOB's memory, not a copy: vector search decodes every stored vector of a scope.
 */
export function decodeVector(blob: Uint8Array): Float32Array {
  const length = Math.floor(blob.byteLength / 4);
  if (LITTLE_ENDIAN && blob.byteOffset % 4 === 0) {
    return new Float32Array(blob.buffer, blob.byteOffset, length);
  }
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const vector = new Float32Array(length);
  for (let index = 0; index < length; index++) vector[index] = view.getFloat32(index * 4, true);
  return vector;
}

/**
 * A vector as the base64 of its little-endian Float32 bytes: how OpenAI's embeddings API sends
 * vectors with `encoding_format: "base64"`, and how an export writes Float32 vectors.
 */
export function encodeBase64Vector(vector: readonly number[]): string {
  return encodeVector(vector).toString('base64');
}

/**
 * Reads encodeBase64Vector's text; null when its bytes are not whole Float32 values. Buffer skips
 * what is not base64, so `strict` also wants the text to be exactly what its bytes encode to
 * (padded standard base64). The result may be a view over pooled memory: copy it to keep it.
 */
export function decodeBase64Vector(text: string, options: { strict?: boolean } = {}): Float32Array | null {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.byteLength % 4 !== 0) return null;
  if (options.strict && bytes.toString('base64') !== text) return null;
  return decodeVector(bytes);
}
