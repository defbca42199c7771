// The plan of an update by part, the same as the Swift client's `PackageUpdater`: which bytes of a
// tour's new package are fetched and which are copied from the installed one. It rests on
// FORMAT.md §5 (an unchanged asset keeps its entry data: compressed bytes, CRC-32 and sizes): a
// new entry whose name, method, sizes, CRC-32 and manifest SHA-256 are those of an installed
// entry is copied from the installed file, under its installed local header with the new time;
// every run of other entries is one single-range request. The new file's end records, central
// directory and manifest come first, each by one range. No I/O here: the executor (updater.js)
// fetches, copies and hashes; a plan it cannot carry out exactly is an `UpdateRefusal`, and the
// app then downloads the whole file.

import { readEndRecords, openZip, ZipError } from './zip.js';

/** Why an update by part was given up: the full download follows. */
export class UpdateRefusal extends Error {
  /** @param {string} reason what was unexpected, in words */
  constructor(reason) {
    super(reason);
    this.name = 'UpdateRefusal';
  }
}

/** The most the end records can take: an end record, the longest comment, ZIP64's record and locator. */
export const END_WINDOW = 22 + 0xffff + 76;
/**
 * Added to the installed package's directory and end records to size the first range from the
 * new file's end: room for a few more entries' records (a stop added) without a second request.
 */
export const TAIL_SLACK = 1024;
/** The most the plan holds in memory: the largest central directory and manifest FORMAT.md allows. */
export const MEMORY_LIMIT = (64 << 20) + (32 << 20) + END_WINDOW;

/**
 * The first range asked for: the end of the new file, as long as the installed package's central
 * directory and end records plus an eighth and `TAIL_SLACK` (a new version's directory is about
 * as long as the old one's), never less than an end record, never more than the file.
 * @param {number} size the new package's size
 * @param {number} installedTail the installed package's bytes from its directory to its end
 * @returns {{start: number, end: number}}
 */
export function firstTailRange(size, installedTail) {
  const guess = Math.max(22, installedTail + Math.ceil(installedTail / 8) + TAIL_SLACK);
  return { start: Math.max(0, size - guess), end: size };
}

/**
 * A file known in parts: the ranges of the new package fetched so far. A byte source (`size`,
 * `read`) that throws for a byte not fetched; `zeroFilled()` reads those as zeros (only for
 * finding the end record, whose signature zeros never hold).
 */
export class KnownBytes {
  /** @param {number} size */
  constructor(size) {
    /** @type {number} */
    this.size = size;
    /** @type {{start: number, bytes: Uint8Array}[]} parts that neither touch nor overlap, by start */
    this.parts = [];
    this.held = 0;
  }

  /**
   * Adds `bytes` at `start`; parts that meet become one, so a read never crosses from one into the next.
   * @param {number} start
   * @param {Uint8Array} bytes
   */
  add(start, bytes) {
    if (!Number.isSafeInteger(start) || start < 0 || start + bytes.length > this.size) {
      throw new UpdateRefusal(`bytes ${start}-${start + bytes.length} lie outside a file of ${this.size}`);
    }
    if (this.parts.some((p) => start < p.start + p.bytes.length && p.start < start + bytes.length)) {
      throw new UpdateRefusal(`bytes ${start}-${start + bytes.length} were fetched twice`);
    }
    this.held += bytes.length;
    if (this.held > MEMORY_LIMIT) throw new UpdateRefusal('the parts held in memory would be too large');
    this.parts.push({ start, bytes });
    this.parts.sort((a, b) => a.start - b.start);
    const merged = [];
    for (const p of this.parts) {
      const last = merged[merged.length - 1];
      if (last && last.start + last.bytes.length === p.start) {
        const joined = new Uint8Array(last.bytes.length + p.bytes.length);
        joined.set(last.bytes);
        joined.set(p.bytes, last.bytes.length);
        last.bytes = joined;
      } else {
        merged.push({ ...p });
      }
    }
    this.parts = merged;
  }

  /**
   * Whether every byte of `[start, end)` was fetched.
   * @param {number} start
   * @param {number} end
   */
  covers(start, end) {
    return this.parts.some((p) => p.start <= start && end <= p.start + p.bytes.length);
  }

  /**
   * Exactly `length` bytes from `offset`, all fetched.
   * @param {number} offset
   * @param {number} length
   * @returns {Promise<Uint8Array>}
   */
  async read(offset, length) {
    return this.bytesAt(offset, length, false);
  }

  /** The same bytes as a source that reads what was not fetched as zeros. */
  zeroFilled() {
    return { size: this.size, read: async (offset, length) => this.bytesAt(offset, length, true) };
  }

