// Tests of the visitor app's languages (Sources/TrailPackVisitor/app/js/language.js): which of a
// tour's languages a visitor gets, and the tour as that visitor reads it (docs/FORMAT.md section 3.2,
// "What a visitor gets"). Run with `node --test Tests/VisitorAppJS/language.test.mjs`.
//
// Worked examples (a tour in English, Spanish and French), then random manifests from a seeded PRNG
// checked against the rules' invariants; TRAILPACK_JS_FUZZ_SEED replays a run.

import { prng } from './support.mjs';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

import {
  tourLanguages, chooseLanguage, localize, textLanguage, languageName,
} from '../../Sources/TrailPackVisitor/app/js/language.js';

const sha = (c) => c.repeat(64);
const asset = (path, kind, mediaType, more = {}) => ({ path, kind, mediaType, size: 1000, sha256: sha('a'), ...more });

/** A tour in English (the default), Spanish and French, after the format's example. */
function santiam() {
  return {
    formatVersion: 1,
    id: 'gov.usda.fs.willamette.santiam-wagon-road',
    version: '2',
    languages: ['en', 'es', 'fr'],
    name: 'Santiam Wagon Road',
    park: 'Willamette National Forest',
    site: { id: 'sweet-home', name: 'Sweet Home Ranger District' },
    mapName: 'Santiam',
    bounds: { southwest: { latitude: 44.3, longitude: -122.8 }, northeast: { latitude: 44.5, longitude: -122.6 } },
    description: 'Follow the toll road over the Cascades.',
    translations: {
      es: { name: 'Camino de Carretas de Santiam', description: 'Siga el camino de peaje sobre las Cascadas.' },
      fr: { name: 'Route des chariots de Santiam' },
    },
    waypoints: [
      {
        name: 'Sweet Home', slug: 'sweet-home', order: 1, coordinate: { latitude: 44.39, longitude: -122.72 },
        description: 'The valley end of the road.',
        translations: { es: { description: 'El extremo del valle del camino.' } },
        assets: [
          asset('waypoints/sweet-home/view.png', 'image', 'image/png', {
            alt: 'A drawing of forested ridges', title: 'The ridges',
            translations: { es: { alt: 'Un dibujo de cerros boscosos' } },
          }),
          asset('waypoints/sweet-home/narration.en.wav', 'audio', 'audio/wav', { language: 'en', transcript: 'Welcome…' }),
          asset('waypoints/sweet-home/narration.es.wav', 'audio', 'audio/wav', { language: 'es', transcript: 'Bienvenidos…' }),
          asset('waypoints/sweet-home/narration.fr.wav', 'audio', 'audio/wav', { language: 'fr', transcript: 'Bienvenue…' }),
          asset('waypoints/sweet-home/birdsong.mp3', 'audio', 'audio/mpeg', { title: 'Birdsong' }),
        ],
      },
      {
        name: 'Tombstone Pass', slug: 'tombstone-pass', order: 2, coordinate: { latitude: 44.4, longitude: -122.65 },
        description: 'The summit of the road.',
        translations: { es: { name: 'Paso Tombstone', description: 'La cumbre del camino.' } },
        assets: [
          asset('waypoints/tombstone-pass/summit.jpg', 'image', 'image/jpeg', { alt: 'Snow on the pass' }),
          asset('waypoints/tombstone-pass/narration.en.wav', 'audio', 'audio/wav', { language: 'en', transcript: 'At the pass…' }),
          asset('waypoints/tombstone-pass/about.es.md', 'text', 'text/markdown', { language: 'es' }),
        ],
      },
      {
        name: 'Fish Lake', slug: 'fish-lake', order: 3, coordinate: { latitude: 44.41, longitude: -122.61 },
        description: 'A stop for the wagons.',
        translations: { es: { name: 'Lago Fish', description: 'Una parada de las carretas.' } },
        assets: [
          asset('waypoints/fish-lake/walk.mp4', 'video', 'video/mp4', {
            title: 'The old road', transcript: 'We walk…', captions: 'waypoints/fish-lake/walk.en.vtt',
            translations: { es: { title: 'El camino viejo', transcript: 'Caminamos…', captions: 'waypoints/fish-lake/walk.es.vtt' } },
          }),
          asset('waypoints/fish-lake/walk.en.vtt', 'text', 'text/vtt', { language: 'en' }),
          asset('waypoints/fish-lake/walk.es.vtt', 'text', 'text/vtt', { language: 'es' }),
        ],
      },
    ],
    mapAssets: [asset('map/santiam.pmtiles', 'tiles', 'application/vnd.pmtiles')],
  };
}

