// A stop's uploads and "Start from a file" (Sources/TrailPackPanel/Resources/js/uploads.js): what
// is saved first, what is asked before a file replaces another (and the server's 409), the
// addresses files are PUT to, what is said of each file, when the page reloads, and what an
// import's answer opens — with a fake page given to `sendFiles`, under Node's own test runner.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  hasFileNamed, importOutcome, importURL, keptWords, replaceQuestion, sendFiles, uploadMessage, uploadURL,
} from '../../Sources/TrailPackPanel/Resources/js/uploads.js';

const BASE = '/drafts/s/t/stops/1/files';

/**
 * A stop page whose server answers each PUT with `answers` in turn (a function of the address:
 * {status, message} or 'fail'); `log` lists what happened in order.
 */
function stopPage({
  existing = [], ticked = false, language = '', saved = true, answers = [], confirm = [], session = false,
} = {}) {
  const log = [];
  const page = {
    log,
    saveAll: async () => { log.push('save'); return saved; },
    ask: (question) => {
      const yes = confirm.shift();
      log.push(['ask', question, yes]);
      return yes;
    },
    say: (text) => log.push(['say', text]),
    existing: () => existing,
    replaceTicked: () => ticked,
    language: () => language,
    put: async (file, url) => {
      log.push(['put', url]);
      const answer = answers.shift()(url);
      if (answer === 'fail') throw new Error('the connection failed');
      return { status: answer.status, text: JSON.stringify({ message: answer.message }) };
    },
    renewToken: async () => { log.push('renew'); return session; },
    reload: () => log.push('reload'),
  };
  return page;
}
const added = (name) => () => ({ status: 201, message: `'${name}' was added.` });
const file = (name) => ({ name });

describe('the pure parts', () => {
  test('the question before a file replaces one of its name', () => {
    const q = replaceQuestion('view.jpg');
    assert.match(q, /^This stop has a file called 'view\.jpg' already\. Replace it\?/);
    assert.match(q, /title, alt text and transcript are cleared/);
    assert.equal(keptWords('view.jpg'), 'Not added: view.jpg (the file already there is kept)');
  });

  test('names compared without case', () => {
    assert.equal(hasFileNamed(['View.JPG', 'birds.mp3'], 'view.jpg'), true);
    assert.equal(hasFileNamed(['View.JPG'], 'view.jpeg'), false);
    assert.equal(hasFileNamed([], 'a'), false);
  });

  test('the address a file is PUT to: its name, its language, replace=1', () => {
    assert.equal(uploadURL(BASE, 'Sweet Home & river.jpg', '', false), `${BASE}?name=Sweet%20Home%20%26%20river.jpg`);
    assert.equal(uploadURL(BASE, 'a.mp3', 'es-419', true), `${BASE}?name=a.mp3&language=es-419&replace=1`);
  });

  test('what is said of an answer: the server\'s message, else the name and the status', () => {
    assert.equal(uploadMessage('a.jpg', 201, '{"message":"\'a.jpg\' was added."}'), '\'a.jpg\' was added.');
    assert.equal(uploadMessage('a.jpg', 502, '<html>'), 'a.jpg: HTTP 502');
  });

  test('an import: its address, and what its answer opens or says', () => {
    assert.equal(importURL('/drafts/import', 'willamette', 'Santiam road.gpx', false),
      '/drafts/import?site=willamette&name=Santiam%20road.gpx');
    assert.equal(importURL('/drafts/import', 'w', 'a.zip', true), '/drafts/import?site=w&name=a.zip&replace=1');
    assert.equal(importURL('/drafts/import', 'w', 'a.gpx', false, true), '/drafts/import?site=w&name=a.gpx&again=1');
    assert.deepEqual(importOutcome(201, '{"location":"/drafts/w/santiam"}'), { open: '/drafts/w/santiam' });
    assert.deepEqual(importOutcome(409, '{"message":"A draft of that name exists."}'),
      { say: 'Not made: A draft of that name exists.' });
    assert.deepEqual(importOutcome(500, 'oops'), { say: 'Not made: HTTP 500' });
    assert.deepEqual(importOutcome(200, '{}'), { say: 'Not made: undefined' });
  });
});

