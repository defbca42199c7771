// A bounded reader of ZIP archives (PKWARE's APPNOTE.TXT, 6.3), for tour packages: it finds the
// end record, reads the central directory in one bounded read, and streams entries with their
// sizes and CRC-32 checked. It follows the rules of trailpack's own reader (docs/FORMAT.md,
// section 1) where they keep a reader safe: every number from the file is checked against the
// file and against the other numbers before it is used to read, allocate or loop, and an
// archive on which two readers could disagree (two end records, names that differ between the
// central directory and the local header, overlapping entries) is refused.

import { BytesError, RangeSource, readU16, readU32, readU64 } from './bytes.js';

/**
 * Why an archive or an entry cannot be read. `code` is one of: 'not-zip' (no single end record
 * ending the file, several disks), 'truncated' (a record cut short), 'count' (entry counts that
 * disagree), 'zip64' (ZIP64 records missing or inconsistent), 'bad-offset' (the central
 * directory or a local header is not where the numbers say), 'too-large' (the central
 * directory is over the limit), 'too-many-entries', 'bad-name', 'duplicate-name', 'bad-extra'
 * (a malformed extra field), 'flags' (flag bits packages never set), 'encrypted',
 * 'unsupported-method', 'overlap' (entries sharing bytes), 'local-header' (a local header that
 * is missing or disagrees with the central directory), 'descriptor' (a data descriptor that is
 * missing or disagrees), 'size' (data longer or shorter than declared), 'crc', 'deflate'
 * (corrupt compressed data).
 */
export class ZipError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = 'ZipError';
    /** @type {string} */
    this.code = code;
  }
}

const SIGNATURE = {
  local: 0x04034b50, central: 0x02014b50, end: 0x06054b50, end64: 0x06064b50, locator64: 0x07064b50,
  descriptor: 0x08074b50,
};
const END_SIZE = 22;
const LOCATOR_SIZE = 20;
const END64_SIZE = 56;
const CENTRAL_SIZE = 46;
const LOCAL_SIZE = 30;
const ALL_ONES_16 = 0xffff;
const ALL_ONES_32 = 0xffffffff;
/** Flag bits: 0, 6 and 13 encrypt; 1 and 2 (deflate level), 3 (data descriptor), 11 (UTF-8) are allowed. */
const ENCRYPTION_FLAGS = 0x0001 | 0x0040 | 0x2000;
const ALLOWED_FLAGS = 0x0002 | 0x0004 | 0x0008 | 0x0800;
const DESCRIPTOR_FLAG = 0x0008;
const UTF8_FLAG = 0x0800;
/** Deflate cannot expand data by more than about 1032:1: a larger claim is a lie. */
const MAX_DEFLATE_RATIO = 1032;
/** Stored data is read this much at a time. */
const STORED_CHUNK = 1 << 20;
/** Compressed data is read this much at a time… */
const DEFLATE_READ = 64 << 10;
/** …and given to the inflater in pieces this large, so one piece inflates to at most ~16 MiB. */
const DEFLATE_PIECE = 16 << 10;

const DEFAULT_LIMITS = { maxEntries: 100000, maxCentralDirectoryBytes: 64 << 20, maxNameBytes: 1024 };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A 64-bit field as a Number, or a ZipError when it is above 2^53 − 1.
 * @param {Uint8Array} u8
 * @param {number} at
 * @param {string} what
 * @param {string} [code]
 */
function u64(u8, at, what, code = 'bad-offset') {
  try {
    return readU64(u8, at);
  } catch (error) {
    if (error instanceof BytesError) throw new ZipError(code, `${what} is larger than 2^53 bytes`);
    throw error;
  }
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  // Table k gives the CRC of a byte followed by k zero bytes: eight bytes are folded in at once.
  for (let k = 1; k < 8; k++) {
    for (let n = 0; n < 256; n++) t[k * 256 + n] = (t[(k - 1) * 256 + n] >>> 8) ^ t[t[(k - 1) * 256 + n] & 0xff];
  }
  return t;
})();