const paths = (stop) => stop.assets.map((a) => a.path.split('/').pop());

describe('tourLanguages', () => {
  test('the declared tags, the default first', () => {
    assert.deepEqual(tourLanguages(santiam()), ['en', 'es', 'fr']);
  });
  test('an empty list for a manifest without languages (format 1.0)', () => {
    const m = santiam();
    delete m.languages;
    assert.deepEqual(tourLanguages(m), []);
    assert.deepEqual(tourLanguages(null), []);
    assert.deepEqual(tourLanguages({ languages: 'en' }), []);
  });
  test('non-tags and tags repeated ignoring case are left out', () => {
    assert.deepEqual(tourLanguages({ languages: ['en', 7, '', 'EN', 'es'] }), ['en', 'es']);
  });
});

describe('chooseLanguage', () => {
  test('an exact tag, ignoring case, keeps the declared spelling', () => {
    assert.equal(chooseLanguage(['en', 'es'], ['es']), 'es');
    assert.equal(chooseLanguage(['en', 'es-419'], ['ES-419']), 'es-419');
    assert.equal(chooseLanguage(['en', 'ES'], ['es']), 'ES');
    assert.equal(chooseLanguage(['en', 'zh-Hant'], ['zh-hant']), 'zh-Hant');
  });
  test('by primary subtag: es-MX takes es or es-419, es takes es-419', () => {
    assert.equal(chooseLanguage(['en', 'es'], ['es-MX']), 'es');
    assert.equal(chooseLanguage(['en', 'es-419'], ['es-MX']), 'es-419');
    assert.equal(chooseLanguage(['en', 'es-419'], ['es']), 'es-419');
    assert.equal(chooseLanguage(['en', 'es'], ['es_MX']), 'es');
  });
  test('among tags of one language: the exact one, the same script, then the more general one', () => {
    assert.equal(chooseLanguage(['en', 'es-419', 'es'], ['es-419']), 'es-419');
    assert.equal(chooseLanguage(['en-GB', 'en'], ['en-US']), 'en');
    assert.equal(chooseLanguage(['es-419', 'es'], ['es-MX']), 'es');
    assert.equal(chooseLanguage(['zh-Hans', 'zh-Hant'], ['zh-Hant-TW']), 'zh-Hant');
    if (typeof Intl.Locale === 'function') assert.equal(chooseLanguage(['zh-Hans', 'zh-Hant'], ['zh-TW']), 'zh-Hant');
  });
  test("the visitor's wishes in order: the own choice first, then the phone's", () => {
    assert.equal(chooseLanguage(['en', 'es'], ['es-MX', 'en']), 'es');
    assert.equal(chooseLanguage(['en', 'es'], ['en', 'es-MX', 'es']), 'en');
    assert.equal(chooseLanguage(['en', 'es'], ['fr-CA', 'es']), 'es');
    assert.equal(chooseLanguage(['en', 'es', 'fr'], ['fr', 'es-MX', 'en-US']), 'fr');
    // No choice saved: the first entry is null.
    assert.equal(chooseLanguage(['en', 'es'], [null, undefined, '', 'es-AR']), 'es');
  });
  test('no match: the default; no declared language: null', () => {
    assert.equal(chooseLanguage(['en', 'es'], ['de-DE', 'fr']), 'en');
    assert.equal(chooseLanguage(['es', 'en'], []), 'es');
    assert.equal(chooseLanguage(['es', 'en']), 'es');
    assert.equal(chooseLanguage([], ['en']), null);
    assert.equal(chooseLanguage(undefined, ['en']), null);
  });
});

