// Tests of the visitor app's byte sources (app/js/bytes.js) and ZIP reader (app/js/zip.js), with
// Node's test runner: `node --test Tests/VisitorAppJS/zip.test.mjs`.
//
// Packages built by `trailpack build` and archives written by Info-ZIP, Python's zipfile and
// bsdtar must read exactly as Python's zipfile reads them; damaged and hostile archives (the
// fuzzing crashes, structural mutants, a deflate bomb, truncations, a seeded loop of mutants)
// must be refused with a ZipError, never a hang, another exception, or a read outside the file
// or outside the entry being read. TRAILPACK_BIN overrides the trailpack binary;
// TRAILPACK_JS_FUZZ_SEED replays a run of the mutant loop, TRAILPACK_JS_FUZZ_COUNT sizes it.

import {
  CheckedSource, concat, deflatedFile, makeZip, prng, storedFile, withTimeout,
} from './support.mjs';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, openAsBlob, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { BlobSource, BytesError, BytesSource, RangeSource, readU16, readU32, readU64 }
  from '../../Sources/TrailPackVisitor/app/js/bytes.js';
import { crc32, entryWindow, openZip, ZipError } from '../../Sources/TrailPackVisitor/app/js/zip.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = process.env.TRAILPACK_BIN || join(ROOT, '.build/debug/trailpack');
const FIXTURES = join(ROOT, 'fixtures');
const PACKAGES = ['santiam-wagon-road', 'family-hikes', 'colorado-fourteeners'];
const SEEDS = readdirSync(join(FIXTURES, 'fuzz/seeds')).filter((f) => f.endsWith('.zip'))
  .map((f) => join(FIXTURES, 'fuzz/seeds', f));
const CRASHES = readdirSync(join(FIXTURES, 'fuzz/crashes')).filter((f) => f.endsWith('.zip'))
  .map((f) => join(FIXTURES, 'fuzz/crashes', f));

let work;
/** @type {Record<string, string>} package name -> path of the built package */
const built = {};
/** @type {Record<string, string>} archive name -> path of an archive written by another program */
const archives = {};

