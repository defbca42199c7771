// Tests of the app's own words (issue #51): every message exists in every language, with the same
// placeholders and the plural forms its language needs; chosen from the tour's or the phone's
// language; plurals and numbers by Intl. Run with `node --test Tests/VisitorAppJS/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { MESSAGES, t, chooseAppLanguage, setLanguage, appLanguage, appLocale, formatDate } from '../../Sources/TrailPackVisitor/app/js/i18n.js';
import { formatDuration } from '../../Sources/TrailPackVisitor/app/js/guide.js';
import { formatBytes } from '../../Sources/TrailPackVisitor/app/js/tour.js';

const placeholders = (message) => {
  const texts = typeof message === 'string' ? [message] : Object.values(message);
  return [...new Set(texts.flatMap((m) => [...m.matchAll(/\{(\w+)\}/g)].map((x) => x[1])))].sort();
};

describe('the messages files', () => {
  const languages = Object.keys(MESSAGES);

  test('English and Spanish at least', () => {
    assert.ok(languages.includes('en') && languages.includes('es'), `${languages}`);
  });

  for (const a of languages) {
    for (const b of languages) {
      if (a === b) continue;
      test(`every message in ${a} is in ${b}`, () => {
        const missing = Object.keys(MESSAGES[a]).filter((key) => !Object.hasOwn(MESSAGES[b], key));
        assert.deepEqual(missing, [], `in ${a}, not in ${b}: ${missing.join(', ')}`);
      });
    }
  }

  for (const lang of languages) {
    test(`${lang}: the same placeholders as English, the plural forms of the language (other as the rest), no empty words`, () => {
      const used = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
      // 'many' (Spanish millions) falls back to 'other'; one and other are written out where the language has them.
      const needed = used.filter((form) => form === 'one' || form === 'other');
      for (const [key, message] of Object.entries(MESSAGES[lang])) {
        assert.deepEqual(placeholders(message), placeholders(MESSAGES.en[key]), `${lang} ${key}`);
        if (typeof message === 'object') {
          for (const form of needed) assert.equal(typeof message[form], 'string', `${lang} ${key}: no "${form}" form`);
          for (const form of Object.keys(message)) assert.ok(used.includes(form), `${lang} ${key}: "${form}" is not a plural form of ${lang}`);
        } else {
          assert.ok(message.trim().length > 0, `${lang} ${key} is empty`);
        }
      }
    });
  }

  test('every message the app asks for exists (keys named in t(\'…\') calls)', () => {
    const dir = new URL('../../Sources/TrailPackVisitor/app/js/', import.meta.url);
    const files = ['walk.js', 'own-view.js', 'keep.js', 'language-view.js', 'app.js', 'route.js', 'catalog.js', 'install.js',
      'downloader.js', 'updater.js', 'download-worker.js', 'tour.js', 'storage.js'];
    const asked = new Set();
    for (const file of files) {
      const source = readFileSync(new URL(file, dir), 'utf8');
      for (const m of source.matchAll(/\bt\((?:[^()']*\? )?'([a-z]+\.[a-zA-Z0-9.]+)'(?: : '([a-z]+\.[a-zA-Z0-9.]+)')?/g)) {
        asked.add(m[1]);
        if (m[2]) asked.add(m[2]);
      }
    }
    const html = readFileSync(new URL('../index.html', dir), 'utf8');
    for (const m of html.matchAll(/data-words="([^"]+)"/g)) asked.add(m[1]);
    assert.ok(asked.size > 150, `${asked.size}`);
    const missing = [...asked].filter((key) => !Object.hasOwn(MESSAGES.en, key));
    assert.deepEqual(missing, []);
  });
});

describe('choosing and speaking', () => {
  test('the tour\'s language first, else the phone\'s, else English', () => {
    assert.equal(chooseAppLanguage(['es', 'en-US']), 'es');
    assert.equal(chooseAppLanguage(['es-419']), 'es');
    assert.equal(chooseAppLanguage(['fr-CA', 'ES_mx']), 'es');
    assert.equal(chooseAppLanguage(['fr', 'de']), 'en');
    assert.equal(chooseAppLanguage([null, 7, '']), 'en');
    assert.equal(setLanguage('es-MX'), 'es');
    assert.equal(appLanguage(), 'es');
    setLanguage('en');
  });

  test('words in Spanish, plurals and numbers by Intl', () => {
    assert.equal(t('stop.title', { number: 3 }, 'es'), 'Parada 3: ');
    assert.equal(t('stop.transcript', {}, 'es'), 'Transcripción');
    assert.equal(t('walk.arrived', { number: 2 }, 'es'), 'Ha llegado a la parada 2: ');
    assert.equal(t('log.stop.times', { n: 1, date: 'x' }, 'en'), 'Reached once, on x.');
    assert.equal(t('log.stop.times', { n: 3, date: 'x' }, 'en'), 'Reached 3 times, last on x.');
    assert.equal(t('log.stop.times', { n: 3, date: 'x' }, 'es'), 'Visitada 3 veces, la última el x.');
    assert.equal(t('log.goal.progress', { n: 10000, done: 1200 }, 'es'), '1200 de 10.000 días');
    assert.equal(t('log.goal.progress', { n: 10000, done: 1200 }, 'en'), '1,200 of 10,000 days');
    assert.equal(t('no.such.key'), 'no.such.key');
    assert.equal(t('stop.title', {}, 'es'), 'Parada {number}: ');
  });

  test('dates in the language\'s own form', () => {
    const when = Date.UTC(2026, 6, 12, 12);
    assert.match(formatDate(when, 'es'), /jul/);
    assert.match(formatDate(when, 'en'), /Jul/);
  });
});

describe('the fallback note', () => {
  const h = (tag, attributes, ...children) => ({ tag, attributes, text: children.join('') });
  const local = {
    languages: ['en', 'es'], language: 'es',
    fallbacks: [{ stop: 1, field: 'description' }, { stop: 1, field: 'asset', asset: 'a.wav', kind: 'audio' },
      { stop: 1, field: 'transcript', asset: 'a.wav' }, { stop: 2, field: 'name' }],
  };

  test('says which texts fell back, in the app\'s language', async () => {
    const { fallbackNote } = await import('../../Sources/TrailPackVisitor/app/js/language-view.js');
    setLanguage('es');
    const es = fallbackNote(h, local, (f) => f.stop === 1);
    assert.match(es.text, /^En inglés, no en español: la descripción, una grabación y una transcripción\.$/i);
    setLanguage('en');
    const en = fallbackNote(h, local, (f) => f.stop === 2);
    assert.equal(en.text, 'Shown in English, not in Spanish: the name.');
    assert.equal(fallbackNote(h, local, (f) => f.stop === 3), null);
  });
});

describe('the catalog\'s pages (Find a tour, a tour before install, My tours)', () => {
  // The browser walkthroughs (scripts/visitor-*.py) match these English words: they stay as they were.
  test('the English is as it was before the messages files', () => {
    const en = (key, params) => t(key, params, 'en');
    assert.equal(en('catalog.tourCount', { n: 1 }), '1 tour');
    assert.equal(en('catalog.tourCount', { n: 4 }), '4 tours');
    assert.equal(en('catalog.stopCount', { n: 5 }), ' · 5 stops');
    assert.equal(en('package.download', { size: '2.1 MB' }), 'Download (2.1 MB)');
    assert.equal(en('package.done', { part: en('package.byPart', { size: '40 kB' }) }),
      'The tour is on your phone and checked. It works with no signal. Updated with 40 kB from the server; the rest '
      + 'came from the version already on your phone.');
    assert.equal(en('progress.received', { received: '1.0 MB', size: '2.0 MB', percent: 50 })
      + en('progress.rate', { rate: '300 kB' }) + en('progress.leftSeconds', { n: 4 }),
    '1.0 MB of 2.0 MB (50%) · 300 kB/s · about 4 s left');
    assert.equal(en('download.refused', { version: '1.2.0', why: en('download.refused.signatures') }),
      'Version 1.2.0 of this tour was refused on this phone: it is not signed by enough of the park\'s reviewers. '
      + 'It is offered again when the park publishes a new version.');
    assert.equal(en('tours.stops', { n: 1 }), '1 stop');
    assert.equal(en('tours.stored', { total: '3 MB' }) + en('tours.free', { free: '1 GB' }),
      'Stored by this app: 3 MB. The browser lets it store about 1 GB more.');
    assert.equal(en('download.notSigned', { valid: 1, threshold: 2, why: 'x' }),
      'This tour is not signed by enough of the park\'s reviewers (1 of 2), so it was deleted. x');
  });

  test('sizes with the language\'s decimal sign', () => {
    setLanguage('es');
    assert.equal(formatBytes(1_500_000), '1,5 MB');
    assert.equal(formatBytes(23_400_000), '23 MB');
    setLanguage('en');
    assert.equal(formatBytes(1_500_000), '1.5 MB');
    assert.equal(formatBytes(1150), '1.1 kB');
  });

  test('in Spanish', () => {
    assert.equal(t('catalog.tourCount', { n: 1 }, 'es'), '1 recorrido');
    assert.equal(t('package.stops', { n: 3 }, 'es'), '3 paradas');
    assert.equal(t('tours.stops', { n: 1 }, 'es'), '1 parada');
    assert.equal(t('package.update', { version: '2.0', size: '5 MB' }, 'es'), 'Actualizar a la versión 2.0 (5 MB)');
  });
});

describe('walking times and directions', () => {
  test('in the app\'s language, with the phone\'s region where it is of that language', () => {
    setLanguage('es');
    assert.equal(appLocale('en-US'), 'es');
    assert.equal(appLocale('es-MX'), 'es-MX');
    assert.equal(formatDuration(95 * 60, appLocale('en-US')), '1 h 35 min');
    assert.equal(t('walk.crowTime', { crow: `300 m ${t('walk.compass.northEast')}`, time: formatDuration(300, appLocale('en-US')) }),
      ' — 300 m al noreste (unos 5 min a pie).');
    setLanguage('en');
    assert.equal(appLocale('de-DE'), 'en');
    assert.equal(appLocale('en-GB'), 'en-GB');
    assert.equal(formatDuration(95 * 60, appLocale('de-DE')), '1 hr 35 min');
    assert.equal(t('walk.crowTime', { crow: `300 m ${t('walk.compass.northEast')}`, time: formatDuration(300, appLocale('en-US')) }),
      ' — 300 m north-east (about 5 min on foot).');
  });
});