describe('localize', () => {
  test('Spanish texts, with the texts that have none reported as fallbacks', () => {
    const es = localize(santiam(), 'es');
    assert.equal(es.language, 'es');
    assert.equal(es.name, 'Camino de Carretas de Santiam');
    assert.equal(es.description, 'Siga el camino de peaje sobre las Cascadas.');
    assert.equal(es.park, 'Willamette National Forest'); // no Spanish park: the English one
    assert.deepEqual(es.waypoints.map((w) => w.name), ['Sweet Home', 'Paso Tombstone', 'Lago Fish']);
    assert.deepEqual(es.waypoints.map((w) => w.description),
      ['El extremo del valle del camino.', 'La cumbre del camino.', 'Una parada de las carretas.']);
    const view = es.waypoints[0].assets[0];
    assert.equal(view.alt, 'Un dibujo de cerros boscosos');
    assert.equal(view.title, 'The ridges');
    assert.deepEqual(es.languages, ['en', 'es', 'fr']);
    assert.equal(es.translations, undefined);
    assert.equal(es.waypoints[0].translations, undefined);
    assert.equal(view.translations, undefined);
    assert.deepEqual(es.fallbacks, [
      { stop: 1, field: 'name' },
      { stop: 1, field: 'title', asset: 'waypoints/sweet-home/view.png' },
      { stop: 1, field: 'title', asset: 'waypoints/sweet-home/birdsong.mp3' },
      { stop: 2, field: 'alt', asset: 'waypoints/tombstone-pass/summit.jpg' },
      { stop: 2, field: 'asset', asset: 'waypoints/tombstone-pass/narration.en.wav', kind: 'audio' },
      { stop: null, field: 'park' },
    ]);
  });

  test('assets kind by kind: Spanish narration replaces English, English where there is no Spanish, shared ones kept, a third language dropped', () => {
    const es = localize(santiam(), 'es');
    assert.deepEqual(paths(es.waypoints[0]), ['view.png', 'narration.es.wav', 'birdsong.mp3']);
    // Stop 2 has a Spanish text but only an English narration: the narration falls back, by kind.
    assert.deepEqual(paths(es.waypoints[1]), ['summit.jpg', 'narration.en.wav', 'about.es.md']);
    const fr = localize(santiam(), 'fr');
    assert.deepEqual(paths(fr.waypoints[0]), ['view.png', 'narration.fr.wav', 'birdsong.mp3']);
    assert.deepEqual(paths(fr.waypoints[1]), ['summit.jpg', 'narration.en.wav']);
    const en = localize(santiam(), 'en');
    assert.deepEqual(paths(en.waypoints[0]), ['view.png', 'narration.en.wav', 'birdsong.mp3']);
    assert.deepEqual(paths(en.waypoints[1]), ['summit.jpg', 'narration.en.wav']);
    assert.deepEqual(paths(en.waypoints[2]), ['walk.mp4', 'walk.en.vtt']);
    assert.deepEqual(en.fallbacks, []);
    assert.equal(en.name, 'Santiam Wagon Road');
    assert.equal(en.waypoints[0].assets[0].alt, 'A drawing of forested ridges');
  });

  test("a video's captions: its translation's file, else its own (a fallback)", () => {
    const es = localize(santiam(), 'es');
    const video = es.waypoints[2].assets[0];
    assert.equal(video.captions, 'waypoints/fish-lake/walk.es.vtt');
    assert.equal(video.title, 'El camino viejo');
    assert.equal(video.transcript, 'Caminamos…');
    assert.deepEqual(paths(es.waypoints[2]), ['walk.mp4', 'walk.es.vtt']);
    const fr = localize(santiam(), 'fr');
    assert.equal(fr.waypoints[2].assets[0].captions, 'waypoints/fish-lake/walk.en.vtt');
    assert.deepEqual(paths(fr.waypoints[2]), ['walk.mp4', 'walk.en.vtt']);
    assert.ok(fr.fallbacks.some((f) => f.stop === 3 && f.field === 'captions' && f.asset === 'waypoints/fish-lake/walk.mp4'));
    assert.ok(fr.fallbacks.some((f) => f.stop === 3 && f.field === 'asset' && f.asset === 'waypoints/fish-lake/walk.en.vtt'));
  });

  test('a tag given in another case, a missing one (the default) and an undeclared one (all falls back)', () => {
    assert.equal(localize(santiam(), 'ES').language, 'es');
    assert.equal(localize(santiam(), 'ES').name, 'Camino de Carretas de Santiam');
    assert.deepEqual(localize(santiam(), null), localize(santiam(), 'en'));
    const de = localize(santiam(), 'de');
    assert.equal(de.name, 'Santiam Wagon Road');
    assert.deepEqual(paths(de.waypoints[0]), ['view.png', 'narration.en.wav', 'birdsong.mp3']);
    assert.ok(de.fallbacks.some((f) => f.stop === null && f.field === 'name'));
  });

  test('the input is not changed', () => {
    const m = santiam();
    const before = structuredClone(m);
    for (const lang of ['en', 'es', 'fr', 'de']) {
      const out = localize(m, lang);
      out.waypoints[0].assets.push({ path: 'x' });
      out.waypoints[0].name = 'changed';
      out.waypoints[0].assets[0].alt = 'changed';
      out.fallbacks.push({});
    }
    assert.deepEqual(m, before);
  });

  test('a manifest without languages comes back as it is', () => {
    const m = santiam();
    delete m.languages;
    delete m.translations;
    for (const w of m.waypoints) {
      delete w.translations;
      for (const a of w.assets) {
        delete a.translations;
        delete a.language;
      }
    }
    const before = structuredClone(m);
    const { language, fallbacks, ...rest } = localize(m, 'es');
    assert.equal(language, null);
    assert.deepEqual(fallbacks, []);
    assert.deepEqual(rest, before);
    assert.deepEqual(m, before);
  });
});