  /**
   * The same bytes as a source for the ZIP reader: a read up to the end of the file (the search
   * for the end record in its window) reads what was not fetched as zeros; any other read of a
   * byte not fetched throws.
   */
  forReader() {
    return {
      size: this.size,
      read: async (offset, length) => this.bytesAt(offset, length, offset + length === this.size),
    };
  }

  /**
   * @param {number} offset
   * @param {number} length
   * @param {boolean} zeros
   * @returns {Uint8Array}
   */
  bytesAt(offset, length, zeros) {
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 ||
        offset + length > this.size) {
      throw new ZipError('bad-offset', `cannot read ${length} bytes at byte ${offset} of a file of ${this.size}`);
    }
    const whole = this.parts.find((p) => p.start <= offset && offset + length <= p.start + p.bytes.length);
    if (whole) return whole.bytes.subarray(offset - whole.start, offset - whole.start + length);
    if (!zeros) throw new ZipError('bad-offset', `byte ${offset} of the new package was not fetched`);
    const out = new Uint8Array(length);
    for (const p of this.parts) {
      const from = Math.max(offset, p.start);
      const to = Math.min(offset + length, p.start + p.bytes.length);
      if (from < to) out.set(p.bytes.subarray(from - p.start, to - p.start), from - offset);
    }
    return out;
  }
}

/**
 * Where the new central directory is, from the end fetched so far (`known` holds `[tailStart,
 * size)`): `{need}`, a range to fetch first (the window an end record may take, when it was not
 * found; the start of the directory, when it begins before the tail), or `{directory}`.
 * @param {KnownBytes} known
 * @param {number} tailStart the first byte of the end fetched (everything after it is known)
 * @returns {Promise<{need: {start: number, end: number}} | {directory: {start: number, end: number}}>}
 */
export async function locateDirectory(known, tailStart) {
  let end;
  try {
    end = await readEndRecords(known.zeroFilled());
  } catch (error) {
    const wider = Math.max(0, known.size - END_WINDOW);
    if (error instanceof ZipError && error.code === 'not-zip' && tailStart > wider) {
      return { need: { start: wider, end: tailStart } };
    }
    throw new UpdateRefusal(`the new package's end records cannot be read (${error.message})`);
  }
  if (end.directoryOffset + end.directorySize !== end.directoryEnd || end.directoryEnd > known.size) {
    throw new UpdateRefusal('the new package\'s end records do not place its central directory before them');
  }
  if (end.directoryOffset < tailStart) return { need: { start: end.directoryOffset, end: tailStart } };
  return { directory: { start: end.directoryOffset, end: known.size } };
}

/**
 * The assets a manifest lists, path → lowercase SHA-256 (the first of a path listed twice), as
 * the Swift `Manifest.allAssets`: every stop's assets, then the map's.
 * @param {any} manifest
 * @returns {Map<string, string>}
 */
export function assetHashes(manifest) {
  const hashes = new Map();
  const lists = [
    ...(Array.isArray(manifest?.waypoints) ? manifest.waypoints.map((w) => w?.assets) : []),
    manifest?.mapAssets,
  ];
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const a of list) {
      if (typeof a?.path !== 'string' || typeof a.sha256 !== 'string' || !/^[0-9a-fA-F]{64}$/.test(a.sha256)) continue;
      if (!hashes.has(a.path)) hashes.set(a.path, a.sha256.toLowerCase());
    }
  }
  return hashes;
}

/**
 * Each entry with the end of its slot (local header, data, data descriptor): the next entry's
 * local header, or the central directory for the last one. Sorted by where they start.
 * @template {{localHeaderOffset: number}} E
 * @param {readonly E[]} entries
 * @param {number} directoryOffset
 * @returns {(E & {end: number})[]}
 */
export function slots(entries, directoryOffset) {
  const sorted = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  return sorted.map((e, i) => ({ ...e, end: i + 1 < sorted.length ? sorted[i + 1].localHeaderOffset : directoryOffset }));
}

/**
 * @typedef {{name: string, method: number, crc32: number, compressedSize: number, size: number,
 *   localHeaderOffset: number}} Entry
 * @typedef {{entries: readonly Entry[], directoryOffset: number, manifest: any}} Side
 * @typedef {{name: string, start: number, end: number, from: {start: number, end: number}}} Copy
 * @typedef {{start: number, end: number, names: string[]}} Run
 */

