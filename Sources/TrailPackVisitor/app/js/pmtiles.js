// A bounded reader of PMTiles version 3 maps (protomaps' specification): the 127-byte header,
// the root and leaf directories, and tiles by z/x/y. It follows trailpack's own reader
// (Sources/TrailPackMap): every offset and length is checked against the file and against its
// section before it is read, directories are inflated with a cap and decoded with every number
// checked, leaf directories nest at most three levels (so a loop ends), and a small cache keeps
// the directories read last.

import { BytesError, readI32, readU64 } from './bytes.js';

/**
 * Why a map or a tile cannot be read. `code` is one of: 'truncated' (the file is shorter than
 * its header says), 'not-pmtiles', 'version', 'header' (inconsistent offsets, lengths, zooms or
 * bounds), 'compression' (brotli, zstd or unknown where it matters), 'directory' (a directory
 * that is corrupt, too large, or nests too deep), 'tile-data' (a tile outside the tile data, or
 * too large), 'bad-tile' (z/x/y that name no tile).
 */
export class PMTilesError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = 'PMTilesError';
    /** @type {string} */
    this.code = code;
  }
}

/** The compression values of the header (`internalCompression`, `tileCompression`). */
export const Compression = Object.freeze({ unknown: 0, none: 1, gzip: 2, brotli: 3, zstd: 4 });

const TILE_TYPES = ['unknown', 'mvt', 'png', 'jpeg', 'webp', 'avif'];
const HEADER_SIZE = 127;
/** The header and the root directory lie in the first 16 KiB. */
const ROOT_LIMIT = 16384;
/** The deepest zoom read. */
export const MAX_ZOOM = 30;
/** The first tile id of zoom `z`: the number of tiles in all zooms below it, (4^z − 1) / 3. */
const firstId = (z) => ((1n << BigInt(2 * z)) - 1n) / 3n;
/** One past the largest tile id read (the first id of zoom 31). */
const ID_LIMIT = firstId(MAX_ZOOM + 1);
/** Inflated data is fed to the inflater in pieces this large, so stopping early stops it soon. */
const INFLATE_PIECE = 16 << 10;

const DEFAULT_LIMITS = {
  /** The largest directory, compressed or not. */
  maxDirectoryBytes: 16 << 20,
  /** Entries in one directory. */
  maxDirectoryEntries: 1000000,
  /** Leaf levels below the root. */
  maxLeafDepth: 3,
  /** The largest tile, compressed or not. */
  maxTileBytes: 16 << 20,
  /** Directories kept decoded. */
  cacheSize: 64,
};

/**
 * The tile id of z/x/y: the tiles of all lower zooms, then the position on zoom z's Hilbert
 * curve. A PMTilesError ('bad-tile') unless 0 ≤ z ≤ 30 and 0 ≤ x, y < 2^z, all whole numbers.
 * @param {number} z
 * @param {number} x
 * @param {number} y
 * @returns {bigint}
 */
export function zxyToTileId(z, x, y) {
  if (!Number.isInteger(z) || z < 0 || z > MAX_ZOOM) throw new PMTilesError('bad-tile', `zoom ${z} is not 0 to 30`);
  const n = 2 ** z;
  if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= n || y >= n) {
    throw new PMTilesError('bad-tile', `${z}/${x}/${y} is not a tile: x and y run from 0 to ${n - 1}`);
  }
  let d = 0n;
  for (let s = n / 2; s >= 1; s /= 2) {
    const rx = (x & s) ? 1 : 0;
    const ry = (y & s) ? 1 : 0;
    d += BigInt(s * s * ((3 * rx) ^ ry));
    // Rotate the quadrant so that the curve inside it runs the standard way.
    if (ry === 0) {
      if (rx === 1) {
        x = n - 1 - x;
        y = n - 1 - y;
      }
      [x, y] = [y, x];
    }
  }
  return firstId(z) + d;
}

/**
 * The tile with id `id` (the inverse of `zxyToTileId`); a PMTilesError ('bad-tile') for an id
 * beyond zoom 30.
 * @param {bigint | number} id
 * @returns {{z: number, x: number, y: number}}
 */
