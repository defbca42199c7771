// What the visitor app's reader tests share: a seeded PRNG, a byte source that records reads
// outside the file (and outside the entry being read), and a timeout that turns a hang into a
// failure. Not a test file itself (Node's runner takes only *.test.mjs).

import nodeCrypto from 'node:crypto';

/** A deterministic PRNG (mulberry32): a function returning numbers in [0, 1). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A source that records every read outside [0, size), and, while `window` is set, every read
 * outside it (the entry being read); `reads` lists them all, `bytesRead` sums them. It slices
 * only when the source it wraps does.
 */
export class CheckedSource {
  constructor(inner) {
    this.inner = inner;
    this.size = inner.size;
    this.window = null;
    this.violations = [];
    this.reads = [];
    this.bytesRead = 0;
    if (typeof inner.slice === 'function') {
      this.slice = (start, end) => {
        this.check(start, end - start, 'slice');
        return inner.slice(start, end);
      };
    }
  }

  check(offset, length, how) {
    const inside = Number.isSafeInteger(offset) && Number.isSafeInteger(length) && offset >= 0 && length >= 0 &&
      offset + length <= this.size;
    if (!inside) this.violations.push(`${how} of ${length} bytes at ${offset} (size ${this.size})`);
    if (this.window && (offset < this.window[0] || offset + length > this.window[1])) {
      this.violations.push(`${how} of ${length} bytes at ${offset}, outside ${this.window}`);
    }
  }

  read(offset, length) {
    this.check(offset, length, 'read');
    this.reads.push([offset, length]);
    this.bytesRead += length;
    return this.inner.read(offset, length);
  }
}

/** `promise`, or a failure naming `context` after `ms` (a hang becomes a failed test). */
export function withTimeout(promise, ms, context) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${context}: no answer after ${ms} ms (a hang?)`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A deterministic generator of pseudo-random 32-bit numbers (xorshift32), so failures repeat. */
export function xorshift32(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

/** `n` bytes from a generator of 32-bit numbers. */
export function randomBytes(n, next) {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = next() & 0xff;
  return out;
}

/** Node's own digest of `bytes`, as hex (the independent implementation the hashes are checked against). */
export const nodeHash = (algorithm, bytes) => nodeCrypto.createHash(algorithm).update(bytes).digest('hex');
