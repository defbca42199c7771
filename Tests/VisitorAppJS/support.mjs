// What the visitor app's reader tests share: a seeded PRNG, a byte source that records reads
// outside the file (and outside the entry being read), a timeout that turns a hang into a
// failure, and a small ZIP writer for hand-made archives. Not a test file itself (Node's runner takes only *.test.mjs).

import nodeCrypto from 'node:crypto';
import { deflateRawSync } from 'node:zlib';

import { crc32 } from '../../Sources/TrailPackVisitor/app/js/zip.js';

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

/** The byte arrays one after the other, in a new array. */
export const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/**
 * A small ZIP writer for hand-made archives: each file gives its name, its data as stored, its
 * method, and the CRC-32 and size to declare.
 */
export function makeZip(files) {
  const enc = new TextEncoder();
  const parts = [];
  const central = [];
  let offset = 0;
  for (const f of files) {
    const name = typeof f.name === 'string' ? enc.encode(f.name) : f.name;
    const fields = (signature, size) => {
      const h = new Uint8Array(size);
      const v = new DataView(h.buffer);
      v.setUint32(0, signature, true);
      return { h, v };
    };
    const local = fields(0x04034b50, 30);
    local.v.setUint16(4, 20, true);
    local.v.setUint16(6, f.flags ?? 0x800, true);
    local.v.setUint16(8, f.method, true);
    local.v.setUint16(12, 0x21, true);
    local.v.setUint32(14, f.crc, true);
    local.v.setUint32(18, f.data.length, true);
    local.v.setUint32(22, f.size, true);
    local.v.setUint16(26, name.length, true);
    parts.push(local.h, name, f.data);
    const c = fields(0x02014b50, 46);
    c.v.setUint16(4, 0x031e, true);
    c.v.setUint16(6, 20, true);
    c.v.setUint16(8, f.flags ?? 0x800, true);
    c.v.setUint16(10, f.method, true);
    c.v.setUint16(14, 0x21, true);
    c.v.setUint32(16, f.crc, true);
    c.v.setUint32(20, f.data.length, true);
    c.v.setUint32(24, f.size, true);
    c.v.setUint16(28, name.length, true);
    c.v.setUint32(38, 0o100644 << 16 >>> 0, true);
    c.v.setUint32(42, offset, true);
    central.push(c.h, name);
    offset += 30 + name.length + f.data.length;
  }
  const cd = concat(...central);
  const end = new Uint8Array(22);
  const v = new DataView(end.buffer);
  v.setUint32(0, 0x06054b50, true);
  v.setUint16(8, files.length, true);
  v.setUint16(10, files.length, true);
  v.setUint32(12, cd.length, true);
  v.setUint32(16, offset, true);
  return concat(...parts, cd, end);
}

/** A stored and a deflated file for `makeZip`. */
export const storedFile = (name, data) => ({ name, data, method: 0, crc: crc32(data), size: data.length });
export const deflatedFile = (name, data) => ({
  name, data: deflateRawSync(data), method: 8, crc: crc32(data), size: data.length,
});

/** A sync-access-handle in memory, as the download worker's OPFS handle behaves (it counts its flushes). */
export class MemoryFile {
  constructor(bytes = new Uint8Array(0)) {
    this.bytes = bytes;
    this.flushes = 0;
  }
  getSize() { return this.bytes.length; }
  read(buffer, { at }) {
    const n = Math.max(0, Math.min(buffer.length, this.bytes.length - at));
    buffer.set(this.bytes.subarray(at, at + n));
    return n;
  }
  write(data, { at }) {
    if (at + data.length > this.bytes.length) {
      const grown = new Uint8Array(at + data.length);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    this.bytes.set(data, at);
    return data.length;
  }
  truncate(n) { this.bytes = this.bytes.slice(0, n); }
  flush() { this.flushes += 1; }
}

/**
 * An in-memory IndexedDB, as much of it as the app's stores use (open with an upgrade,
 * createObjectStore, transactions with get, put and delete, oncomplete): values are copied with
 * structuredClone as the browser does. `fail` set to a message makes the next transaction abort.
 */
export class MemoryIndexedDB {
  constructor() {
    this.databases = new Map();
    this.fail = null;
  }

  open(name, version) {
    const request = {};
    queueMicrotask(() => {
      let db = this.databases.get(name);
      const upgrade = !db;
      if (!db) {
        const stores = new Map();
        const factory = this;
        db = {
          version,
          stores,
          createObjectStore(storeName) {
            stores.set(storeName, new Map());
          },
          // Transactions run one after the other (as IndexedDB's on one store): each sees the last one's writes.
          queue: Promise.resolve(),
          transaction(storeName, mode) {
            const tx = { error: null };
            const store = stores.get(storeName);
            const failing = factory.fail;
            factory.fail = null;
            let writes = null;
            let pending = 0;
            let release;
            const turn = this.queue.then(() => { writes = new Map(store); });
            this.queue = turn.then(() => new Promise((resolve) => { release = resolve; }));
            const finish = () => {
              if (failing) {
                tx.error = new Error(failing);
                tx.onabort?.();
              } else {
                store.clear();
                for (const [k, v] of writes) store.set(k, v);
                tx.oncomplete?.();
              }
              release();
            };
            const ask = (run) => {
              const r = {};
              pending += 1;
              turn.then(() => {
                r.result = run();
                r.onsuccess?.();
                pending -= 1;
                // The transaction commits once no request is left (after the callbacks could ask more).
                setTimeout(() => { if (pending === 0 && !tx.done) { tx.done = true; finish(); } }, 0);
              });
              return r;
            };
            const writable = () => { if (mode !== 'readwrite') throw new Error('ReadOnlyError'); };
            tx.objectStore = () => ({
              get: (key) => ask(() => structuredClone(writes.get(key))),
              put: (value, key) => { writable(); const copy = structuredClone(value); return ask(() => { writes.set(key, copy); return key; }); },
              delete: (key) => { writable(); return ask(() => { writes.delete(key); }); },
            });
            turn.then(() => setTimeout(() => { if (pending === 0 && !tx.done) { tx.done = true; finish(); } }, 0));
            return tx;
          },
        };
        this.databases.set(name, db);
      }
      request.result = db;
      if (upgrade) request.onupgradeneeded?.();
      request.onsuccess?.();
    });
    return request;
  }

  deleteDatabase(name) {
    this.databases.delete(name);
    const request = {};
    queueMicrotask(() => request.onsuccess?.());
    return request;
  }
}