export function tileIdToZxy(id) {
  const big = BigInt(id);
  if (big < 0n || big >= ID_LIMIT) throw new PMTilesError('bad-tile', `tile id ${id} is beyond zoom 30`);
  let z = 0;
  while (firstId(z + 1) <= big) z++;
  let t = big - firstId(z);
  let x = 0;
  let y = 0;
  for (let s = 1; s < 2 ** z; s *= 2) {
    const rx = Number((t >> 1n) & 1n);
    const ry = Number((t ^ BigInt(rx)) & 1n);
    if (ry === 0) {
      if (rx === 1) {
        x = s - 1 - x;
        y = s - 1 - y;
      }
      [x, y] = [y, x];
    }
    x += s * rx;
    y += s * ry;
    t >>= 2n;
  }
  return { z, x, y };
}

/**
 * A 64-bit header field as a Number; a PMTilesError when it is above 2^53 − 1.
 * @param {Uint8Array} b
 * @param {number} at
 */
function headerU64(b, at) {
  try {
    return readU64(b, at);
  } catch (error) {
    if (error instanceof BytesError) throw new PMTilesError('header', `the header value at byte ${at} is over 2^53`);
    throw error;
  }
}

/**
 * Parses and checks the header of a map of `fileSize` bytes (the rules of trailpack's reader):
 * every section inside the file, after the header and apart from the others, the root
 * directory non-empty and in the first 16 KiB, compressions a phone can read, zooms and bounds
 * in range.
 * @param {Uint8Array} b
 * @param {number} fileSize
 */
function parseHeader(b, fileSize) {
  if (b.length < HEADER_SIZE) {
    throw new PMTilesError('truncated', `the file is ${b.length} bytes, shorter than the 127-byte PMTiles header`);
  }
  if (String.fromCharCode(...b.subarray(0, 7)) !== 'PMTiles') {
    throw new PMTilesError('not-pmtiles', 'the file does not start with \'PMTiles\'; it is not a PMTiles map');
  }
  if (b[7] !== 3) throw new PMTilesError('version', `PMTiles version ${b[7]} is not read; only version 3 is`);
  const e7 = (at) => readI32(b, at) / 1e7;
  const h = {
    specVersion: b[7],
    rootDirectoryOffset: headerU64(b, 8),
    rootDirectoryLength: headerU64(b, 16),
    metadataOffset: headerU64(b, 24),
    metadataLength: headerU64(b, 32),
    leafDirectoriesOffset: headerU64(b, 40),
    leafDirectoriesLength: headerU64(b, 48),
    tileDataOffset: headerU64(b, 56),
    tileDataLength: headerU64(b, 64),
    addressedTilesCount: headerU64(b, 72),
    tileEntriesCount: headerU64(b, 80),
    tileContentsCount: headerU64(b, 88),
    clustered: b[96] === 1,
    internalCompression: b[97],
    tileCompression: b[98],
    tileType: TILE_TYPES[b[99]] || 'unknown',
    minZoom: b[100],
    maxZoom: b[101],
    minLon: e7(102),
    minLat: e7(106),
    maxLon: e7(110),
    maxLat: e7(114),
    centerZoom: b[118],
    centerLon: e7(119),
    centerLat: e7(123),
  };
  const sections = [
    ['the root directory', h.rootDirectoryOffset, h.rootDirectoryLength],
    ['the metadata', h.metadataOffset, h.metadataLength],
    ['the leaf directories', h.leafDirectoriesOffset, h.leafDirectoriesLength],
    ['the tile data', h.tileDataOffset, h.tileDataLength],
  ];
  for (const [what, offset, length] of sections) {
    if (offset > fileSize || length > fileSize - offset) {
      throw new PMTilesError('truncated', `${what} (${length} bytes at byte ${offset}) lies beyond the end of the ` +
        `file (${fileSize} bytes)`);
    }
    if (length > 0 && offset < HEADER_SIZE) throw new PMTilesError('header', `${what} starts inside the header`);
  }
  const used = sections.filter((s) => s[2] > 0);
  for (let i = 0; i < used.length; i++) {
    for (let j = i + 1; j < used.length; j++) {
      const [a, c] = [used[i], used[j]];
      if (a[1] < c[1] + c[2] && c[1] < a[1] + a[2]) throw new PMTilesError('header', `${a[0]} overlaps ${c[0]}`);
    }
  }
  if (h.rootDirectoryLength === 0) throw new PMTilesError('header', 'the root directory is empty');
  if (h.rootDirectoryOffset + h.rootDirectoryLength > ROOT_LIMIT) {
    throw new PMTilesError('header', 'the root directory does not lie in the first 16384 bytes');
  }
  if (b[96] > 1) throw new PMTilesError('header', `the clustered flag is ${b[96]}; it must be 0 or 1`);
  if (h.internalCompression !== Compression.none && h.internalCompression !== Compression.gzip) {
    throw new PMTilesError('compression', `the directories' compression (${h.internalCompression}) is not ` +
      'none or gzip');
  }
  if (h.tileCompression > Compression.gzip) {
    throw new PMTilesError('compression', `the tiles' compression (${h.tileCompression}) is not none or gzip`);
  }
  if (h.minZoom > h.maxZoom || h.maxZoom > MAX_ZOOM) {
    throw new PMTilesError('header', `the zoom range ${h.minZoom}-${h.maxZoom} is not a range from 0 to 30`);
  }
  const lon = (v) => v >= -180 && v <= 180;
  const lat = (v) => v >= -90 && v <= 90;
  if (!lon(h.minLon) || !lon(h.maxLon) || !lat(h.minLat) || !lat(h.maxLat) || h.minLon > h.maxLon ||
      h.minLat > h.maxLat) {
    throw new PMTilesError('header', 'the bounds are not a box of longitudes and latitudes, west to east and ' +
      'south to north');
  }
  return Object.freeze(h);
}

