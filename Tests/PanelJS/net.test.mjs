// Talking to the panel (Sources/TrailPackPanel/Resources/js/net.js): a form sent the way a button
// would (token and revision first), a stale CSRF token renewed from /session into every field and
// attribute of the page, and the scripts' JSON answers read — under Node's own test runner, with a
// fake fetch and a small stand-in for the page.
import { describe, test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  post, postFields, readAnswer, renewToken, setAll,
} from '../../Sources/TrailPackPanel/Resources/js/net.js';
import { FakeDocument, fieldsOf } from './support.mjs';

/** A page with two forms' token fields, a map's and a drop zone's data-csrf, and a revision field. */
function page() {
  const doc = new FakeDocument();
  for (const id of ['details-form', 'stop-form']) {
    const form = doc.body.appendChild(doc.make('form', { id }));
    const csrf = form.appendChild(doc.make('input', { type: 'hidden', name: '_csrf' }));
    csrf.value = 'old';
    form.appendChild(doc.make('input', { type: 'hidden', name: 'revision' })).value = 'rev-1';
  }
  doc.body.appendChild(doc.make('div', { id: 'tour-map', 'data-csrf': 'old', 'data-revision': 'rev-1' }));
  doc.body.appendChild(doc.make('div', { id: 'drop-zone', 'data-csrf': 'old' }));
  return doc;
}
const tokens = (doc) => [
  ...doc.querySelectorAll('input[name=_csrf]').map((i) => i.value),
  ...doc.querySelectorAll('[data-csrf]').map((el) => el.getAttribute('data-csrf')),
];

describe('a form sent the way a button would', () => {
  afterEach(() => {
    delete globalThis.document;
  });

  test('the page\'s token and revision first, then the fields (which may name their own revision)', () => {
    const map = { getAttribute: (name) => ({ 'data-csrf': 'tok', 'data-revision': 'rev-3' })[name] ?? null };
    assert.deepEqual(postFields(map, { latitude: '44.1', longitude: '-122.2' }),
      [['_csrf', 'tok'], ['revision', 'rev-3'], ['latitude', '44.1'], ['longitude', '-122.2']]);
    assert.deepEqual(postFields(map, { revision: 'mine' }), [['_csrf', 'tok'], ['revision', 'mine']]);
  });

  test('post: a hidden form on the page, POSTed to the action', () => {
    const doc = page();
    globalThis.document = doc;
    post('/drafts/s/t/stops/2/move', { latitude: '44.1', stopRevision: 'b7' }, doc.getElementById('tour-map'));
    assert.equal(doc.submitted.length, 1);
    const form = doc.submitted[0];
    assert.equal(form.parentNode, doc.body);
    assert.equal(form.method, 'post');
    assert.equal(form.action, '/drafts/s/t/stops/2/move');
    assert.deepEqual(form.querySelectorAll('input').map((i) => i.type), ['hidden', 'hidden', 'hidden', 'hidden']);
    assert.deepEqual(fieldsOf(form), [['_csrf', 'old'], ['revision', 'rev-1'], ['latitude', '44.1'], ['stopRevision', 'b7']]);
  });

  test('setAll writes a value into every field, or an attribute of every element, the selector finds', () => {
    const doc = page();
    setAll('input[name=revision]', null, 'rev-2', doc);
    setAll('[data-revision]', 'data-revision', 'rev-2', doc);
    assert.deepEqual(doc.querySelectorAll('input[name=revision]').map((i) => i.value), ['rev-2', 'rev-2']);
    assert.equal(doc.getElementById('tour-map').getAttribute('data-revision'), 'rev-2');
  });
});

describe('a stale token renewed', () => {
  const asking = (answer) => {
    const calls = [];
    const fetch = async (url, init) => {
      calls.push({ url, init });
      return answer();
    };
    return { calls, fetch };
  };

  test('the session\'s new token, asked for by a same-origin GET of /session, goes into every field and attribute', async () => {
    const doc = page();
    const { calls, fetch } = asking(() => Response.json({ csrf: 'new-token', user: 'ken' }));
    assert.equal(await renewToken({ fetch, root: doc }), true);
    assert.deepEqual(calls, [{ url: '/session', init: { credentials: 'same-origin', headers: { 'Accept': 'application/json' } } }]);
    assert.deepEqual(tokens(doc), ['new-token', 'new-token', 'new-token', 'new-token']);
  });

  test('no session, no token in the answer, or no answer: false, and the page is left as it was', async () => {
    for (const [why, answer] of [
      ['signed out', () => Response.json({ message: 'sign in' }, { status: 401 })],
      ['no token', () => Response.json({ user: 'ken' })],
      ['refused, whatever it carries', () => Response.json({ csrf: 'not-this' }, { status: 403 })],
      ['not JSON', () => new Response('<html>')],
      ['no connection', () => { throw new TypeError('Failed to fetch'); }],
    ]) {
      const doc = page();
      assert.equal(await renewToken({ fetch: asking(answer).fetch, root: doc }), false, why);
      assert.deepEqual(tokens(doc), ['old', 'old', 'old', 'old'], why);
    }
  });
});

describe('readAnswer', () => {
  test('a JSON answer as it is; anything else as the status it came with', async () => {
    assert.deepEqual(await readAnswer(Response.json({ revision: 'r2' })), { ok: true, status: 200, answer: { revision: 'r2' } });
    assert.deepEqual(await readAnswer(Response.json({ message: 'conflict' }, { status: 409 })),
      { ok: false, status: 409, answer: { message: 'conflict' } });
    assert.deepEqual(await readAnswer(new Response('<html>', { status: 502 })),
      { ok: false, status: 502, answer: { message: 'the server answered 502' } });
  });

  test("a 200 that is not the panel's JSON (a network's sign-in page) is no success", async () => {
    const read = await readAnswer(new Response('<html><title>Sign in to the campground Wi-Fi</title>', { status: 200 }));
    assert.equal(read.ok, false);
    assert.equal(read.status, 200);
    assert.match(read.answer.message, /not the panel's/);
  });
});
