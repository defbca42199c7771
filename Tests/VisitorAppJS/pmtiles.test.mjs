// Tests of the visitor app's PMTiles reader (app/js/pmtiles.js), with Node's test runner:
// `node --test Tests/VisitorAppJS/pmtiles.test.mjs`.
//
// The fixture maps, and maps written by Python's `pmtiles` package (with leaf directories, with
// gzip tiles), must read exactly as Python's reader reads them, from the file and from the
// stored entry inside a package built by trailpack; maps built here with every directory shape
// (leaves three levels deep, directories compressed or not) must read back their tiles; damaged
// and hostile maps (header fields pointing outside, huge lengths, varint overflow, leaf loops,
// gzip bombs, truncation, a seeded loop of mutants) must be refused with a PMTilesError, never a
// hang, another exception, or a read outside the map. TRAILPACK_BIN overrides the trailpack
// binary; TRAILPACK_JS_FUZZ_SEED replays the mutant loop, TRAILPACK_JS_FUZZ_COUNT sizes it.

import { CheckedSource, concat, prng, withTimeout } from './support.mjs';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, openAsBlob, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { BlobSource, BytesSource, RangeSource } from '../../Sources/TrailPackVisitor/app/js/bytes.js';
import { Compression, MAX_ZOOM, openPMTiles, PMTilesError, tileIdToZxy, zxyToTileId }
  from '../../Sources/TrailPackVisitor/app/js/pmtiles.js';
import { entryWindow, openZip } from '../../Sources/TrailPackVisitor/app/js/zip.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = process.env.TRAILPACK_BIN || join(ROOT, '.build/debug/trailpack');
const FIXTURES = join(ROOT, 'fixtures');
const SANTIAM_MAP = join(FIXTURES, 'santiam-wagon-road/map/santiam-wagon-road.pmtiles');
const FIXTURE_MAPS = [SANTIAM_MAP, ...readdirSync(join(FIXTURES, 'maps')).filter((f) => f.endsWith('.pmtiles'))
  .map((f) => join(FIXTURES, 'maps', f))];

let work;
/** Paths of the maps Python writes and of the packages that hold maps. */
const paths = {};
/** What Python reads of each map: path -> {header, tiles: {"z/x/y": sha256}}. */
let python;

const PY_WRITE = `
import gzip, random, sys, zipfile
from pmtiles.tile import Compression, TileType, zxy_to_tileid
from pmtiles.writer import Writer
random.seed(7)

def write(path, zooms, compress, skip):
    tiles = []
    for z in zooms:
        for x in range(2 ** z):
            for y in range(2 ** z):
                if z > 3 and random.random() < skip:
                    continue
                tiles.append((zxy_to_tileid(z, x, y), z, x, y))
    tiles.sort()
    shared = b'ocean ' * 20
    with open(path, 'wb') as f:
        w = Writer(f)
        for tile_id, z, x, y in tiles:
            data = f'{z}/{x}/{y} '.encode() + random.randbytes(random.randint(0, 200))
            if random.random() < 0.1:
                data = shared
            w.write_tile(tile_id, gzip.compress(data, mtime=0) if compress else data)
        w.finalize({'tile_type': TileType.MVT, 'tile_compression': Compression.GZIP if compress else Compression.NONE,
                    'min_lon_e7': -1800000000, 'min_lat_e7': -850511287, 'max_lon_e7': 1800000000,
                    'max_lat_e7': 850511287, 'center_zoom': 2, 'center_lon_e7': 0, 'center_lat_e7': 0},
                   {'name': 'generated'})

write(sys.argv[1], range(0, 8), False, 0.3)
write(sys.argv[2], range(0, 5), True, 0.2)
with zipfile.ZipFile(sys.argv[3], 'w') as z:
    z.writestr('manifest.json', '{}', compress_type=zipfile.ZIP_DEFLATED)
    z.write(sys.argv[1], 'map/leaves.pmtiles', compress_type=zipfile.ZIP_STORED)
`;

const PY_READ = `
import gzip, hashlib, json, sys
from pmtiles.reader import MmapSource, Reader, all_tiles
out = {}
for path in sys.argv[1:]:
    with open(path, 'rb') as f:
        r = Reader(MmapSource(f))
        h = r.header()
        tiles = {}
        for (z, x, y), data in all_tiles(r.get_bytes):
            if h['tile_compression'].value == 2:
                data = gzip.decompress(data)
            tiles[f'{z}/{x}/{y}'] = hashlib.sha256(data).hexdigest()
        out[path] = {'header': {k: getattr(v, 'value', v) for k, v in h.items()}, 'tiles': tiles}
print(json.dumps(out))
`;