/**
 * The CRC-32 (ISO 3309, as ZIP and gzip use it) of `bytes`, continuing from `seed`, the CRC of
 * the bytes before (0 to start).
 * @param {Uint8Array} bytes
 * @param {number} [seed]
 * @returns {number}
 */
export function crc32(bytes, seed = 0) {
  const t = CRC_TABLE;
  let c = ~seed;
  let i = 0;
  const n = bytes.length;
  for (; i + 8 <= n; i += 8) {
    const a = c ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    const b = bytes[i + 4] | (bytes[i + 5] << 8) | (bytes[i + 6] << 16) | (bytes[i + 7] << 24);
    c = t[1792 + (a & 0xff)] ^ t[1536 + ((a >>> 8) & 0xff)] ^ t[1280 + ((a >>> 16) & 0xff)] ^ t[1024 + (a >>> 24)] ^
      t[768 + (b & 0xff)] ^ t[512 + ((b >>> 8) & 0xff)] ^ t[256 + ((b >>> 16) & 0xff)] ^ t[b >>> 24];
  }
  for (; i < n; i++) c = t[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/**
 * The extra fields of a header as a map from id to data; a ZipError when one runs past the
 * end, the last is cut short, or an id appears twice.
 * @param {Uint8Array} bytes
 * @param {string} name
 * @returns {Map<number, Uint8Array>}
 */
function extraFields(bytes, name) {
  const fields = new Map();
  let at = 0;
  while (at < bytes.length) {
    if (bytes.length - at < 4) throw new ZipError('bad-extra', `an extra field of '${name}' is cut short`);
    const id = readU16(bytes, at);
    const length = readU16(bytes, at + 2);
    if (length > bytes.length - at - 4) {
      throw new ZipError('bad-extra', `extra field 0x${id.toString(16)} of '${name}' runs past its header`);
    }
    if (fields.has(id)) throw new ZipError('bad-extra', `extra field 0x${id.toString(16)} of '${name}' appears twice`);
    fields.set(id, bytes.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return fields;
}

/**
 * Whether two byte arrays are equal.
 * @param {Uint8Array} a
 * @param {Uint8Array} b
 */
function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * What makes an entry name unsafe, or null: an empty, absolute or dot component, a backslash,
 * a colon (drive letters), NUL or another control character. A trailing '/' marks a folder.
 * @param {string} name
 * @returns {string | null}
 */
function nameProblem(name) {
  if (name === '') return 'the name is empty';
  if (name.startsWith('/')) return 'the name is an absolute path';
  if (name.includes('\\')) return 'the name holds a backslash';
  if (name.includes(':')) return 'the name holds a colon';
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'the name holds a control character';
  const path = name.endsWith('/') ? name.slice(0, -1) : name;
  for (const part of path.split('/')) {
    if (part === '') return 'the name has an empty component';
    if (part === '.' || part === '..') return `the name has a '${part}' component`;
  }
  return null;
}

/**
 * Finds and reads the end record (and the ZIP64 locator and end record when present): where
 * the central directory is, how long, and how many records it holds. It reads the last
 * 65,557 bytes (an end record and the longest comment) and, with ZIP64, the ZIP64 end record.
 * @param {{size: number, read: Function}} source
 * @returns {Promise<{count: number, directorySize: number, directoryOffset: number, directoryEnd: number}>}
 *   `directoryEnd`: where the end records begin
 */
export async function readEndRecords(source) {
  const size = source.size;
  if (size < END_SIZE) throw new ZipError('not-zip', `the file is ${size} bytes, too small to be a ZIP archive`);
  const tailLength = Math.min(size, END_SIZE + 0xffff);
  const tailStart = size - tailLength;
  const tail = await source.read(tailStart, tailLength);
  // The end record must end exactly where the file ends (after its comment), and only one may.
  const candidates = [];
  let seen = false;
  for (let i = tail.length - END_SIZE; i >= 0; i--) {
    if (tail[i] !== 0x50 || tail[i + 1] !== 0x4b || tail[i + 2] !== 0x05 || tail[i + 3] !== 0x06) continue;
    seen = true;
    if (i + END_SIZE + readU16(tail, i + 20) === tail.length) candidates.push(i);
  }
  if (candidates.length === 0) {
    throw new ZipError('not-zip', seen
      ? 'there are bytes after the end-of-central-directory record'
      : 'there is no end-of-central-directory record: the file is not a ZIP archive, or it was cut short');
  }
  if (candidates.length > 1) {
    throw new ZipError('not-zip', 'several end-of-central-directory records fit the file; readers could disagree');
  }
  const e = candidates[0];
  const endOffset = tailStart + e;
  const disk = readU16(tail, e + 4);
  const directoryDisk = readU16(tail, e + 6);
  const onDisk = readU16(tail, e + 8);
  const total16 = readU16(tail, e + 10);
  const size32 = readU32(tail, e + 12);
  const offset32 = readU32(tail, e + 16);
  if (disk !== 0 || directoryDisk !== 0) throw new ZipError('not-zip', 'the archive claims to span several disks');
  if (onDisk !== total16) {
    throw new ZipError('count', `the end record counts ${onDisk} entries on this disk but ${total16} in all`);
  }
  const end = { count: total16, directorySize: size32, directoryOffset: offset32, directoryEnd: endOffset };

  const needsZip64 = total16 === ALL_ONES_16 || size32 === ALL_ONES_32 || offset32 === ALL_ONES_32;
  const locatorOffset = endOffset - LOCATOR_SIZE;
  // The locator is usually inside the tail already read (one read fewer over HTTP).
  const locator = locatorOffset < 0 ? null : locatorOffset >= tailStart
    ? tail.subarray(locatorOffset - tailStart, locatorOffset - tailStart + LOCATOR_SIZE)
    : await source.read(locatorOffset, LOCATOR_SIZE);
  const hasLocator = locator !== null && readU32(locator, 0) === SIGNATURE.locator64;
  if (!needsZip64 && !hasLocator) return end;
  if (!hasLocator) throw new ZipError('zip64', 'the end record needs ZIP64 values but there is no ZIP64 locator');
  const recordOffset = u64(locator, 8, 'the ZIP64 end record offset');
  if (readU32(locator, 4) !== 0 || readU32(locator, 16) !== 1 || recordOffset + END64_SIZE > locatorOffset) {
    throw new ZipError('zip64', 'the ZIP64 locator is inconsistent (disks, or where the record is)');
  }
  const record = await source.read(recordOffset, END64_SIZE);
  if (readU32(record, 0) !== SIGNATURE.end64) {
    throw new ZipError('zip64', `there is no ZIP64 end record at byte ${recordOffset}, where the locator points`);
  }
  const recordSize = u64(record, 4, 'the ZIP64 end record size');
  if (recordSize !== locatorOffset - recordOffset - 12) {
    throw new ZipError('zip64', `the ZIP64 end record's size (${recordSize}) does not reach the locator`);
  }
  if (readU32(record, 16) !== 0 || readU32(record, 20) !== 0) {
    throw new ZipError('not-zip', 'the ZIP64 end record claims several disks');
  }
  const onDisk64 = u64(record, 24, 'the ZIP64 entry count');
  const total64 = u64(record, 32, 'the ZIP64 entry count');
  const size64 = u64(record, 40, 'the ZIP64 central directory size');
  const offset64 = u64(record, 48, 'the ZIP64 central directory offset');
  if (onDisk64 !== total64 || (total16 !== ALL_ONES_16 && total16 !== total64)) {
    throw new ZipError('count', `the ZIP64 end record counts ${total64} entries, the end record ${total16}`);
  }
  if ((size32 !== ALL_ONES_32 && size32 !== size64) || (offset32 !== ALL_ONES_32 && offset32 !== offset64)) {
    throw new ZipError('zip64', 'the ZIP64 end record and the end record place the central directory differently');
  }
  return { count: total64, directorySize: size64, directoryOffset: offset64, directoryEnd: recordOffset };
}

/**
 * One central-directory record at `at` of `cd`: the entry and what the reader keeps about it.
 * @param {Uint8Array} cd
 * @param {number} at
 * @param {object} limits
 */
function readRecord(cd, at, limits) {
  if (cd.length - at < CENTRAL_SIZE || readU32(cd, at) !== SIGNATURE.central) return null;
  const flags = readU16(cd, at + 8);
  const method = readU16(cd, at + 10);
  const crc = readU32(cd, at + 16);
  let compressedSize = readU32(cd, at + 20);
  let size = readU32(cd, at + 24);
  const nameLength = readU16(cd, at + 28);
  const extraLength = readU16(cd, at + 30);
  const commentLength = readU16(cd, at + 32);
  const diskStart = readU16(cd, at + 34);
  let localHeaderOffset = readU32(cd, at + 42);
  const next = at + CENTRAL_SIZE + nameLength + extraLength + commentLength;
  if (next > cd.length) throw new ZipError('truncated', 'a central-directory record runs past the directory');
  const nameBytes = cd.subarray(at + CENTRAL_SIZE, at + CENTRAL_SIZE + nameLength);

  if (nameLength > limits.maxNameBytes) {
    throw new ZipError('bad-name', `an entry name is ${nameLength} bytes long; the limit is ${limits.maxNameBytes}`);
  }
  let name;
  try {
    name = utf8.decode(nameBytes);
  } catch {
    throw new ZipError('bad-name', 'an entry name is not valid UTF-8');
  }
  if (!(flags & UTF8_FLAG) && nameBytes.some((b) => b >= 0x80)) {
    throw new ZipError('bad-name', `'${name}' is not ASCII but its UTF-8 flag is not set: readers would disagree`);
  }
  const problem = nameProblem(name);
  if (problem) throw new ZipError('bad-name', `unsafe entry name '${name}': ${problem}`);
  if (flags & ENCRYPTION_FLAGS || method === 99) throw new ZipError('encrypted', `'${name}' is encrypted`);
  if (flags & ~(ALLOWED_FLAGS | ENCRYPTION_FLAGS)) {
    throw new ZipError('flags', `'${name}' sets flag bits 0x${(flags & ~ALLOWED_FLAGS).toString(16)}`);
  }
  if (method !== 0 && method !== 8) {
    throw new ZipError('unsupported-method', `'${name}' uses compression method ${method}; only 0 and 8 are read`);
  }

  const extra = extraFields(cd.subarray(at + CENTRAL_SIZE + nameLength, at + CENTRAL_SIZE + nameLength + extraLength),
    name);
  // ZIP64 extended information: only the values whose 32-bit field is all ones, in this order.
  const wide = [size === ALL_ONES_32, compressedSize === ALL_ONES_32, localHeaderOffset === ALL_ONES_32];
  const needed = wide.filter(Boolean).length * 8 + (diskStart === ALL_ONES_16 ? 4 : 0);
  if (needed > 0) {
    const z = extra.get(0x0001);
    if (!z || z.length < needed) {
      throw new ZipError('zip64', `'${name}' needs ZIP64 sizes or offset but has no (or a short) ZIP64 extra field`);
    }
    let p = 0;
    if (wide[0]) { size = u64(z, p, `the size of '${name}'`, 'size'); p += 8; }
    if (wide[1]) { compressedSize = u64(z, p, `the compressed size of '${name}'`, 'size'); p += 8; }
    if (wide[2]) { localHeaderOffset = u64(z, p, `the offset of '${name}'`); p += 8; }
    if (diskStart === ALL_ONES_16 && readU32(z, p) !== 0) throw new ZipError('not-zip', `'${name}' is on another disk`);
  } else if (diskStart !== 0) {
    throw new ZipError('not-zip', `'${name}' claims to start on disk ${diskStart}`);
  }
  const unicodePath = extra.get(0x7075);
  if (unicodePath && (unicodePath.length < 5 || unicodePath[0] !== 1 ||
      !sameBytes(unicodePath.subarray(5), nameBytes))) {
    throw new ZipError('bad-name', `'${name}' carries a second, different name in a Unicode-path extra field`);
  }
  if (method === 0 && compressedSize !== size) {
    throw new ZipError('size', `'${name}' is stored but declares ${compressedSize} bytes stored and ${size} read`);
  }
  if (method === 8 && size > compressedSize * MAX_DEFLATE_RATIO + 1024) {
    throw new ZipError('size', `'${name}' claims ${size} bytes from ${compressedSize}, more than deflate can produce`);
  }
  if (name.endsWith('/') && size !== 0) throw new ZipError('size', `the folder entry '${name}' holds data`);
  const entry = Object.freeze({ name, method, compressedSize, size, crc32: crc, localHeaderOffset });
  return { entry, nameBytes, flags, next };
}

/**
 * An archive opened by `openZip`: its entries, and their data read on demand.
 */
export class ZipArchive {
  /** @type {Map<object, {nameBytes: Uint8Array, flags: number, limit: number, range?: Promise}>} */
  #info;
  /** @type {Map<string, object>} */
  #byName;

  /** @hideconstructor */
  constructor(source, entries, info, end) {
    /** The byte source the archive is read from. */
    this.source = source;
    /** @type {number} Where the central directory starts: every entry lies before it. */
    this.directoryOffset = end.directoryOffset;
    /** @type {ReadonlyArray<{name: string, method: number, compressedSize: number, size: number, crc32: number,
     *   localHeaderOffset: number}>} Every entry, in central-directory order. */
    this.entries = Object.freeze(entries);
    this.#info = info;
    this.#byName = new Map(entries.map((e) => [e.name, e]));
  }

  /**
   * The entry named `name` (exactly, byte for byte), or undefined.
   * @param {string} name
   */
  entry(name) {
    return this.#byName.get(name);
  }

  #infoOf(entry) {
    const info = this.#info.get(entry);
    if (!info) throw new TypeError('the entry is not one of this archive\'s');
    return info;
  }

  /**
   * Where the entry's (compressed) data lies in the source, after its local header has been read
   * and checked: the signature, the name (byte for byte), the flags, the method, and the CRC-32
   * and sizes (or, when a data descriptor follows the data, the descriptor's). The range (and the
   * descriptor) lies before the central directory and before the next entry's local header, so
   * no two entries share bytes.
   * @param {object} entry
   * @returns {Promise<{start: number, end: number}>}
   */
  dataRange(entry) {
    const info = this.#infoOf(entry);
    if (!info.range) {
      info.range = this.#readLocalHeader(entry, info);
      info.range.catch(() => {});
    }
    return info.range;
  }

  async #readLocalHeader(entry, info) {
    const at = entry.localHeaderOffset;
    const name = entry.name;
    // openZip checked that the header, the name and the data fit before `info.limit`.
    const fixed = await this.source.read(at, LOCAL_SIZE);
    if (readU32(fixed, 0) !== SIGNATURE.local) {
      throw new ZipError('local-header', `there is no local header for '${name}' at byte ${at}`);
    }
    const flags = readU16(fixed, 6);
    const method = readU16(fixed, 8);
    const crc = readU32(fixed, 14);
    const compressed32 = readU32(fixed, 18);
    const size32 = readU32(fixed, 22);
    const nameLength = readU16(fixed, 26);
    const extraLength = readU16(fixed, 28);
    const start = at + LOCAL_SIZE + nameLength + extraLength;
    if (start > info.limit || entry.compressedSize > info.limit - start) {
      throw new ZipError('overlap', `the data of '${name}' runs into the next entry or the central directory`);
    }
    const variable = await this.source.read(at + LOCAL_SIZE, nameLength + extraLength);
    if (!sameBytes(variable.subarray(0, nameLength), info.nameBytes)) {
      throw new ZipError('local-header', `the local header of '${name}' gives it another name`);
    }
    if (flags !== info.flags || method !== entry.method) {
      throw new ZipError('local-header', `the local header of '${name}' has other flags or another method`);
    }
    const extra = extraFields(variable.subarray(nameLength), name);
    let compressed = compressed32;
    let size = size32;
    if (compressed32 === ALL_ONES_32 || size32 === ALL_ONES_32) {
      const z = extra.get(0x0001);
      if (!z || z.length < 16) {
        throw new ZipError('zip64', `the local header of '${name}' needs ZIP64 sizes but has no ZIP64 extra field`);
      }
      size = u64(z, 0, `the size of '${name}'`, 'size');
      compressed = u64(z, 8, `the compressed size of '${name}'`, 'size');
    }
    // With a data descriptor the local header may carry zeros instead of the values.
    const descriptor = (flags & DESCRIPTOR_FLAG) !== 0;
    const agrees = (local, central) => local === central || (descriptor && local === 0);
    if (!agrees(crc, entry.crc32) || !agrees(compressed, entry.compressedSize) || !agrees(size, entry.size)) {
      throw new ZipError('local-header', `the local header of '${name}' declares another CRC-32 or other sizes`);
    }
    const end = start + entry.compressedSize;
    if (descriptor) await this.#checkDescriptor(entry, info, end, extra.has(0x0001));
    return { start, end };
  }

  /** The data descriptor after the data must lie before the next entry and repeat the CRC-32 and sizes. */
  async #checkDescriptor(entry, info, at, zip64) {
    const wide = zip64 || entry.compressedSize >= ALL_ONES_32 || entry.size >= ALL_ONES_32;
    const length = wide ? 20 : 12;
    const d = await this.source.read(at, Math.min(info.limit - at, 4 + length));
    const p = d.length >= 4 && readU32(d, 0) === SIGNATURE.descriptor ? 4 : 0;
    if (d.length - p < length) {
      throw new ZipError('descriptor', `the data descriptor of '${entry.name}' is missing or runs into the next entry`);
    }
    const crc = readU32(d, p);
    const compressed = wide ? u64(d, p + 4, 'a data descriptor size', 'descriptor') : readU32(d, p + 4);
    const size = wide ? u64(d, p + 12, 'a data descriptor size', 'descriptor') : readU32(d, p + 8);
    if (crc !== entry.crc32 || compressed !== entry.compressedSize || size !== entry.size) {
      throw new ZipError('descriptor', `the data descriptor of '${entry.name}' declares another CRC-32 or other sizes`);
    }
  }

  /**
   * The entry's uncompressed bytes as a stream. It never reads outside the entry's compressed
   * data, never yields more than `entry.size` bytes, and errors with a ZipError: 'size' as soon
   * as the data would run past the declared size or when it ends short, 'crc' at the end when
   * the CRC-32 differs, 'deflate' when the compressed data is corrupt.
   * @param {object} entry
   * @returns {ReadableStream<Uint8Array>}
   */
  stream(entry) {
    this.#infoOf(entry);
    return iteratorStream(this.#checkedChunks(entry));
  }

  async* #checkedChunks(entry) {
    const { start, end } = await this.dataRange(entry);
    const chunks = entry.method === 0 ? storedChunks(this.source, start, end) : inflatedChunks(this.source, start, end);
    let produced = 0;
    let crc = 0;
    for await (const chunk of chunks) {
      produced += chunk.length;
      if (produced > entry.size) {
        throw new ZipError('size', `'${entry.name}' holds more than the declared ${entry.size} bytes ` +
          '(reading stopped there)');
      }
      crc = crc32(chunk, crc);
      yield chunk;
    }
    if (produced !== entry.size) {
      throw new ZipError('size', `'${entry.name}' holds ${produced} bytes, not the declared ${entry.size}`);
    }
    if (crc !== entry.crc32) throw new ZipError('crc', `the CRC-32 of '${entry.name}' does not match its data`);
  }

  /**
   * The whole entry in memory, through `stream` (so sizes and CRC-32 are checked).
   * @param {object} entry
   * @param {number} [limit] the largest entry accepted, in bytes (default 64 MiB)
   * @returns {Promise<Uint8Array>}
   */
  async bytes(entry, limit = 64 << 20) {
    this.#infoOf(entry);
    if (entry.size > limit) {
      throw new ZipError('size', `'${entry.name}' is ${entry.size} bytes; no more than ${limit} are read at once`);
    }
    const out = new Uint8Array(entry.size);
    let at = 0;
    const reader = this.stream(entry).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return out;
      out.set(value, at);
      at += value.length;
    }
  }

  /**
   * The entry as a Blob of media type `type`. A stored entry whose source can `slice` is sliced
   * out of it without being read: its CRC-32 is NOT checked on this path (the app checks each
   * asset's SHA-256 against the manifest itself). A deflated entry is inflated through `stream`,
   * sizes and CRC-32 checked.
   * @param {object} entry
   * @param {string} [type]
   * @returns {Promise<Blob>}
   */
  async blob(entry, type = '') {
    this.#infoOf(entry);
    if (entry.method === 0 && typeof this.source.slice === 'function') {
      const { start, end } = await this.dataRange(entry);
      return new Blob([this.source.slice(start, end)], { type });
    }
    const parts = [];
    const reader = this.stream(entry).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return new Blob(parts, { type });
      parts.push(value);
    }
  }

  /**
   * A byte source over a stored entry's data, read in place (a PMTiles map inside a package).
   * @param {object} entry
   * @returns {Promise<RangeSource>}
   */
  window(entry) {
    return entryWindow(this, entry);
  }
}

