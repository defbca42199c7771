// The panel's autosave (Sources/TrailPackPanel/Resources/js/autosave.js): when a form is saved
// (1.5 s after the last edit, one save at a time), what is sent, what a saved answer changes,
// how a conflict, a stale token, an ended session and a failed connection are said and retried,
// what leaving the page does, and what kept text is put back — with a fake fetch and a fake
// clock given to `autosaver`, under Node's own test runner.
import { describe, test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  CONNECTION_FAILED, PUT_BACK, SAVE_DELAY, SESSION_ENDED, autosaver, autosavers, currentRevision, putBack,
  restorable, saveAll, saveOutcome, savedWords,
} from '../../Sources/TrailPackPanel/Resources/js/autosave.js';
import { FakeClock, FakeServer, flush } from './support.mjs';

/**
 * An autosaver over a fake page: `fields` is what the form holds (edit it, then call `edited`),
 * `said` what the status line said, `log` every keep, forget and saved answer in order.
 */
function setup({ renewed = true, newToken = 'token-2' } = {}) {
  const clock = new FakeClock();
  const server = new FakeServer();
  const page = {
    fields: { description: 'first words', revision: 'rev-1' },
    token: 'token-1',
    said: [],
    log: [],
    renewals: 0,
  };
  const saver = autosaver({
    action: '/drafts/site/tour',
    body: () => new URLSearchParams(page.fields),
    token: () => page.token,
    saved: (answer, sent) => page.log.push(['saved', answer, sent.toString()]),
    say: (text, signIn = false) => page.said.push(signIn ? [text, 'sign-in link'] : text),
    keep: () => page.log.push(['keep']),
    forget: () => page.log.push(['forget']),
    fetch: server.fetch,
    renewToken: async () => {
      page.renewals++;
      if (renewed) page.token = newToken;
      return renewed;
    },
    setTimeout: clock.setTimeout,
    clearTimeout: clock.clearTimeout,
    now: () => new Date(2026, 5, 1, 14, 7),
  });
  return { clock, server, page, saver, lastSaid: () => page.said[page.said.length - 1] };
}

/** Settles `promise` into {value} or 'pending' as it stands after the waiting callbacks ran. */
async function state(promise) {
  let out = 'pending';
  promise.then((value) => { out = { value }; });
  await flush();
  return out;
}

