// BLAKE2b-512 (RFC 7693), unkeyed, streaming: the prehash minisign signs.
//
// A 64-bit word is two signed 32-bit halves: word i of the state is (lo, hi) at [2i, 2i + 1] of an
// Int32Array, and inside the compression function the sixteen working words are the locals v0l, v0h
// ... v15l, v15h (kept in registers, which is twice as fast as an array). A 64-bit addition adds the
// halves and carries the top bit of (a & b) | ((a | b) & ~sum) into the high half, without a branch.
// The last block is compressed with the final flag, so a full buffered block waits for either more
// input or digest().

// The initialization vector (the SHA-512 one), as (lo, hi) pairs.
const IV = new Int32Array([
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a,
  0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
]);

// The message word permutations of the 12 rounds (rounds 10 and 11 repeat 0 and 1), doubled:
// indices of the low halves in the message array.
const SIGMA = new Uint8Array(
  [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  ]
    .flat()
    .map((i) => 2 * i),
);

/**
 * The compression function F: mixes the 128-byte block at `data[offset]` into the state `h`.
 * @param {Int32Array} h the state, 8 words as (lo, hi) pairs
 * @param {Int32Array} m scratch for the 16 message words
 * @param {Uint8Array} data
 * @param {number} offset
 * @param {number} count message bytes hashed so far, this block included (the counter t; exact below 2^53)
 * @param {boolean} last whether this is the final block
 */