/** Reads the varints of a directory, each checked. */
class Cursor {
  /**
   * @param {Uint8Array} bytes
   * @param {string} what
   */
  constructor(bytes, what) {
    this.bytes = bytes;
    this.what = what;
    this.at = 0;
  }

  /** The next varint as a Number; refuses one over 9 bytes or above 2^53 − 1. */
  number() {
    let value = 0;
    let scale = 1;
    for (let i = 0; ; i++) {
      if (i === 9) throw new PMTilesError('directory', `${this.what} holds a number longer than 9 bytes`);
      if (this.at >= this.bytes.length) throw new PMTilesError('directory', `${this.what} ends inside a number`);
      const byte = this.bytes[this.at++];
      value += (byte & 0x7f) * scale;
      if (!(byte & 0x80)) break;
      scale *= 128;
    }
    if (value > Number.MAX_SAFE_INTEGER) throw new PMTilesError('directory', `${this.what} holds a number over 2^53`);
    return value;
  }
}

/**
 * Decodes a directory (specification, "Directory Serialization"): the entry count, then the
 * columns of tile-id deltas, run lengths, lengths and offsets. Ids must increase and stay below
 * zoom 31, runs may not pass it, lengths and runs fit in 32 bits, no bytes may be left over.
 * @param {Uint8Array} bytes
 * @param {number} maxEntries
 * @param {string} what
 */
