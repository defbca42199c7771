// Tests of the visitor app's honest status (Sources/TrailPackVisitor/app/js/status.js): refused
// versions kept until the catalog names another file, damaged entries dropped; the space the app
// stored by its own count. Run with `node --test Tests/VisitorAppJS/status.test.mjs`.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  MAX_REFUSALS, refusalOf, spaceFree, spaceUsed, validRefusals, withRefusal, withoutRefusals,
} from '../../Sources/TrailPackVisitor/app/js/status.js';

const sha = (c) => c.repeat(64);
const refusal = (id, s, reason = 'sha256') => ({ id, version: '1.0.1', sha256: s, reason, message: 'no', at: 1 });

test('a refused file is not offered again; another file of the same tour is', () => {
  let lib = { tours: [], downloads: [] };
  lib = withRefusal(lib, refusal('a', sha('1')));
  assert.equal(refusalOf(lib, { id: 'a', sha256: sha('1') }).reason, 'sha256');
  assert.equal(refusalOf(lib, { id: 'a', sha256: sha('2') }), null, 'the catalog changed');
  assert.equal(refusalOf(lib, { id: 'b', sha256: sha('1') }), null);
  assert.deepEqual(lib.tours, []);
});

test('one refusal per tour, the latest', () => {
  let lib = { tours: [], downloads: [] };
  lib = withRefusal(lib, refusal('a', sha('1')));
  lib = withRefusal(lib, refusal('a', sha('2'), 'signatures'));
  lib = withRefusal(lib, refusal('b', sha('3')));
  assert.deepEqual(lib.refused.map((r) => [r.id, r.sha256[0], r.reason]), [['a', '2', 'signatures'], ['b', '3', 'sha256']]);
  assert.deepEqual(withoutRefusals(lib, 'a').refused.map((r) => r.id), ['b']);
});

test('damaged entries are dropped, never trusted; the list is bounded', () => {
  assert.deepEqual(validRefusals('x'), []);
  assert.deepEqual(validRefusals([null, { id: 'a' }, refusal('a', 'A'.repeat(64)), refusal('a', sha('1'), 'other'),
    { ...refusal('a', sha('1')), at: NaN }]), []);
  const many = Array.from({ length: MAX_REFUSALS + 5 }, (_, i) => refusal(`t${i}`, sha('1')));
  const kept = validRefusals(many);
  assert.equal(kept.length, MAX_REFUSALS);
  assert.equal(kept[0].id, 't5', 'the oldest go first');
});

test('the space used is the app\'s own count; the estimate only for what is free', () => {
  const lib = { tours: [{ size: 1000 }, { size: 2500 }, { size: -3 }, {}], downloads: [] };
  assert.deepEqual(spaceUsed(lib, [400, 0, NaN]), { tours: 3500, downloads: 400, total: 3900 });
  assert.equal(spaceFree({ usage: 300, quota: 1000 }), 700);
  assert.equal(spaceFree({ usage: 3000, quota: 1000 }), 0);
  assert.equal(spaceFree({ usage: 0, quota: 0 }), 0);
});

test('a refusal is told to the confirmation route with its reason; a download kept is told without one', async () => {
  const { createServer } = await import('node:http');
  const { confirm } = await import('../../Sources/TrailPackVisitor/app/js/catalog.js');
  const bodies = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => { body += chunk; });
    request.on('end', () => {
      bodies.push({ url: request.url, type: request.headers['content-type'], body: JSON.parse(body) });
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"match": false}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const entry = { confirm: `http://127.0.0.1:${server.address().port}/v1/packages/a/versions/1/confirm` };
    assert.equal(await confirm(entry, sha('a'), 'signatures'), true);
    assert.equal(await confirm(entry, sha('b'), 'hash'), true);
    assert.equal(await confirm(entry, sha('c')), true);
    assert.deepEqual(bodies.map((b) => b.body), [
      { sha256: sha('a'), refused: 'signatures' }, { sha256: sha('b'), refused: 'hash' }, { sha256: sha('c') },
    ]);
    assert.ok(bodies.every((b) => b.url === '/v1/packages/a/versions/1/confirm' && b.type === 'application/json'));
  } finally {
    server.close();
  }
  // A server that cannot be reached: no throw, the visitor is not bothered.
  assert.equal(await confirm({ confirm: 'http://127.0.0.1:1/confirm' }, sha('d'), 'hash'), false);
});
