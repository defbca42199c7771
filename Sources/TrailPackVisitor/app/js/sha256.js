// SHA-256 (FIPS 180-4), streaming, for hashing whole packages in the browser.
//
// The state is kept in 32-bit integers; whole 64-byte blocks are compressed straight from the
// caller's bytes, and only a partial block at the end of an update is copied into a buffer.

// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

// The first 32 bits of the fractional parts of the square roots of the first 8 primes.
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/**
 * Compresses the 64-byte blocks of `data[offset ..< offset + length]` (length a multiple of 64) into `state`.
 * `w` is the 64-word message schedule, reused between calls. Signed 32-bit words throughout (`| 0`).
 * @param {Int32Array} state
 * @param {Int32Array} w
 * @param {Uint8Array} data
 * @param {number} offset
 * @param {number} length
 */
function compress(state, w, data, offset, length) {
  let h0 = state[0], h1 = state[1], h2 = state[2], h3 = state[3];
  let h4 = state[4], h5 = state[5], h6 = state[6], h7 = state[7];
  for (let p = offset, end = offset + length; p < end; p += 64) {
    for (let i = 0, j = p; i < 16; i++, j += 4) {
      w[i] = (data[j] << 24) | (data[j + 1] << 16) | (data[j + 2] << 8) | data[j + 3];
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15], y = w[i - 2];
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + S1 + (g ^ (e & (f ^ g))) + K[i] + w[i]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) | (c & (a | b)))) | 0;
      h = g; g = f; f = e; e = (d + t1) | 0;
      d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0; h1 = (h1 + b) | 0; h2 = (h2 + c) | 0; h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0; h5 = (h5 + f) | 0; h6 = (h6 + g) | 0; h7 = (h7 + h) | 0;
  }
  state[0] = h0; state[1] = h1; state[2] = h2; state[3] = h3;
  state[4] = h4; state[5] = h5; state[6] = h6; state[7] = h7;
}

/**
 * A streaming SHA-256: `new SHA256().update(a).update(b).digest()`.
 * After `digest()` the object is finished: `update` throws, and `digest` returns the same value again.
 */
export class SHA256 {
  #state = new Int32Array(H0);
  #w = new Int32Array(64);
  #buffer = new Uint8Array(64);
  #buffered = 0;
  #length = 0; // bytes hashed so far (exact up to 2^53)
  /** @type {Uint8Array | null} */
  #result = null;

  /**
   * Adds `bytes` to the message.
   * @param {Uint8Array} bytes
   * @returns {this}
   */
  update(bytes) {
    if (this.#result) throw new Error('SHA256: update() after digest()');
    if (!(bytes instanceof Uint8Array)) throw new TypeError('SHA256: update() takes a Uint8Array');
    let offset = 0;
    let left = bytes.length;
    this.#length += left;
    if (this.#buffered > 0) {
      const take = Math.min(64 - this.#buffered, left);
      this.#buffer.set(bytes.subarray(0, take), this.#buffered);
      this.#buffered += take;
      offset += take;
      left -= take;
      if (this.#buffered < 64) return this;
      compress(this.#state, this.#w, this.#buffer, 0, 64);
      this.#buffered = 0;
    }
    const whole = left - (left % 64);
    if (whole > 0) compress(this.#state, this.#w, bytes, offset, whole);
    if (left > whole) {
      this.#buffer.set(bytes.subarray(offset + whole), 0);
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
      const bits = this.#length * 8;
      const buf = this.#buffer;
      buf[this.#buffered] = 0x80;
      buf.fill(0, this.#buffered + 1);
      if (this.#buffered >= 56) {
        compress(this.#state, this.#w, buf, 0, 64);
        buf.fill(0);
      }
      const view = new DataView(buf.buffer);
      view.setUint32(56, Math.floor(bits / 0x100000000));
      view.setUint32(60, bits >>> 0);
      compress(this.#state, this.#w, buf, 0, 64);
      const out = new Uint8Array(32);
      const outView = new DataView(out.buffer);
      for (let i = 0; i < 8; i++) outView.setInt32(4 * i, this.#state[i]);
      this.#result = out;
    }
    return this.#result.slice();
  }
}

/**
 * SHA-256 of `bytes` in one call.
 * @param {Uint8Array} bytes
 * @returns {Uint8Array} the 32-byte digest
 */
export function sha256(bytes) {
  return new SHA256().update(bytes).digest();
}

/**
 * Lowercase hexadecimal of `bytes`.
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function toHex(bytes) {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
  return out;
}