describe('when a form is saved', () => {
  test('1.5 s after the last edit, not before, and once', async () => {
    const { clock, server, saver } = setup();
    saver.edited();
    await clock.advance(1000);
    saver.edited();
    await clock.advance(SAVE_DELAY - 1);
    assert.equal(server.requests.length, 0, 'typing again waits again');
    await clock.advance(1);
    assert.equal(server.requests.length, 1);
    await clock.advance(10 * SAVE_DELAY);
    assert.equal(server.requests.length, 1, 'one save for one pause');
  });

  test('what is sent: the form\'s fields now, by POST, asking for JSON, with the page\'s token', async () => {
    const { clock, server, page, saver } = setup();
    page.fields.description = 'typed before the pause';
    saver.edited();
    await clock.advance(SAVE_DELAY);
    const { url, init } = server.last;
    assert.equal(url, '/drafts/site/tour');
    assert.equal(init.method, 'POST');
    assert.equal(init.credentials, 'same-origin');
    assert.deepEqual(init.headers, {
      'Accept': 'application/json', 'X-Requested-With': 'autosave', 'X-CSRF-Token': 'token-1',
    });
    assert.equal(init.body.toString(), 'description=typed+before+the+pause&revision=rev-1');
  });

  test('nothing typed: nothing is sent, and it counts as saved', async () => {
    const { server, saver } = setup();
    assert.equal(await saver.save(), true);
    assert.equal(server.requests.length, 0);
    assert.equal(saver.warnsOnLeaving(), false);
  });

  test('a saved answer goes into the page, the kept copy is forgotten, and the time is said', async () => {
    const { clock, server, page, saver, lastSaid } = setup();
    saver.edited();
    assert.equal(lastSaid(), 'Not saved yet…');
    assert.deepEqual(page.log, [['keep']], 'what is typed is kept at once');
    await clock.advance(SAVE_DELAY);
    assert.equal(lastSaid(), 'Saving…');
    server.last.answer(200, { message: 'Saved', revision: 'rev-2' });
    await flush();
    assert.deepEqual(page.log.slice(1), [
      ['saved', { message: 'Saved', revision: 'rev-2' }, 'description=first+words&revision=rev-1'], ['forget'],
    ]);
    assert.equal(lastSaid(), savedWords(new Date(2026, 5, 1, 14, 7)));
    assert.match(lastSaid(), /^Saved at \D*(14|0?2)\D07\b.*\.$/);
    assert.equal(saver.isDirty(), false);
    assert.equal(saver.warnsOnLeaving(), false);
    assert.equal(clock.pending, 0, 'no save is waiting');
  });

  test("a 200 that is not the panel's answer (a campground Wi-Fi's sign-in page) saves nothing: kept, said, sent again", async () => {
    const { clock, server, page, saver, lastSaid } = setup();
    saver.edited();
    await clock.advance(SAVE_DELAY);
    server.last.answer(200, '<html><title>Sign in to the campground Wi-Fi</title></html>');
    await flush();
    assert.ok(!page.log.some(([what]) => what === 'saved' || what === 'forget'), JSON.stringify(page.log));
    assert.match(lastSaid(), /^Not saved: the answer was not the panel's/);
    assert.equal(saver.isDirty(), true);
    assert.equal(saver.warnsOnLeaving(), true, 'leaving the page still warns');
    saver.edited();
    await clock.advance(SAVE_DELAY);
    assert.equal(server.requests.length, 2, 'tried again as the ranger types');
  });

  test('one save at a time: text typed while a save is on its way is sent after it, with what it answered', async () => {
    const { clock, server, page, saver } = setup();
    saver.edited();
    await clock.advance(SAVE_DELAY);
    page.fields = { description: 'more words', revision: 'rev-1' };
    saver.edited();
    const all = saver.save(); // as saveAll does before files go
    await flush();
    assert.equal(server.requests.length, 1, 'the second save waits for the first');
    assert.equal(await state(all), 'pending');
    // The page takes the first answer's revision, so the second save names it.
    page.log.length = 0;
    server.requests[0].answer(200, { revision: 'rev-2' });
    page.fields.revision = 'rev-2';
    await flush();
    assert.deepEqual(page.log.map((e) => e[0]), ['saved', 'keep'], 'saved, and what was typed since is kept');
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[1].init.body.toString(), 'description=more+words&revision=rev-2');
    server.requests[1].answer(200, { revision: 'rev-3' });
    assert.deepEqual(await state(all), { value: true });
    assert.equal(clock.pending, 0, 'the timer of the second edit was taken by the save');
  });
});

