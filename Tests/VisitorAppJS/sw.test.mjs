// Tests of the visitor app's service worker (Sources/TrailPackVisitor/app/sw.js): which requests it
// answers, from its copy of the app or from the network, and what it does when its copy cannot be
// read. Run with `node --test Tests/VisitorAppJS/sw.test.mjs`.
//
// The worker is a classic script of the browser: it runs here in a function whose `self`,
// `caches` and `fetch` are the test's, so that each answer and each fall back can be seen.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const source = readFileSync(new URL('../../Sources/TrailPackVisitor/app/sw.js', import.meta.url), 'utf8');
const SCOPE = 'https://parks.example/visit/';

/**
 * The worker loaded with `caches` and `fetch` as given; returns a function that dispatches a fetch
 * event and resolves with what the worker answered (undefined: it left the request to the browser).
 */
function load({ caches, fetch }) {
  const listeners = {};
  const self = {
    registration: { scope: SCOPE },
    addEventListener: (type, listener) => { listeners[type] = listener; },
  };
  new Function('self', 'caches', 'fetch', source)(self, caches, fetch);
  return async (url, method = 'GET') => {
    let answer;
    const waits = [];
    listeners.fetch({
      request: { url, method }, respondWith: (promise) => { answer = promise; }, waitUntil: (p) => { waits.push(p); },
    });
    const result = answer === undefined ? undefined : await answer;
    await Promise.all(waits);
    return result;
  };
}

/** A cache holding `held` (url or './' → answer); `opened` lists the names asked for. */
function cacheStorage(held, failure = {}) {
  const opened = [];
  return {
    opened,
    async open(name) {
      opened.push(name);
      if (failure.open) throw new Error('the cache cannot be opened');
      return {
        async match(key, options) {
          assert.deepEqual(options, { ignoreSearch: true });
          if (failure.match) throw new Error('the cache cannot be read');
          return held[typeof key === 'string' ? key : key.url];
        },
      };
    },
  };
}

function network() {
  const asked = [];
  const fetch = async (request) => {
    asked.push(request.url);
    return `network: ${request.url}`;
  };
  return { asked, fetch };
}