describe('sending a stop\'s files', () => {
  test('the page is saved first, the files go one after the other, then the page is saved and reloaded', async () => {
    const page = stopPage({ language: 'es', answers: [added('a.jpg'), added('b.mp3')] });
    await sendFiles([file('a.jpg'), file('b.mp3')], BASE, page);
    assert.deepEqual(page.log, [
      'save',
      ['say', 'Uploading a.jpg…'], ['put', `${BASE}?name=a.jpg&language=es`], ['say', '\'a.jpg\' was added.'],
      ['say', 'Uploading b.mp3…'], ['put', `${BASE}?name=b.mp3&language=es`], ['say', '\'b.mp3\' was added.'],
      'save', ['say', 'Reloading the page…'], 'reload',
    ]);
  });

  test('no files: nothing is saved or sent', async () => {
    const page = stopPage();
    await sendFiles([], BASE, page);
    assert.deepEqual(page.log, []);
  });

  test('the page\'s text cannot be saved: no file is sent', async () => {
    const page = stopPage({ saved: false });
    await sendFiles([file('a.jpg')], BASE, page);
    assert.deepEqual(page.log, ['save',
      ['say', 'The files were not sent: the page\'s text could not be saved first (see above).']]);
  });

  test('a file of a name the stop has: asked first; declined, kept and not sent; nothing changed, no reload', async () => {
    const page = stopPage({ existing: ['View.jpg'], confirm: [false] });
    await sendFiles([file('view.JPG')], BASE, page);
    assert.deepEqual(page.log, ['save', ['ask', replaceQuestion('view.JPG'), false], ['say', keptWords('view.JPG')]]);
  });

  test('…accepted, it is sent with replace=1', async () => {
    const page = stopPage({ existing: ['view.jpg'], confirm: [true], answers: [added('view.jpg')] });
    await sendFiles([file('view.jpg')], BASE, page);
    assert.deepEqual(page.log.filter((e) => e[0] === 'put'), [['put', `${BASE}?name=view.jpg&replace=1`]]);
    assert.equal(page.log.at(-1), 'reload');
  });

  test('"Replace a file of the same name" ticked: not asked, sent with replace=1', async () => {
    const page = stopPage({ existing: ['view.jpg'], ticked: true, answers: [added('view.jpg')] });
    await sendFiles([file('view.jpg')], BASE, page);
    assert.equal(page.log.some((e) => e[0] === 'ask'), false);
    assert.deepEqual(page.log.filter((e) => e[0] === 'put'), [['put', `${BASE}?name=view.jpg&replace=1`]]);
  });

  test('the server\'s 409 (a file of that name): its question asked, then sent again with replace=1, or kept', async () => {
    const conflict = () => ({ status: 409, message: 'This stop has a file called \'a.jpg\' already. Replace it?' });
    const page = stopPage({ confirm: [true, false], answers: [conflict, added('a.jpg'), conflict] });
    await sendFiles([file('a.jpg'), file('b.jpg')], BASE, page);
    assert.deepEqual(page.log.filter((e) => e[0] === 'put' || e[0] === 'ask'), [
      ['put', `${BASE}?name=a.jpg`], ['ask', 'This stop has a file called \'a.jpg\' already. Replace it?', true],
      ['put', `${BASE}?name=a.jpg&replace=1`],
      ['put', `${BASE}?name=b.jpg`], ['ask', 'This stop has a file called \'a.jpg\' already. Replace it?', false],
    ]);
    assert.deepEqual(page.log.slice(-4), [['say', keptWords('b.jpg')], 'save', ['say', 'Reloading the page…'], 'reload']);
  });

  test('a refusal is said and the next file still goes; a 401 or 403 renews the token; no reload without a change', async () => {
    const page = stopPage({ answers: [() => ({ status: 403, message: 'Your session has ended' }), () => 'fail',
      () => ({ status: 413, message: 'c.mov is larger than 512 MB' })] });
    await sendFiles([file('a.jpg'), file('b.jpg'), file('c.mov')], BASE, page);
    assert.deepEqual(page.log.filter((e) => e === 'renew' || e[0] === 'say').slice(1), [
      'renew', ['say', 'Not added: Your session has ended'],
      ['say', 'Uploading b.jpg…'], ['say', 'Not added: b.jpg (the connection failed; try again)'],
      ['say', 'Uploading c.mov…'], ['say', 'Not added: c.mov is larger than 512 MB'],
    ]);
    assert.equal(page.log.includes('reload'), false);
    assert.deepEqual(page.log.filter((e) => e === 'save'), ['save'], 'saved before, not after');
  });

  test('a stale token (the session renewed in another tab): renewed once, and the file sent again with the new one', async () => {
    const page = stopPage({
      session: true,
      answers: [() => ({ status: 403, message: 'the form token is stale' }), added('a.jpg'),
        () => ({ status: 403, message: 'the form token is stale' }), () => ({ status: 403, message: 'still refused' })],
    });
    await sendFiles([file('a.jpg'), file('b.jpg')], BASE, page);
    assert.deepEqual(page.log.filter((e) => e === 'renew' || e[0] === 'put'), [
      ['put', `${BASE}?name=a.jpg`], 'renew', ['put', `${BASE}?name=a.jpg`],
      ['put', `${BASE}?name=b.jpg`], 'renew', ['put', `${BASE}?name=b.jpg`],
    ]);
    assert.ok(page.log.some((e) => e[0] === 'say' && e[1] === "'a.jpg' was added."), JSON.stringify(page.log));
    assert.ok(page.log.some((e) => e[0] === 'say' && e[1] === 'Not added: still refused'), 'renewed once, not forever');
    assert.equal(page.log.includes('reload'), true, 'a.jpg was added');
  });

  test('the files chosen are the ones sent, even if the list changes meanwhile', async () => {
    const chosen = [file('a.jpg')];
    const page = stopPage({ answers: [added('a.jpg')] });
    const sending = sendFiles(chosen, BASE, page);
    chosen.push(file('late.jpg'));
    await sending;
    assert.deepEqual(page.log.filter((e) => e[0] === 'put'), [['put', `${BASE}?name=a.jpg`]]);
  });
});
