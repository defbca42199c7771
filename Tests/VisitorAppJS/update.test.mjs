// The visitor app's update by part (js/update-plan.js, the plan; js/updater.js, its executor):
// the shared cases of fixtures/update-cases/cases.json (package pairs built here by `trailpack
// build`, the ranges expected written down there once for the app and the Swift client), each
// carried out against a real HTTP server in this process and ending byte for byte as the published
// file; then hostile servers (a 200 for a range, a wrong Content-Range, a body longer than asked,
// a range cut short, the file changed between ranges, another file's bytes, an entry altered on
// the server under its old CRC) and a damaged installed package: each is refused and falls back to
// the whole download, or ends as the published bytes — never other bytes taken for them. The
// cases need TRAILPACK_BIN (default .build/debug/trailpack) and are skipped, saying so, without it.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { BytesSource } from '../../Sources/TrailPackVisitor/app/js/bytes.js';
import { DownloadError } from '../../Sources/TrailPackVisitor/app/js/downloader.js';
import { openZip } from '../../Sources/TrailPackVisitor/app/js/zip.js';
import {
  KnownBytes, UpdateRefusal, assetHashes, extendedTimeOffset, firstTailRange, locateDirectory, planUpdate,
  restampedHeader, slots,
} from '../../Sources/TrailPackVisitor/app/js/update-plan.js';
import { fetchPackage, updateByPart } from '../../Sources/TrailPackVisitor/app/js/updater.js';
import { MemoryFile, deflatedFile, makeZip, storedFile } from './support.mjs';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = process.env.TRAILPACK_BIN || path.join(ROOT, '.build/debug/trailpack');
const CASES = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures/update-cases/cases.json'), 'utf8'));
const noSleep = () => Promise.resolve();
const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex');


/**
 * A server for one package, as trailpack's: single ranges honoured when If-Range names its strong
 * ETag, else the whole file. `behaviour(request, answer)` may answer otherwise (return true when it did).
 * `log` holds each request's Range and If-Range and the body bytes sent.
 */
function serve(blob, behaviour = () => false) {
  const state = { blob, etag: `"${sha256(blob)}"` };
  const log = [];
  const server = http.createServer((req, res) => {
    const entry = { range: req.headers.range ?? null, ifRange: req.headers['if-range'] ?? null, sent: 0 };
    log.push(entry);
    const send = (status, headers, body) => {
      entry.status = status;
      entry.sent = body.length;
      res.writeHead(status, { ETag: state.etag, 'Accept-Ranges': 'bytes', ...headers });
      res.end(body);
    };
    if (behaviour({ req, res, state, send, log })) return;
    const body = state.blob;
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const ifRange = req.headers['if-range'];
    if (range && (!ifRange || ifRange === state.etag)) {
      const start = Number(range[1]);
      const end = range[2] === '' ? body.length - 1 : Math.min(Number(range[2]), body.length - 1);
      send(206, { 'Content-Range': `bytes ${start}-${end}/${body.length}` }, body.subarray(start, end + 1));
    } else {
      send(200, {}, body);
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({ url: `http://127.0.0.1:${server.address().port}/v1/blobs/p.zip`, log, state, close: () => server.close() });
  }));
}

/** Applies a case's edits (see cases.json's `about`) to the tour folder `dir`. */
function applyEdits(dir, version, edits) {
  const editJSON = (file, change) => {
    const value = JSON.parse(fs.readFileSync(file, 'utf8'));
    change(value);
    fs.writeFileSync(file, JSON.stringify(value, null, 2));
  };
  editJSON(path.join(dir, 'tour.json'), (t) => { t.version = version; });
  for (const edit of edits) {
    if (edit.setJSON) {
      editJSON(path.join(dir, edit.setJSON), (v) => { v[edit.key] = edit.value; });
    } else if (edit.write) {
      fs.writeFileSync(path.join(dir, edit.write), edit.text);
    } else if (edit.copy) {
      fs.cpSync(path.join(dir, edit.copy), path.join(dir, edit.to), { recursive: true });
    } else if (edit.xor) {
      const file = path.join(dir, edit.xor);
      const bytes = fs.readFileSync(file);
      for (let i = edit.from; i < bytes.length; i += edit.every) bytes[i] ^= edit.with;
      fs.writeFileSync(file, bytes);
    } else {
      throw new Error(`an edit cases.json does not define: ${JSON.stringify(edit)}`);
    }
  }
}

