// Byte sources: random access to a package or a map, whether it is a Blob (a file in the
// origin's private storage), bytes in memory, or a window of another source. Every read is
// checked against the source's size before anything is touched, so a number taken from a file
// can never make a reader look outside it.

/** A read outside a source, or a number too large to use: always a bug or a hostile file. */
export class BytesError extends RangeError {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'BytesError';
  }
}

/**
 * Throws unless `offset` and `length` are whole numbers with `[offset, offset + length)` inside
 * `[0, size]`.
 * @param {number} offset
 * @param {number} length
 * @param {number} size
 */
function checkRange(offset, length, size) {
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 ||
      offset > size || length > size - offset) {
    throw new BytesError(`cannot read ${length} bytes at byte ${offset} of a source of ${size} bytes`);
  }
}

/**
 * A Blob (or File) as a byte source: each read slices the Blob and reads only that slice.
 * `slice(start, end)` returns a Blob of the same bytes without reading them.
 */
export class BlobSource {
  /** @param {Blob} blob */
  constructor(blob) {
    /** @type {Blob} */
    this.blob = blob;
    /** @type {number} */
    this.size = blob.size;
  }

  /**
   * Exactly `length` bytes from `offset`.
   * @param {number} offset
   * @param {number} length
   * @returns {Promise<Uint8Array>}
   */
  async read(offset, length) {
    checkRange(offset, length, this.size);
    const bytes = new Uint8Array(await this.blob.slice(offset, offset + length).arrayBuffer());
    if (bytes.length !== length) {
      throw new BytesError(`read ${bytes.length} bytes at byte ${offset}, not ${length}: the file changed`);
    }
    return bytes;
  }

  /**
   * The bytes `[start, end)` as a Blob, unread.
   * @param {number} start
   * @param {number} end
   * @returns {Blob}
   */
  slice(start, end) {
    checkRange(start, end - start, this.size);
    return this.blob.slice(start, end);
  }
}

/**
 * A file open for synchronous access (the Origin Private File System's `FileSystemSyncAccessHandle`,
 * in a worker) as a byte source: each read is one `read` of the handle, with no round trip to the
 * browser. Its size is taken once: a file that shrinks meanwhile makes a read throw.
 */
export class HandleSource {
  /** @param {{getSize: () => number, read: (into: Uint8Array, o: {at: number}) => number}} handle */
  constructor(handle) {
    this.handle = handle;
    /** @type {number} */
    this.size = handle.getSize();
    /** Why a read of the file itself failed (not a read the package's numbers asked for), if one did. */
    this.failure = null;
  }

  /**
   * Exactly `length` bytes from `offset`.
   * @param {number} offset
   * @param {number} length
   * @returns {Promise<Uint8Array>}
   */
  async read(offset, length) {
    checkRange(offset, length, this.size);
    const bytes = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      let n;
      try {
        n = this.handle.read(bytes.subarray(done), { at: offset + done });
      } catch (error) {
        this.failure = error;
        throw error;
      }
      if (n <= 0) {
        this.failure = new BytesError(`read ${done} bytes at byte ${offset}, not ${length}: the file changed`);
        throw this.failure;
      }
      done += n;
    }
    return bytes;
  }
}

/** Bytes in memory as a byte source (tests, small files). Reads return views, not copies. */
export class BytesSource {
  /** @param {Uint8Array} bytes */
  constructor(bytes) {
    /** @type {Uint8Array} */
    this.bytes = bytes;
    /** @type {number} */
    this.size = bytes.length;
  }

  /**
   * Exactly `length` bytes from `offset` (a view of the buffer: do not change it).
   * @param {number} offset
   * @param {number} length
   * @returns {Promise<Uint8Array>}
   */
  async read(offset, length) {
    checkRange(offset, length, this.size);
    return this.bytes.subarray(offset, offset + length);
  }

  /**
   * The bytes `[start, end)` as a Blob.
   * @param {number} start
   * @param {number} end
   * @returns {Blob}
   */
  slice(start, end) {
    checkRange(start, end - start, this.size);
    return new Blob([this.bytes.subarray(start, end)]);
  }
}

/**
 * A window `[start, start + length)` of another source, itself a source of `length` bytes whose
 * offsets count from the window's start: a stored ZIP entry read in place. Reads outside the
 * window throw; `slice` exists when the parent has one.
 */
export class RangeSource {
  /**
   * @param {{size: number, read: Function, slice?: Function}} parent
   * @param {number} start
   * @param {number} length
   */
  constructor(parent, start, length) {
    checkRange(start, length, parent.size);
    this.parent = parent;
    /** @type {number} */
    this.start = start;
    /** @type {number} */
    this.size = length;
    if (typeof parent.slice === 'function') {
      /**
       * The window's bytes `[start, end)` as a Blob, unread.
       * @param {number} s
       * @param {number} e
       * @returns {Blob}
       */
      this.slice = (s, e) => {
        checkRange(s, e - s, this.size);
        return parent.slice(this.start + s, this.start + e);
      };
    }
  }

  /**
   * Exactly `length` bytes from `offset` within the window.
   * @param {number} offset
   * @param {number} length
   * @returns {Promise<Uint8Array>}
   */
  async read(offset, length) {
    checkRange(offset, length, this.size);
    return this.parent.read(this.start + offset, length);
  }
}

/**
 * The little-endian 16-bit number at `at`.
 * @param {Uint8Array} u8
 * @param {number} at
 * @returns {number}
 */
export function readU16(u8, at) {
  if (!(at >= 0 && at + 2 <= u8.length)) throw new BytesError(`no 2-byte number at ${at} of ${u8.length} bytes`);
  return u8[at] | (u8[at + 1] << 8);
}

/**
 * The little-endian unsigned 32-bit number at `at`.
 * @param {Uint8Array} u8
 * @param {number} at
 * @returns {number}
 */
export function readU32(u8, at) {
  if (!(at >= 0 && at + 4 <= u8.length)) throw new BytesError(`no 4-byte number at ${at} of ${u8.length} bytes`);
  return (u8[at] | (u8[at + 1] << 8) | (u8[at + 2] << 16)) + u8[at + 3] * 0x1000000;
}

/**
 * The little-endian unsigned 64-bit number at `at`, as a Number; throws `BytesError` when it is
 * above 2^53 − 1 (`Number.MAX_SAFE_INTEGER`), where a Number would no longer be exact.
 * @param {Uint8Array} u8
 * @param {number} at
 * @returns {number}
 */
export function readU64(u8, at) {
  const low = readU32(u8, at);
  const high = readU32(u8, at + 4);
  if (high > 0x1fffff) throw new BytesError(`the 64-bit number at ${at} is larger than 2^53 - 1`);
  return high * 0x100000000 + low;
}

/**
 * The little-endian signed 32-bit number at `at`.
 * @param {Uint8Array} u8
 * @param {number} at
 * @returns {number}
 */
export function readI32(u8, at) {
  return readU32(u8, at) | 0;
}
