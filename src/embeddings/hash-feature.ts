/**
 * Signed feature hashing: a feature (a word, a character n-gram, a concept) lands in fixed
 * buckets of the vector with a fixed sign, so unrelated features that collide cancel out on
 * average instead of adding up to a false similarity.
 */

/** Where one feature lands: bucket indices and their signs (+1 or -1). */
export interface FeatureBuckets {
  indices: number[];
  signs: number[];
}

/** 32-bit FNV-1a of a string's UTF-16 code units. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** MurmurHash3's finaliser: spreads FNV's weak low bits over the whole word. */
function mix(value: number): number {
  let hash = value >>> 0;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * The buckets of a feature: `hashes` independent (index, sign) pairs. Two pairs halve the
 * variance a single unlucky collision adds to a cosine.
 */
export function featureBuckets(feature: string, dimensions: number, hashes: 1 | 2): FeatureBuckets {
  const base = fnv1a(feature);
  const first = mix(base);
  const indices = [first % dimensions];
  const signs = [first >>> 31 === 1 ? -1 : 1];
  if (hashes === 2) {
    const second = mix(base ^ 0x9e3779b9);
    let index = second % dimensions;
    // Same bucket with opposite signs would erase the feature; move the second copy over.
    if (index === indices[0]) index = (index + 1) % dimensions;
    indices.push(index);
    signs.push(second >>> 31 === 1 ? -1 : 1);
  }
  return { indices, signs };
}
