// Which reviewers the visitor app trusts and how many must have signed (js/trust.js, issue #53
// row 14): the settings fetched are weighed against what the phone remembers — a threshold never
// lower than the highest seen (and the visitor told so, in both languages), keys added only by
// the network, never by the service worker's offline copy — and the memory kept in IndexedDB
// (storage.js) through catalog.js's fetch. Run with `node --test Tests/VisitorAppJS/trust.test.mjs`.

import { describe, test, afterEach } from 'node:test';
import assert from 'node:assert/strict';

import { chooseTrust, trustSettings, validMemory } from '../../Sources/TrailPackVisitor/app/js/trust.js';
import { OFFLINE_COPY } from '../../Sources/TrailPackVisitor/app/js/catalog.js';
import { t } from '../../Sources/TrailPackVisitor/app/js/i18n.js';
import { MemoryIndexedDB } from './support.mjs';

const KEN = { keyId: 'AAAA', publicKey: 'RWQken' };
const LEE = { keyId: 'BBBB', publicKey: 'RWQlee' };
const EVE = { keyId: 'EEEE', publicKey: 'RWQeve' };
const served = (threshold, keys, extra = {}) => ({ threshold, trustedKeys: keys, tweetnacl: false, ...extra });
const keysOf = (settings) => settings.trustedKeys.map((k) => k.publicKey);