/**
 * The plan: every byte of the new file, in order, either fetched or copied.
 * @param {Side} installed the installed package's directory and manifest
 * @param {Side & {size: number}} fresh the new package's directory (and size) and manifest
 * @returns {{manifest: {start: number, end: number}, directory: {start: number, end: number},
 *   copies: Copy[], runs: Run[], pieces: ((Copy & {kind: 'copy'}) | (Run & {kind: 'fetch'}))[]}}
 *   `runs`: the ranges to fetch after the manifest (the new directory is fetched already);
 *   `pieces`: copies and runs in file order, covering the bytes from the manifest's end to the directory
 */
export function planUpdate(installed, fresh) {
  const news = slots(fresh.entries, fresh.directoryOffset);
  if (news.length === 0 || news[0].localHeaderOffset !== 0 || news[0].name !== 'manifest.json') {
    throw new UpdateRefusal('the new package does not start with manifest.json');
  }
  for (const e of news) {
    if (e.localHeaderOffset >= e.end) throw new UpdateRefusal(`the new package's entries overlap at '${e.name}'`);
  }
  const olds = new Map(slots(installed.entries, installed.directoryOffset).map((e) => [e.name, e]));
  const oldHashes = assetHashes(installed.manifest);
  const newHashes = assetHashes(fresh.manifest);
  const pieces = [];
  for (const e of news.slice(1)) {
    const o = olds.get(e.name);
    const hash = newHashes.get(e.name);
    const reused = o !== undefined && o.method === e.method && o.crc32 === e.crc32 &&
      o.compressedSize === e.compressedSize && o.size === e.size && hash !== undefined && oldHashes.get(e.name) === hash;
    if (reused) {
      // The installed slot (header, data, descriptor) is copied whole, its time changed in place:
      // it must take exactly the room the new directory gives it.
      if (o.end - o.localHeaderOffset !== e.end - e.localHeaderOffset) {
        throw new UpdateRefusal(`'${e.name}' would not fit where the new directory puts it`);
      }
      pieces.push({ kind: 'copy', name: e.name, start: e.localHeaderOffset, end: e.end,
        from: { start: o.localHeaderOffset, end: o.end } });
      continue;
    }
    const last = pieces[pieces.length - 1];
    if (last?.kind === 'fetch' && last.end === e.localHeaderOffset) {
      last.end = e.end;
      last.names.push(e.name);
    } else {
      pieces.push({ kind: 'fetch', start: e.localHeaderOffset, end: e.end, names: [e.name] });
    }
  }
  return {
    manifest: { start: 0, end: news[0].end },
    directory: { start: fresh.directoryOffset, end: fresh.size },
    copies: pieces.filter((p) => p.kind === 'copy'),
    runs: pieces.filter((p) => p.kind === 'fetch'),
    pieces,
  };
}

/**
 * Where the modification time of a local header's extended-timestamp field (0x5455) is, or -1.
 * @param {Uint8Array} header a local header with its name and extra field
 */
export function extendedTimeOffset(header) {
  if (header.length < 30) return -1;
  const nameLength = header[26] | (header[27] << 8);
  const extraEnd = Math.min(header.length, 30 + nameLength + (header[28] | (header[29] << 8)));
  for (let at = 30 + nameLength; at + 4 <= extraEnd;) {
    const id = header[at] | (header[at + 1] << 8);
    const length = header[at + 2] | (header[at + 3] << 8);
    if (id === 0x5455 && length >= 5 && (header[at + 4] & 1) !== 0 && at + 9 <= extraEnd) return at + 5;
    at += 4 + length;
  }
  return -1;
}

/**
 * An installed entry's local header with the new version's time: the DOS time and date, and the
 * extended-timestamp field's time, taken from the new manifest's local header (trailpack stamps
 * every entry of a package with one time). Everything else is the installed header's.
 * @param {Uint8Array} header the installed local header (name and extra field included)
 * @param {Uint8Array} manifestHeader the new manifest's local header (name and extra field included)
 * @returns {Uint8Array} a new array
 */
export function restampedHeader(header, manifestHeader) {
  if (header.length < 30 || manifestHeader.length < 30) throw new UpdateRefusal('a local header is cut short');
  const out = header.slice();
  out.set(manifestHeader.subarray(10, 14), 10);
  const from = extendedTimeOffset(manifestHeader);
  const to = extendedTimeOffset(out);
  if (from >= 0 && to >= 0) out.set(manifestHeader.subarray(from, from + 4), to);
  return out;
}

/**
 * The new package's directory, read with the reader's checks out of what was fetched.
 * @param {KnownBytes} known
 */
export async function readDirectory(known) {
  try {
    return await openZip(known.forReader());
  } catch (error) {
    throw new UpdateRefusal(`the new package's central directory cannot be read (${error.message})`);
  }
}
