// The visitor app's download (resumable, hashed as it arrives) against a real HTTP server in this
// process that drops connections, ignores ranges, or changes its bytes; and the installed tour's
// reader on packages built by `trailpack build` (assets checked against the manifest).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

import { downloadInto, DownloadError, reprDigestSHA256 } from '../../Sources/TrailPackVisitor/app/js/downloader.js';
import {
  openTour, openTourFrom, verifiedBlob, compareVersions, formatBytes, shownType, checkManifest, distanceMetres, arrivalRadius,
  openMap, TourError,
} from '../../Sources/TrailPackVisitor/app/js/tour.js';
import { BLAKE2b512 } from '../../Sources/TrailPackVisitor/app/js/blake2b.js';
import { MemoryFile } from './support.mjs';
import { HandleSource, BytesError } from '../../Sources/TrailPackVisitor/app/js/bytes.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const bin = process.env.TRAILPACK_BIN ?? path.join(root, '.build/debug/trailpack');


/**
 * A server for one blob: honours Range and If-Range on a strong ETag unless told otherwise.
 * behaviour: {cutAfter: bytes per response before the socket is destroyed, noRanges, body (other bytes), extra}
 */
function serve(blob, behaviour = {}) {
  const etag = `"${crypto.createHash('sha256').update(blob).digest('hex')}"`;
  const log = [];
  const server = http.createServer((req, res) => {
    const body = behaviour.body ?? blob;
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const ifRange = req.headers['if-range'];
    log.push({ range: req.headers.range ?? null, ifRange: ifRange ?? null });
    const digest = `sha-256=:${crypto.createHash('sha256').update(body).digest('base64')}:`;
    let start = 0;
    let status = 200;
    const bodyTag = `"${crypto.createHash('sha256').update(body).digest('hex')}"`;
    if (range && !behaviour.noRanges && (!ifRange || ifRange === bodyTag)) {
      start = Number(range[1]);
      status = 206;
    }
    const headers = { ETag: bodyTag, 'Repr-Digest': digest, 'Content-Length': body.length - start };
    if (status === 206) headers['Content-Range'] = `bytes ${start}-${body.length - 1}/${body.length}`;
    res.writeHead(status, headers);
    const part = body.subarray(start);
    if (behaviour.cutAfter && part.length > behaviour.cutAfter) {
      res.write(part.subarray(0, behaviour.cutAfter), () => res.destroy());
    } else {
      res.end(part);
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({ url: `http://127.0.0.1:${server.address().port}/blob.zip`, etag, log, close: () => server.close() });
  }));
}

const blob = crypto.randomBytes(3 << 20);
const sha = crypto.createHash('sha256').update(blob).digest('hex');
const noSleep = () => Promise.resolve();

test('a whole download: SHA-256 and BLAKE2b-512 of what arrived, the Repr-Digest kept', async () => {
  const s = await serve(blob);
  try {
    const file = new MemoryFile();
    const r = await downloadInto({ url: s.url, etag: s.etag, size: blob.length, file, prehash: true, sleep: noSleep });
    assert.equal(r.sha256, sha);
    assert.deepEqual(Buffer.from(r.blake2b), crypto.createHash('blake2b512').update(blob).digest());
    assert.equal(reprDigestSHA256(r.reprDigest), sha);
    assert.deepEqual(Buffer.from(file.bytes), blob);
    assert.equal(r.requests, 1);
  } finally {
    s.close();
  }
});

test('the steps of a download are told in order: the first answer, the last byte stored, the digests', async () => {
  const s = await serve(blob, { cutAfter: 1_000_000 });
  try {
    const file = new MemoryFile();
    const steps = [];
    const r = await downloadInto({
      url: s.url, etag: s.etag, size: blob.length, file, sleep: noSleep,
      onStep: (step) => steps.push([step, file.bytes.length]),
    });
    assert.equal(r.sha256, sha);
    assert.ok(r.requests > 1, 'resumed');
    // 'response' once (the first answer), 'received' only when every byte is stored.
    assert.deepEqual(steps.map(([step]) => step), ['response', 'received', 'hashed']);
    assert.equal(steps[1][1], blob.length);
  } finally {
    s.close();
  }
});