describe('how a save that did not go through is said and tried again', () => {
  test('a conflict (409) is said in the server\'s words and kept; it is tried again at the next edit, not before', async () => {
    const { clock, server, page, saver, lastSaid } = setup();
    saver.edited();
    const saving = saver.save(); // as saveAll does: at once
    await flush();
    const message = 'Someone else saved this tour since you opened it: open it again to see their changes.';
    server.last.answer(409, { message });
    assert.deepEqual(await state(saving), { value: false });
    assert.equal(lastSaid(), `Not saved: ${message}`);
    assert.deepEqual(page.log.map((e) => e[0]), ['keep', 'keep'], 'kept, not forgotten');
    assert.equal(saver.isDirty(), true);
    assert.equal(saver.warnsOnLeaving(), true);
    assert.equal(page.renewals, 0, 'a conflict is not a token');
    await clock.advance(60_000);
    assert.equal(server.requests.length, 1, 'not sent again by itself');
    saver.edited();
    await clock.advance(SAVE_DELAY);
    assert.equal(server.requests.length, 2);
  });

  test('an answer that is not JSON is said by its status', async () => {
    const { clock, server, saver, lastSaid } = setup();
    saver.edited();
    await clock.advance(SAVE_DELAY);
    server.last.answer(502, '<html>Bad gateway</html>');
    await flush();
    assert.equal(lastSaid(), 'Not saved: the server answered 502');
  });

  test('a stale token (403): a new one is asked for, and the save sent again with it', async () => {
    const { clock, server, page, saver, lastSaid } = setup();
    saver.edited();
    const saving = saver.save(); // as saveAll does: at once
    await flush();
    server.last.answer(403, { message: 'refused' });
    await flush();
    assert.equal(page.renewals, 1);
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[1].init.headers['X-CSRF-Token'], 'token-2');
    assert.equal(server.requests[1].init.body.toString(), 'description=first+words&revision=rev-1');
    server.last.answer(200, { revision: 'rev-2' });
    assert.deepEqual(await state(saving), { value: true });
    assert.match(lastSaid(), /^Saved at /);
  });

  test('refused again with the new token: no second renewal until the next edit; the refusal is said', async () => {
    const { clock, server, page, saver, lastSaid } = setup();
    saver.edited();
    const saving = saver.save(); // as saveAll does: at once
    await flush();
    server.last.answer(403, { message: 'first refusal' });
    await flush();
    server.last.answer(403, { message: 'This form is out of date: open the page again.' });
    assert.deepEqual(await state(saving), { value: false });
    assert.equal(page.renewals, 1);
    assert.equal(server.requests.length, 2);
    assert.equal(lastSaid(), 'Not saved: This form is out of date: open the page again.');
    saver.edited();
    await clock.advance(SAVE_DELAY);
    server.last.answer(403, { message: 'again' });
    await flush();
    assert.equal(page.renewals, 2, 'an edit may renew again');
  });

  test('an ended session (401) with no new token: said, with a link to sign in again in a new tab', async () => {
    const { clock, server, page, saver, lastSaid } = setup({ renewed: false });
    saver.edited();
    const saving = saver.save(); // as saveAll does: at once
    await flush();
    server.last.answer(401, { message: 'Your session has ended', sessionEnded: true });
    assert.deepEqual(await state(saving), { value: false });
    assert.equal(page.renewals, 1);
    assert.equal(server.requests.length, 1);
    assert.deepEqual(lastSaid(), [SESSION_ENDED, 'sign-in link']);
    assert.equal(saver.isDirty(), true);
  });

  test('a failed connection: said, kept, and tried again at the next edit', async () => {
    const { clock, server, page, saver, lastSaid } = setup();
    saver.edited();
    const saving = saver.save(); // as saveAll does: at once
    await flush();
    server.last.fail();
    assert.deepEqual(await state(saving), { value: false });
    assert.equal(lastSaid(), CONNECTION_FAILED);
    assert.deepEqual(page.log.map((e) => e[0]), ['keep', 'keep']);
    assert.equal(saver.isDirty(), true);
    saver.edited();
    await clock.advance(SAVE_DELAY);
    assert.equal(server.requests.length, 2);
  });
});

describe('a save asked for while one is on its way', () => {
  test('waits for it and, when it was not saved, sends once more (saveAll before files go)', async () => {
    const { clock, server, saver, lastSaid } = setup();
    saver.edited();
    await clock.advance(SAVE_DELAY);
    const all = saver.save();
    server.requests[0].answer(409, { message: 'conflict' });
    await flush();
    assert.equal(server.requests.length, 2, 'sent again once the first was refused');
    server.requests[1].answer(409, { message: 'still a conflict' });
    assert.deepEqual(await state(all), { value: false });
    assert.equal(lastSaid(), 'Not saved: still a conflict');
  });
});