describe('textLanguage and languageName', () => {
  test("each text's language: the visitor's, the default's where it fell back, a tagged asset's own", () => {
    const es = localize(santiam(), 'es');
    assert.equal(textLanguage(es, null, 'name'), 'es');
    assert.equal(textLanguage(es, null, 'park'), 'en');
    assert.equal(textLanguage(es, 1, 'name'), 'en');
    assert.equal(textLanguage(es, 1, 'description'), 'es');
    const [view, narration] = es.waypoints[0].assets;
    assert.equal(textLanguage(es, 1, 'alt', view), 'es');
    assert.equal(textLanguage(es, 1, 'title', view), 'en');
    assert.equal(textLanguage(es, 1, 'transcript', narration), 'es');
    const fallback = es.waypoints[1].assets[1];
    assert.equal(textLanguage(es, 2, 'transcript', fallback), 'en');
    const plain = localize({ ...santiam(), languages: undefined }, 'es');
    assert.equal(textLanguage(plain, null, 'name'), null);
  });
  test('a language by its own name, else its tag', () => {
    assert.equal(languageName('es'), 'Español');
    assert.equal(languageName('es', 'en'), 'Spanish');
    assert.equal(languageName('en'), 'English');
    assert.equal(languageName('qaa'), 'qaa');
    assert.equal(languageName('not a tag!'), 'not a tag!');
  });
});