before(() => {
  work = mkdtempSync(join(tmpdir(), 'trailpack-zip-js-'));
  for (const name of PACKAGES) {
    built[name] = join(work, `${name}.zip`);
    execFileSync(BIN, ['build', join(FIXTURES, name), '-o', built[name]], { stdio: 'pipe' });
  }
  writeOtherArchives();
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

// MARK: helpers

/** Archives of two small trees written by Info-ZIP, bsdtar and Python's zipfile, into `archives`. */
function writeOtherArchives() {
  // Two trees: one with ASCII names only (Info-ZIP does not flag UTF-8 names), one with more.
  const trees = {
    ascii: join(work, 'tree-ascii'), unicode: join(work, 'tree-unicode'), small: join(work, 'tree-small'),
  };
  const random = prng(42);
  const big = Array.from({ length: 60000 }, (_, i) => `line ${i}: the wagon road climbs ${i % 97} feet\n`).join('');
  const noise = new Uint8Array(2500000).map(() => random() * 256);
  for (const [kind, dir] of Object.entries(trees)) {
    mkdirSync(join(dir, 'a/b'), { recursive: true });
    writeFileSync(join(dir, 'a/small.txt'), 'hello\n');
    writeFileSync(join(dir, 'a/b/big.txt'), big);
    writeFileSync(join(dir, 'random.bin'), noise);
    writeFileSync(join(dir, 'empty.txt'), '');
    if (kind === 'small') {
      rmSync(join(dir, 'random.bin'));
      writeFileSync(join(dir, 'a/b/big.txt'), big.slice(0, 5000));
    }
    if (kind !== 'ascii') {
      mkdirSync(join(dir, 'café'));
      writeFileSync(join(dir, 'café/naïve ünïcødé.txt'), 'Grüße\n');
    }
  }
  const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: 'pipe', env: { ...process.env,
    LC_ALL: 'C.UTF-8' } });
  const out = (name) => (archives[name] = join(work, `${name}.zip`));
  run('zip', ['-q', '-r', '-X', out('infozip-deflate'), '.'], trees.ascii);
  run('zip', ['-q', '-r', '-X', '-0', out('infozip-store'), '.'], trees.ascii);
  run('zip', ['-q', '-r', '-X', '-fz', out('infozip-zip64'), '.'], trees.ascii);
  run('zip', ['-q', '-r', '-X', out('infozip-unicode'), '.'], trees.unicode);
  const names = ['a', 'random.bin', 'empty.txt', 'café'];
  run('bsdtar', ['--format', 'zip', '-cf', out('bsdtar-deflate'), ...names], trees.unicode);
  run('bsdtar', ['--format', 'zip', '--options', 'zip:compression=store', '-cf', out('bsdtar-store'), ...names],
    trees.unicode);
  run('bsdtar', ['--format', 'zip', '--options', 'zip:zip64', '-cf', out('bsdtar-zip64'), ...names], trees.unicode);
  run('bsdtar', ['--format', 'zip', '--options', 'zip:zip64', '-cf', out('bsdtar-zip64-small'), 'a', 'empty.txt',
    'café'], trees.small);
  const python = `
import os, sys, zipfile
src, path = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(path, 'w') as z:
    n = 0
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for f in sorted(files):
            info = zipfile.ZipInfo(os.path.relpath(os.path.join(root, f), src))
            info.compress_type = zipfile.ZIP_DEFLATED if n % 2 == 0 else zipfile.ZIP_STORED
            n += 1
            with open(os.path.join(root, f), 'rb') as data, z.open(info, 'w', force_zip64=True) as w:
                w.write(data.read())
`;
  run('python3', ['-c', python, trees.unicode, out('python-zip64')]);
  run('python3', ['-c', python, trees.small, out('python-zip64-small')]);
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const load = (path) => new Uint8Array(readFileSync(path));

const PY_DIGESTS = `
import hashlib, json, sys, zipfile
out = {}
for path in sys.argv[1:]:
    with zipfile.ZipFile(path) as z:
        out[path] = [[i.filename, hashlib.sha256(z.read(i)).hexdigest()] for i in z.infolist()]
print(json.dumps(out))
`;

/** What Python's zipfile reads: path -> [[name, sha256], ...] in central-directory order. */
function pythonDigests(paths) {
  return JSON.parse(execFileSync('python3', ['-c', PY_DIGESTS, ...paths], { encoding: 'utf8', maxBuffer: 1 << 26 }));
}

/** Everything a stream yields, joined. */
async function readAll(stream) {
  const chunks = [];
  let length = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    length += chunk.length;
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function assertZipError(error, codes, context) {
  if (!(error instanceof ZipError)) {
    assert.fail(`${context}: expected a ZipError, got ${(error && error.stack) || error}`);
  }
  assert.equal(typeof error.code, 'string');
  assert.ok(error.message.length > 0);
  if (codes && !codes.includes(error.code)) {
    assert.fail(`${context}: expected a ZipError ${codes.join(' or ')}, got '${error.code}': ${error.message}`);
  }
}

/**
 * Opens `u8` and reads every entry (dataRange, stream, blob), checking the invariants: only
 * ZipErrors; every read inside the file and, for an entry, inside its data; a stream that ends
 * has exactly the declared size and CRC-32; data ranges that do not overlap. Returns the errors
 * in the order met. `blobs: 'stored'` skips blob() of deflated entries (the same stream again).
 */
async function exercise(u8, context, { timeout = 10000, blobs = 'all' } = {}) {
  return withTimeout((async () => {
    const source = new CheckedSource(new BytesSource(u8));
    const errors = [];
    let archive;
    try {
      archive = await openZip(source);
    } catch (error) {
      assertZipError(error, null, context);
      errors.push(error);
    }
    const spans = [];
    for (const entry of archive ? archive.entries : []) {
      const where = `${context}, '${entry.name}'`;
      source.window = null;
      let range;
      try {
        range = await archive.dataRange(entry);
      } catch (error) {
        assertZipError(error, null, where);
        errors.push(error);
        continue;
      }
      assert.ok(range.start >= entry.localHeaderOffset + 30 && range.start <= range.end && range.end <= u8.length,
        `${where}: range ${JSON.stringify(range)}`);
      assert.equal(range.end - range.start, entry.compressedSize, where);
      spans.push([entry.localHeaderOffset, range.end]);
      source.window = [range.start, range.end];
      for (const how of blobs === 'all' || entry.method === 0 ? ['stream', 'blob'] : ['stream']) {
        let out = null;
        try {
          out = how === 'stream' ? await readAll(archive.stream(entry))
            : new Uint8Array(await (await archive.blob(entry)).arrayBuffer());
        } catch (error) {
          assertZipError(error, null, `${where} (${how})`);
          errors.push(error);
        }
        if (out) {
          assert.equal(out.length, entry.size, `${where}: ${how} gave ${out.length} bytes`);
          if (how === 'stream') assert.equal(crc32(out), entry.crc32, `${where}: the stream ended with a bad CRC`);
        }
      }
    }
    source.window = null;
    spans.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < spans.length; i++) {
      assert.ok(spans[i - 1][1] <= spans[i][0], `${context}: entries overlap: ${spans[i - 1]} and ${spans[i]}`);
    }
    assert.deepEqual(source.violations, [], `${context}: reads outside the file or the entry`);
    return { archive, errors };
  })(), timeout, context);
}

/** Asserts that `u8` is refused: its first error is a ZipError with one of `codes`. */
async function expectRefused(u8, codes, context) {
  const { errors } = await exercise(u8, context);
  assert.ok(errors.length > 0, `${context}: was read without an error`);
  assertZipError(errors[0], codes, context);
  return errors[0];
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

/** A copy of `u8` with `bytes` written at `at`. */
function overwrite(u8, at, bytes) {
  const out = u8.slice();
  out.set(bytes, at);
  return out;
}

/**
 * The layout of a valid archive, read trustingly (it is only given archives Python reads): the
 * end records, each central-directory record and each local header, with their positions.
 */
function layout(u8) {
  let eocd = u8.length - 22;
  while (readU32(u8, eocd) !== 0x06054b50) eocd--;
  let count = readU16(u8, eocd + 10);
  let cdSize = readU32(u8, eocd + 12);
  let cdOffset = readU32(u8, eocd + 16);
  let zip64 = null;
  if (eocd >= 20 && readU32(u8, eocd - 20) === 0x07064b50) {
    const record = readU64(u8, eocd - 12);
    zip64 = { locator: eocd - 20, record };
    count = readU64(u8, record + 32);
    cdSize = readU64(u8, record + 40);
    cdOffset = readU64(u8, record + 48);
  }
  const records = [];
  let at = cdOffset;
  for (let i = 0; i < count; i++) {
    const nameLength = readU16(u8, at + 28);
    const extraLength = readU16(u8, at + 30);
    const extraAt = at + 46 + nameLength;
    let usize = readU32(u8, at + 24);
    let csize = readU32(u8, at + 20);
    let lho = readU32(u8, at + 42);
    const extras = [];
    for (let p = extraAt; p + 4 <= extraAt + extraLength; p += 4 + readU16(u8, p + 2)) extras.push(p);
    const z = extras.find((p) => readU16(u8, p) === 1);
    const wide = [];
    if (z !== undefined) {
      let p = z + 4;
      if (usize === 0xffffffff) { usize = readU64(u8, p); wide.push(p); p += 8; }
      if (csize === 0xffffffff) { csize = readU64(u8, p); wide.push(p); p += 8; }
      if (lho === 0xffffffff) { lho = readU64(u8, p); wide.push(p); p += 8; }
    }
    records.push({
      at, nameAt: at + 46, nameLength, extraAt, extraLength, extras, wide, lho, csize, usize,
      method: readU16(u8, at + 10), flags: readU16(u8, at + 8), name: new TextDecoder().decode(u8.subarray(at + 46,
        at + 46 + nameLength)),
    });
    at = extraAt + extraLength + readU16(u8, at + 32);
  }
  const locals = records.map((r) => {
    const nameLength = readU16(u8, r.lho + 26);
    const extraLength = readU16(u8, r.lho + 28);
    return { at: r.lho, nameAt: r.lho + 30, dataAt: r.lho + 30 + nameLength + extraLength, csize: r.csize };
  });
  return { eocd, zip64, count, cdSize, cdOffset, records, locals };
}

/**
 * A copy of `u8` (whose layout is `L`) where entry `index` declares `value` as its size or its
 * CRC-32 (`field`) everywhere: in the central directory, in its local header (unless zero) and
 * in its data descriptor. Only the data disagrees.
 */
function declare(u8, L, index, field, value) {
  const r = L.records[index];
  const local = L.locals[index];
  const [central, inLocal, inDescriptor] = field === 'size' ? [24, 22, 8] : [16, 14, 0];
  let out = patch(u8, r.at + central, 4, value);
  if (readU32(u8, local.at + inLocal) !== 0) out = patch(out, local.at + inLocal, 4, value);
  if (r.flags & 8) {
    const d = local.dataAt + r.csize;
    out = patch(out, d + (readU32(u8, d) === 0x08074b50 ? 4 : 0) + inDescriptor, 4, value);
  }
  return out;
}

// MARK: bytes.js

describe('bytes.js', () => {
  test('sources read exactly the bytes asked for, and refuse anything outside', async () => {
    const u8 = new Uint8Array(100).map((_, i) => i);
    const sources = [new BytesSource(u8), new BlobSource(new Blob([u8])),
      new RangeSource(new BytesSource(new Uint8Array(300).map((_, i) => (i - 100) & 0xff)), 100, 100)];
    for (const s of sources) {
      assert.equal(s.size, 100);
      assert.deepEqual([...await s.read(10, 5)], [10, 11, 12, 13, 14]);
      assert.equal((await s.read(100, 0)).length, 0);
      assert.deepEqual([...new Uint8Array(await s.slice(98, 100).arrayBuffer())], [98, 99]);
      for (const [o, l] of [[-1, 1], [0, 101], [99, 2], [101, 0], [0.5, 1], [0, -1], [2 ** 53, 1], [NaN, 1],
        [1, Infinity], ['1', 1]]) {
        await assert.rejects(s.read(o, l), BytesError, `read(${o}, ${l})`);
      }
      assert.throws(() => s.slice(50, 101), BytesError);
      assert.throws(() => s.slice(60, 50), BytesError);
    }
    assert.throws(() => new RangeSource(new BytesSource(u8), 50, 51), BytesError);
    assert.equal(new RangeSource({ size: 10, read: async () => new Uint8Array(0) }, 0, 10).slice, undefined);
  });

  test('a Blob that returns fewer bytes than asked is an error', async () => {
    const liar = new BlobSource(new Blob([new Uint8Array(10)]));
    liar.size = 20;
    await assert.rejects(liar.read(5, 10), BytesError);
  });

  test('readU16, readU32 and readU64 are little-endian, bounded, and exact up to 2^53 - 1', () => {
    const b = Uint8Array.from([1, 2, 3, 4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0]);
    assert.equal(readU16(b, 0), 0x0201);
    assert.equal(readU32(b, 0), 0x04030201);
    assert.equal(readU32(b, 4), 0xffffffff);
    assert.equal(readU64(b, 4), Number.MAX_SAFE_INTEGER);
    assert.equal(readU64(Uint8Array.from([1, 0, 0, 0, 2, 0, 0, 0]), 0), 2 * 2 ** 32 + 1);
    assert.throws(() => readU64(Uint8Array.from([0, 0, 0, 0, 0, 0, 0x20, 0]), 0), BytesError);
    assert.throws(() => readU64(Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0x80]), 0), BytesError);
    assert.throws(() => readU32(b, 9), BytesError);
    assert.throws(() => readU16(b, -1), BytesError);
  });
});