/**
 * A byte source over a stored entry's data, read in place from the archive's source: the map
 * reads tiles by byte range out of the stored PMTiles entry. A ZipError for a deflated entry.
 * @param {ZipArchive} archive
 * @param {object} entry
 * @returns {Promise<RangeSource>}
 */
export async function entryWindow(archive, entry) {
  if (entry.method !== 0) {
    throw new ZipError('unsupported-method', `'${entry.name}' is compressed; only stored entries are read in place`);
  }
  const { start, end } = await archive.dataRange(entry);
  return new RangeSource(archive.source, start, end - start);
}

/**
 * A stream pulling from an async iterator one chunk at a time; cancelling it ends the iterator.
 * @param {AsyncGenerator<Uint8Array>} iterator
 */
function iteratorStream(iterator) {
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await iterator.return();
    },
  }, { highWaterMark: 0 });
}

/** Stored data `[start, end)`, at most STORED_CHUNK bytes at a time. */
async function* storedChunks(source, start, end) {
  for (let at = start; at < end;) {
    const n = Math.min(STORED_CHUNK, end - at);
    yield await source.read(at, n);
    at += n;
  }
}

/**
 * Deflated data `[start, end)` inflated. The input is read only when the inflater asks for more,
 * in small pieces, so that stopping early (a size exceeded) stops reading and inflating.
 */