function decodeDirectory(bytes, maxEntries, what) {
  const c = new Cursor(bytes, what);
  const n = c.number();
  // Each entry takes at least four bytes, one per column.
  if (n === 0 || n > maxEntries || n > bytes.length / 4) {
    throw new PMTilesError('directory', `${what} claims ${n} entries (it has ${bytes.length} bytes; at most ` +
      `${maxEntries} are read, at least one must be there)`);
  }
  const ids = new BigUint64Array(n);
  const runs = new Uint32Array(n);
  const lengths = new Uint32Array(n);
  const offsets = new Float64Array(n);
  let last = 0n;
  for (let i = 0; i < n; i++) {
    const delta = c.number();
    if (i > 0 && delta === 0) throw new PMTilesError('directory', `${what} lists tile id ${last} twice`);
    last += BigInt(delta);
    if (last >= ID_LIMIT) throw new PMTilesError('directory', `${what} holds a tile id beyond zoom 30`);
    ids[i] = last;
  }
  for (let i = 0; i < n; i++) {
    const run = c.number();
    if (run > 0xffffffff || ids[i] + BigInt(run) > ID_LIMIT) {
      throw new PMTilesError('directory', `${what} holds a run of ${run} tiles that does not fit`);
    }
    runs[i] = run;
  }
  for (let i = 0; i < n; i++) {
    const length = c.number();
    if (length > 0xffffffff) throw new PMTilesError('directory', `${what} holds a length over 32 bits`);
    lengths[i] = length;
  }
  for (let i = 0; i < n; i++) {
    const v = c.number();
    if (v === 0) {
      // 0: right after the previous entry's data.
      if (i === 0) throw new PMTilesError('directory', `${what}: the first offset refers to no previous entry`);
      offsets[i] = offsets[i - 1] + lengths[i - 1];
      if (offsets[i] > Number.MAX_SAFE_INTEGER) throw new PMTilesError('directory', `${what}: an offset overflows`);
    } else {
      offsets[i] = v - 1;
    }
  }
  if (c.at !== bytes.length) {
    throw new PMTilesError('directory', `${what} has ${bytes.length - c.at} bytes after its last entry`);
  }
  return { ids, runs, lengths, offsets };
}

/**
 * Inflates gzip `bytes`, refusing more than `limit` bytes of output: the input is fed in small
 * pieces and the inflater is stopped as soon as the output passes the limit.
 * @param {Uint8Array} bytes
 * @param {number} limit
 * @param {string} what
 * @param {string} code
 * @returns {Promise<Uint8Array>}
 */
async function gunzip(bytes, limit, what, code) {
  let at = 0;
  const input = new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(at, at + INFLATE_PIECE));
      at += INFLATE_PIECE;
    },
  }, { highWaterMark: 0 });
  const reader = input.pipeThrough(new DecompressionStream('gzip')).getReader();
  const parts = [];
  let total = 0;
  for (;;) {
    let result;
    try {
      result = await reader.read();
    } catch (error) {
      throw new PMTilesError(code, `${what} is not valid gzip (${error && error.message})`);
    }
    if (result.done) break;
    total += result.value.length;
    if (total > limit) {
      reader.cancel().catch(() => {});
      throw new PMTilesError(code, `${what} inflates to more than ${limit} bytes`);
    }
    parts.push(result.value);
  }
  const out = new Uint8Array(total);
  let p = 0;
  for (const part of parts) {
    out.set(part, p);
    p += part.length;
  }
  return out;
}

/**
 * A PMTiles map opened by `openPMTiles`: its header, and tiles by z/x/y.
 */
export class PMTiles {
  #root;
  #limits;
  /** @type {Map<string, Promise<object>>} leaf directories, least recently used first */
  #cache = new Map();

  /** @hideconstructor */
  constructor(source, header, root, limits) {
    /** The byte source the map is read from. */
    this.source = source;
    /** The checked header (offsets and lengths in bytes, positions in degrees). */
    this.header = header;
    this.#root = root;
    this.#limits = limits;
  }

  /**
   * The tile id of z/x/y (see `zxyToTileId`).
   * @param {number} z
   * @param {number} x
   * @param {number} y
   * @returns {bigint}
   */
  tileId(z, x, y) {
    return zxyToTileId(z, x, y);
  }