// MARK: reading

describe('crc32', () => {
  test('matches the check value, continues across calls, and agrees with Python on 3 MB', () => {
    assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
    assert.equal(crc32(new Uint8Array(0)), 0);
    const random = prng(1);
    const data = new Uint8Array(3 << 20).map(() => random() * 256);
    const path = join(work, 'crc.bin');
    writeFileSync(path, data);
    const python = Number(execFileSync('python3', ['-c',
      'import sys, zlib; print(zlib.crc32(open(sys.argv[1], "rb").read()))', path], { encoding: 'utf8' }));
    assert.equal(crc32(data), python);
    for (const cut of [0, 1, 7, 8, 9, 1000, data.length]) {
      assert.equal(crc32(data.subarray(cut), crc32(data.subarray(0, cut))), python, `cut at ${cut}`);
    }
  });
});

/**
 * Reads `path` through a Blob of the file (and a BytesSource) and compares every entry, by
 * stream and by blob, with Python's digests.
 */
async function compareWithPython(path, digests) {
  for (const source of [new BlobSource(await openAsBlob(path)), new BytesSource(load(path))]) {
    const kind = source.constructor.name;
    const archive = await openZip(source);
    assert.deepEqual(archive.entries.map((e) => e.name), digests.map(([name]) => name), `${path} (${kind})`);
    for (const [i, entry] of archive.entries.entries()) {
      assert.equal(archive.entry(entry.name), entry);
      const streamed = await readAll(archive.stream(entry));
      assert.equal(sha256(streamed), digests[i][1], `${path}: '${entry.name}' by stream (${kind})`);
      const blob = await archive.blob(entry, 'application/x-test');
      assert.equal(blob.type, 'application/x-test');
      assert.equal(sha256(new Uint8Array(await blob.arrayBuffer())), digests[i][1],
        `${path}: '${entry.name}' by blob (${kind})`);
      assert.equal(sha256(await archive.bytes(entry)), digests[i][1], `${path}: '${entry.name}' by bytes (${kind})`);
    }
    assert.equal(archive.entry('no/such/entry'), undefined);
  }
}