test('connections cut every 700 kB: resumed with Range and If-Range until whole', async () => {
  const s = await serve(blob, { cutAfter: 700_000 });
  try {
    const file = new MemoryFile();
    const seen = [];
    const r = await downloadInto({
      url: s.url, etag: s.etag, size: blob.length, file, sleep: noSleep, onProgress: (n) => seen.push(n),
    });
    assert.equal(r.sha256, sha);
    assert.ok(r.requests >= 5, `requests: ${r.requests}`);
    assert.ok(s.log.slice(1).every((l) => l.range && l.ifRange === s.etag), JSON.stringify(s.log));
    assert.ok(seen.every((n, i) => i === 0 || n >= seen[i - 1]), 'progress never goes back');
  } finally {
    s.close();
  }
});

test('a closed tab: what was stored is hashed again and only the rest is fetched', async () => {
  const s = await serve(blob);
  try {
    const file = new MemoryFile(Uint8Array.from(blob.subarray(0, 1_234_567)));
    const r = await downloadInto({ url: s.url, etag: s.etag, size: blob.length, file, sleep: noSleep });
    assert.equal(r.sha256, sha);
    assert.equal(s.log.length, 1);
    assert.equal(s.log[0].range, 'bytes=1234567-');
  } finally {
    s.close();
  }
});

test('a server that ignores ranges: the download starts over and is still right', async () => {
  const s = await serve(blob, { noRanges: true });
  try {
    const file = new MemoryFile(Uint8Array.from(blob.subarray(0, 1000)));
    const r = await downloadInto({ url: s.url, etag: s.etag, size: blob.length, file, sleep: noSleep });
    assert.equal(r.sha256, sha);
    assert.equal(file.bytes.length, blob.length);
  } finally {
    s.close();
  }
});

test('bytes changed on the server under a resume: If-Range gets the whole new file, whose hash differs', async () => {
  const other = Buffer.from(blob);
  other[2_000_000] ^= 0xff;
  const s = await serve(blob, { body: other });
  try {
    const file = new MemoryFile(Uint8Array.from(blob.subarray(0, 1_000_000)));
    const r = await downloadInto({ url: s.url, etag: s.etag, size: blob.length, file, sleep: noSleep });
    assert.equal(s.log[0].range, 'bytes=1000000-');
    assert.notEqual(r.sha256, sha, 'the changed bytes are not taken for the published ones');
    assert.equal(r.sha256, crypto.createHash('sha256').update(other).digest('hex'));
  } finally {
    s.close();
  }
});

test('more bytes than the catalog says are refused; a dead server gives up in plain words', async () => {
  const s = await serve(Buffer.concat([blob, Buffer.from('extra')]));
  try {
    await assert.rejects(
      downloadInto({ url: s.url, etag: s.etag, size: blob.length, file: new MemoryFile(), sleep: noSleep }),
      (e) => e instanceof DownloadError && e.code === 'size');
  } finally {
    s.close();
  }
  await assert.rejects(
    downloadInto({
      url: 'http://127.0.0.1:9/none.zip', etag: '"x"', size: 10, file: new MemoryFile(), sleep: noSleep, retries: 2,
    }),
    (e) => e instanceof DownloadError && e.code === 'network' && /back online/.test(e.message));
});