// Random manifests: the rules' invariants for every declared language and one that is not.
describe('random manifests', () => {
  const POOL = ['en', 'es', 'fr', 'de', 'es-419', 'zh-Hant', 'sgn-US'];
  const KINDS = ['image', 'audio', 'video', 'text', 'other'];
  const TOUR = ['name', 'park', 'description'];
  const STOP = ['name', 'description'];
  const ASSET = ['title', 'alt', 'transcript', 'captions'];

  function generate(random) {
    const pick = (list) => list[Math.floor(random() * list.length)];
    const chance = (p) => random() < p;
    const languages = [...POOL].sort(() => random() - 0.5).slice(0, 1 + Math.floor(random() * 4));
    const others = languages.slice(1);
    let n = 0;
    const words = () => `text ${n++}`;
    // Translations of some fields (only those the default has) into some of the other languages.
    const translate = (target, fields) => {
      const translations = {};
      for (const lang of others) {
        if (!chance(0.6)) continue;
        const entry = {};
        for (const f of fields) if (target[f] !== undefined && chance(0.6)) entry[f] = words();
        if (Object.keys(entry).length) translations[lang] = entry;
      }
      if (Object.keys(translations).length) target.translations = translations;
    };
    const m = { formatVersion: 1, id: 'org.example.random', version: '1', languages, name: words(), description: words(),
      waypoints: [] };
    if (chance(0.7)) m.park = words();
    translate(m, TOUR);
    const stops = 1 + Math.floor(random() * 6);
    for (let s = 0; s < stops; s++) {
      const w = { name: words(), slug: `s${s}`, order: (s + 1) * 10, coordinate: { latitude: 0, longitude: 0 }, assets: [] };
      if (chance(0.8)) w.description = words();
      translate(w, STOP);
      const count = Math.floor(random() * 9);
      for (let i = 0; i < count; i++) {
        const a = asset(`waypoints/s${s}/f${i}`, pick(KINDS), 'application/octet-stream');
        if (chance(0.55)) {
          const tag = pick(languages);
          a.language = chance(0.1) ? tag.toUpperCase() : tag; // a tag's case does not matter
          if (chance(0.5)) a.transcript = words();
        } else {
          for (const f of ASSET) if (chance(0.4)) a[f] = f === 'captions' ? `waypoints/s${s}/c${i}.vtt` : words();
          translate(a, ASSET);
        }
        w.assets.push(a);
      }
      m.waypoints.push(w);
    }
    return m;
  }

  const same = (a, b) => typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();
  const translation = (source, lang, field) => {
    const key = Object.keys(source.translations ?? {}).find((k) => same(k, lang));
    return key === undefined ? undefined : source.translations[key][field];
  };

  test('every asset kept is shared, in the language or in the default; kind by kind; every fallback reported', (t) => {
    const seed = Number(process.env.TRAILPACK_JS_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
    t.diagnostic(`seed ${seed} (replay with TRAILPACK_JS_FUZZ_SEED=${seed})`);
    const random = prng(seed);
    let checked = 0;
    let fellBack = 0;
    for (let i = 0; i < 400; i++) {
      const m = generate(random);
      const before = structuredClone(m);
      const main = m.languages[0];
      for (const lang of [...m.languages, 'pt']) {
        const context = `manifest ${i} of seed ${seed}, language ${lang}`;
        const out = localize(m, lang);
        const isDefault = same(lang, main);
        const reported = (stop, field, path) => out.fallbacks.some((f) => f.stop === stop && f.field === field
          && f.asset === path);
        let expectedFallbacks = 0;
        // A text: the translation, else the plain field, reported when it is used in place of one.
        const checkText = (source, result, field, stop, path) => {
          const plain = source[field];
          const own = isDefault ? undefined : translation(source, lang, field);
          if (own !== undefined) {
            assert.equal(result[field], own, context);
          } else {
            assert.equal(result[field], plain, `${context}: ${field}`);
            if (!isDefault && plain !== undefined) {
              expectedFallbacks += 1;
              assert.ok(reported(stop, field, path), `${context}: the fallback of ${field} at ${stop} ${path ?? ''}`);
            }
          }
        };
        for (const f of TOUR) checkText(m, out, f, null, undefined);
        assert.equal(out.waypoints.length, m.waypoints.length, context);
        m.waypoints.forEach((w, s) => {
          const got = out.waypoints[s];
          assert.equal(got.order, w.order, context);
          for (const f of STOP) checkText(w, got, f, w.order, undefined);
          for (const a of got.assets) {
            assert.ok(a.language === undefined || same(a.language, lang) || same(a.language, main),
              `${context}: ${a.path} in ${a.language}`);
          }
          for (const kind of KINDS) {
            const inLang = w.assets.filter((a) => a.kind === kind && same(a.language, lang));
            const gotKind = got.assets.filter((a) => a.kind === kind);
            const gotDefault = gotKind.filter((a) => same(a.language, main));
            if (inLang.length > 0 && !isDefault) {
              assert.equal(gotDefault.length, 0, `${context}: ${kind} in ${lang} with default ones at stop ${w.order}`);
            }
            // What should be there is: the shared ones, those in the language, else the default's.
            const wanted = w.assets.filter((a) => a.kind === kind && (a.language === undefined
              || same(a.language, lang) || (inLang.length === 0 && same(a.language, main))));
            assert.deepEqual(gotKind.map((a) => a.path), wanted.map((a) => a.path), `${context}: ${kind} at ${w.order}`);
            if (inLang.length === 0 && !isDefault) {
              for (const a of gotDefault) {
                expectedFallbacks += 1;
                assert.ok(reported(w.order, 'asset', a.path), `${context}: the fallback of ${a.path}`);
              }
            }
          }
          for (const a of w.assets.filter((x) => x.language === undefined)) {
            const result = got.assets.find((x) => x.path === a.path);
            for (const f of ASSET) checkText(a, result, f, w.order, a.path);
            assert.equal(result.translations, undefined, context);
          }
        });
        // Nothing is reported that did not fall back.
        assert.equal(out.fallbacks.length, expectedFallbacks, `${context}: ${JSON.stringify(out.fallbacks)}`);
        fellBack += out.fallbacks.length;
        checked += 1;
      }
      assert.deepEqual(m, before, `manifest ${i} of seed ${seed} was changed`);
    }
    assert.ok(checked > 400 && fellBack > 0, `${checked} localizations, ${fellBack} fallbacks`);
  });
});