describe('packages built by trailpack', () => {
  for (const name of PACKAGES) {
    test(`${name}: every entry reads as Python reads it; the list is unzip's`, async () => {
      const path = built[name];
      const digests = pythonDigests([path])[path];
      const unzipList = execFileSync('unzip', ['-Z1', path], { encoding: 'utf8' }).split('\n').filter(Boolean);
      assert.deepEqual(digests.map(([n]) => n), unzipList);
      assert.ok(digests.length >= 3);
      await compareWithPython(path, digests);
      const { errors } = await exercise(load(path), name);
      assert.deepEqual(errors, []);
    });
  }

  test('the stored map is read in place through entryWindow, and blob() slices without reading', async () => {
    const source = new CheckedSource(new BlobSource(await openAsBlob(built['santiam-wagon-road'])));
    const archive = await openZip(source);
    const entry = archive.entry('map/santiam-wagon-road.pmtiles');
    assert.equal(entry.method, 0);
    const map = load(join(FIXTURES, 'santiam-wagon-road/map/santiam-wagon-road.pmtiles'));
    const window = await entryWindow(archive, entry);
    assert.ok(window instanceof RangeSource);
    assert.equal(window.size, map.length);
    const range = await archive.dataRange(entry);
    assert.deepEqual(range, await archive.window(entry).then((w) => ({ start: w.start, end: w.start + w.size })));
    source.window = [range.start, range.end];
    assert.deepEqual(await window.read(0, 127), map.subarray(0, 127));
    assert.deepEqual(await window.read(map.length - 1000, 1000), map.subarray(map.length - 1000));
    await assert.rejects(window.read(map.length - 10, 11), BytesError);
    const before = source.bytesRead;
    const blob = await archive.blob(entry, 'application/vnd.pmtiles');
    assert.equal(source.bytesRead, before, 'a stored entry is sliced, not read');
    assert.equal(blob.type, 'application/vnd.pmtiles');
    assert.equal(sha256(new Uint8Array(await blob.arrayBuffer())), sha256(map));
    assert.deepEqual(source.violations, []);
    const manifest = archive.entry('manifest.json');
    assert.equal(manifest.method, 8);
    await assert.rejects(entryWindow(archive, manifest),
      (e) => e instanceof ZipError && e.code === 'unsupported-method');
  });

  test('bytes() refuses an entry larger than its limit before reading it', async () => {
    const source = new CheckedSource(new BytesSource(load(built['family-hikes'])));
    const archive = await openZip(source);
    const manifest = archive.entry('manifest.json');
    const before = source.bytesRead;
    await assert.rejects(archive.bytes(manifest, manifest.size - 1), (e) => e instanceof ZipError && e.code === 'size');
    assert.equal(source.bytesRead, before);
    assert.equal((await archive.bytes(manifest, manifest.size)).length, manifest.size);
  });

  test('limits: entries, central directory bytes, name bytes', async () => {
    const u8 = load(built['family-hikes']);
    const count = layout(u8).count;
    await assert.rejects(openZip(new BytesSource(u8), { maxEntries: count - 1 }),
      (e) => e instanceof ZipError && e.code === 'too-many-entries');
    await assert.rejects(openZip(new BytesSource(u8), { maxCentralDirectoryBytes: 100 }),
      (e) => e instanceof ZipError && e.code === 'too-large');
    await assert.rejects(openZip(new BytesSource(u8), { maxNameBytes: 12 }),
      (e) => e instanceof ZipError && e.code === 'bad-name');
    assert.equal((await openZip(new BytesSource(u8), { maxEntries: count })).entries.length, count);
  });

  test('an entry from another archive is a programming error, not a read', async () => {
    const a = await openZip(new BytesSource(load(built['family-hikes'])));
    const b = await openZip(new BytesSource(load(built['colorado-fourteeners'])));
    assert.throws(() => a.stream(b.entries[0]), TypeError);
    assert.throws(() => a.dataRange(b.entries[0]), TypeError);
  });
});

describe('archives written by other programs', () => {
  test('Info-ZIP, bsdtar, Python (forced ZIP64) and the fuzzing seeds read as Python reads them', async () => {
    const paths = [...Object.entries(archives).filter(([n]) => n !== 'infozip-unicode').map(([, p]) => p), ...SEEDS];
    const digests = pythonDigests(paths);
    for (const path of paths) {
      assert.ok(digests[path].length >= 3, path);
      await compareWithPython(path, digests[path]);
      const { errors } = await exercise(load(path), path);
      assert.deepEqual(errors, [], path);
    }
    // The ZIP64 writers really wrote ZIP64 records.
    assert.ok(layout(load(archives['infozip-zip64'])).zip64);
    assert.ok(layout(load(archives['bsdtar-zip64'])).zip64);
    assert.ok(layout(load(archives['python-zip64'])).locals.length > 0);
    const names = (await openZip(new BytesSource(load(archives['bsdtar-deflate'])))).entries.map((e) => e.name);
    assert.ok(names.includes('café/naïve ünïcødé.txt'));
  });

  test('a stream cancelled part way reads no further', async () => {
    for (const name of ['infozip-store', 'infozip-deflate']) {
      const source = new CheckedSource(new BytesSource(load(archives[name])));
      const archive = await openZip(source);
      const entry = archive.entry(name === 'infozip-store' ? 'random.bin' : 'a/b/big.txt');
      assert.equal(entry.method, name === 'infozip-store' ? 0 : 8);
      const range = await archive.dataRange(entry);
      source.window = [range.start, range.end];
      const start = source.bytesRead;
      const reader = archive.stream(entry).getReader();
      const first = await reader.read();
      assert.ok(first.value.length > 0 && first.value.length <= 1 << 20);
      await reader.cancel();
      const read = source.bytesRead;
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(source.bytesRead, read, `${name}: reads after the cancel`);
      // Node's DecompressionStream (v20) takes all its input before giving output, unlike browsers', whose
      // backpressure stops the input a piece or two ahead: only stored data shows that reading stopped early.
      if (entry.method === 0) assert.ok(read - start < entry.compressedSize, `${name}: read whole before the cancel`);
      assert.deepEqual(source.violations, []);
    }
  });

  test('Info-ZIP\'s non-ASCII names without the UTF-8 flag are refused: readers decode them differently', async () => {
    await expectRefused(load(archives['infozip-unicode']), ['bad-name'], 'infozip-unicode');
  });
});