async function* inflatedChunks(source, start, end) {
  let at = start;
  let pending = new Uint8Array(0);
  let inputError = null;
  const input = new ReadableStream({
    async pull(controller) {
      try {
        if (pending.length === 0) {
          if (at >= end) {
            controller.close();
            return;
          }
          const n = Math.min(DEFLATE_READ, end - at);
          pending = await source.read(at, n);
          at += n;
        }
        controller.enqueue(pending.subarray(0, DEFLATE_PIECE));
        pending = pending.subarray(DEFLATE_PIECE);
      } catch (error) {
        inputError = error;
        throw error;
      }
    },
  }, { highWaterMark: 0 });
  const reader = input.pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  let finished = false;
  try {
    for (;;) {
      let result;
      try {
        result = await reader.read();
      } catch (error) {
        if (inputError) throw inputError;
        throw new ZipError('deflate', `the compressed data is corrupt (${error && error.message})`);
      }
      if (result.done) {
        finished = true;
        return;
      }
      yield result.value;
    }
  } finally {
    if (!finished) reader.cancel().catch(() => {});
  }
}

/**
 * Opens a ZIP archive: reads its end records and its central directory, and checks every
 * record (see ZipError for what is refused). Local headers are read later, per entry.
 * @param {{size: number, read: (offset: number, length: number) => Promise<Uint8Array>,
 *   slice?: (start: number, end: number) => Blob}} source
 * @param {{maxEntries?: number, maxCentralDirectoryBytes?: number, maxNameBytes?: number}} [limits]
 * @returns {Promise<ZipArchive>}
 */