describe('chooseTrust: the served settings against the remembered ones', () => {
  test('the first settings from the network are taken as they are, and remembered', () => {
    const r = chooseTrust(served(1, [KEN, LEE]), undefined, false);
    assert.deepEqual(r.settings, served(1, [KEN, LEE]));
    assert.deepEqual(r.memory, { threshold: 1, keys: ['RWQken', 'RWQlee'] });
    assert.deepEqual(r.notices, []);
  });

  test('a higher threshold from the network applies at once', () => {
    const r = chooseTrust(served(2, [KEN, LEE]), { threshold: 1, keys: ['RWQken', 'RWQlee'] }, false);
    assert.equal(r.settings.threshold, 2);
    assert.equal(r.memory.threshold, 2);
    assert.deepEqual(r.notices, []);
  });

  test('a lower threshold never wins over a higher one seen before: the higher is kept, and said', () => {
    for (const lower of [0, 1]) {
      const r = chooseTrust(served(lower, [KEN, LEE]), { threshold: 2, keys: ['RWQken', 'RWQlee'] }, false);
      assert.equal(r.settings.threshold, 2);
      assert.equal(r.memory.threshold, 2);
      assert.deepEqual(r.notices, [{ key: 'trust.thresholdKept', params: { served: lower, kept: 2 } }]);
    }
  });

  test('the network may add keys and drop them (the memory follows it)', () => {
    const added = chooseTrust(served(1, [KEN, LEE, EVE]), { threshold: 1, keys: ['RWQken', 'RWQlee'] }, false);
    assert.deepEqual(keysOf(added.settings), ['RWQken', 'RWQlee', 'RWQeve']);
    assert.deepEqual(added.memory.keys, ['RWQken', 'RWQlee', 'RWQeve']);
    const dropped = chooseTrust(served(1, [KEN]), added.memory, false);
    assert.deepEqual(keysOf(dropped.settings), ['RWQken']);
    assert.deepEqual(dropped.memory.keys, ['RWQken']);
    assert.deepEqual(dropped.notices, []);
  });

  test('the offline copy adds no key the network did not name last; it may drop one; the memory keeps the network\'s keys', () => {
    const memory = { threshold: 1, keys: ['RWQken', 'RWQlee'] };
    const more = chooseTrust(served(1, [KEN, EVE]), memory, true);
    assert.deepEqual(keysOf(more.settings), ['RWQken']);
    assert.deepEqual(more.memory, memory);
    assert.deepEqual(more.notices, [{ key: 'trust.offlineKeys', params: { n: 1 } }]);
    const fewer = chooseTrust(served(1, [LEE]), memory, true);
    assert.deepEqual(keysOf(fewer.settings), ['RWQlee']);
    assert.deepEqual(fewer.notices, []);
  });

  test('the offline copy before any settings from the network: no key is trusted', () => {
    const r = chooseTrust(served(1, [KEN, LEE]), undefined, true);
    assert.deepEqual(r.settings.trustedKeys, []);
    assert.deepEqual(r.memory, { threshold: 1, keys: null });
    assert.deepEqual(r.notices, [{ key: 'trust.offlineKeys', params: { n: 2 } }]);
  });

  test('the offline copy cannot lower the threshold either; a higher one in it is taken (stricter)', () => {
    const memory = { threshold: 2, keys: ['RWQken', 'RWQlee', 'RWQeve'] };
    assert.equal(chooseTrust(served(1, [KEN, LEE]), memory, true).settings.threshold, 2);
    const higher = chooseTrust(served(3, [KEN, LEE, EVE]), memory, true);
    assert.equal(higher.settings.threshold, 3);
    assert.equal(higher.memory.threshold, 3);
  });

  test('settings that cannot be used change nothing; a memory that cannot be read counts as none', () => {
    const memory = { threshold: 2, keys: ['RWQken'] };
    for (const bad of [null, {}, { threshold: -1, trustedKeys: [] }, { threshold: 1.5, trustedKeys: [] },
      { threshold: 1, trustedKeys: 'RWQken' }, { threshold: 1, trustedKeys: [{ keyId: 'AAAA' }] }]) {
      const r = chooseTrust(bad, memory, false);
      assert.equal(r.settings, null, JSON.stringify(bad));
      assert.deepEqual(r.memory, memory);
    }
    assert.deepEqual(validMemory('garbage'), { threshold: 0, keys: null });
    assert.deepEqual(validMemory({ threshold: '9', keys: [1, 'RWQken'] }), { threshold: 0, keys: ['RWQken'] });
  });

  test('the notices in the app\'s words, English and Spanish', () => {
    const [kept] = chooseTrust(served(1, [KEN, LEE]), { threshold: 2, keys: [] }, false).notices;
    assert.equal(t(kept.key, kept.params, 'en'),
      "The park's server lowered the number of reviewers' signatures a tour needs from 2 to 1: this app keeps asking for 2.");
    assert.equal(t(kept.key, kept.params, 'es'),
      'El servidor del parque bajó de 2 a 1 el número de firmas de revisores que necesita un recorrido: esta app sigue pidiendo 2.');
    const [offline] = chooseTrust(served(1, [KEN, LEE]), { threshold: 1, keys: [] }, true).notices;
    assert.match(t(offline.key, offline.params, 'en'), /2 reviewers' keys not seen online before are not trusted/);
    assert.match(t(offline.key, offline.params, 'es'), /no se confía en 2 claves de revisores/);
  });
});

describe('trustSettings: fetched from the network, remembered in IndexedDB', () => {
  const realFetch = globalThis.fetch;
  afterEach(() => { globalThis.fetch = realFetch; });
  const idb = new MemoryIndexedDB();
  globalThis.indexedDB = idb;
  /** The server: answers config.json with `document`, marked as the worker's offline copy when `offline`. */
  const serve = (document, offline = false) => {
    const asked = [];
    globalThis.fetch = async (url, init) => {
      asked.push([url, init?.cache]);
      return new Response(JSON.stringify(document), { status: 200, headers: offline ? { [OFFLINE_COPY]: 'offline' } : {} });
    };
    return asked;
  };
  const stored = () => idb.databases.get('trailpack').stores.get('library').get('trust');

  test('the settings change while the app is open: a higher threshold applies on the next check, a lower one never', async () => {
    const asked = serve(served(1, [KEN, LEE]));
    let r = await trustSettings();
    assert.deepEqual(asked, [['config.json', 'no-cache']]);
    assert.equal(r.settings.threshold, 1);
    assert.deepEqual(stored(), { threshold: 1, keys: ['RWQken', 'RWQlee'] });

    serve(served(2, [KEN, LEE]));
    r = await trustSettings();
    assert.equal(r.settings.threshold, 2);
    assert.deepEqual(r.notices, []);
    assert.equal(stored().threshold, 2);

    serve(served(1, [KEN, LEE, EVE]));
    r = await trustSettings();
    assert.equal(r.settings.threshold, 2);
    assert.deepEqual(keysOf(r.settings), ['RWQken', 'RWQlee', 'RWQeve']);
    assert.deepEqual(r.notices, [{ key: 'trust.thresholdKept', params: { served: 1, kept: 2 } }]);
    assert.deepEqual(stored(), { threshold: 2, keys: ['RWQken', 'RWQlee', 'RWQeve'] });

    serve(served(1, [KEN]));
    r = await trustSettings();
    assert.deepEqual(keysOf(r.settings), ['RWQken']);
    assert.deepEqual(stored(), { threshold: 2, keys: ['RWQken'] });

    // Offline, the worker's copy names a key the network dropped since: not trusted again.
    serve(served(2, [KEN, LEE]), true);
    r = await trustSettings();
    assert.deepEqual(keysOf(r.settings), ['RWQken']);
    assert.deepEqual(r.notices, [{ key: 'trust.offlineKeys', params: { n: 1 } }]);
    assert.deepEqual(stored(), { threshold: 2, keys: ['RWQken'] });
  });

  test('fails closed: the settings not fetched, or the memory not kept, is an error, not settings', async () => {
    globalThis.fetch = async () => { throw new TypeError('Failed to fetch'); };
    await assert.rejects(trustSettings(), /offline/);
    serve(served(1, [KEN]));
    idb.fail = 'the disk is full';
    await assert.rejects(trustSettings(), /disk is full/);
    assert.equal(stored().threshold, 2, 'the memory is unchanged');
  });
});