function compress(h, m, data, offset, count, last) {
  for (let i = 0, j = offset; i < 32; i++, j += 4) {
    m[i] = data[j] | (data[j + 1] << 8) | (data[j + 2] << 16) | (data[j + 3] << 24);
  }
  let v0l = h[0], v0h = h[1], v1l = h[2], v1h = h[3], v2l = h[4], v2h = h[5], v3l = h[6], v3h = h[7];
  let v4l = h[8], v4h = h[9], v5l = h[10], v5h = h[11], v6l = h[12], v6h = h[13], v7l = h[14], v7h = h[15];
  let v8l = IV[0], v8h = IV[1], v9l = IV[2], v9h = IV[3], v10l = IV[4], v10h = IV[5], v11l = IV[6], v11h = IV[7];
  let v12l = IV[8] ^ count, v12h = IV[9] ^ Math.floor(count / 0x100000000);
  let v13l = IV[10], v13h = IV[11], v14l = IV[12], v14h = IV[13], v15l = IV[14], v15h = IV[15];
  if (last) {
    v14l = ~v14l;
    v14h = ~v14h;
  }
  let t, u;
  for (let r = 0; r < 192; r += 16) {
    const s0 = SIGMA[r], s1 = SIGMA[r + 1], s2 = SIGMA[r + 2], s3 = SIGMA[r + 3];
    const s4 = SIGMA[r + 4], s5 = SIGMA[r + 5], s6 = SIGMA[r + 6], s7 = SIGMA[r + 7];
    const s8 = SIGMA[r + 8], s9 = SIGMA[r + 9], s10 = SIGMA[r + 10], s11 = SIGMA[r + 11];
    const s12 = SIGMA[r + 12], s13 = SIGMA[r + 13], s14 = SIGMA[r + 14], s15 = SIGMA[r + 15];
    // Each G(a, b, c, d) with message words x, y, as in RFC 7693 section 3.1, one step a line:
    //   a += b; a += x; d = (d ^ a) >>> 32; c += d; b = (b ^ c) >>> 24;
    //   a += b; a += y; d = (d ^ a) >>> 16; c += d; b = (b ^ c) >>> 63.
    // Columns first, then diagonals.
    // G(v0, v4, v8, v12) with message words s0, s1
    t = (v0l + v4l) | 0; v0h = (v0h + v4h + (((v0l & v4l) | ((v0l | v4l) & ~t)) >>> 31)) | 0; v0l = t;
    u = m[s0]; t = (v0l + u) | 0; v0h = (v0h + m[s0 + 1] + (((v0l & u) | ((v0l | u) & ~t)) >>> 31)) | 0; v0l = t;
    t = v12l ^ v0l; v12l = v12h ^ v0h; v12h = t;
    t = (v8l + v12l) | 0; v8h = (v8h + v12h + (((v8l & v12l) | ((v8l | v12l) & ~t)) >>> 31)) | 0; v8l = t;
    t = v4l ^ v8l; u = v4h ^ v8h; v4l = (t >>> 24) | (u << 8); v4h = (u >>> 24) | (t << 8);
    t = (v0l + v4l) | 0; v0h = (v0h + v4h + (((v0l & v4l) | ((v0l | v4l) & ~t)) >>> 31)) | 0; v0l = t;
    u = m[s1]; t = (v0l + u) | 0; v0h = (v0h + m[s1 + 1] + (((v0l & u) | ((v0l | u) & ~t)) >>> 31)) | 0; v0l = t;
    t = v12l ^ v0l; u = v12h ^ v0h; v12l = (t >>> 16) | (u << 16); v12h = (u >>> 16) | (t << 16);
    t = (v8l + v12l) | 0; v8h = (v8h + v12h + (((v8l & v12l) | ((v8l | v12l) & ~t)) >>> 31)) | 0; v8l = t;
    t = v4l ^ v8l; u = v4h ^ v8h; v4l = (t << 1) | (u >>> 31); v4h = (u << 1) | (t >>> 31);
    // G(v1, v5, v9, v13) with message words s2, s3
    t = (v1l + v5l) | 0; v1h = (v1h + v5h + (((v1l & v5l) | ((v1l | v5l) & ~t)) >>> 31)) | 0; v1l = t;
    u = m[s2]; t = (v1l + u) | 0; v1h = (v1h + m[s2 + 1] + (((v1l & u) | ((v1l | u) & ~t)) >>> 31)) | 0; v1l = t;
    t = v13l ^ v1l; v13l = v13h ^ v1h; v13h = t;
    t = (v9l + v13l) | 0; v9h = (v9h + v13h + (((v9l & v13l) | ((v9l | v13l) & ~t)) >>> 31)) | 0; v9l = t;
    t = v5l ^ v9l; u = v5h ^ v9h; v5l = (t >>> 24) | (u << 8); v5h = (u >>> 24) | (t << 8);
    t = (v1l + v5l) | 0; v1h = (v1h + v5h + (((v1l & v5l) | ((v1l | v5l) & ~t)) >>> 31)) | 0; v1l = t;
    u = m[s3]; t = (v1l + u) | 0; v1h = (v1h + m[s3 + 1] + (((v1l & u) | ((v1l | u) & ~t)) >>> 31)) | 0; v1l = t;
    t = v13l ^ v1l; u = v13h ^ v1h; v13l = (t >>> 16) | (u << 16); v13h = (u >>> 16) | (t << 16);
    t = (v9l + v13l) | 0; v9h = (v9h + v13h + (((v9l & v13l) | ((v9l | v13l) & ~t)) >>> 31)) | 0; v9l = t;
    t = v5l ^ v9l; u = v5h ^ v9h; v5l = (t << 1) | (u >>> 31); v5h = (u << 1) | (t >>> 31);
    // G(v2, v6, v10, v14) with message words s4, s5
    t = (v2l + v6l) | 0; v2h = (v2h + v6h + (((v2l & v6l) | ((v2l | v6l) & ~t)) >>> 31)) | 0; v2l = t;
    u = m[s4]; t = (v2l + u) | 0; v2h = (v2h + m[s4 + 1] + (((v2l & u) | ((v2l | u) & ~t)) >>> 31)) | 0; v2l = t;
    t = v14l ^ v2l; v14l = v14h ^ v2h; v14h = t;
    t = (v10l + v14l) | 0; v10h = (v10h + v14h + (((v10l & v14l) | ((v10l | v14l) & ~t)) >>> 31)) | 0; v10l = t;
    t = v6l ^ v10l; u = v6h ^ v10h; v6l = (t >>> 24) | (u << 8); v6h = (u >>> 24) | (t << 8);
    t = (v2l + v6l) | 0; v2h = (v2h + v6h + (((v2l & v6l) | ((v2l | v6l) & ~t)) >>> 31)) | 0; v2l = t;
    u = m[s5]; t = (v2l + u) | 0; v2h = (v2h + m[s5 + 1] + (((v2l & u) | ((v2l | u) & ~t)) >>> 31)) | 0; v2l = t;
    t = v14l ^ v2l; u = v14h ^ v2h; v14l = (t >>> 16) | (u << 16); v14h = (u >>> 16) | (t << 16);
    t = (v10l + v14l) | 0; v10h = (v10h + v14h + (((v10l & v14l) | ((v10l | v14l) & ~t)) >>> 31)) | 0; v10l = t;
    t = v6l ^ v10l; u = v6h ^ v10h; v6l = (t << 1) | (u >>> 31); v6h = (u << 1) | (t >>> 31);
    // G(v3, v7, v11, v15) with message words s6, s7
    t = (v3l + v7l) | 0; v3h = (v3h + v7h + (((v3l & v7l) | ((v3l | v7l) & ~t)) >>> 31)) | 0; v3l = t;
    u = m[s6]; t = (v3l + u) | 0; v3h = (v3h + m[s6 + 1] + (((v3l & u) | ((v3l | u) & ~t)) >>> 31)) | 0; v3l = t;
    t = v15l ^ v3l; v15l = v15h ^ v3h; v15h = t;
    t = (v11l + v15l) | 0; v11h = (v11h + v15h + (((v11l & v15l) | ((v11l | v15l) & ~t)) >>> 31)) | 0; v11l = t;
    t = v7l ^ v11l; u = v7h ^ v11h; v7l = (t >>> 24) | (u << 8); v7h = (u >>> 24) | (t << 8);
    t = (v3l + v7l) | 0; v3h = (v3h + v7h + (((v3l & v7l) | ((v3l | v7l) & ~t)) >>> 31)) | 0; v3l = t;
    u = m[s7]; t = (v3l + u) | 0; v3h = (v3h + m[s7 + 1] + (((v3l & u) | ((v3l | u) & ~t)) >>> 31)) | 0; v3l = t;
    t = v15l ^ v3l; u = v15h ^ v3h; v15l = (t >>> 16) | (u << 16); v15h = (u >>> 16) | (t << 16);
    t = (v11l + v15l) | 0; v11h = (v11h + v15h + (((v11l & v15l) | ((v11l | v15l) & ~t)) >>> 31)) | 0; v11l = t;
    t = v7l ^ v11l; u = v7h ^ v11h; v7l = (t << 1) | (u >>> 31); v7h = (u << 1) | (t >>> 31);
    // G(v0, v5, v10, v15) with message words s8, s9
    t = (v0l + v5l) | 0; v0h = (v0h + v5h + (((v0l & v5l) | ((v0l | v5l) & ~t)) >>> 31)) | 0; v0l = t;
    u = m[s8]; t = (v0l + u) | 0; v0h = (v0h + m[s8 + 1] + (((v0l & u) | ((v0l | u) & ~t)) >>> 31)) | 0; v0l = t;
    t = v15l ^ v0l; v15l = v15h ^ v0h; v15h = t;
    t = (v10l + v15l) | 0; v10h = (v10h + v15h + (((v10l & v15l) | ((v10l | v15l) & ~t)) >>> 31)) | 0; v10l = t;
    t = v5l ^ v10l; u = v5h ^ v10h; v5l = (t >>> 24) | (u << 8); v5h = (u >>> 24) | (t << 8);
    t = (v0l + v5l) | 0; v0h = (v0h + v5h + (((v0l & v5l) | ((v0l | v5l) & ~t)) >>> 31)) | 0; v0l = t;
    u = m[s9]; t = (v0l + u) | 0; v0h = (v0h + m[s9 + 1] + (((v0l & u) | ((v0l | u) & ~t)) >>> 31)) | 0; v0l = t;
    t = v15l ^ v0l; u = v15h ^ v0h; v15l = (t >>> 16) | (u << 16); v15h = (u >>> 16) | (t << 16);
    t = (v10l + v15l) | 0; v10h = (v10h + v15h + (((v10l & v15l) | ((v10l | v15l) & ~t)) >>> 31)) | 0; v10l = t;
    t = v5l ^ v10l; u = v5h ^ v10h; v5l = (t << 1) | (u >>> 31); v5h = (u << 1) | (t >>> 31);
    // G(v1, v6, v11, v12) with message words s10, s11
    t = (v1l + v6l) | 0; v1h = (v1h + v6h + (((v1l & v6l) | ((v1l | v6l) & ~t)) >>> 31)) | 0; v1l = t;
    u = m[s10]; t = (v1l + u) | 0; v1h = (v1h + m[s10 + 1] + (((v1l & u) | ((v1l | u) & ~t)) >>> 31)) | 0; v1l = t;
    t = v12l ^ v1l; v12l = v12h ^ v1h; v12h = t;
    t = (v11l + v12l) | 0; v11h = (v11h + v12h + (((v11l & v12l) | ((v11l | v12l) & ~t)) >>> 31)) | 0; v11l = t;
    t = v6l ^ v11l; u = v6h ^ v11h; v6l = (t >>> 24) | (u << 8); v6h = (u >>> 24) | (t << 8);
    t = (v1l + v6l) | 0; v1h = (v1h + v6h + (((v1l & v6l) | ((v1l | v6l) & ~t)) >>> 31)) | 0; v1l = t;
    u = m[s11]; t = (v1l + u) | 0; v1h = (v1h + m[s11 + 1] + (((v1l & u) | ((v1l | u) & ~t)) >>> 31)) | 0; v1l = t;
    t = v12l ^ v1l; u = v12h ^ v1h; v12l = (t >>> 16) | (u << 16); v12h = (u >>> 16) | (t << 16);
    t = (v11l + v12l) | 0; v11h = (v11h + v12h + (((v11l & v12l) | ((v11l | v12l) & ~t)) >>> 31)) | 0; v11l = t;
    t = v6l ^ v11l; u = v6h ^ v11h; v6l = (t << 1) | (u >>> 31); v6h = (u << 1) | (t >>> 31);
    // G(v2, v7, v8, v13) with message words s12, s13
    t = (v2l + v7l) | 0; v2h = (v2h + v7h + (((v2l & v7l) | ((v2l | v7l) & ~t)) >>> 31)) | 0; v2l = t;
    u = m[s12]; t = (v2l + u) | 0; v2h = (v2h + m[s12 + 1] + (((v2l & u) | ((v2l | u) & ~t)) >>> 31)) | 0; v2l = t;
    t = v13l ^ v2l; v13l = v13h ^ v2h; v13h = t;
    t = (v8l + v13l) | 0; v8h = (v8h + v13h + (((v8l & v13l) | ((v8l | v13l) & ~t)) >>> 31)) | 0; v8l = t;
    t = v7l ^ v8l; u = v7h ^ v8h; v7l = (t >>> 24) | (u << 8); v7h = (u >>> 24) | (t << 8);
    t = (v2l + v7l) | 0; v2h = (v2h + v7h + (((v2l & v7l) | ((v2l | v7l) & ~t)) >>> 31)) | 0; v2l = t;
    u = m[s13]; t = (v2l + u) | 0; v2h = (v2h + m[s13 + 1] + (((v2l & u) | ((v2l | u) & ~t)) >>> 31)) | 0; v2l = t;
    t = v13l ^ v2l; u = v13h ^ v2h; v13l = (t >>> 16) | (u << 16); v13h = (u >>> 16) | (t << 16);
    t = (v8l + v13l) | 0; v8h = (v8h + v13h + (((v8l & v13l) | ((v8l | v13l) & ~t)) >>> 31)) | 0; v8l = t;
    t = v7l ^ v8l; u = v7h ^ v8h; v7l = (t << 1) | (u >>> 31); v7h = (u << 1) | (t >>> 31);
    // G(v3, v4, v9, v14) with message words s14, s15
    t = (v3l + v4l) | 0; v3h = (v3h + v4h + (((v3l & v4l) | ((v3l | v4l) & ~t)) >>> 31)) | 0; v3l = t;
    u = m[s14]; t = (v3l + u) | 0; v3h = (v3h + m[s14 + 1] + (((v3l & u) | ((v3l | u) & ~t)) >>> 31)) | 0; v3l = t;
    t = v14l ^ v3l; v14l = v14h ^ v3h; v14h = t;
    t = (v9l + v14l) | 0; v9h = (v9h + v14h + (((v9l & v14l) | ((v9l | v14l) & ~t)) >>> 31)) | 0; v9l = t;
    t = v4l ^ v9l; u = v4h ^ v9h; v4l = (t >>> 24) | (u << 8); v4h = (u >>> 24) | (t << 8);
    t = (v3l + v4l) | 0; v3h = (v3h + v4h + (((v3l & v4l) | ((v3l | v4l) & ~t)) >>> 31)) | 0; v3l = t;
    u = m[s15]; t = (v3l + u) | 0; v3h = (v3h + m[s15 + 1] + (((v3l & u) | ((v3l | u) & ~t)) >>> 31)) | 0; v3l = t;
    t = v14l ^ v3l; u = v14h ^ v3h; v14l = (t >>> 16) | (u << 16); v14h = (u >>> 16) | (t << 16);
    t = (v9l + v14l) | 0; v9h = (v9h + v14h + (((v9l & v14l) | ((v9l | v14l) & ~t)) >>> 31)) | 0; v9l = t;
    t = v4l ^ v9l; u = v4h ^ v9h; v4l = (t << 1) | (u >>> 31); v4h = (u << 1) | (t >>> 31);
  }
  h[0] ^= v0l ^ v8l; h[1] ^= v0h ^ v8h; h[2] ^= v1l ^ v9l; h[3] ^= v1h ^ v9h;
  h[4] ^= v2l ^ v10l; h[5] ^= v2h ^ v10h; h[6] ^= v3l ^ v11l; h[7] ^= v3h ^ v11h;
  h[8] ^= v4l ^ v12l; h[9] ^= v4h ^ v12h; h[10] ^= v5l ^ v13l; h[11] ^= v5h ^ v13h;
  h[12] ^= v6l ^ v14l; h[13] ^= v6h ^ v14h; h[14] ^= v7l ^ v15l; h[15] ^= v7h ^ v15h;
}

