// The app's own words in the visitor's language (issue #51): one messages file per language
// (messages-en.js, messages-es.js: the same keys in each, a test checks), chosen from the tour's
// language on a tour's pages, else from the visitor's choice and the phone's languages; plurals
// by Intl.PluralRules, numbers and dates by Intl. English where a language is not kept.

import en from './messages-en.js';
import es from './messages-es.js';

/** Every language the app speaks, by primary subtag. */
export const MESSAGES = Object.freeze({ en, es });

let current = 'en';

/** The first of `wishes` (BCP 47 tags, best first) the app speaks, by primary subtag; else 'en'. */
export function chooseAppLanguage(wishes) {
  for (const wish of wishes ?? []) {
    if (typeof wish !== 'string') continue;
    const primary = wish.trim().toLowerCase().split(/[-_]/)[0];
    if (Object.hasOwn(MESSAGES, primary)) return primary;
  }
  return 'en';
}

/** Speaks `tag` from now on (the page's `lang` follows); returns the language taken. */
export function setLanguage(tag) {
  current = chooseAppLanguage([tag]);
  if (globalThis.document?.documentElement) document.documentElement.lang = current;
  return current;
}

/** The language the app speaks now ('en', 'es'). */
export const appLanguage = () => current;

/**
 * The locale for the app's words with numbers and units (walking times: "about 5 min"): the
 * phone's own tag where it is of the app's language (its region: es-MX), else the app's language.
 * @param {string} [phone] the phone's language (navigator.language)
 */
export function appLocale(phone = globalThis.navigator?.language) {
  return typeof phone === 'string' && phone.trim().toLowerCase().split(/[-_]/)[0] === current ? phone.trim() : current;
}

function formatNumber(value, lang) {
  try {
    return new Intl.NumberFormat(lang).format(value);
  } catch {
    return String(value);
  }
}

/**
 * The message `key` in the app's language (English where it has none), with `{name}` replaced by
 * `params[name]` (numbers formatted for the language). A message that is an object of plural
 * forms ({one, other, …}) is chosen by `params.n`.
 * @param {string} key @param {Record<string, unknown>} [params] @param {string} [lang]
 */
export function t(key, params = {}, lang = current) {
  let message = MESSAGES[lang]?.[key] ?? MESSAGES.en[key];
  if (message === undefined) return key;
  if (typeof message === 'object') {
    let form = 'other';
    try {
      form = new Intl.PluralRules(lang).select(Number(params.n ?? 0));
    } catch {
      // the plural's 'other' form
    }
    message = message[form] ?? message.other;
  }
  return message.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!Object.hasOwn(params, name)) return whole;
    const value = params[name];
    return typeof value === 'number' ? formatNumber(value, lang) : String(value);
  });
}

/** A date and time (milliseconds since 1970) in the app's language: "12 Jul 2026, 14:05". */
export function formatDateTime(ms, lang = current) {
  try {
    return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(ms));
  } catch {
    return new Date(ms).toISOString();
  }
}

/** A date (milliseconds since 1970) in the app's language: "12 Jul 2026". */
export function formatDate(ms, lang = current) {
  try {
    return new Intl.DateTimeFormat(lang, { dateStyle: 'medium' }).format(new Date(ms));
  } catch {
    return new Date(ms).toISOString().slice(0, 10);
  }
}
