// Every body the visitor app reads from the network stops near what was asked for (issue #53,
// row 12): js/http.js's streamBody, readBody and readBlob against bodies without end, counting
// the bytes the app pulled out of the stream; and each place that reads a body through them —
// the ranges a tour's page reads out of a package on the server (HttpSource: a 206 that is the
// whole file, a 200), the catalog and the app's settings (catalog.js: JSON without end), a
// download (downloader.js) and an update by part (updater.js) — cut off the same way, with the
// app's words. Run with `node --test Tests/VisitorAppJS/http.test.mjs`.

import { describe, test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';

import {
  HttpSource, TooMuchError, readBlob, readBody, streamBody,
} from '../../Sources/TrailPackVisitor/app/js/http.js';
import * as catalog from '../../Sources/TrailPackVisitor/app/js/catalog.js';
import { downloadInto, DownloadError } from '../../Sources/TrailPackVisitor/app/js/downloader.js';
import { updateByPart, UpdateRefusal } from '../../Sources/TrailPackVisitor/app/js/updater.js';
import { setLanguage } from '../../Sources/TrailPackVisitor/app/js/i18n.js';
import { MemoryFile, makeZip, storedFile, withTimeout } from './support.mjs';

const CHUNK = 64 << 10;

/**
 * A body of `total` bytes (Infinity: without end) in chunks of `chunk` bytes, produced only when
 * read (highWaterMark 0: nothing is pulled ahead); `pulled` counts the bytes handed out,
 * `cancelled` whether the reader cancelled it.
 */
function countingBody({ total = Infinity, chunk = CHUNK, fill = 0x41 } = {}) {
  const counter = { pulled: 0, cancelled: false };
  counter.stream = new ReadableStream({
    pull(controller) {
      const n = Math.min(chunk, total - counter.pulled);
      if (n <= 0) {
        controller.close();
        return;
      }
      counter.pulled += n;
      controller.enqueue(new Uint8Array(n).fill(fill));
    },
    cancel() {
      counter.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return counter;
}

/** A Response over `counter`'s stream, with `status` and `headers`. */
const respond = (counter, status = 200, headers = {}) => new Response(counter.stream, { status, headers });

afterEach(() => setLanguage('en'));

describe('streamBody, readBody and readBlob: a body without end is cut off near the limit', () => {
  test('streamBody stops once more than the limit would arrive, cancels the stream, and says so in the app\'s words', async () => {
    const body = countingBody();
    const seen = [];
    const error = await withTimeout(
      streamBody(respond(body), 1 << 20, (chunk) => { seen.push(chunk.length); }).then(() => null, (e) => e),
      10000, 'an endless body');
    assert.ok(error instanceof TooMuchError, String(error));
    assert.equal(error.code, 'too-much');
    assert.match(error.message, /more than the 1,048,576 bytes asked for; the app stopped reading/);
    assert.ok(body.pulled <= (1 << 20) + CHUNK, `pulled ${body.pulled} bytes for a limit of 1 MiB`);
    assert.ok(body.cancelled, 'the stream was not cancelled');
    assert.equal(seen.reduce((a, b) => a + b, 0), 1 << 20, 'the chunk past the limit was passed on');
  });

  test('in Spanish', async () => {
    setLanguage('es');
    const error = await readBody(respond(countingBody()), 1 << 20).catch((e) => e);
    assert.match(error.message, /más de los 1\.048\.576 bytes pedidos; la app dejó de leer/);
  });

  test('a Content-Length above the limit is refused before a byte is read', async () => {
    const body = countingBody({ total: 5 << 20 });
    await assert.rejects(readBody(respond(body, 200, { 'Content-Length': String(5 << 20) }), 1 << 20), TooMuchError);
    assert.equal(body.pulled, 0);
    assert.ok(body.cancelled);
  });

  test('a body of the limit or less is read whole, in one array', async () => {
    for (const total of [0, 1, CHUNK, 3 * CHUNK + 17, 1 << 20]) {
      const body = countingBody({ total });
      const bytes = await readBody(respond(body), 1 << 20);
      assert.equal(bytes.length, total);
      assert.ok(bytes.every((b) => b === 0x41));
      assert.ok(!body.cancelled);
    }
  });

  test('a callback that fails cancels the stream and its error is the one thrown', async () => {
    const body = countingBody();
    await assert.rejects(streamBody(respond(body), 1 << 30, () => { throw new Error('disk full'); }), /disk full/);
    assert.ok(body.cancelled);
    assert.equal(body.pulled, CHUNK);
  });

  test('the caller\'s own error for a body too long', async () => {
    const mine = () => new RangeError('mine');
    await assert.rejects(readBody(respond(countingBody()), 10, mine), /mine/);
  });

  test('readBlob folds what arrives into a Blob and stops at the limit', async () => {
    const body = countingBody({ total: (9 << 20) + 5 });
    const blob = await readBlob(respond(body), 10 << 20, 'application/zip');
    assert.equal(blob.size, (9 << 20) + 5);
    assert.equal(blob.type, 'application/zip');
    const endless = countingBody();
    await assert.rejects(readBlob(respond(endless), 10 << 20), TooMuchError);
    assert.ok(endless.pulled <= (10 << 20) + CHUNK, `pulled ${endless.pulled}`);
  });
});

describe('HttpSource: a range of a package on the server, never more', () => {
  const SIZE = 600 << 20; // the whole file a lying server would send: 600 MiB
  const server = (answer) => {
    const asked = [];
    const fetch = async (url, init) => {
      asked.push(init.headers.Range);
      return answer(init.headers.Range);
    };
    return { asked, fetch };
  };

  test('a 206 that is the whole file (or without end): the read stops after the bytes asked for', async () => {
    const body = countingBody({ total: SIZE });
    const s = server(() => respond(body, 206));
    const source = new HttpSource('https://parks.example/p.zip', SIZE, s.fetch);
    const error = await withTimeout(source.read(1000, 50).then(() => null, (e) => e), 10000, 'a 206 of 600 MiB');
    assert.ok(error instanceof TooMuchError, String(error));
    assert.match(error.message, /more than the 50 bytes asked for/);
    assert.ok(body.pulled <= CHUNK, `pulled ${body.pulled} bytes of a 50-byte range`);
    assert.ok(body.cancelled);
    assert.deepEqual(s.asked, ['bytes=1000-1049']);
  });

  test('a 200 (the whole file, ranges ignored): refused without reading it, the body cancelled', async () => {
    const body = countingBody({ total: SIZE });
    const source = new HttpSource('https://parks.example/p.zip', SIZE, server(() => respond(body, 200)).fetch);
    await assert.rejects(source.read(0, 10), /The server answered 200 to a request for part of a file/);
    assert.equal(body.pulled, 0);
    assert.ok(body.cancelled);
  });

  test('a 206 with a Content-Length longer than the range: refused before a byte is read', async () => {
    const body = countingBody({ total: SIZE });
    const source = new HttpSource('u', SIZE, server(() => respond(body, 206, { 'Content-Length': String(SIZE) })).fetch);
    await assert.rejects(source.read(0, 10), TooMuchError);
    assert.equal(body.pulled, 0);
  });

  test('another range than the one asked for is refused; the right one (Content-Range shown or hidden by CORS) read exactly', async () => {
    const bytes = crypto.randomBytes(4096);
    const range = (header, withRange = true) => {
      const [a, b] = /bytes=(\d+)-(\d+)/.exec(header).slice(1).map(Number);
      const headers = withRange ? { 'Content-Range': `bytes ${a}-${b}/${bytes.length}` } : {};
      return new Response(bytes.subarray(a, b + 1), { status: 206, headers });
    };
    const right = new HttpSource('u', bytes.length, server((h) => range(h)).fetch);
    assert.deepEqual(Buffer.from(await right.read(100, 300)), bytes.subarray(100, 400));
    const hidden = new HttpSource('u', bytes.length, server((h) => range(h, false)).fetch);
    assert.deepEqual(Buffer.from(await hidden.read(4000, 96)), bytes.subarray(4000, 4096));
    const other = new HttpSource('u', bytes.length, server(() => new Response(bytes.subarray(0, 10), {
      status: 206, headers: { 'Content-Range': `bytes 0-9/${bytes.length}` },
    })).fetch);
    await assert.rejects(other.read(10, 10), /another part of the file/);
    const short = new HttpSource('u', bytes.length, server(() => new Response(bytes.subarray(0, 5), { status: 206 })).fetch);
    await assert.rejects(short.read(0, 10), /sent 5 of the 10 bytes/);
    await assert.rejects(right.read(4090, 10), RangeError);
  });
});

describe('catalog.js: the catalog and the app\'s settings, JSON without end', () => {
  const realFetch = globalThis.fetch;
  afterEach(() => { globalThis.fetch = realFetch; });

  test('config.json without end is cut off after 1 MiB; a site list after 16 MiB', async () => {
    for (const [call, limit] of [[catalog.config, 1 << 20], [catalog.sites, 16 << 20]]) {
      const body = countingBody({ fill: 0x20 }); // spaces: JSON that never ends
      globalThis.fetch = async () => respond(body, 200, { 'Content-Type': 'application/json' });
      const error = await withTimeout(call().then(() => null, (e) => e), 20000, 'JSON without end');
      assert.ok(error instanceof catalog.CatalogError, String(error));
      assert.equal(error.message, 'The server sent more than expected.');
      assert.ok(body.pulled <= limit + CHUNK, `pulled ${body.pulled} for a limit of ${limit}`);
      assert.ok(body.cancelled);
    }
  });

  test('a document within the limit is read; the service worker\'s offline copy is told apart', async () => {
    globalThis.fetch = async () => new Response('{"threshold": 1, "trustedKeys": []}', { status: 200 });
    assert.deepEqual(await catalog.config(), { document: { threshold: 1, trustedKeys: [] }, offlineCopy: false });
    globalThis.fetch = async () => new Response('{"threshold": 1, "trustedKeys": []}',
      { status: 200, headers: { [catalog.OFFLINE_COPY]: 'offline' } });
    assert.equal((await catalog.config()).offlineCopy, true);
  });
});

describe('downloads and updates: a longer body is cut off as it arrives', () => {
  test('downloader.js: a 200 without end for a file of 1 MiB stops near 1 MiB ("more than the bytes the catalog says")', async () => {
    const size = 1 << 20;
    const body = countingBody();
    const error = await withTimeout(downloadInto({
      url: 'u', etag: '"e"', size, file: new MemoryFile(), fetch: async () => respond(body, 200), sleep: async () => {},
    }).then(() => null, (e) => e), 20000, 'a download without end');
    assert.ok(error instanceof DownloadError, String(error));
    assert.equal(error.code, 'size');
    assert.match(error.message, /more than the 1048576 bytes the catalog says/);
    assert.ok(body.pulled <= size + CHUNK, `pulled ${body.pulled}`);
    assert.ok(body.cancelled);
  });

  test('updater.js: a range answered by a 206 without end is refused near the range\'s length', async () => {
    const manifest = new TextEncoder().encode(JSON.stringify({ id: 'a', version: '1' }));
    const installed = makeZip([storedFile('manifest.json', manifest)]);
    const size = 1 << 20;
    const bodies = [];
    const fetch = async (url, init) => {
      const [a, b] = /bytes=(\d+)-(\d+)/.exec(init.headers.Range).slice(1).map(Number);
      const body = countingBody();
      bodies.push({ body, length: b - a + 1 });
      return respond(body, 206, { 'Content-Range': `bytes ${a}-${b}/${size}` });
    };
    const error = await withTimeout(updateByPart({
      url: 'u', etag: '"e"', size, sha256: 'a'.repeat(64), file: new MemoryFile(), fetch,
      installed: { size: installed.length, read: async (o, n) => installed.subarray(o, o + n) },
    }).then(() => null, (e) => e), 20000, 'an update by part without end');
    assert.ok(error instanceof UpdateRefusal, String(error));
    assert.match(error.message, /more than the range asked for/);
    assert.equal(bodies.length, 1);
    assert.ok(bodies[0].body.pulled <= bodies[0].length + CHUNK, `pulled ${bodies[0].body.pulled} for ${bodies[0].length}`);
    assert.ok(bodies[0].body.cancelled);
  });
});
