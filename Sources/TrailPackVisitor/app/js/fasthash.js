// SHA-256 and BLAKE2b-512 for hashing whole packages while they download, in WebAssembly.
//
// hashes.wasm (hand-written, from ../../wasm/hashes.wat) compresses whole blocks; this file copies
// the caller's bytes into the module's 1 MiB input buffer, keeps each hasher's partial block in
// the hasher's slot of the module's memory, and pads. Where WebAssembly is missing or refused (an
// old browser, a Content-Security-Policy without 'wasm-unsafe-eval'), the same interface is served
// by the pure JavaScript classes of sha256.js and blake2b.js.

import { SHA256 } from './sha256.js';
import { BLAKE2b512 } from './blake2b.js';
import { discardBody, readBody } from './http.js';

/**
 * A streaming hash: `update` as often as needed, then `digest` once.
 * After `digest()` the hasher is finished: `update` throws, and `digest` returns the same value again.
 * @typedef {object} StreamingHash
 * @property {(bytes: Uint8Array) => StreamingHash} update adds bytes to the message (any length)
 * @property {() => Uint8Array} digest the digest (32 bytes for SHA-256, 64 for BLAKE2b-512)
 */

/**
 * What `createHashers` returns.
 * @typedef {object} Hashers
 * @property {StreamingHash | null} sha256 a SHA-256 hasher, or null when not asked for
 * @property {StreamingHash | null} blake2b a BLAKE2b-512 hasher (unkeyed), or null when not asked for
 * @property {'wasm' | 'js'} engine which implementation computes them
 */

const WASM_URL = new URL('./hashes.wasm', import.meta.url);

/** @type {Promise<WebAssembly.Module | null> | null} the compiled module, or null when unusable */
let compiled = null;

/**
 * New hashers for one message (one download): SHA-256 and/or BLAKE2b-512.
 * Both share one WebAssembly instance (one memory); every call makes its own instance, so hashers
 * of different calls are independent. Falls back to the pure JavaScript classes (engine 'js')
 * when WebAssembly cannot be used.
 * @param {{sha256?: boolean, blake2b?: boolean}} [options] which hashes to compute
 * @returns {Promise<Hashers>}
 */
export async function createHashers({ sha256 = true, blake2b = false } = {}) {
  const core = await instantiate();
  if (core) {
    return {
      sha256: sha256 ? new WasmSHA256(core) : null,
      blake2b: blake2b ? new WasmBLAKE2b512(core) : null,
      engine: 'wasm',
    };
  }
  return { sha256: sha256 ? new SHA256() : null, blake2b: blake2b ? new BLAKE2b512() : null, engine: 'js' };
}

/**
 * Starts loading and compiling hashes.wasm now (a worker that will hash calls it as it starts, so
 * that its first bytes do not wait for the compiler). Harmless to call again.
 */
export function prepareHashers() {
  if (typeof WebAssembly === 'object') compiled ??= compile();
}

/**
 * A fresh instance of hashes.wasm, or null when WebAssembly is unavailable or refused.
 * @returns {Promise<Core | null>}
 */
async function instantiate() {
  if (typeof WebAssembly !== 'object') return null;
  let module = null;
  try {
    module = await (compiled ??= compile());
    if (!module) return null;
    return new Core(await WebAssembly.instantiate(module));
  } catch {
    // Compiled, but cannot be instantiated here (memory refused): stop trying.
    compiled = Promise.resolve(null);
    return null;
  }
}

/** The most of hashes.wasm that is read (it is 4 KiB): a server that sends more is cut off. */
const WASM_LIMIT = 1 << 20;

/**
 * Loads and compiles hashes.wasm: from the file system in Node, else with `fetch`, its body read
 * by http.js's `readBody` (at most WASM_LIMIT bytes).
 * @returns {Promise<WebAssembly.Module | null>}
 */
async function compile() {
  try {
    if (typeof process !== 'undefined' && process.versions?.node) {
      const { readFile } = await import('node:fs/promises');
      return await WebAssembly.compile(await readFile(WASM_URL));
    }
    const response = await fetch(WASM_URL);
    if (!response.ok) {
      await discardBody(response);
      return null;
    }
    return await WebAssembly.compile(await readBody(response, WASM_LIMIT));
  } catch {
    return null;
  }
}

/** One instance of hashes.wasm: its exports, memory layout and the next free hasher slot. */
class Core {
  /** @param {WebAssembly.Instance} instance */
  constructor(instance) {
    const x = instance.exports;
    this.x = x;
    this.memory = /** @type {WebAssembly.Memory} */ (x.memory);
    this.buffer = x.buffer.value;
    this.bufferSize = x.buffer_size.value;
    this.nextSlot = x.slots.value;
    this.slotSize = x.slot_size.value;
    this.slotsEnd = x.slots_end.value;
  }

  /** The module's memory as bytes (a fresh view, should the memory ever grow). */
  get bytes() {
    return new Uint8Array(this.memory.buffer);
  }

  /**
   * A new hasher slot: the state at +0, the partial block at +128.
   * @returns {number}
   */
  slot() {
    if (this.nextSlot + this.slotSize > this.slotsEnd) throw new Error('fasthash: no free hasher slot');
    const slot = this.nextSlot;
    this.nextSlot += this.slotSize;
    return slot;
  }
}

/** Where a slot's partial block starts. */
const TAIL = 128;

/**
 * Runs `compress(pointer, blocks)` over `bytes[offset ..< offset + length]` (length a multiple of
 * `block`), copied into the core's input buffer a buffer's worth at a time.
 * @param {Core} core
 * @param {Uint8Array} bytes
 * @param {number} offset
 * @param {number} length
 * @param {number} block
 * @param {(pointer: number, blocks: number) => void} compress
 */