  /**
   * The tile z/x/y, inflated when the tiles are gzip-compressed, or null when the map has no
   * such tile. A PMTilesError ('bad-tile') for z/x/y that name no tile, others for a damaged map.
   * @param {number} z
   * @param {number} x
   * @param {number} y
   * @returns {Promise<Uint8Array | null>}
   */
  async getTile(z, x, y) {
    const id = zxyToTileId(z, x, y);
    let dir = this.#root;
    for (let depth = 0; ; depth++) {
      // The last entry whose id is at most `id`.
      let lo = 0;
      let hi = dir.ids.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (dir.ids[mid] <= id) lo = mid + 1;
        else hi = mid;
      }
      const k = lo - 1;
      if (k < 0) return null;
      if (dir.runs[k] > 0) {
        return id < dir.ids[k] + BigInt(dir.runs[k]) ? this.#tile(dir.offsets[k], dir.lengths[k]) : null;
      }
      if (depth >= this.#limits.maxLeafDepth) {
        throw new PMTilesError('directory', `the leaf directories nest deeper than ${this.#limits.maxLeafDepth} ` +
          'levels (a loop?)');
      }
      dir = await this.#leaf(dir.offsets[k], dir.lengths[k]);
    }
  }

  async #tile(offset, length) {
    const h = this.header;
    if (length === 0 || offset > h.tileDataLength || length > h.tileDataLength - offset) {
      throw new PMTilesError('tile-data', `a tile (${length} bytes at ${offset}) lies outside the tile data`);
    }
    if (length > this.#limits.maxTileBytes) {
      throw new PMTilesError('tile-data', `a tile of ${length} bytes is over the limit of ` +
        `${this.#limits.maxTileBytes}`);
    }
    const bytes = await this.source.read(h.tileDataOffset + offset, length);
    if (h.tileCompression !== Compression.gzip) return bytes;
    return gunzip(bytes, this.#limits.maxTileBytes, 'a tile', 'tile-data');
  }

  /** The leaf directory `length` bytes at `offset` of the leaf section, from the cache when it is there. */
  #leaf(offset, length) {
    const h = this.header;
    if (length === 0 || offset > h.leafDirectoriesLength || length > h.leafDirectoriesLength - offset) {
      throw new PMTilesError('directory', `a leaf directory (${length} bytes at ${offset}) lies outside the leaf ` +
        'directories');
    }
    const key = `${offset}:${length}`;
    let dir = this.#cache.get(key);
    if (dir) {
      this.#cache.delete(key);
    } else {
      dir = readDirectory(this.source, h, h.leafDirectoriesOffset + offset, length, this.#limits,
        `the leaf directory at byte ${h.leafDirectoriesOffset + offset}`);
      dir.catch(() => {
        if (this.#cache.get(key) === dir) this.#cache.delete(key);
      });
    }
    this.#cache.set(key, dir);
    if (this.#cache.size > this.#limits.cacheSize) this.#cache.delete(this.#cache.keys().next().value);
    return dir;
  }
}

/**
 * Reads, inflates and decodes the directory of `length` bytes at `offset` of the source.
 * @returns {Promise<{ids: BigUint64Array, runs: Uint32Array, lengths: Uint32Array, offsets: Float64Array}>}
 */
async function readDirectory(source, header, offset, length, limits, what) {
  if (length > limits.maxDirectoryBytes) {
    throw new PMTilesError('directory', `${what} is ${length} bytes, over the limit of ${limits.maxDirectoryBytes}`);
  }
  const raw = await source.read(offset, length);
  const bytes = header.internalCompression === Compression.gzip
    ? await gunzip(raw, limits.maxDirectoryBytes, what, 'directory') : raw;
  return decodeDirectory(bytes, limits.maxDirectoryEntries, what);
}

/**
 * Opens a PMTiles v3 map: reads and checks its header and its root directory.
 * @param {{size: number, read: (offset: number, length: number) => Promise<Uint8Array>}} source
 * @param {{maxDirectoryBytes?: number, maxDirectoryEntries?: number, maxLeafDepth?: number,
 *   maxTileBytes?: number, cacheSize?: number}} [limits]
 * @returns {Promise<PMTiles>}
 */
export async function openPMTiles(source, limits = {}) {
  const lim = { ...DEFAULT_LIMITS, ...limits };
  const head = await source.read(0, Math.min(HEADER_SIZE, source.size));
  const header = parseHeader(head, source.size);
  const root = await readDirectory(source, header, header.rootDirectoryOffset, header.rootDirectoryLength, lim,
    'the root directory');
  return new PMTiles(source, header, root, lim);
}
