// The visitor's language on the pages: the choice kept on this phone (one for every tour), the
// tour as the visitor reads it, the switch between a tour's languages and the note where texts
// fell back to the default language, naming which. The app's own words are in i18n.js's messages.

import { tourLanguages, chooseLanguage, localize, textLanguage, languageName } from './language.js';
import { t, appLanguage } from './i18n.js';

/** Where the visitor's choice is kept (it applies to every tour). */
export const LANGUAGE_KEY = 'trailpack.language';

function savedLanguage() {
  try {
    return localStorage.getItem(LANGUAGE_KEY);
  } catch {
    return null; // storage refused (a private window): the phone's languages decide
  }
}

function saveLanguage(tag) {
  try {
    localStorage.setItem(LANGUAGE_KEY, tag);
  } catch {
    // not kept: the choice still applies to the page redrawn now
  }
}

/** The visitor's wishes, best first: their own choice, then the phone's languages. */
export function preferredLanguages() {
  const phone = navigator.languages?.length ? navigator.languages : [navigator.language];
  return [savedLanguage(), ...phone].filter(Boolean);
}

/** The tour as this visitor reads it (see language.js `localize`). @param {any} manifest */
export function localTour(manifest) {
  return localize(manifest, chooseLanguage(tourLanguages(manifest), preferredLanguages()));
}

/** The `lang` of a text of a localized tour, or undefined (no attribute) when it is not named. */
export function langOf(local, stop, field, asset) {
  return textLanguage(local, stop, field, asset) ?? undefined;
}

/**
 * The switch between a tour's languages (only for a tour with two or more): a labelled select
 * listing each language by its own name. A change is kept for every tour, then `redraw()` runs and
 * the focus comes back to the switch.
 * @param {Function} h the app's element maker
 * @param {any} local what localTour returned
 * @param {() => (void|Promise<void>)} redraw
 */
export function languageSwitch(h, local, redraw) {
  const tags = tourLanguages(local);
  if (tags.length < 2) return null;
  const select = h('select', { id: 'tour-language', name: 'language' },
    tags.map((tag) => h('option', { value: tag, lang: tag }, languageName(tag))));
  select.value = local.language;
  select.addEventListener('change', async () => {
    saveLanguage(select.value);
    try {
      await redraw();
    } finally {
      document.getElementById('tour-language')?.focus();
    }
  });
  return h('p', { class: 'language-switch' }, h('label', { for: 'tour-language' }, t('language.label')), select);
}

/** What fell back, in words ("the description", "a recording"), each once. */
export function fallbackWhat(shown) {
  const words = [];
  for (const f of shown) {
    const key = f.field === 'asset' ? `fallback.kind.${['audio', 'video', 'image', 'text'].includes(f.kind) ? f.kind : 'other'}`
      : `fallback.field.${['name', 'description', 'title', 'alt', 'transcript'].includes(f.field) ? f.field : 'other'}`;
    const word = t(key);
    if (!words.includes(word)) words.push(word);
  }
  try {
    return new Intl.ListFormat(appLanguage(), { type: 'conjunction' }).format(words);
  } catch {
    return words.join(', ');
  }
}

/**
 * A quiet line where some of what the page shows fell back to the tour's default language, saying
 * which ("Shown in English, not in Spanish: the description and a recording."), or null.
 * @param {Function} h
 * @param {any} local
 * @param {(fallback: {stop: number|null, field: string}) => boolean} onPage which fallbacks the page shows
 */
export function fallbackNote(h, local, onPage) {
  const shown = (local.fallbacks ?? []).filter(onPage);
  if (shown.length === 0) return null;
  const lang = appLanguage();
  const name = languageName(tourLanguages(local)[0], lang);
  const wanted = local.language ? languageName(local.language, lang) : '';
  return h('p', { class: 'muted language-note' },
    t('fallback.note', { language: name, wanted, what: fallbackWhat(shown) }));
}