before(() => {
  work = mkdtempSync(join(tmpdir(), 'trailpack-pmtiles-js-'));
  paths.leaves = join(work, 'leaves.pmtiles');
  paths.gzipTiles = join(work, 'gzip-tiles.pmtiles');
  paths.pythonZip = join(work, 'leaves.zip');
  paths.santiamPackage = join(work, 'santiam-wagon-road.zip');
  execFileSync('python3', ['-c', PY_WRITE, paths.leaves, paths.gzipTiles, paths.pythonZip]);
  execFileSync(BIN, ['build', join(FIXTURES, 'santiam-wagon-road'), '-o', paths.santiamPackage], { stdio: 'pipe' });
  python = JSON.parse(execFileSync('python3', ['-c', PY_READ, ...FIXTURE_MAPS, paths.leaves, paths.gzipTiles],
    { encoding: 'utf8', maxBuffer: 1 << 26 }));
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

// MARK: helpers

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const load = (path) => new Uint8Array(readFileSync(path));

function assertPMTilesError(error, codes, context) {
  if (!(error instanceof PMTilesError)) {
    assert.fail(`${context}: expected a PMTilesError, got ${(error && error.stack) || error}`);
  }
  assert.equal(typeof error.code, 'string');
  if (codes && !codes.includes(error.code)) {
    assert.fail(`${context}: expected a PMTilesError ${codes.join(' or ')}, got '${error.code}': ${error.message}`);
  }
}

/** The tiles covering a box (degrees) at zoom z, as [x0, x1, y0, y1], `margin` tiles wider, clamped. */
function tileRange(z, h, margin) {
  const n = 2 ** z;
  const clamp = (v) => Math.min(n - 1, Math.max(0, v));
  const x = (lon) => Math.floor(((lon + 180) / 360) * n);
  const y = (lat) => {
    const r = (Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI) / 180;
    return Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n);
  };
  return [clamp(x(h.minLon) - margin), clamp(x(h.maxLon) + margin), clamp(y(h.maxLat) - margin),
    clamp(y(h.minLat) + margin)];
}

/**
 * Compares a map with Python's reading: the header field by field, every tile Python lists, and
 * every z/x/y around the header's bounds from minZoom to maxZoom (null where Python has none).
 * Returns how many tiles were present and absent.
 */
async function compareWithPython(pm, expected, context) {
  const h = pm.header;
  const p = expected.header;
  const same = {
    specVersion: p.version, rootDirectoryOffset: p.root_offset, rootDirectoryLength: p.root_length,
    metadataOffset: p.metadata_offset, metadataLength: p.metadata_length,
    leafDirectoriesOffset: p.leaf_directory_offset, leafDirectoriesLength: p.leaf_directory_length,
    tileDataOffset: p.tile_data_offset, tileDataLength: p.tile_data_length,
    addressedTilesCount: p.addressed_tiles_count, tileEntriesCount: p.tile_entries_count,
    tileContentsCount: p.tile_contents_count, clustered: p.clustered, internalCompression: p.internal_compression,
    tileCompression: p.tile_compression, tileType: ['unknown', 'mvt', 'png', 'jpeg', 'webp', 'avif'][p.tile_type],
    minZoom: p.min_zoom, maxZoom: p.max_zoom, centerZoom: p.center_zoom,
  };
  for (const [key, value] of Object.entries(same)) assert.equal(h[key], value, `${context}: header.${key}`);
  for (const key of ['min_lon', 'min_lat', 'max_lon', 'max_lat', 'center_lon', 'center_lat']) {
    const mine = h[key.replace(/_(\w)/g, (_, c) => c.toUpperCase())];
    assert.equal(Math.round(mine * 1e7), p[`${key}_e7`], `${context}: header.${key}`);
  }
  let present = 0;
  for (const [zxy, digest] of Object.entries(expected.tiles)) {
    const [z, x, y] = zxy.split('/').map(Number);
    const tile = await pm.getTile(z, x, y);
    assert.ok(tile, `${context}: ${zxy} is missing`);
    assert.equal(sha256(tile), digest, `${context}: ${zxy}`);
    present++;
  }
  let absent = 0;
  for (let z = h.minZoom; z <= h.maxZoom + 1 && z <= MAX_ZOOM; z++) {
    const [x0, x1, y0, y1] = tileRange(z, h, 1);
    for (let x = x0; x <= x1; x++) {
      for (let y = y0; y <= y1; y++) {
        const tile = await pm.getTile(z, x, y);
        const digest = expected.tiles[`${z}/${x}/${y}`];
        if (digest) {
          assert.equal(sha256(tile), digest, `${context}: ${z}/${x}/${y}`);
        } else {
          assert.equal(tile, null, `${context}: ${z}/${x}/${y} should be absent`);
          absent++;
        }
      }
    }
  }
  if (h.minZoom > 0) assert.equal(await pm.getTile(0, 0, 0), null, `${context}: 0/0/0 is below minZoom`);
  return { present, absent };
}

// MARK: a PMTiles writer for tests

/** The varint bytes of `value` (a Number or a BigInt). */
function varint(value) {
  let v = BigInt(value);
  const out = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

/** A directory's bytes: count, id deltas, run lengths, lengths, offsets (0 when contiguous). */
function encodeDirectory(entries) {
  const out = varint(entries.length);
  let last = 0n;
  for (const e of entries) {
    out.push(...varint(e.id - last));
    last = e.id;
  }
  for (const e of entries) out.push(...varint(e.run));
  for (const e of entries) out.push(...varint(e.length));
  entries.forEach((e, i) => {
    const previous = entries[i - 1];
    out.push(...varint(i > 0 && e.offset === previous.offset + previous.length ? 0 : e.offset + 1));
  });
  return Uint8Array.from(out);
}

/** The 127-byte header of `h` (the reader's field names; positions in degrees). */
function encodeHeader(h) {
  const b = new Uint8Array(127);
  const v = new DataView(b.buffer);
  b.set(new TextEncoder().encode('PMTiles'));
  b[7] = h.specVersion ?? 3;
  const u64 = ['rootDirectoryOffset', 'rootDirectoryLength', 'metadataOffset', 'metadataLength',
    'leafDirectoriesOffset', 'leafDirectoriesLength', 'tileDataOffset', 'tileDataLength', 'addressedTilesCount',
    'tileEntriesCount', 'tileContentsCount'];
  u64.forEach((key, i) => v.setBigUint64(8 + 8 * i, BigInt(h[key] ?? 0), true));
  b[96] = h.clustered ? 1 : 0;
  b[97] = h.internalCompression;
  b[98] = h.tileCompression;
  b[99] = ['unknown', 'mvt', 'png', 'jpeg', 'webp', 'avif'].indexOf(h.tileType ?? 'png');
  b[100] = h.minZoom;
  b[101] = h.maxZoom;
  [['minLon', 102], ['minLat', 106], ['maxLon', 110], ['maxLat', 114], ['centerLon', 119], ['centerLat', 123]]
    .forEach(([key, at]) => v.setInt32(at, Math.round((h[key] ?? 0) * 1e7), true));
  b[118] = h.centerZoom ?? h.minZoom;
  return b;
}

/**
 * A map of `tiles` ([{z, x, y, data, run?}]) with `levels` levels of leaf directories of
 * `fanout` entries each, directories compressed with gzip or not, tiles gzipped or not.
 * Returns the bytes and the sections' positions.
 */
function buildMap(tiles, { levels = 0, fanout = 4, gzipDirectories = true, gzipTiles = false } = {}) {
  const sorted = tiles.map((t) => ({ ...t, id: zxyToTileId(t.z, t.x, t.y) })).sort((a, b) => (a.id < b.id ? -1 : 1));
  const dirBytes = (entries) => (gzipDirectories ? new Uint8Array(gzipSync(encodeDirectory(entries))) :
    encodeDirectory(entries));
  const data = [];
  let dataLength = 0;
  let entries = sorted.map((t) => {
    const bytes = gzipTiles ? new Uint8Array(gzipSync(t.data)) : t.data;
    data.push(bytes);
    dataLength += bytes.length;
    return { id: t.id, run: t.run ?? 1, length: bytes.length, offset: dataLength - bytes.length };
  });
  const leaves = [];
  let leafLength = 0;
  for (let level = 0; level < levels; level++) {
    const parents = [];
    for (let i = 0; i < entries.length; i += fanout) {
      const bytes = dirBytes(entries.slice(i, i + fanout));
      parents.push({ id: entries[i].id, run: 0, length: bytes.length, offset: leafLength });
      leaves.push(bytes);
      leafLength += bytes.length;
    }
    entries = parents;
  }
  const root = dirBytes(entries);
  const metadata = gzipDirectories ? new Uint8Array(gzipSync('{}')) : new TextEncoder().encode('{}');
  const zooms = sorted.map((t) => t.z);
  const layout = {
    rootDirectoryOffset: 127, rootDirectoryLength: root.length, metadataOffset: 127 + root.length,
    metadataLength: metadata.length, leafDirectoriesOffset: 127 + root.length + metadata.length,
    leafDirectoriesLength: leafLength, tileDataOffset: 127 + root.length + metadata.length + leafLength,
    tileDataLength: dataLength, addressedTilesCount: sorted.reduce((n, t) => n + (t.run ?? 1), 0),
    tileEntriesCount: sorted.length, tileContentsCount: sorted.length, clustered: true,
    internalCompression: gzipDirectories ? Compression.gzip : Compression.none,
    tileCompression: gzipTiles ? Compression.gzip : Compression.none, tileType: 'png',
    minZoom: Math.min(...zooms), maxZoom: Math.max(...zooms), minLon: -180, minLat: -85, maxLon: 180, maxLat: 85,
  };
  return { bytes: concat(encodeHeader(layout), root, metadata, ...leaves, ...data), layout };
}

/** Every tile of zooms `from`..`to`, each with its own small content. */
function allTiles(from, to) {
  const tiles = [];
  for (let z = from; z <= to; z++) {
    for (let x = 0; x < 2 ** z; x++) {
      for (let y = 0; y < 2 ** z; y++) tiles.push({ z, x, y, data: new TextEncoder().encode(`tile ${z}/${x}/${y}`) });
    }
  }
  return tiles;
}

/** A copy of `u8` with the little-endian `width`-byte field at `at` set to `value`. */
function patch(u8, at, width, value) {
  const out = u8.slice();
  let v = BigInt(value);
  for (let i = 0; i < width; i++) {
    out[at + i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** A map whose root directory is `root` (raw, uncompressed) and whose leaf section is `leaves`. */
function rawMap(root, leaves = new Uint8Array(0), data = new TextEncoder().encode('tile data')) {
  const layout = {
    rootDirectoryOffset: 127, rootDirectoryLength: root.length, metadataOffset: 0, metadataLength: 0,
    leafDirectoriesOffset: 127 + root.length, leafDirectoriesLength: leaves.length,
    tileDataOffset: 127 + root.length + leaves.length, tileDataLength: data.length,
    internalCompression: Compression.none, tileCompression: Compression.none, minZoom: 0, maxZoom: 3,
    minLon: -180, minLat: -85, maxLon: 180, maxLat: 85,
  };
  return concat(encodeHeader(layout), root, leaves, data);
}

/**
 * Opens `u8` and reads `tiles` (and a few that are not there) checking the invariants: only
 * PMTilesErrors, a tile or null otherwise, every read inside the map. Returns the errors.
 */
async function exercise(u8, tiles, context) {
  return withTimeout((async () => {
    const source = new CheckedSource(new BytesSource(u8));
    const errors = [];
    let pm;
    try {
      pm = await openPMTiles(source);
    } catch (error) {
      assertPMTilesError(error, null, context);
      errors.push(error);
    }
    for (const [z, x, y] of pm ? tiles : []) {
      try {
        const tile = await pm.getTile(z, x, y);
        assert.ok(tile === null || tile instanceof Uint8Array, `${context}: ${z}/${x}/${y}`);
      } catch (error) {
        assertPMTilesError(error, null, `${context}: ${z}/${x}/${y}`);
        errors.push(error);
      }
    }
    assert.deepEqual(source.violations, [], `${context}: reads outside the map`);
    return { pm, errors };
  })(), 10000, context);
}

async function expectRefused(u8, tiles, codes, context) {
  const { errors } = await exercise(u8, tiles, context);
  assert.ok(errors.length > 0, `${context}: was read without an error`);
  assertPMTilesError(errors[0], codes, context);
}

// MARK: tests

describe('tile ids', () => {
  test('zxyToTileId and tileIdToZxy agree with Python\'s pmtiles, zooms 0 to 30', async () => {
    const random = prng(3);
    const cases = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 0, 1], [26, 2 ** 26 - 1, 0], [27, 5, 2 ** 27 - 1],
      [30, 2 ** 30 - 1, 2 ** 30 - 1], [30, 0, 2 ** 30 - 1], [30, 123456789, 987654321]];
    for (let i = 0; i < 300; i++) {
      const z = Math.floor(random() * 31);
      cases.push([z, Math.floor(random() * 2 ** z), Math.floor(random() * 2 ** z)]);
    }
    const expected = JSON.parse(execFileSync('python3', ['-c', `
import json, sys
from pmtiles.tile import zxy_to_tileid
print(json.dumps([str(zxy_to_tileid(z, x, y)) for z, x, y in json.loads(sys.argv[1])]))
`, JSON.stringify(cases)], { encoding: 'utf8' }));
    const pm = await openPMTiles(new BytesSource(load(SANTIAM_MAP)));
    cases.forEach(([z, x, y], i) => {
      const id = zxyToTileId(z, x, y);
      assert.equal(typeof id, 'bigint');
      assert.equal(id.toString(), expected[i], `${z}/${x}/${y}`);
      assert.equal(pm.tileId(z, x, y), id);
      assert.deepEqual(tileIdToZxy(id), { z, x, y });
    });
    for (let id = 0; id < 5000; id++) {
      const { z, x, y } = tileIdToZxy(id);
      assert.equal(zxyToTileId(z, x, y), BigInt(id));
    }
  });

  test('coordinates that name no tile are refused', async () => {
    const pm = await openPMTiles(new BytesSource(load(SANTIAM_MAP)));
    for (const [z, x, y] of [[31, 0, 0], [-1, 0, 0], [1.5, 0, 0], [0, 1, 0], [0, 0, -1], [3, 8, 0], [3, 0, 8],
      [NaN, 0, 0], [2, 0.5, 0], [Infinity, 0, 0], ['3', 0, 0]]) {
      assert.throws(() => zxyToTileId(z, x, y), (e) => e instanceof PMTilesError && e.code === 'bad-tile');
      await assert.rejects(pm.getTile(z, x, y), (e) => e instanceof PMTilesError && e.code === 'bad-tile');
    }
    const limit = (4n ** 31n - 1n) / 3n;
    assert.deepEqual(tileIdToZxy(limit - 1n), { z: 30, x: 2 ** 30 - 1, y: 0 });
    for (const id of [limit, -1n, 2n ** 64n]) {
      assert.throws(() => tileIdToZxy(id), (e) => e instanceof PMTilesError && e.code === 'bad-tile');
    }
  });
});

describe('maps read as Python reads them', () => {
  for (const [i, path] of FIXTURE_MAPS.entries()) {
    test(`fixture ${path.slice(ROOT.length)}`, async () => {
      for (const source of [new BytesSource(load(path)), new BlobSource(await openAsBlob(path))]) {
        const pm = await openPMTiles(source);
        const { present, absent } = await compareWithPython(pm, python[path], path);
        assert.ok(present > 200, `${present} tiles`);
        if (i > 0) assert.ok(absent > 0, 'the corner-missing map has absent tiles');
      }
    });
  }

  test('a map written by Python with leaf directories', async () => {
    const pm = await openPMTiles(new BytesSource(load(paths.leaves)));
    assert.ok(pm.header.leafDirectoriesLength > 0, 'the map has leaf directories');
    const { present } = await compareWithPython(pm, python[paths.leaves], paths.leaves);
    assert.ok(present > 10000);
  });

  test('a map written by Python with gzip tiles: tiles come back inflated', async () => {
    const pm = await openPMTiles(new BytesSource(load(paths.gzipTiles)));
    assert.equal(pm.header.tileCompression, Compression.gzip);
    const { present } = await compareWithPython(pm, python[paths.gzipTiles], paths.gzipTiles);
    assert.ok(present > 200);
  });

  test('the map inside a package built by trailpack, read in place through the stored entry', async () => {
    const parent = new CheckedSource(new BlobSource(await openAsBlob(paths.santiamPackage)));
    const archive = await openZip(parent);
    const entry = archive.entry('map/santiam-wagon-road.pmtiles');
    assert.equal(entry.method, 0);
    const window = await entryWindow(archive, entry);
    assert.ok(window instanceof RangeSource);
    const range = await archive.dataRange(entry);
    parent.window = [range.start, range.end];
    parent.reads.length = 0;
    const pm = await openPMTiles(window);
    await compareWithPython(pm, python[SANTIAM_MAP], 'santiam package');
    assert.deepEqual(parent.violations, []);
    assert.ok(parent.reads.length > 300);
    assert.ok(parent.reads.every(([o, l]) => o >= range.start && o + l <= range.end));
  });

  test('a map with leaves inside a ZIP written by Python, read in place', async () => {
    const archive = await openZip(new BytesSource(load(paths.pythonZip)));
    const pm = await openPMTiles(await entryWindow(archive, archive.entry('map/leaves.pmtiles')));
    await compareWithPython(pm, python[paths.leaves], 'leaves in a zip');
  });
});

describe('maps of every directory shape', () => {
  const tiles = allTiles(0, 4);
  for (const levels of [0, 1, 2, 3]) {
    for (const gzipDirectories of [true, false]) {
      test(`${levels} leaf levels, directories ${gzipDirectories ? 'gzip' : 'uncompressed'}`, async () => {
        const { bytes } = buildMap(tiles, { levels, fanout: 7, gzipDirectories, gzipTiles: levels === 1 });
        const source = new CheckedSource(new BytesSource(bytes));
        const pm = await openPMTiles(source);
        for (const t of tiles) assert.deepEqual(await pm.getTile(t.z, t.x, t.y), t.data, `${t.z}/${t.x}/${t.y}`);
        assert.equal(await pm.getTile(5, 0, 0), null);
        assert.equal(await pm.getTile(12, 100, 100), null);
        assert.deepEqual(source.violations, []);
      });
    }
  }

  test('runs: one content for many consecutive tiles', async () => {
    const ocean = new TextEncoder().encode('ocean');
    const { bytes } = buildMap([{ z: 2, x: 0, y: 0, data: ocean, run: 16 }, { z: 3, x: 0, y: 0, data: ocean }]);
    const pm = await openPMTiles(new BytesSource(bytes));
    for (let x = 0; x < 4; x++) for (let y = 0; y < 4; y++) assert.deepEqual(await pm.getTile(2, x, y), ocean);
    assert.deepEqual(await pm.getTile(3, 0, 0), ocean);
    assert.equal(await pm.getTile(3, 1, 0), null);
    assert.equal(await pm.getTile(1, 0, 0), null);
  });

  test('a fourth leaf level is refused, as a loop would be', async () => {
    const tiles4 = allTiles(0, 2);
    const { bytes } = buildMap(tiles4, { levels: 4, fanout: 2 });
    const pm = await openPMTiles(new BytesSource(bytes));
    await assert.rejects(pm.getTile(0, 0, 0), (e) => e instanceof PMTilesError && e.code === 'directory');
    const deeper = await openPMTiles(new BytesSource(bytes), { maxLeafDepth: 4 });
    assert.deepEqual(await deeper.getTile(2, 3, 3), tiles4.at(-1).data);
  });

  test('leaf directories are cached: a second tile in the same leaf reads no directory', async () => {
    const { bytes, layout } = buildMap(allTiles(0, 4), { levels: 1, fanout: 50 });
    const source = new CheckedSource(new BytesSource(bytes));
    const inLeaves = () => source.reads.filter(([o]) => o >= layout.leafDirectoriesOffset &&
      o < layout.leafDirectoriesOffset + layout.leafDirectoriesLength).length;
    const pm = await openPMTiles(source);
    await pm.getTile(4, 0, 0);
    assert.equal(inLeaves(), 1);
    await pm.getTile(4, 0, 1);
    await pm.getTile(4, 0, 0);
    assert.equal(inLeaves(), 1);
    const small = await openPMTiles(source, { cacheSize: 1 });
    const before = inLeaves();
    await small.getTile(0, 0, 0);
    await small.getTile(4, 15, 0);
    await small.getTile(0, 0, 0);
    assert.equal(inLeaves() - before, 3, 'with one directory cached, alternating leaves read each time');
  });
});

describe('hostile maps', () => {
  const tiles = allTiles(0, 3);
  const probes = [...tiles.map((t) => [t.z, t.x, t.y]), [4, 0, 0], [9, 3, 3]];

  test('header fields pointing outside the file, overlapping, or out of range', async () => {
    const { bytes, layout } = buildMap(tiles, { levels: 1, fanout: 8 });
    const size = bytes.length;
    const fields = ['rootDirectoryOffset', 'rootDirectoryLength', 'metadataOffset', 'metadataLength',
      'leafDirectoriesOffset', 'leafDirectoriesLength', 'tileDataOffset', 'tileDataLength'];
    const cases = [];
    fields.forEach((key, i) => {
      for (const value of [size + 1, size, 2n ** 53n - 1n, 2n ** 53n, 2n ** 63n, 2n ** 64n - 1n]) {
        cases.push([`${key} = ${value}`, patch(bytes, 8 + 8 * i, 8, value), null]);
      }
      cases.push([`${key} + 1`, patch(bytes, 8 + 8 * i, 8, layout[key] + 1), null]);
    });
    cases.push(
      ['root inside the header', patch(bytes, 8, 8, 100), ['header']],
      ['root longer than 16 KiB', patch(patch(bytes, 16, 8, 20000), 8, 8, 127), null],
      ['root empty', patch(bytes, 16, 8, 0), ['header']],
      ['tile data over the leaves', patch(bytes, 56, 8, layout.leafDirectoriesOffset), ['header']],
      ['not PMTiles', patch(bytes, 0, 1, 0x51), ['not-pmtiles']],
      ['version 2', patch(bytes, 7, 1, 2), ['version']],
      ['clustered 2', patch(bytes, 96, 1, 2), ['header']],
      ['directories in brotli', patch(bytes, 97, 1, 3), ['compression']],
      ['directories in unknown compression', patch(bytes, 97, 1, 0), ['compression']],
      ['tiles in zstd', patch(bytes, 98, 1, 4), ['compression']],
      ['tiles in compression 9', patch(bytes, 98, 1, 9), ['compression']],
      ['min zoom above max zoom', patch(bytes, 100, 1, 5), ['header']],
      ['max zoom 31', patch(bytes, 101, 1, 31), ['header']],
      ['longitude 181', patch(bytes, 110, 4, 1810000000), ['header']],
      ['west of east', patch(patch(bytes, 102, 4, 1790000000), 110, 4, 1780000000), ['header']],
      ['latitude -91', patch(bytes, 106, 4, -910000000 >>> 0), ['header']],
      ['directories claimed uncompressed', patch(bytes, 97, 1, Compression.none), ['directory']],
      ['directories claimed gzip', patch(buildMap(tiles, { gzipDirectories: false }).bytes, 97, 1, 2),
        ['directory']],
      ['tiles claimed gzip', patch(bytes, 98, 1, Compression.gzip), ['tile-data']],
      ['empty file', new Uint8Array(0), ['truncated']],
      ['header only', bytes.subarray(0, 127), ['truncated']],
    );
    for (const [what, u8, codes] of cases) await expectRefused(u8, probes, codes, what);
  });

  test('directories: varint overflow, bad counts, ids, runs and offsets', async () => {
    const tile = (id, offset = 0, length = 4) => ({ id, run: 1, length, offset });
    const cases = [
      ['a 10-byte varint', Uint8Array.from([1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 1, 4, 1])],
      ['a varint of 2^60', Uint8Array.from([1, 0, 1, 4, ...varint(2n ** 60n)])],
      ['a varint of 2^53', Uint8Array.from([1, 0, 1, 4, ...varint(2n ** 53n)])],
      ['a varint cut short', Uint8Array.from([1, 0, 1, 4, 0x81])],
      ['a count of 2^50', Uint8Array.from([...varint(2n ** 50n), 0, 1, 4, 1])],
      ['a count of 0', Uint8Array.from([0])],
      ['a count larger than the bytes', Uint8Array.from([3, 0, 1, 4, 1])],
      ['bytes after the last entry', concat(encodeDirectory([tile(0n)]), Uint8Array.of(0))],
      ['the same id twice', encodeDirectory([tile(1n), tile(1n, 4)])],
      ['an id beyond zoom 30', encodeDirectory([tile((4n ** 31n - 1n) / 3n)])],
      ['a run past zoom 30', encodeDirectory([{ ...tile((4n ** 31n - 1n) / 3n - 2n), run: 5 }])],
      ['a run over 32 bits', encodeDirectory([{ ...tile(0n), run: 2 ** 32 }])],
      ['a length over 32 bits', encodeDirectory([tile(0n, 0, 2 ** 32)])],
      ['a first offset of 0 (no previous entry)', Uint8Array.from([1, 0, 1, 4, 0])],
      ['a tile past the tile data', encodeDirectory([tile(0n, 5, 100)])],
      ['a tile of length 0', encodeDirectory([tile(0n, 0, 0)])],
      ['a tile offset of 2^52', encodeDirectory([tile(0n, 2 ** 52, 4)])],
      ['a leaf pointing past the leaf section', encodeDirectory([{ id: 0n, run: 0, length: 2 ** 32 - 1, offset: 0 }])],
      ['a leaf of length 0', encodeDirectory([{ id: 0n, run: 0, length: 0, offset: 0 }])],
    ];
    for (const [what, root] of cases) {
      await expectRefused(rawMap(root), [[0, 0, 0], [1, 0, 0], [3, 7, 7]], ['directory', 'tile-data'], what);
    }
  });

  test('leaf loops end: a leaf pointing to itself, two leaves pointing to each other', async () => {
    // A leaf directory whose only entry points back at itself: its length is in its own bytes.
    const selfLoop = (() => {
      for (let length = 1; ; length++) {
        const leaf = encodeDirectory([{ id: 0n, run: 0, length, offset: 0 }]);
        if (leaf.length === length) return leaf;
      }
    })();
    const root = encodeDirectory([{ id: 0n, run: 0, length: selfLoop.length, offset: 0 }]);
    await expectRefused(rawMap(root, selfLoop), [[0, 0, 0], [2, 1, 1]], ['directory'], 'a leaf pointing to itself');
    const a = encodeDirectory([{ id: 0n, run: 0, length: 5, offset: 5 }]);
    const b = encodeDirectory([{ id: 0n, run: 0, length: 5, offset: 0 }]);
    assert.equal(a.length + b.length, 10);
    const pair = rawMap(encodeDirectory([{ id: 0n, run: 0, length: 5, offset: 0 }]), concat(a, b));
    await expectRefused(pair, [[0, 0, 0], [5, 3, 3]], ['directory'], 'two leaves pointing to each other');
  });

  test('gzip bombs: a directory or a tile inflating past the limits', async () => {
    const zeros = new Uint8Array(17 << 20);
    const bomb = new Uint8Array(gzipSync(zeros));
    // A leaf directory that inflates to 17 MiB.
    const root = encodeDirectory([{ id: 0n, run: 0, length: bomb.length, offset: 0 }]);
    const gzRoot = new Uint8Array(gzipSync(root));
    const withGzipRoot = concat(encodeHeader({
      rootDirectoryOffset: 127, rootDirectoryLength: gzRoot.length, leafDirectoriesOffset: 127 + gzRoot.length,
      leafDirectoriesLength: bomb.length, tileDataOffset: 127 + gzRoot.length + bomb.length, tileDataLength: 4,
      internalCompression: Compression.gzip, tileCompression: Compression.none, minZoom: 0, maxZoom: 3,
      minLon: -180, minLat: -85, maxLon: 180, maxLat: 85,
    }), gzRoot, bomb, Uint8Array.of(1, 2, 3, 4));
    await expectRefused(withGzipRoot, [[0, 0, 0]], ['directory'], 'a leaf directory of 17 MiB');
    // A root directory that inflates past a small limit.
    const { bytes } = buildMap(allTiles(0, 4));
    await assert.rejects(openPMTiles(new BytesSource(bytes), { maxDirectoryBytes: 64 }),
      (e) => e instanceof PMTilesError && e.code === 'directory');
    // A tile that inflates to 17 MiB.
    const { bytes: tileBomb } = buildMap([{ z: 0, x: 0, y: 0, data: zeros }], { gzipTiles: true });
    await expectRefused(tileBomb, [[0, 0, 0]], ['tile-data'], 'a tile of 17 MiB');
    const pm = await openPMTiles(new BytesSource(tileBomb), { maxTileBytes: 32 << 20 });
    assert.equal((await pm.getTile(0, 0, 0)).length, zeros.length);
  });

  test('truncated maps are refused at every length', async () => {
    const small = load(FIXTURE_MAPS.find((p) => p.includes('corner-missing')));
    for (let n = 0; n < small.length; n++) await expectRefused(small.subarray(0, n), [[8, 40, 90]], null, `cut ${n}`);
    const big = load(SANTIAM_MAP);
    for (let n = 0; n < big.length; n += 1999) await expectRefused(big.subarray(0, n), [], null, `cut ${n}`);
    await expectRefused(big.subarray(0, big.length - 1), [], ['truncated'], 'one byte short');
  });

  test('seeded mutants: a PMTilesError, or tiles and nulls, never a read outside', async (t) => {
    const seed = Number(process.env.TRAILPACK_JS_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const count = Number(process.env.TRAILPACK_JS_FUZZ_COUNT ?? 1500);
    t.diagnostic(`seed ${seed} (replay with TRAILPACK_JS_FUZZ_SEED=${seed}), ${count} mutants`);
    const random = prng(seed);
    const int = (n) => Math.floor(random() * n);
    const bases = [
      buildMap(tiles, { levels: 1, fanout: 6, gzipDirectories: false }),
      buildMap(tiles, { levels: 2, fanout: 4, gzipDirectories: false }),
      buildMap(tiles, { levels: 1, fanout: 9, gzipDirectories: true }),
      buildMap(tiles, { levels: 0, gzipDirectories: false, gzipTiles: true }),
      { bytes: load(FIXTURE_MAPS.find((p) => p.includes('corner-missing'))), layout: null },
    ];
    let refused = 0;
    for (let i = 0; i < count; i++) {
      const base = bases[int(bases.length)];
      let u8 = base.bytes.slice();
      for (let steps = 1 + int(3); steps > 0; steps--) {
        const kind = int(4);
        if (kind === 0) { // a header number set to a value near a boundary
          const at = 8 + 8 * int(11);
          const values = [0n, 1n, 127n, BigInt(u8.length), BigInt(u8.length + 1), 2n ** 32n - 1n, 2n ** 53n,
            2n ** 64n - 1n, BigInt(int(u8.length))];
          u8 = patch(u8, at, 8, values[int(values.length)]);
        } else if (kind === 1) { // a byte of the directories (or anywhere in the first 2 KiB)
          const end = base.layout ? base.layout.tileDataOffset : Math.min(u8.length, 2048);
          u8[127 + int(Math.max(1, end - 127))] = int(256);
        } else if (kind === 2) { // a header byte
          u8[96 + int(31)] = int(256);
        } else { // truncated
          u8 = u8.slice(0, int(u8.length));
        }
      }
      const { pm } = await exercise(u8, probes, `mutant ${i} of seed ${seed}`);
      if (!pm) refused++;
    }
    t.diagnostic(`${refused} of ${count} refused when opened`);
    assert.ok(refused > count / 10);
  });
});