/** Builds the fixture with `edits` as `version` at `epoch`; the package's bytes. */
function build(work, name, version, epoch, edits) {
  const dir = path.join(work, name);
  fs.cpSync(path.join(ROOT, 'fixtures', CASES.base.fixture), dir, { recursive: true });
  applyEdits(dir, version, edits);
  const out = path.join(work, `${name}.zip`);
  execFileSync(BIN, ['build', dir, '-o', out, '-q'], {
    env: { PATH: '/usr/bin:/bin', SOURCE_DATE_EPOCH: String(epoch) }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Uint8Array(fs.readFileSync(out));
}

/** Each entry's slot in a whole package, by name (read independently of the plan, from the whole file). */
async function slotsOf(bytes) {
  const archive = await openZip(new BytesSource(bytes));
  return { archive, byName: new Map(slots(archive.entries, archive.directoryOffset).map((e) => [e.name, e])) };
}

const HAVE_BIN = fs.existsSync(BIN);
const skip = HAVE_BIN ? false : `no trailpack binary at ${BIN} (set TRAILPACK_BIN)`;

describe('the shared cases (fixtures/update-cases/cases.json)', { skip }, () => {
  let work;
  let base;
  const built = new Map();
  before(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'update-cases-'));
    base = build(work, 'base', CASES.base.version, CASES.base.epoch, []);
    CASES.cases.forEach((c, i) => built.set(c.name, build(work, `case-${i}`, c.version, c.epoch, c.edits)));
  });
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  for (const c of CASES.cases) {
    test(`${c.name}: the ranges written down, single ranges with If-Range, the published bytes`, async () => {
      const fresh = built.get(c.name);
      const s = await serve(fresh);
      try {
        const file = new MemoryFile();
        const result = await updateByPart({
          url: s.url, etag: `"${sha256(fresh)}"`, size: fresh.length, sha256: sha256(fresh),
          installed: new BytesSource(base), file, prehash: true,
        });
        assert.equal(Buffer.compare(Buffer.from(file.bytes), Buffer.from(fresh)), 0, 'byte for byte the published file');
        assert.equal(result.sha256, sha256(fresh));
        assert.deepEqual(Buffer.from(result.blake2b), crypto.createHash('blake2b512').update(fresh).digest());
        // The ranges expected, from the names written down and the new file's own directory.
        const { archive, byName } = await slotsOf(fresh);
        const oldArchive = await openZip(new BytesSource(base));
        const tail = firstTailRange(fresh.length, base.length - oldArchive.directoryOffset);
        const expected = [[tail.start, fresh.length], [0, byName.get('manifest.json').end]];
        for (const run of c.expect.runs) {
          expected.push([byName.get(run[0]).localHeaderOffset, byName.get(run[run.length - 1]).end]);
        }
        assert.deepEqual(result.report.ranges, expected);
        assert.equal(result.report.requests, c.expect.requests);
        assert.ok(tail.start <= archive.directoryOffset, 'the directory came with the first range');
        const fetched = s.log.reduce((n, l) => n + l.sent, 0);
        assert.equal(result.report.fetchedBytes, fetched, 'what the server sent is what was counted');
        assert.ok(fetched <= c.expect.maxFraction * fresh.length,
          `fetched ${fetched} of ${fresh.length} (${(100 * fetched / fresh.length).toFixed(2)} %)`);
        assert.ok(s.log.every((l) => /^bytes=\d+-\d+$/.test(l.range) && l.ifRange === `"${sha256(fresh)}"` &&
          l.status === 206), JSON.stringify(s.log));
        const names = c.expect.runs.flat();
        assert.equal(result.report.entriesFetched, 1 + names.length);
        assert.equal(result.report.entriesReused, archive.entries.length - 1 - names.length);
      } finally {
        s.close();
      }
    });
  }

  test('the plan alone, from the two directories and manifests: copies keep their bytes, runs as written down', async () => {
    const old = await openZip(new BytesSource(base));
    const oldManifest = JSON.parse(new TextDecoder().decode(await old.bytes(old.entry('manifest.json'))));
    for (const c of CASES.cases) {
      const fresh = built.get(c.name);
      const archive = await openZip(new BytesSource(fresh));
      const manifest = JSON.parse(new TextDecoder().decode(await archive.bytes(archive.entry('manifest.json'))));
      const plan = planUpdate({ entries: old.entries, directoryOffset: old.directoryOffset, manifest: oldManifest },
        { entries: archive.entries, directoryOffset: archive.directoryOffset, size: fresh.length, manifest });
      assert.deepEqual(plan.runs.map((r) => r.names), c.expect.runs, c.name);
      assert.equal(plan.manifest.start, 0);
      assert.equal(plan.directory.start, archive.directoryOffset);
      // The pieces cover the file from the manifest's end to the directory, in order.
      let at = plan.manifest.end;
      for (const p of plan.pieces) {
        assert.equal(p.start, at, c.name);
        at = p.end;
      }
      assert.equal(at, archive.directoryOffset, c.name);
      // A copied slot's data and descriptor are the new file's bytes; only the header's time differs.
      for (const copy of plan.copies) {
        const header = (await archive.dataRange(archive.entry(copy.name))).start - copy.start;
        assert.deepEqual(base.subarray(copy.from.start + header, copy.from.end), fresh.subarray(copy.start + header, copy.end),
          `${c.name}: ${copy.name}`);
        const restamped = restampedHeader(base.subarray(copy.from.start, copy.from.start + header),
          fresh.subarray(0, (await archive.dataRange(archive.entry('manifest.json'))).start));
        assert.deepEqual(restamped, fresh.subarray(copy.start, copy.start + header), `${c.name}: ${copy.name}'s header`);
      }
    }
  });

  describe('hostile servers and a damaged installed package', () => {
    /** The text fix (1.0.1) through a server that `behaves`; the outcome of the app's fetch (update, else whole). */
    async function through(behaviour, { installed, published } = {}) {
      const fresh = built.get(CASES.cases[2].name); // a stop's text file rewritten: one run besides the end and manifest
      const s = await serve(fresh, behaviour);
      try {
        const file = new MemoryFile();
        const fallbacks = [];
        const result = await fetchPackage({
          url: s.url, etag: `"${sha256(published ?? fresh)}"`, size: fresh.length, sha256: sha256(published ?? fresh),
          installed: new BytesSource(installed ?? base), file, sleep: noSleep, retries: 1,
          onFallback: (reason) => fallbacks.push(reason),
        });
        return { result, file, fallbacks, log: s.log, fresh };
      } finally {
        s.close();
      }
    }
    const ranged = (req) => req.headers.range !== undefined;

    test('an honest server: by part, no fallback', async () => {
      const r = await through();
      assert.equal(r.result.mode, 'by-part');
      assert.deepEqual(r.fallbacks, []);
      assert.equal(Buffer.compare(Buffer.from(r.file.bytes), Buffer.from(r.fresh)), 0);
    });

    test('a 200 with the whole file for a range: refused, then the whole download', async () => {
      const r = await through(({ req, send, state }) => ranged(req) && (send(200, {}, state.blob), true));
      assert.equal(r.result.mode, 'full');
      assert.match(r.fallbacks[0], /200, not 206/);
      assert.equal(r.result.sha256, sha256(r.fresh));
      assert.equal(Buffer.compare(Buffer.from(r.file.bytes), Buffer.from(r.fresh)), 0);
    });

    test('a Content-Range one byte off: refused, then the whole download', async () => {
      const r = await through(({ req, send, state }) => {
        const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
        if (!m) return false;
        const [a, b] = [Number(m[1]) + 1, Number(m[2]) + 1];
        send(206, { 'Content-Range': `bytes ${a}-${b}/${state.blob.length}` }, state.blob.subarray(a, b + 1));
        return true;
      });
      assert.equal(r.result.mode, 'full');
      assert.match(r.fallbacks[0], /not 'bytes/);
      assert.equal(r.result.sha256, sha256(r.fresh));
    });

    test('a body longer than the range asked for (no Content-Length): refused, then the whole download', async () => {
      const r = await through(({ req, res, state, log }) => {
        const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
        if (!m) return false;
        const [a, b] = [Number(m[1]), Number(m[2])];
        res.writeHead(206, { ETag: state.etag, 'Content-Range': `bytes ${a}-${b}/${state.blob.length}` });
        const body = Buffer.concat([Buffer.from(state.blob.subarray(a, b + 1)), Buffer.alloc(100, 0x41)]);
        log[log.length - 1].sent = body.length;
        res.end(body);
        return true;
      });
      assert.equal(r.result.mode, 'full');
      assert.match(r.fallbacks[0], /more than the range/);
      assert.equal(r.result.sha256, sha256(r.fresh));
    });

    test('a range cut short: refused, then the whole download', async () => {
      const r = await through(({ req, res, state }) => {
        const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
        if (!m) return false;
        const [a, b] = [Number(m[1]), Number(m[2])];
        res.writeHead(206, { ETag: state.etag, 'Content-Range': `bytes ${a}-${b}/${state.blob.length}`,
          'Content-Length': b - a + 1 });
        res.write(state.blob.subarray(a, a + Math.floor((b - a) / 2)), () => res.destroy());
        return true;
      });
      assert.equal(r.result.mode, 'full');
      assert.match(r.fallbacks[0], /ended after|broke/);
    });

    test('the file changed on the server after the first range (If-Range no longer matches): refused; what the whole download brings is not the published file', async () => {
      const other = built.get(CASES.cases[3].name);
      const fallbacks = [];
      const fresh = built.get(CASES.cases[2].name);
      const s = await serve(fresh, ({ state, log }) => {
        if (log.length === 2) state.blob = other;
        if (log.length >= 2) state.etag = `"${sha256(other)}"`;
        return false;
      });
      try {
        const file = new MemoryFile();
        const outcome = await fetchPackage({
          url: s.url, etag: `"${sha256(fresh)}"`, size: fresh.length, sha256: sha256(fresh),
          installed: new BytesSource(base), file, sleep: noSleep, retries: 1, onFallback: (why) => fallbacks.push(why),
        }).catch((error) => error);
        assert.match(fallbacks[0], /200, not 206/);
        assert.ok(s.log.slice(1).some((l) => l.ifRange !== null && l.status === 200), JSON.stringify(s.log));
        // The whole download brings the other file: refused by its size here (install.js refuses any other hash).
        assert.ok(outcome instanceof DownloadError ? outcome.code === 'size' : outcome.sha256 !== sha256(fresh),
          String(outcome?.message ?? outcome?.sha256));
      } finally {
        s.close();
      }
    });

    test('another file\'s ranges under the published ETag (the installed version served): refused, never taken', async () => {
      const r = await through(({ req, send }) => {
        const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
        if (!m) return false;
        const [a, b] = [Number(m[1]), Math.min(Number(m[2]), base.length - 1)];
        send(206, { 'Content-Range': `bytes ${a}-${b}/${base.length}` }, base.subarray(a, b + 1));
        return true;
      });
      assert.equal(r.result.mode, 'full');
      assert.equal(r.fallbacks.length, 1);
      assert.equal(r.result.sha256, sha256(r.fresh));
    });

    test('an unchanged entry altered on the server under its old CRC: taken from the installed copy, the published bytes result', async () => {
      const fresh = built.get(CASES.cases[2].name);
      const { byName } = await slotsOf(fresh);
      const png = byName.get('waypoints/cascadia/view.png');
      const altered = fresh.slice();
      altered[png.end - 200] ^= 0x01;
      const r = await through(({ req, send }) => {
        const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
        if (!m) return false;
        const [a, b] = [Number(m[1]), Number(m[2])];
        send(206, { 'Content-Range': `bytes ${a}-${b}/${altered.length}` }, altered.subarray(a, b + 1));
        return true;
      });
      assert.equal(r.result.mode, 'by-part');
      assert.equal(Buffer.compare(Buffer.from(r.file.bytes), Buffer.from(fresh)), 0, 'the published bytes');
    });

    test('a damaged installed package (a byte of a reused entry): the hash is refused, then the whole download', async () => {
      const { byName } = await slotsOf(base);
      const installed = base.slice();
      installed[byName.get('waypoints/cascadia/view.png').end - 200] ^= 0x01;
      const r = await through(undefined, { installed });
      assert.equal(r.result.mode, 'full');
      assert.match(r.fallbacks[0], /not the catalog's SHA-256/);
      assert.equal(Buffer.compare(Buffer.from(r.file.bytes), Buffer.from(r.fresh)), 0);
    });
  });
});

describe('the plan on hand-made archives', () => {
  const enc = new TextEncoder();
  const manifest = (assets) => enc.encode(JSON.stringify({ waypoints: [{ assets }] }));
  const asset = (name, bytes) => ({ path: name, sha256: sha256(bytes) });

  test('firstTailRange: the installed tail plus an eighth and the slack, within the file', () => {
    assert.deepEqual(firstTailRange(1_000_000, 8000), { start: 1_000_000 - 8000 - 1000 - 1024, end: 1_000_000 });
    assert.deepEqual(firstTailRange(500, 8000), { start: 0, end: 500 });
  });

  test('KnownBytes: joins parts, refuses reads of bytes not fetched and bytes fetched twice', async () => {
    const known = new KnownBytes(100);
    known.add(90, new Uint8Array(10).fill(9));
    known.add(80, new Uint8Array(10).fill(8));
    assert.equal(known.parts.length, 1);
    assert.ok(known.covers(80, 100));
    assert.deepEqual([...(await known.read(88, 4))], [8, 8, 9, 9]);
    await assert.rejects(known.read(70, 20), /not fetched/);
    assert.deepEqual([...(await known.zeroFilled().read(78, 4))], [0, 0, 8, 8]);
    assert.throws(() => known.add(85, new Uint8Array(2)), UpdateRefusal);
    assert.throws(() => known.add(99, new Uint8Array(2)), UpdateRefusal);
  });

  test('locateDirectory: asks for the start of a directory longer than the tail, and for the end window when the end record is not in it', async () => {
    const files = Array.from({ length: 40 }, (_, i) => storedFile(`waypoints/s/${i}.txt`, enc.encode(`file ${i}`)));
    const zip = makeZip([storedFile('manifest.json', enc.encode('{}')), ...files]);
    const archive = await openZip(new BytesSource(zip));
    const known = new KnownBytes(zip.length);
    known.add(zip.length - 100, zip.slice(zip.length - 100));
    assert.deepEqual(await locateDirectory(known, zip.length - 100),
      { need: { start: archive.directoryOffset, end: zip.length - 100 } });
    known.add(archive.directoryOffset, zip.slice(archive.directoryOffset, zip.length - 100));
    assert.deepEqual(await locateDirectory(known, archive.directoryOffset),
      { directory: { start: archive.directoryOffset, end: zip.length } });
    // An end record not in the first bytes fetched (a comment after it): the window it may take.
    const commented = new Uint8Array(zip.length + 300);
    commented.set(zip);
    commented[zip.length - 2] = 300 & 0xff;
    commented[zip.length - 1] = 300 >> 8;
    const k2 = new KnownBytes(commented.length);
    k2.add(commented.length - 100, commented.slice(commented.length - 100));
    assert.deepEqual(await locateDirectory(k2, commented.length - 100), { need: { start: 0, end: commented.length - 100 } });
  });

  test('entries matched by name, method, sizes, CRC-32 and the manifest\'s SHA-256; one run per stretch of others', async () => {
    const a = enc.encode('a'.repeat(50));
    const b = enc.encode('b'.repeat(60));
    const b2 = enc.encode('B'.repeat(60));
    const c = enc.encode('c'.repeat(70));
    const d = enc.encode('d'.repeat(80));
    const old = makeZip([deflatedFile('manifest.json', manifest([asset('a', a), asset('b', b), asset('c', c), asset('d', d)])),
      storedFile('a', a), storedFile('b', b), storedFile('c', c), storedFile('d', d)]);
    const next = makeZip([deflatedFile('manifest.json', manifest([asset('a', a), asset('b', b2), asset('c', c), asset('d', d),
      asset('e', d)])), storedFile('a', a), storedFile('b', b2), deflatedFile('c', c), storedFile('d', d), storedFile('e', d)]);
    const side = async (bytes) => {
      const z = await openZip(new BytesSource(bytes));
      return { entries: z.entries, directoryOffset: z.directoryOffset, size: bytes.length,
        manifest: JSON.parse(new TextDecoder().decode(await z.bytes(z.entry('manifest.json')))) };
    };
    const plan = planUpdate(await side(old), await side(next));
    assert.deepEqual(plan.copies.map((p) => p.name), ['a', 'd']);
    assert.deepEqual(plan.runs.map((r) => r.names), [['b', 'c'], ['e']]);
    // The same sizes and CRC but another SHA-256 in the manifest: fetched.
    const lying = await side(next);
    lying.manifest.waypoints[0].assets[0].sha256 = '0'.repeat(64);
    assert.deepEqual(planUpdate(await side(old), lying).runs[0].names, ['a', 'b', 'c']);
    // Not starting with the manifest: refused.
    const first = await side(makeZip([storedFile('a', a), deflatedFile('manifest.json', manifest([]))]));
    const oldSide = await side(old);
    assert.throws(() => planUpdate(oldSide, first), /start with manifest.json/);
  });

  test('assetHashes: every stop\'s assets and the map\'s, lowercase, the first of a path kept, malformed ones left out', () => {
    const h = 'AB'.repeat(32);
    const m = { waypoints: [{ assets: [{ path: 'x', sha256: h }, { path: 'x', sha256: 'cd'.repeat(32) }, { path: 'y' }] }, null],
      mapAssets: [{ path: 'map/m.pmtiles', sha256: 'ef'.repeat(32) }] };
    assert.deepEqual([...assetHashes(m)], [['x', h.toLowerCase()], ['map/m.pmtiles', 'ef'.repeat(32)]]);
  });

  test('restampedHeader: the DOS time and the extended timestamp from the new manifest, the rest kept', () => {
    const header = (name, dos, unix) => {
      const n = enc.encode(name);
      const h = new Uint8Array(30 + n.length + 9);
      const v = new DataView(h.buffer);
      v.setUint32(0, 0x04034b50, true);
      v.setUint32(10, dos, true);
      v.setUint16(26, n.length, true);
      v.setUint16(28, 9, true);
      h.set(n, 30);
      v.setUint16(30 + n.length, 0x5455, true);
      v.setUint16(32 + n.length, 5, true);
      h[34 + n.length] = 1;
      v.setUint32(35 + n.length, unix, true);
      return h;
    };
    const old = header('waypoints/a/view.png', 0x11111111, 1700000000);
    const out = restampedHeader(old, header('manifest.json', 0x22222222, 1750000000));
    assert.equal(new DataView(out.buffer).getUint32(10, true), 0x22222222);
    assert.equal(new DataView(out.buffer).getUint32(extendedTimeOffset(out), true), 1750000000);
    assert.deepEqual(out.subarray(30, 50), old.subarray(30, 50));
    assert.equal(new DataView(old.buffer).getUint32(10, true), 0x11111111, 'the installed header is not changed');
  });
});