describe('the visitor app\'s service worker', () => {
  test('answers the app\'s files from its copy, and the scope itself as ./', async () => {
    const net = network();
    const caches = cacheStorage({ [`${SCOPE}js/app.js`]: 'copy: app.js', './': 'copy: index' });
    const dispatch = load({ caches, fetch: net.fetch });
    assert.equal(await dispatch(`${SCOPE}js/app.js`), 'copy: app.js');
    assert.equal(await dispatch(SCOPE), 'copy: index');
    assert.deepEqual(net.asked, []);
    assert.ok(caches.opened.every((name) => /^trailpack-visitor-/.test(name)), caches.opened.join(', '));
  });

  test('asks the network for what its copy does not hold', async () => {
    const net = network();
    const dispatch = load({ caches: cacheStorage({}), fetch: net.fetch });
    assert.equal(await dispatch(`${SCOPE}js/new.js?x=1`), `network: ${SCOPE}js/new.js?x=1`);
    assert.deepEqual(net.asked, [`${SCOPE}js/new.js?x=1`]);
  });

  test('asks the network when its copy cannot be opened or read, instead of failing the request', async () => {
    for (const failure of [{ open: true }, { match: true }]) {
      const net = network();
      const dispatch = load({ caches: cacheStorage({ [`${SCOPE}js/app.js`]: 'copy' }, failure), fetch: net.fetch });
      assert.equal(await dispatch(`${SCOPE}js/app.js`), `network: ${SCOPE}js/app.js`, JSON.stringify(failure));
    }
  });

  test('leaves to the browser what is not a GET of its scope: the API, downloads, other sites, uploads', async () => {
    const net = network();
    const caches = cacheStorage({});
    const dispatch = load({ caches, fetch: net.fetch });
    for (const url of ['https://parks.example/v1/sites', 'https://parks.example/v1/blobs/a.zip',
      'https://tiles.example/visit/app.js', 'https://parks.example/visitor']) {
      assert.equal(await dispatch(url), undefined, url);
    }
    assert.equal(await dispatch(`${SCOPE}js/app.js`, 'POST'), undefined);
    assert.deepEqual(net.asked, []);
    assert.deepEqual(caches.opened, []);
  });

  test('a failing network is the request\'s failure (offline, nothing to answer with)', async () => {
    const dispatch = load({
      caches: cacheStorage({}),
      fetch: async () => { throw new TypeError('Failed to fetch'); },
    });
    await assert.rejects(dispatch(`${SCOPE}js/missing.js`), /Failed to fetch/);
  });

  describe('config.json, the settings that decide which downloads to trust (issue #53, row 14)', () => {
    const CONFIG = `${SCOPE}config.json`;
    /** A cache holding real Responses by URL, with put (what the worker keeps). */
    const keeping = (held) => {
      const puts = [];
      return {
        puts,
        held,
        async open() {
          return {
            async match(key) { return held[typeof key === 'string' ? key : key.url]?.clone(); },
            async put(key, response) {
              puts.push(key);
              held[typeof key === 'string' ? key : key.url] = response;
            },
          };
        },
      };
    };
    const json = (value, headers = {}) => {
      const text = JSON.stringify(value);
      return new Response(text, {
        status: 200, headers: { 'Content-Type': 'application/json', 'Content-Length': String(text.length), ...headers },
      });
    };

    test('from the network first, even while the copy holds older settings; the copy is brought up to date', async () => {
      const caches = keeping({ [CONFIG]: json({ threshold: 1 }) });
      const asked = [];
      const dispatch = load({ caches, fetch: async (request, init) => { asked.push([request.url, init?.cache]); return json({ threshold: 2 }); } });
      const answer = await dispatch(CONFIG);
      assert.deepEqual(await answer.json(), { threshold: 2 });
      assert.equal(answer.headers.get('X-TrailPack-Copy'), null, 'the network\'s answer is not marked');
      assert.deepEqual(asked, [[CONFIG, 'no-cache']]);
      assert.deepEqual(caches.puts, [CONFIG]);
      assert.deepEqual(await caches.held[CONFIG].json(), { threshold: 2 });
    });

    test('the kept copy only when the network fails, marked X-TrailPack-Copy: offline', async () => {
      const dispatch = load({
        caches: keeping({ [CONFIG]: json({ threshold: 1 }) }),
        fetch: async () => { throw new TypeError('Failed to fetch'); },
      });
      const answer = await dispatch(`${CONFIG}?again`);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('X-TrailPack-Copy'), 'offline');
      assert.equal(answer.headers.get('Content-Type'), 'application/json');
      assert.deepEqual(await answer.json(), { threshold: 1 });
    });

    test('an answer without a length, or longer than the app reads, is passed on unread and not kept', async () => {
      for (const headers of [{}, { 'Content-Length': String((1 << 20) + 1) }]) {
        let pulled = 0;
        const endless = new ReadableStream({
          pull(controller) { pulled += 65536; controller.enqueue(new Uint8Array(65536)); },
        }, { highWaterMark: 0 });
        const caches = keeping({ [CONFIG]: json({ threshold: 1 }) });
        const dispatch = load({ caches, fetch: async () => new Response(endless, { status: 200, headers }) });
        const answer = await dispatch(CONFIG);
        assert.equal(answer.status, 200);
        assert.equal(pulled, 0, JSON.stringify(headers));
        assert.deepEqual(caches.puts, []);
        await answer.body.cancel();
      }
    });

    test('no network and no copy: the request fails; a server\'s error is passed on and not kept', async () => {
      const none = load({ caches: keeping({}), fetch: async () => { throw new TypeError('Failed to fetch'); } });
      await assert.rejects(none(CONFIG), /Failed to fetch/);
      const caches = keeping({ [CONFIG]: json({ threshold: 1 }) });
      const failing = load({ caches, fetch: async () => new Response('no', { status: 503 }) });
      assert.equal((await failing(CONFIG)).status, 503);
      assert.deepEqual(caches.puts, []);
    });
  });
});