let dir;
const built = {};
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'visitor-tour-'));
  for (const tour of ['santiam-wagon-road', 'family-hikes']) {
    built[tour] = path.join(dir, `${tour}.zip`);
    execFileSync(bin, ['build', path.join(root, 'fixtures', tour), '-o', built[tour], '-q']);
  }
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('an installed tour opens: manifest, stops in order, every asset checked against the manifest', async () => {
  const file = await fs.openAsBlob(built['santiam-wagon-road']);
  const tour = await openTour(file);
  assert.equal(tour.manifest.id, 'gov.usda.fs.willamette.santiam-wagon-road');
  assert.deepEqual(tour.stops.map((s) => s.order), [1, 2, 3, 4, 5, 6, 7, 8]);
  let checked = 0;
  for (const stop of tour.stops) {
    for (const asset of stop.assets) {
      const b = await verifiedBlob(tour.archive, asset);
      const bytes = Buffer.from(await b.arrayBuffer());
      assert.equal(crypto.createHash('sha256').update(bytes).digest('hex'), asset.sha256);
      checked += 1;
    }
  }
  assert.ok(checked >= 17, `${checked} assets`);
  const map = await openMap(tour.archive, tour.manifest);
  assert.ok(map, 'the tour has an offline map');
  assert.equal(map.tiles.header.tileType, 'png');
  const tile = await map.tiles.getTile(map.tiles.header.minZoom, 40, 91);
  assert.ok(tile === null || tile[1] === 0x50, 'a PNG tile or none');
});

test('a package read back through a sync access handle (the download worker) opens as the stored file does', async () => {
  const bytes = new Uint8Array(fs.readFileSync(built['santiam-wagon-road']));
  const stored = await openTour(await fs.openAsBlob(built['santiam-wagon-road']));
  const file = new MemoryFile(bytes);
  const source = new HandleSource(file);
  assert.equal(source.size, bytes.length);
  const read = await openTourFrom(source);
  assert.deepEqual(read.manifest, stored.manifest);
  assert.deepEqual(read.stops.map((s) => s.slug), stored.stops.map((s) => s.slug));
  // A handle that gives a few bytes at a time is read to the end; reads outside the file throw.
  const trickle = { getSize: () => bytes.length, read: (into, o) => file.read(into.subarray(0, 7), o) };
  assert.deepEqual(await new HandleSource(trickle).read(100, 50), bytes.subarray(100, 150));
  await assert.rejects(source.read(bytes.length - 10, 11), BytesError);
  await assert.rejects(source.read(-1, 1), BytesError);
  assert.equal(source.failure, null, 'numbers outside the file are the asker\'s error, not the file\'s');
  // The handle itself failing (closed, say) is the file's failure, kept for the worker to tell apart.
  const closed = new HandleSource({ getSize: () => 100, read: () => { throw new Error('InvalidStateError'); } });
  await assert.rejects(closed.read(0, 10), /InvalidStateError/);
  assert.match(String(closed.failure?.message), /InvalidStateError/);
  // A file that shrank after its size was taken: the read says the file changed, never returns less.
  const shrinking = new HandleSource(new MemoryFile(bytes.slice()));
  shrinking.handle.truncate(1000);
  await assert.rejects(shrinking.read(900, 200), (e) => e instanceof BytesError && /the file changed/.test(e.message));
  assert.ok(shrinking.failure instanceof BytesError);
  // A damaged package fails as the stored one does, in the same words.
  const damaged = bytes.slice(0, bytes.length - 30);
  await assert.rejects(openTourFrom(new HandleSource(new MemoryFile(damaged))), TourError);
  await assert.rejects(openTour(new Blob([damaged])), TourError);
});

test('an asset changed on the phone is not shown; a wrong size neither', async () => {
  const bytes = fs.readFileSync(built['santiam-wagon-road']);
  const tour = await openTour(await fs.openAsBlob(built['santiam-wagon-road']));
  const image = tour.stops[0].assets.find((a) => a.kind === 'image');
  const entry = tour.archive.entry(image.path);
  const range = await tour.archive.dataRange(entry);
  const changed = Buffer.from(bytes);
  changed[range.start + 100] ^= 0x01;
  const damaged = await openTour(new Blob([changed]));
  await assert.rejects(verifiedBlob(damaged.archive, image),
    (e) => e instanceof TourError && /changed/.test(e.message));
  await assert.rejects(verifiedBlob(tour.archive, { ...image, size: image.size + 1 }), TourError);
  await assert.rejects(verifiedBlob(tour.archive, { ...image, path: 'waypoints/none.png' }), TourError);
});