export async function openZip(source, limits = {}) {
  const lim = { ...DEFAULT_LIMITS, ...limits };
  const end = await readEndRecords(source);
  if (end.count > lim.maxEntries) {
    throw new ZipError('too-many-entries', `the archive has ${end.count} entries; the limit is ${lim.maxEntries}`);
  }
  // The central directory ends exactly where the end records begin: nothing before or after it.
  if (end.directoryOffset + end.directorySize !== end.directoryEnd) {
    throw new ZipError('bad-offset', `the central directory (${end.directorySize} bytes at byte ` +
      `${end.directoryOffset}) does not end where the end records begin (byte ${end.directoryEnd})`);
  }
  if (end.directorySize > lim.maxCentralDirectoryBytes) {
    throw new ZipError('too-large', `the central directory is ${end.directorySize} bytes; ` +
      `the limit is ${lim.maxCentralDirectoryBytes}`);
  }
  if (end.count * CENTRAL_SIZE > end.directorySize) {
    throw new ZipError('count', `${end.count} entries cannot fit in a central directory of ${end.directorySize} bytes`);
  }
  const cd = await source.read(end.directoryOffset, end.directorySize);
  const entries = [];
  const info = new Map();
  const byName = new Set();
  let at = 0;
  for (let i = 0; i < end.count; i++) {
    const record = readRecord(cd, at, lim);
    if (!record) {
      throw new ZipError('count', `the central directory holds ${i} entries, but the end record says ${end.count}`);
    }
    const { entry } = record;
    if (byName.has(entry.name)) throw new ZipError('duplicate-name', `two entries are named '${entry.name}'`);
    byName.add(entry.name);
    entries.push(entry);
    info.set(entry, { nameBytes: record.nameBytes, flags: record.flags, limit: end.directoryOffset });
    at = record.next;
  }
  if (at !== cd.length) {
    throw new ZipError('count', `${cd.length - at} bytes after the last central-directory record belong to nothing`);
  }
  // Each entry (local header, name, data) must end before the next one in the file begins, and
  // the last before the central directory: one sort, and no two entries can share a byte.
  const byOffset = entries.slice().sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  for (let i = 0; i < byOffset.length; i++) {
    const e = byOffset[i];
    const record = info.get(e);
    if (e.localHeaderOffset >= end.directoryOffset) {
      throw new ZipError('bad-offset', `the local header of '${e.name}' is not before the central directory`);
    }
    if (i + 1 < byOffset.length) record.limit = byOffset[i + 1].localHeaderOffset;
    const least = e.localHeaderOffset + LOCAL_SIZE + record.nameBytes.length + e.compressedSize;
    if (least > record.limit) {
      throw new ZipError(record.limit === end.directoryOffset ? 'size' : 'overlap',
        `'${e.name}' (${e.compressedSize} bytes at byte ${e.localHeaderOffset}) runs into ` +
        (record.limit === end.directoryOffset ? 'the central directory' : `'${byOffset[i + 1].name}'`));
    }
  }
  return new ZipArchive(source, entries, info, end);
}