/**
 * A streaming BLAKE2b with a 64-byte digest and no key: `new BLAKE2b512().update(a).update(b).digest()`.
 * After `digest()` the object is finished: `update` throws, and `digest` returns the same value again.
 */
export class BLAKE2b512 {
  #h = IV.slice();
  #m = new Int32Array(32);
  #buffer = new Uint8Array(128);
  #buffered = 0;
  #count = 0; // bytes compressed so far
  /** @type {Uint8Array | null} */
  #result = null;

  constructor() {
    this.#h[0] ^= 0x01010040; // the parameter block: digest length 64, no key, fanout 1, depth 1
  }

  /**
   * Adds `bytes` to the message.
   * @param {Uint8Array} bytes
   * @returns {this}
   */
  update(bytes) {
    if (this.#result) throw new Error('BLAKE2b512: update() after digest()');
    if (!(bytes instanceof Uint8Array)) throw new TypeError('BLAKE2b512: update() takes a Uint8Array');
    const n = bytes.length;
    let offset = 0;
    if (n === 0) return this;
    if (this.#buffered > 0) {
      // Fill the buffer; compress it only when input remains (else it may be the last block).
      const take = Math.min(128 - this.#buffered, n);
      this.#buffer.set(bytes.subarray(0, take), this.#buffered);
      this.#buffered += take;
      offset = take;
      if (offset === n) return this;
      this.#count += 128;
      compress(this.#h, this.#m, this.#buffer, 0, this.#count, false);
      this.#buffered = 0;
    }
    // Whole blocks straight from the input, keeping the last (possibly full) block back.
    while (n - offset > 128) {
      this.#count += 128;
      compress(this.#h, this.#m, bytes, offset, this.#count, false);
      offset += 128;
    }
    this.#buffer.set(bytes.subarray(offset), 0);
    this.#buffered = n - offset;
    return this;
  }

  /**
   * Finishes the hash.
   * @returns {Uint8Array} the 64-byte digest
   */
  digest() {
    if (!this.#result) {
      this.#buffer.fill(0, this.#buffered);
      this.#count += this.#buffered;
      compress(this.#h, this.#m, this.#buffer, 0, this.#count, true);
      const out = new Uint8Array(64);
      const view = new DataView(out.buffer);
      for (let i = 0; i < 16; i++) view.setInt32(4 * i, this.#h[i], true);
      this.#result = out;
    }
    return this.#result.slice();
  }
}

/**
 * BLAKE2b-512 of `bytes` in one call.
 * @param {Uint8Array} bytes
 * @returns {Uint8Array} the 64-byte digest
 */
export function blake2b512(bytes) {
  return new BLAKE2b512().update(bytes).digest();
}