describe('leaving the page, and text put back', () => {
  test('sent with the form\'s button while nothing is on its way: it goes at once, and leaving warns no more', async () => {
    const { clock, saver } = setup();
    saver.edited();
    assert.equal(saver.warnsOnLeaving(), true);
    assert.equal(saver.submitted(), null);
    assert.equal(saver.warnsOnLeaving(), false);
    assert.equal(clock.pending, 0, 'the waiting save is dropped: the form carries the text');
  });

  test('sent with the form\'s button while a save is on its way: it goes once that is back', async () => {
    const { clock, server, page, saver } = setup();
    saver.edited();
    await clock.advance(SAVE_DELAY);
    assert.equal(saver.warnsOnLeaving(), true, 'a save on its way');
    page.fields.description = 'typed after';
    saver.edited();
    const waiting = saver.submitted();
    assert.ok(waiting);
    assert.equal(await state(waiting), 'pending');
    server.last.answer(200, { revision: 'rev-2' });
    assert.deepEqual(await state(waiting), { value: undefined });
    assert.equal(saver.isDirty(), false, 'the form itself carries what was typed after');
    assert.equal(saver.warnsOnLeaving(), false);
  });

  test('text put back is said, and saved like an edit', async () => {
    const { clock, server, saver, lastSaid } = setup();
    saver.restored();
    assert.equal(lastSaid(), PUT_BACK);
    assert.equal(saver.isDirty(), true);
    await clock.advance(SAVE_DELAY);
    assert.equal(server.requests.length, 1);
  });

  test('kept text goes back into the fields of its name, in order, at the revision it was kept at only', () => {
    const form = {
      description: [{ type: 'textarea', value: '' }],
      alt: [{ type: 'text', value: 'old 1' }, { type: 'text', value: 'old 2' }],
      follow: [{ type: 'checkbox', value: 'on' }],
      revision: [{ type: 'hidden', value: 'rev-1' }],
      'was-description': [{ type: 'hidden', value: '' }],
    };
    const named = (name) => form[name] ?? [];
    const kept = {
      revision: 'rev-1',
      values: [['_csrf', 'old-token'], ['revision', 'rev-0'], ['description', 'typed'], ['alt', 'old 1'],
        ['alt', 'new 2'], ['follow', 'off'], ['was-description', 'x'], ['missing', 'y'], ['alt', 'third']],
    };
    assert.equal(putBack(kept, 'rev-2', named), 'stale', 'kept at another revision');
    assert.equal(form.description[0].value, '');
    assert.equal(putBack(kept, 'rev-1', named), 'changed');
    assert.deepEqual(Object.fromEntries(Object.entries(form).map(([k, v]) => [k, v.map((f) => f.value)])), {
      description: ['typed'], alt: ['old 1', 'new 2'], follow: ['on'], revision: ['rev-1'], 'was-description': [''],
    });
    assert.equal(putBack(kept, 'rev-1', named), 'unchanged', 'the same text again changes nothing');
    assert.equal(putBack(null, 'rev-1', named), 'stale');
    assert.equal(putBack({ revision: 'rev-1', values: 'garbage' }, 'rev-1', named), 'stale');
    assert.equal(putBack({ revision: 'rev-1', values: [null, [1, 2], ['description', 5]] }, 'rev-1', named),
      'unchanged', 'damaged pairs are passed over');
  });

  test('what is never put back, and which revision counts', () => {
    assert.deepEqual(['_csrf', 'revision', 'stopRevision', 'was-name', 'name', 'wasabi'].map(restorable),
      [false, false, false, false, true, true]);
    assert.equal(currentRevision('stop-3', 'rev-1'), 'stop-3');
    assert.equal(currentRevision('', 'rev-1'), 'rev-1');
    assert.equal(currentRevision(undefined, undefined), '');
  });
});

describe('saveOutcome and saveAll', () => {
  test('what an answer means', () => {
    const r = (ok, status, answer = {}) => ({ ok, status, answer });
    assert.deepEqual(saveOutcome(r(true, 200), false), { kind: 'saved' });
    assert.deepEqual(saveOutcome(r(false, 401), false), { kind: 'renew' });
    assert.deepEqual(saveOutcome(r(false, 403), false), { kind: 'renew' });
    assert.deepEqual(saveOutcome(r(false, 403, { message: 'no' }), true), { kind: 'refused', message: 'Not saved: no' });
    assert.deepEqual(saveOutcome(r(false, 409, { message: 'conflict' }), false),
      { kind: 'refused', message: 'Not saved: conflict' });
    assert.deepEqual(saveOutcome(r(false, 500), false), { kind: 'refused', message: 'Not saved: the server answered 500' });
  });

  afterEach(() => {
    autosavers.length = 0;
  });

  test('saveAll saves every form of the page, and is true only when every one is saved', async () => {
    const asked = [];
    autosavers.push({ save: async () => { asked.push('a'); return true; } });
    autosavers.push({ save: async () => { asked.push('b'); return true; } });
    assert.equal(await saveAll(), true);
    autosavers.push({ save: async () => { asked.push('c'); return false; } });
    assert.equal(await saveAll(), false);
    assert.deepEqual(asked, ['a', 'b', 'a', 'b', 'c']);
  });
});