test('the rules the app relies on: versions, sizes, types it shows, manifests, distances', () => {
  assert.equal(compareVersions('1.10.0', '1.9.2'), 1);
  assert.equal(compareVersions('1.0', '1.0.0'), 0);
  assert.equal(compareVersions('2', '10'), -1);
  assert.equal(formatBytes(999), '999 bytes');
  assert.equal(formatBytes(23_400_000), '23 MB');
  assert.equal(formatBytes(1_500_000), '1.5 MB');
  assert.equal(shownType('image/png'), 'image/png');
  const dangerous = ['text/html', 'image/svg+xml', 'application/xhtml+xml', 'text/javascript', 'application/pdf'];
  for (const type of dangerous) {
    assert.equal(shownType(type), 'application/octet-stream', type);
  }
  assert.throws(() => checkManifest({ id: 'a', version: '1', name: 'n', waypoints: [] }), TourError);
  assert.throws(() => checkManifest({
    id: 'a', version: '1', name: 'n', waypoints: [{ name: 'x', coordinate: { latitude: 91, longitude: 0 } }],
  }), TourError);
  assert.throws(() => checkManifest([]), TourError);
  const d = distanceMetres({ latitude: 44.3976, longitude: -122.7262 }, { latitude: 44.3979, longitude: -122.481 });
  assert.ok(Math.abs(d - 19_500) < 300, `${d}`);
  assert.equal(arrivalRadius({}), 30);
  assert.equal(arrivalRadius({ properties: { radiusMetres: 80 } }), 80);
  assert.equal(arrivalRadius({ properties: { radiusMetres: 1e9 } }), 30);
});

test('BLAKE2b of the download equals what minisign prehashes (the same as Node and the file)', async () => {
  const s = await serve(blob, { cutAfter: 1_000_000 });
  try {
    const r = await downloadInto({
      url: s.url, etag: s.etag, size: blob.length, file: new MemoryFile(), prehash: true, sleep: noSleep,
    });
    const direct = new BLAKE2b512();
    direct.update(blob);
    assert.deepEqual(r.blake2b, direct.digest());
  } finally {
    s.close();
  }
});

test('answers that bring nothing are failures with pauses, never a tight loop of requests', async () => {
  let calls = 0;
  const pauses = [];
  const empty = async () => {
    calls += 1;
    return new Response(new Uint8Array(0), { status: 206, headers: { 'Content-Range': 'bytes 10-99/100' } });
  };
  await assert.rejects(
    downloadInto({
      url: 'http://x/p.zip', etag: '"e"', size: 100, file: new MemoryFile(new Uint8Array(10)), fetch: empty,
      retries: 3, sleep: async (ms) => { pauses.push(ms); },
    }),
    (e) => e instanceof DownloadError && e.code === 'network');
  assert.equal(calls, 4, 'one request, then one per retry');
  assert.deepEqual(pauses, [1000, 2000, 4000]);
});

test('a CDN that hides Content-Range (CORS) still resumes when the part is exactly the rest', async () => {
  const requests = [];
  const hidden = async (url, init) => {
    requests.push(init.headers.Range ?? null);
    const start = Number(/bytes=(\d+)-/.exec(init.headers.Range ?? 'bytes=0-')[1]);
    const body = blob.subarray(start);
    return new Response(body, {
      status: init.headers.Range ? 206 : 200, headers: { 'Content-Length': String(body.length) },
    });
  };
  const file = new MemoryFile(Uint8Array.from(blob.subarray(0, 500_000)));
  const r = await downloadInto({ url: 'http://cdn/p.zip', etag: '"e"', size: blob.length, file, fetch: hidden });
  assert.equal(r.sha256, sha);
  assert.deepEqual(requests, ['bytes=500000-']);
});

test('a malformed Repr-Digest is no digest, not an error', () => {
  assert.equal(reprDigestSHA256('sha-256=:A:'), null);
  assert.equal(reprDigestSHA256('sha-256=:AAAA:'), null);
  assert.equal(reprDigestSHA256(null), null);
});
