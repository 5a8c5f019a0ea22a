import { describe, expect, it } from 'vitest';
import { decodeVector, encodeVector } from './vector-codec';

describe('vector codec', () => {
  it('round-trips vectors at Float32 precision as 4 little-endian bytes per value', () => {
    const vector = [0.1, -2.5, 3e-8, 1e20, 0];
    const blob = encodeVector(vector);
    expect(blob.byteLength).toBe(20);
    expect(blob.readFloatLE(4)).toBe(-2.5);
    expect(Array.from(decodeVector(blob))).toEqual(vector.map((value) => Math.fround(value)));
  });

  it('decodes an aligned BLOB as a view and an unaligned one as a copy', () => {
    const blob = encodeVector([1, 2, 3]);
    const view = decodeVector(blob);
    expect(view.buffer).toBe(blob.buffer);

    const shifted = Buffer.alloc(13);
    blob.copy(shifted, 1);
    const unaligned = shifted.subarray(1);
    expect(Array.from(decodeVector(unaligned))).toEqual([1, 2, 3]);
  });
});
