// Small helps for single forms (Sources/TrailPackPanel/Resources/js/forms.js): a form marked
// data-confirm asks its question; the build's
// progress as the status address answers it; the name of a language tag being typed — under
// Node's own test runner, with a small stand-in for the page.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildProgress, confirmSubmit, languageLine,
} from '../../Sources/TrailPackPanel/Resources/js/forms.js';
import { FakeDocument } from './support.mjs';

describe('a form marked data-confirm', () => {
  test('asks its own question, and goes only when confirmed', () => {
    const doc = new FakeDocument();
    const question = 'Remove the signing key of ken?';
    const form = doc.body.appendChild(doc.make('form', { 'data-confirm': question }));
    const asked = [];
    assert.equal(confirmSubmit(form, (q) => { asked.push(q); return false; }), false);
    assert.equal(confirmSubmit(form, (q) => { asked.push(q); return true; }), true);
    assert.deepEqual(asked, [question, question]);
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
