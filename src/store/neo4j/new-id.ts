import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A monotonic ULID factory: ids made in the same millisecond still sort in creation order. */
export function createIdFactory(clock: () => number): () => string {
  let lastTime = -1;
  let lastRandom: number[] = [];
  return () => {
    const time = Math.max(Math.floor(clock()), 0);
    if (time <= lastTime) {
      // Same (or an earlier) millisecond: bump the random part so ids keep sorting in
      // creation order, which the tool-call and chunk listings rely on.
      lastRandom = increment(lastRandom);
    } else {
      lastTime = time;
      lastRandom = Array.from(randomBytes(16), (byte) => byte & 31);
    }
    return encodeTime(lastTime) + lastRandom.map((digit) => CROCKFORD[digit] ?? '0').join('');
  };
}

function encodeTime(time: number): string {
  let rest = time;
  let text = '';
  for (let index = 0; index < 10; index += 1) {
    text = (CROCKFORD[rest % 32] ?? '0') + text;
    rest = Math.floor(rest / 32);
  }
  return text;
}

function increment(digits: number[]): number[] {
  const next = [...digits];
  for (let index = next.length - 1; index >= 0; index -= 1) {
    const digit = next[index] ?? 0;
    if (digit < 31) {
      next[index] = digit + 1;
      return next;
    }
    next[index] = 0;
  }
  return next;
}