// MARK: hostile archives

describe('hostile archives', () => {
  test('the fuzzing crashes are refused', async () => {
    assert.ok(CRASHES.length >= 5);
    for (const path of CRASHES) await expectRefused(load(path), null, path);
  });

  test('end record: counts, places and sizes that do not hold together', async () => {
    const u8 = load(built['family-hikes']);
    const L = layout(u8);
    const e = L.eocd;
    const cases = [
      ['both counts + 1', patch(patch(u8, e + 8, 2, L.count + 1), e + 10, 2, L.count + 1), ['count']],
      ['both counts - 1', patch(patch(u8, e + 8, 2, L.count - 1), e + 10, 2, L.count - 1), ['count']],
      ['count on disk differs', patch(u8, e + 8, 2, L.count - 1), ['count']],
      ['count 0', patch(patch(u8, e + 8, 2, 0), e + 10, 2, 0), ['count']],
      ['directory offset past the end', patch(u8, e + 16, 4, u8.length + 10), ['bad-offset']],
      ['directory offset all ones, no ZIP64', patch(u8, e + 16, 4, 0xffffffff), ['zip64']],
      ['directory size past the end', patch(u8, e + 12, 4, u8.length), ['bad-offset']],
      ['directory size 0', patch(u8, e + 12, 4, 0), ['bad-offset']],
      ['directory offset into the middle of the directory',
        patch(patch(u8, e + 16, 4, L.cdOffset + 46), e + 12, 4, L.cdSize - 46), ['count']],
      ['directory offset at 0, the whole file as directory', patch(patch(u8, e + 16, 4, 0), e + 12, 4, e), ['count']],
      ['directory offset 1 byte early', patch(patch(u8, e + 16, 4, L.cdOffset - 1), e + 12, 4, L.cdSize + 1),
        ['count']],
      ['disk number 1', patch(u8, e + 4, 2, 1), ['not-zip']],
      ['comment length 1, no comment', patch(u8, e + 20, 2, 1), ['not-zip']],
      ['a byte after the end record', concat(u8, Uint8Array.of(0)), ['not-zip']],
      ['a second end record appended', concat(u8, u8.subarray(e)), ['bad-offset', 'not-zip']],
      ['no end record', patch(u8, e, 4, 0), ['not-zip']],
      ['empty file', new Uint8Array(0), ['not-zip']],
      ['an end record alone, pointing at nothing', patch(u8.slice(e), 16, 4, 0), ['count', 'bad-offset']],
    ];
    for (const [what, bytes, codes] of cases) await expectRefused(bytes, codes, what);
  });

  test('central-directory records: sizes, offsets, names, flags and methods', async () => {
    const u8 = load(built['santiam-wagon-road']);
    const L = layout(u8);
    const manifest = L.records[0];
    assert.equal(manifest.name, 'manifest.json');
    assert.equal(manifest.method, 8);
    const stored = L.records.find((r) => r.method === 0 && r.usize > 0);
    const other = L.records[2];
    const enc = (s) => new TextEncoder().encode(s);
    const rename = (r, bytes) => overwrite(u8, r.nameAt, bytes);
    const [twinA, twinB] = (() => {
      for (const a of L.records) {
        for (const b of L.records) if (a !== b && a.nameLength === b.nameLength) return [a, b];
      }
      return [];
    })();
    assert.ok(twinA, 'two names of the same length');
    const cases = [
      ['compressed size huge', patch(u8, manifest.at + 20, 4, 0x7fffffff), ['size', 'overlap']],
      ['compressed size 0xfffffffe', patch(u8, other.at + 20, 4, 0xfffffffe), ['size', 'overlap']],
      ['compressed size + 1', patch(u8, manifest.at + 20, 4, manifest.csize + 1), ['descriptor']],
      ['size - 1 (deflated): too long', declare(u8, L, 0, 'size', manifest.usize - 1), ['size']],
      ['size + 1 (deflated): too short', declare(u8, L, 0, 'size', manifest.usize + 1), ['size']],
      ['size 10 (deflated)', declare(u8, L, 0, 'size', 10), ['size']],
      ['size - 1 in the central directory alone', patch(u8, manifest.at + 24, 4, manifest.usize - 1),
        ['local-header']],
      ['size + 1 (stored)', patch(u8, stored.at + 24, 4, stored.usize + 1), ['size']],
      ['size claims more than deflate can give', patch(u8, manifest.at + 24, 4, manifest.csize * 1033 + 1024),
        ['size']],
      ['CRC-32 differs', declare(u8, L, 0, 'crc', 0x12345678), ['crc']],
      ['CRC-32 differs in the central directory alone', patch(u8, manifest.at + 16, 4, 0x12345678),
        ['descriptor']],
      ['offset of another entry', patch(u8, other.at + 42, 4, manifest.lho), ['overlap']],
      ['offset into the central directory', patch(u8, other.at + 42, 4, L.cdOffset + 4), ['bad-offset']],
      ['offset into another entry\'s data', patch(u8, other.at + 42, 4, L.locals[1].dataAt + 5),
        ['overlap', 'local-header']],
      ['offset past the file', patch(u8, other.at + 42, 4, u8.length + 100), ['bad-offset']],
      ['name ../', rename(manifest, enc('../anifest.js')), ['bad-name']],
      ['name with a ../ segment', rename(manifest, enc('a/../nifest.js')), ['bad-name']],
      ['absolute name', rename(manifest, enc('/anifest.json')), ['bad-name']],
      ['backslash', rename(manifest, enc('..\\nifest.json')), ['bad-name']],
      ['NUL', rename(manifest, enc('manifest\0json')), ['bad-name']],
      ['control character', rename(manifest, enc('manifest\njson')), ['bad-name']],
      ['drive letter', rename(manifest, enc('C:manifest.js')), ['bad-name']],
      ['empty component', rename(manifest, enc('manifest//son')), ['bad-name']],
      ['invalid UTF-8', rename(manifest, Uint8Array.of(0xff)), ['bad-name']],
      ['truncated UTF-8 sequence', rename(manifest, Uint8Array.of(0x6d, 0xc3)), ['bad-name']],
      ['non-ASCII without the UTF-8 flag', patch(rename(manifest, enc('é')), manifest.at + 8, 2,
        manifest.flags & ~0x800), ['bad-name']],
      ['empty name', patch(u8, manifest.at + 28, 2, 0), ['bad-name', 'count', 'truncated', 'bad-extra']],
      ['duplicate names', overwrite(u8, twinB.nameAt, u8.subarray(twinA.nameAt, twinA.nameAt + twinA.nameLength)),
        ['duplicate-name']],
      ['encrypted (bit 0)', patch(u8, manifest.at + 8, 2, manifest.flags | 1), ['encrypted']],
      ['strong encryption (bit 6)', patch(u8, manifest.at + 8, 2, manifest.flags | 0x40), ['encrypted']],
      ['method 99 (AES)', patch(u8, manifest.at + 10, 2, 99), ['encrypted']],
      ['method 12 (bzip2)', patch(u8, manifest.at + 10, 2, 12), ['unsupported-method']],
      ['method 9 (deflate64)', patch(u8, manifest.at + 10, 2, 9), ['unsupported-method']],
      ['patched data (bit 5)', patch(u8, manifest.at + 8, 2, manifest.flags | 0x20), ['flags']],
      ['disk number 2', patch(u8, manifest.at + 34, 2, 2), ['not-zip']],
      ['ZIP64 sentinel size without the extra field', patch(u8, manifest.at + 24, 4, 0xffffffff), ['zip64']],
      ['ZIP64 sentinel offset without the extra field', patch(u8, other.at + 42, 4, 0xffffffff), ['zip64']],
      ['extra length past the record', patch(u8, manifest.at + 30, 2, 0xffff), ['truncated', 'bad-extra']],
      ['extra field longer than the extra', patch(u8, manifest.extraAt + 2, 2, 0x7000), ['bad-extra']],
      ['comment length past the directory', patch(u8, L.records.at(-1).at + 32, 2, 0x100), ['truncated']],
      ['signature broken', patch(u8, other.at, 4, 0x02014b51), ['count']],
    ];
    for (const [what, bytes, codes] of cases) await expectRefused(bytes, codes, what);
  });

  test('local headers that disagree with the central directory', async () => {
    for (const path of [built['family-hikes'], SEEDS.find((p) => p.endsWith('info-zip.zip'))]) {
      const u8 = load(path);
      const L = layout(u8);
      const r = L.records[0];
      const local = L.locals[0];
      const cases = [
        ['signature', patch(u8, local.at, 4, 0x04034b51), ['local-header']],
        ['name differs', patch(u8, local.nameAt, 1, u8[local.nameAt] ^ 0x20), ['local-header']],
        ['method differs', patch(u8, local.at + 8, 2, r.method === 8 ? 0 : 8), ['local-header']],
        ['flags differ', patch(u8, local.at + 6, 2, r.flags ^ 0x0002), ['local-header']],
        ['CRC-32 differs', patch(u8, local.at + 14, 4, 0x0badf00d), ['local-header']],
        ['compressed size differs', patch(u8, local.at + 18, 4, 12345), ['local-header']],
        ['name length differs', patch(u8, local.at + 26, 2, r.nameLength - 1), ['local-header']],
        ['extra length runs into the next entry', patch(u8, local.at + 28, 2, 0xffff), ['overlap']],
      ];
      for (const [what, bytes, codes] of cases) await expectRefused(bytes, codes, `${path}: ${what}`);
    }
  });

  test('corrupt deflate data errors and never hangs', async () => {
    const colorado = await openZip(new BytesSource(load(built['colorado-fourteeners'])));
    const manifest = await colorado.bytes(colorado.entry('manifest.json'));
    const u8 = makeZip([deflatedFile('manifest.json', manifest)]);
    const local = layout(u8).locals[0];
    const random = prng(7);
    let errors = 0;
    for (let i = 0; i < 150; i++) {
      const bytes = u8.slice();
      const n = 1 + Math.floor(random() * 8);
      for (let k = 0; k < n; k++) bytes[local.dataAt + Math.floor(random() * local.csize)] = random() * 256;
      const { errors: found } = await exercise(bytes, `corrupt deflate #${i}`);
      if (found.length > 0) {
        errors++;
        assertZipError(found[0], ['deflate', 'crc', 'size'], `corrupt deflate #${i}`);
      }
    }
    assert.ok(errors >= 140, `${errors} of 150 corruptions were caught`);
    const zeros = overwrite(u8, local.dataAt, new Uint8Array(local.csize).fill(0xff));
    await expectRefused(zeros, ['deflate', 'size', 'crc'], 'deflate data all 0xff');
  });

  test('a deflate bomb is cut off at its declared size, reading nothing past its data', async () => {
    const big = new Uint8Array(10 << 20);
    const bomb = { ...deflatedFile('bomb.txt', big), size: 10, crc: 0 };
    const u8 = makeZip([storedFile('first.txt', new TextEncoder().encode('first\n')), bomb]);
    const source = new CheckedSource(new BytesSource(u8));
    const archive = await openZip(source);
    const entry = archive.entry('bomb.txt');
    assert.equal(entry.size, 10);
    const range = await archive.dataRange(entry);
    source.window = [range.start, range.end];
    const start = source.bytesRead;
    let received = 0;
    await assert.rejects((async () => {
      for await (const chunk of archive.stream(entry)) received += chunk.length;
    })(), (e) => e instanceof ZipError && e.code === 'size');
    assert.ok(received <= 10, `${received} bytes came out`);
    assert.ok(source.bytesRead - start <= entry.compressedSize);
    await assert.rejects(archive.bytes(entry), (e) => e instanceof ZipError && e.code === 'size');
    await assert.rejects(archive.blob(entry), (e) => e instanceof ZipError && e.code === 'size');
    assert.deepEqual(source.violations, []);
    // The same bomb, honest about its size: read whole, or refused by bytes()' limit without inflating.
    const honest = await openZip(new BytesSource(makeZip([deflatedFile('bomb.txt', big)])));
    assert.equal((await honest.bytes(honest.entries[0], 16 << 20)).length, big.length);
    await assert.rejects(honest.bytes(honest.entries[0], 1 << 20), (e) => e instanceof ZipError && e.code === 'size');
    // A claim no deflate stream can make is refused when the archive is opened.
    const liar = makeZip([{ ...deflatedFile('x', new Uint8Array(1000)), size: 2 ** 31 }]);
    await expectRefused(liar, ['size'], 'a 2 GiB claim from a few bytes');
  });

  test('stored data shorter or longer than its declared size, and a truncated deflate stream', async () => {
    const data = new TextEncoder().encode('stored data of some length\n');
    await expectRefused(makeZip([{ ...storedFile('s', data), size: data.length + 1 }]), ['size'], 'stored size + 1');
    const deflated = deflatedFile('d', new Uint8Array(5000).map((_, i) => i * 7));
    const cut = { ...deflated, data: deflated.data.subarray(0, deflated.data.length - 3) };
    await expectRefused(makeZip([cut]), ['deflate', 'size'], 'deflate stream cut short');
    const hand = await exercise(makeZip([deflated, storedFile('empty', new Uint8Array(0))]), 'hand-made');
    assert.deepEqual(hand.errors, []);
  });

  test('truncated packages are refused at every length tried', async () => {
    const u8 = load(built['santiam-wagon-road']);
    const L = layout(u8);
    const lengths = new Set();
    for (let n = 0; n < 200; n++) lengths.add(n);
    for (let n = 0; n < u8.length; n += 4999) lengths.add(n);
    for (const at of [L.cdOffset, L.eocd, ...L.locals.map((l) => l.dataAt), ...L.records.map((r) => r.at)]) {
      for (let d = -3; d <= 3; d++) if (at + d >= 0 && at + d < u8.length) lengths.add(at + d);
    }
    for (let n = u8.length - 30; n < u8.length; n++) lengths.add(n);
    for (const n of lengths) await expectRefused(u8.subarray(0, n), null, `truncated to ${n} bytes`);
    // A middle cut out, the end records kept: every offset after the cut is wrong.
    const cut = concat(u8.subarray(0, 5000), u8.subarray(6000));
    await expectRefused(cut, null, 'a kilobyte cut out of the middle');
  });

  test('ZIP64 records and extra fields that do not hold together', async () => {
    const u8 = load(archives['infozip-zip64']);
    const L = layout(u8);
    assert.ok(L.zip64);
    const { locator, record } = L.zip64;
    const r = L.records.find((x) => x.wide.length > 0);
    assert.ok(r, 'a central-directory record with ZIP64 values');
    const cases = [
      ['record count + 1', patch(patch(u8, record + 24, 8, L.count + 1), record + 32, 8, L.count + 1), ['count']],
      ['record count on disk differs', patch(u8, record + 24, 8, L.count + 1), ['count']],
      ['record directory size + 1', patch(u8, record + 40, 8, L.cdSize + 1), ['zip64', 'bad-offset']],
      ['record directory offset 2^53', patch(u8, record + 48, 8, 2n ** 53n), ['bad-offset', 'zip64']],
      ['record directory offset 2^64 - 1', patch(u8, record + 48, 8, 2n ** 64n - 1n), ['bad-offset', 'zip64']],
      ['record size 2^64 - 2', patch(u8, record + 4, 8, 2n ** 64n - 2n), ['bad-offset', 'zip64']],
      ['record size - 1', patch(u8, record + 4, 8, readU64(u8, record + 4) - 1), ['zip64']],
      ['record signature', patch(u8, record, 4, 0), ['zip64']],
      ['record on disk 1', patch(u8, record + 16, 4, 1), ['not-zip']],
      ['locator points past itself', patch(u8, locator + 8, 8, locator), ['zip64']],
      ['locator points at 0', patch(u8, locator + 8, 8, 0), ['zip64']],
      ['locator points past the end', patch(u8, locator + 8, 8, 2n ** 62n), ['bad-offset', 'zip64']],
      ['locator disk count 0', patch(u8, locator + 16, 4, 0), ['zip64']],
      ['locator signature, 32-bit values all ones', patch(patch(u8, locator, 4, 0), L.eocd + 16, 4, 0xffffffff),
        ['zip64']],
    ];
    for (const at of r.wide) {
      cases.push([`extra value at ${at} = 2^53`, patch(u8, at, 8, 2n ** 53n), ['size', 'bad-offset']]);
      cases.push([`extra value at ${at} = 2^63 - 1`, patch(u8, at, 8, 2n ** 63n - 1n), ['size', 'bad-offset']]);
      cases.push([`extra value at ${at} + 1`, patch(u8, at, 8, readU64(u8, at) + 1), null]);
    }
    for (const [what, bytes, codes] of cases) await expectRefused(bytes, codes, what);
  });

  test('seeded structural mutants: a ZipError, or entries that read exactly', async (t) => {
    const seed = Number(process.env.TRAILPACK_JS_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const count = Number(process.env.TRAILPACK_JS_FUZZ_COUNT ?? 3000);
    t.diagnostic(`seed ${seed} (replay with TRAILPACK_JS_FUZZ_SEED=${seed}), ${count} mutants`);
    const random = prng(seed);
    const pick = (list) => list[Math.floor(random() * list.length)];
    const bases = [...SEEDS, ...SEEDS, built['family-hikes'], archives['python-zip64-small'],
      archives['bsdtar-zip64-small'], archives['bsdtar-zip64-small']].map((path) => {
      const u8 = load(path);
      return { path, u8, fields: fieldsOf(u8, layout(u8)), layout: layout(u8) };
    });
    for (const path of [built['santiam-wagon-road'], built['colorado-fourteeners']]) {
      const u8 = load(path);
      bases.push({ path, u8, fields: fieldsOf(u8, layout(u8)), layout: layout(u8), rare: true });
    }
    const outcomes = { refused: 0, partly: 0, read: 0 };
    const codes = new Map();
    for (let i = 0; i < count; i++) {
      let base = pick(bases);
      if (base.rare && random() < 0.8) base = bases[0];
      const context = `mutant ${i} of seed ${seed} (${base.path})`;
      let u8 = base.u8;
      const steps = 1 + Math.floor(random() * 3);
      for (let s = 0; s < steps; s++) u8 = mutate(u8, base, random);
      const { archive, errors } = await exercise(u8, context, { blobs: 'stored' });
      outcomes[!archive ? 'refused' : errors.length ? 'partly' : 'read']++;
      for (const e of errors) codes.set(e.code, (codes.get(e.code) || 0) + 1);
    }
    t.diagnostic(`outcomes ${JSON.stringify(outcomes)}; codes ${JSON.stringify(Object.fromEntries(codes))}`);
    assert.ok(outcomes.refused > count / 4, 'most mutants are refused');
  });
});

/** The numeric fields of an archive: [position, width] of each. */
function fieldsOf(u8, L) {
  const fields = [];
  const add = (base, list) => { for (const [at, width] of list) fields.push([base + at, width]); };
  add(L.eocd, [[4, 2], [6, 2], [8, 2], [10, 2], [12, 4], [16, 4], [20, 2]]);
  if (L.zip64) {
    add(L.zip64.locator, [[4, 4], [8, 8], [16, 4]]);
    add(L.zip64.record, [[4, 8], [16, 4], [20, 4], [24, 8], [32, 8], [40, 8], [48, 8]]);
  }
  for (const r of L.records) {
    add(r.at, [[0, 4], [8, 2], [10, 2], [16, 4], [20, 4], [24, 4], [28, 2], [30, 2], [32, 2], [34, 2], [42, 4]]);
    for (const p of r.extras) add(p, [[0, 2], [2, 2]]);
    for (const p of r.wide) fields.push([p, 8]);
  }
  for (const l of L.locals) add(l.at, [[0, 4], [6, 2], [8, 2], [14, 4], [18, 4], [22, 4], [26, 2], [28, 2]]);
  return fields;
}

/** One structural change to `u8` (a mutant of `base`). */
function mutate(u8, base, random) {
  const int = (n) => Math.floor(random() * n);
  const pick = (list) => list[int(list.length)];
  const L = base.layout;
  switch (int(8)) {
    case 0:
    case 1:
    case 2: { // a field set to a value near a boundary or to another structure's position
      const [at, width] = pick(base.fields);
      if (at + width > u8.length) return u8;
      const max = 2n ** BigInt(8 * width) - 1n;
      const old = width === 8 ? BigInt(readU32(u8, at)) + (BigInt(readU32(u8, at + 4)) << 32n)
        : BigInt(width === 4 ? readU32(u8, at) : readU16(u8, at));
      const values = [0n, 1n, max, max - 1n, old + 1n, old - 1n, old + BigInt(int(64)), old - BigInt(int(64)),
        BigInt(u8.length), BigInt(u8.length - 1), BigInt(L.cdOffset), BigInt(pick(L.locals).at),
        BigInt(pick(L.locals).dataAt), BigInt(int(u8.length)), max >> 1n, 2n ** 53n, 2n ** 53n - 1n];
      const value = pick(values.filter((v) => v >= 0n && v <= max));
      return patch(u8, at, width, value);
    }
    case 3: { // a name byte replaced by a character that matters in paths, or another record's name copied
      const r = pick(L.records);
      if (r.nameLength === 0 || r.nameAt + r.nameLength > u8.length) return u8;
      if (random() < 0.3) {
        const o = pick(L.records);
        const n = Math.min(o.nameLength, r.nameLength);
        return overwrite(u8, r.nameAt, u8.subarray(o.nameAt, o.nameAt + n));
      }
      return patch(u8, r.nameAt + int(r.nameLength), 1, pick([0x2f, 0x5c, 0x2e, 0, 0xff, 0xc3, 0x3a, 0x0a, int(256)]));
    }
    case 4: { // entry data damaged
      const l = pick(L.locals);
      if (l.csize === 0) return u8;
      const out = u8.slice();
      for (let k = 1 + int(4); k > 0; k--) {
        const at = l.dataAt + int(l.csize);
        if (at < out.length) out[at] = int(256);
      }
      return out;
    }
    case 5: // truncated
      return u8.subarray(0, int(u8.length));
    case 6: { // bytes removed or inserted somewhere, the rest shifted
      const at = int(u8.length);
      const n = 1 + int(64);
      if (random() < 0.5) return concat(u8.subarray(0, at), u8.subarray(Math.min(u8.length, at + n)));
      return concat(u8.subarray(0, at), new Uint8Array(n).map(() => int(256)), u8.subarray(at));
    }
    default: { // any byte
      const out = u8.slice();
      if (out.length) out[int(out.length)] = int(256);
      return out;
    }
  }
}
