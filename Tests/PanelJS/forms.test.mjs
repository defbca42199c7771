// Small helps for single forms (Sources/TrailPackPanel/Resources/js/forms.js): a form marked
// data-confirm asks its question and, confirmed, tells the server so (confirmed=yes); the build's
// progress as the status address answers it; the name of a language tag being typed — under
// Node's own test runner, with a small stand-in for the page.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildProgress, confirmSubmit, languageLine,
} from '../../Sources/TrailPackPanel/Resources/js/forms.js';
import { FakeDocument, fieldsOf } from './support.mjs';

describe('a form marked data-confirm', () => {
  const QUESTION = 'Release version 1.2.0 of Santiam Wagon Road? Every visitor\'s phone gets it from now on.';
  function releaseForm(doc, ...fields) {
    const form = doc.body.appendChild(doc.make('form', { method: 'post', action: '/review/s/t/1.2.0/release',
      'data-confirm': QUESTION }));
    for (const [name, value, type = 'hidden'] of fields) form.appendChild(doc.make('input', { type, name })).value = value;
    return form;
  }

  test('asks its own question; declined, it is not sent and gains no field', () => {
    const doc = new FakeDocument();
    const form = releaseForm(doc, ['_csrf', 'tok']);
    const asked = [];
    assert.equal(confirmSubmit(form, (q) => { asked.push(q); return false; }, doc), false);
    assert.deepEqual(asked, [QUESTION]);
    assert.deepEqual(fieldsOf(form), [['_csrf', 'tok']]);
  });

  test('confirmed, it is sent with a hidden confirmed=yes, made when the form has none', () => {
    const doc = new FakeDocument();
    const form = releaseForm(doc, ['_csrf', 'tok']);
    assert.equal(confirmSubmit(form, () => true, doc), true);
    assert.deepEqual(fieldsOf(form), [['_csrf', 'tok'], ['confirmed', 'yes']]);
    assert.equal(form.querySelector('input[name=confirmed]').type, 'hidden');
    assert.equal(confirmSubmit(form, () => true, doc), true, 'sent again (the page kept, say)');
    assert.deepEqual(fieldsOf(form), [['_csrf', 'tok'], ['confirmed', 'yes']], 'still one field');
  });

  test('a hidden confirmed field of the form\'s own is set to yes rather than doubled', () => {
    const doc = new FakeDocument();
    const form = releaseForm(doc, ['_csrf', 'tok'], ['confirmed', '']);
    assert.equal(confirmSubmit(form, () => true, doc), true);
    assert.deepEqual(fieldsOf(form), [['_csrf', 'tok'], ['confirmed', 'yes']]);
  });

  test('a form without a question still asks (an empty one), as the browser would', () => {
    const doc = new FakeDocument();
    const form = doc.body.appendChild(doc.make('form'));
    const asked = [];
    confirmSubmit(form, (q) => { asked.push(q); return false; }, doc);
    assert.deepEqual(asked, ['']);
  });
});

describe('the build\'s progress', () => {
  test('drawn only while the build runs: its words, and its percent when it knows one', () => {
    assert.deepEqual(buildProgress('{"running":true,"message":"Packing files: 3 of 10","percent":30}'),
      { message: 'Packing files: 3 of 10', percent: 30 });
    assert.deepEqual(buildProgress('{"running":true,"message":"Checking the package"}'),
      { message: 'Checking the package', percent: null });
    assert.deepEqual(buildProgress('{"running":true,"message":"x","percent":"30"}').percent, null);
    assert.equal(buildProgress('{"running":false,"message":"done"}'), null);
    assert.equal(buildProgress('<html>'), null);
    assert.equal(buildProgress('null'), null);
  });
});

describe('the name of a language tag being typed', () => {
  const english = (tag) => {
    if (tag.endsWith('-')) throw new RangeError('invalid language tag');
    return { es: 'Spanish', 'es-419': 'Latin American Spanish', de: 'German' }[tag] ?? tag;
  };
  const own = (tag) => ({ es: 'español', 'es-419': 'español latinoamericano', de: 'German' }[tag] ?? tag);

  test('a known tag: its English name and its own', () => {
    assert.equal(languageLine('es', english, own), 'es — Spanish (español)');
    assert.equal(languageLine('  es_419 ', english, own), 'es-419 — Latin American Spanish (español latinoamericano)');
    assert.equal(languageLine('de', english, own), 'de — German', 'the own name only when it differs');
  });

  test('a well-formed tag the browser does not know, a tag not finished, nothing', () => {
    assert.equal(languageLine('xx', english, own), 'xx: a well-formed tag, of a language this browser does not know by name');
    assert.equal(languageLine('es-', english, own), '\'es-\' is not a language tag yet (such as es, fr or es-419)');
    assert.equal(languageLine('   ', english, own), '');
  });

  test('with the browser\'s own names (Node\'s Intl)', () => {
    const names = new Intl.DisplayNames(['en'], { type: 'language' });
    const ownName = (tag) => new Intl.DisplayNames([tag], { type: 'language' }).of(tag);
    assert.equal(languageLine('es', (t) => names.of(t), ownName), 'es — Spanish (español)');
    assert.match(languageLine('es-', (t) => names.of(t), ownName), /is not a language tag yet/);
  });
});