function compressAll(core, bytes, offset, length, block, compress) {
  const memory = core.bytes;
  const most = core.bufferSize - (core.bufferSize % block);
  for (let end = offset + length; offset < end;) {
    const n = Math.min(most, end - offset);
    memory.set(bytes.subarray(offset, offset + n), core.buffer);
    compress(core.buffer, n / block);
    offset += n;
  }
}

/** SHA-256 (FIPS 180-4) in WebAssembly: `update(a).update(b).digest()`. */
class WasmSHA256 {
  #core;
  #slot;
  #buffered = 0;
  #length = 0; // bytes hashed so far (exact up to 2^53)
  /** @type {Uint8Array | null} */
  #result = null;
  #compress;

  /** @param {Core} core */
  constructor(core) {
    this.#core = core;
    this.#slot = core.slot();
    core.x.sha256_init(this.#slot);
    this.#compress = (pointer, blocks) => core.x.sha256_blocks(this.#slot, pointer, blocks);
  }

  /**
   * Adds `bytes` to the message.
   * @param {Uint8Array} bytes
   * @returns {this}
   */
  update(bytes) {
    if (this.#result) throw new Error('SHA256: update() after digest()');
    if (!(bytes instanceof Uint8Array)) throw new TypeError('SHA256: update() takes a Uint8Array');
    const core = this.#core;
    const tail = this.#slot + TAIL;
    let offset = 0;
    let left = bytes.length;
    this.#length += left;
    if (this.#buffered > 0) {
      const take = Math.min(64 - this.#buffered, left);
      core.bytes.set(bytes.subarray(0, take), tail + this.#buffered);
      this.#buffered += take;
      offset += take;
      left -= take;
      if (this.#buffered < 64) return this;
      core.x.sha256_blocks(this.#slot, tail, 1);
      this.#buffered = 0;
    }
    const whole = left - (left % 64);
    if (whole > 0) compressAll(core, bytes, offset, whole, 64, this.#compress);
    if (left > whole) {
      core.bytes.set(bytes.subarray(offset + whole), tail);
      this.#buffered = left - whole;
    }
    return this;
  }

  /**
   * Finishes the hash.
   * @returns {Uint8Array} the 32-byte digest
   */
  digest() {
    if (!this.#result) {
      const core = this.#core;
      const tail = this.#slot + TAIL;
      const memory = core.bytes;
      // The padding: 0x80, zeros, the length in bits as a 64-bit big-endian number; one block or two.
      const blocks = this.#buffered < 56 ? 1 : 2;
      memory[tail + this.#buffered] = 0x80;
      memory.fill(0, tail + this.#buffered + 1, tail + 64 * blocks - 8);
      const bits = this.#length * 8;
      const view = new DataView(memory.buffer);
      view.setUint32(tail + 64 * blocks - 8, Math.floor(bits / 0x100000000));
      view.setUint32(tail + 64 * blocks - 4, bits >>> 0);
      core.x.sha256_blocks(this.#slot, tail, blocks);
      const out = new Uint8Array(32);
      const outView = new DataView(out.buffer);
      for (let i = 0; i < 8; i++) outView.setUint32(4 * i, view.getUint32(this.#slot + 4 * i, true));
      this.#result = out;
    }
    return this.#result.slice();
  }
}

/** BLAKE2b-512 (RFC 7693, unkeyed) in WebAssembly: `update(a).update(b).digest()`. */
class WasmBLAKE2b512 {
  #core;
  #slot;
  #buffered = 0;
  /** @type {Uint8Array | null} */
  #result = null;
  #compress;

  /** @param {Core} core */
  constructor(core) {
    this.#core = core;
    this.#slot = core.slot();
    core.x.blake2b_init(this.#slot);
    this.#compress = (pointer, blocks) => core.x.blake2b_blocks(this.#slot, pointer, blocks);
  }

  /**
   * Adds `bytes` to the message. The last block, even when full, waits for more input or
   * `digest()`: it must be compressed with the final flag.
   * @param {Uint8Array} bytes
   * @returns {this}
   */
  update(bytes) {
    if (this.#result) throw new Error('BLAKE2b512: update() after digest()');
    if (!(bytes instanceof Uint8Array)) throw new TypeError('BLAKE2b512: update() takes a Uint8Array');
    const core = this.#core;
    const tail = this.#slot + TAIL;
    const n = bytes.length;
    let offset = 0;
    if (n === 0) return this;
    if (this.#buffered > 0) {
      // Fill the partial block; compress it only when input remains (else it may be the last).
      const take = Math.min(128 - this.#buffered, n);
      core.bytes.set(bytes.subarray(0, take), tail + this.#buffered);
      this.#buffered += take;
      offset = take;
      if (offset === n) return this;
      core.x.blake2b_blocks(this.#slot, tail, 1);
      this.#buffered = 0;
    }
    // Whole blocks straight through the buffer, keeping the last (possibly full) block back.
    const whole = Math.floor((n - offset - 1) / 128) * 128;
    if (whole > 0) compressAll(core, bytes, offset, whole, 128, this.#compress);
    offset += whole;
    core.bytes.set(bytes.subarray(offset), tail);
    this.#buffered = n - offset;
    return this;
  }

  /**
   * Finishes the hash.
   * @returns {Uint8Array} the 64-byte digest
   */
  digest() {
    if (!this.#result) {
      const core = this.#core;
      core.x.blake2b_final(this.#slot, this.#slot + TAIL, this.#buffered);
      this.#result = core.bytes.slice(this.#slot, this.#slot + 64);
    }
    return this.#result.slice();
  }
}
