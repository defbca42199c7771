// A tour in several languages (manifest format 1.1, docs/FORMAT.md section 3.2): which of the
// tour's languages a visitor gets, and the tour as that visitor reads it. Pure functions: no DOM,
// no storage; the inputs are never changed.

/** A tag in the one form compared: lowercase, `_` read as `-`. */
const canonical = (tag) => String(tag).trim().toLowerCase().replace(/_/g, '-');
const isTag = (tag) => typeof tag === 'string' && tag.trim().length > 0;
const sameTag = (a, b) => isTag(a) && isTag(b) && canonical(a) === canonical(b);

/**
 * The languages a tour declares, the default first; an empty array for a tour without `languages`
 * (format 1.0: one unnamed language). Tags repeated ignoring case are kept once.
 * @param {any} manifest
 * @returns {string[]}
 */
export function tourLanguages(manifest) {
  const list = manifest?.languages;
  if (!Array.isArray(list)) return [];
  const tags = [];
  for (const tag of list) {
    if (isTag(tag) && !tags.some((t) => sameTag(t, tag))) tags.push(tag);
  }
  return tags;
}

/** The script a tag is most likely written in (`zh-TW` → `hant`), or null where Intl cannot tell. */
function likelyScript(tag) {
  try {
    return globalThis.Intl?.Locale ? new Intl.Locale(tag).maximize().script?.toLowerCase() ?? null : null;
  } catch {
    return null;
  }
}

/** Whether the list of numbers `a` comes after `b` (compared element by element). */
function greater(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return false;
}

/**
 * The declared language to show: the visitor's wishes in order (`preferred`: the visitor's own
 * choice, if any, then the phone's `navigator.languages`), each matched first exactly (ignoring
 * case), then by its primary subtag (`es-MX` takes `es` or `es-419`, `es` takes `es-419`); with
 * no wish matched, the default (the first declared). Among several tags of the same primary
 * language, the one in the wish's script goes first (`zh-TW` takes `zh-Hant` over `zh-Hans`), then
 * the one sharing more subtags, then a more general one (`es-MX` takes `es` over `es-419`), then
 * the tour's order. Null when the tour declares no language.
 * @param {string[]} declared
 * @param {Iterable<string|null|undefined>} [preferred]
 * @returns {string|null}
 */
export function chooseLanguage(declared, preferred = []) {
  const tags = (Array.isArray(declared) ? declared : []).filter(isTag);
  if (tags.length === 0) return null;
  const parts = tags.map((t) => canonical(t).split('-'));
  for (const wish of preferred ?? []) {
    if (!isTag(wish)) continue;
    const w = canonical(wish).split('-');
    const exact = parts.findIndex((p) => p.join('-') === w.join('-'));
    if (exact >= 0) return tags[exact];
    const script = likelyScript(wish);
    let best = -1;
    let bestScore = null;
    parts.forEach((p, i) => {
      if (p[0] !== w[0]) return;
      let shared = 0;
      while (shared < p.length && shared < w.length && p[shared] === w[shared]) shared += 1;
      const score = [
        script !== null && likelyScript(tags[i]) === script ? 1 : 0,
        shared,
        shared === p.length ? 1 : 0, // the declared tag is the wish made more general
      ];
      if (bestScore === null || greater(score, bestScore)) {
        best = i;
        bestScore = score;
      }
    });
    if (best >= 0) return tags[best];
  }
  return tags[0];
}

/** The translations object's entry for `lang` (its key compared ignoring case), or undefined. */
function translationsFor(translations, lang) {
  if (!translations || typeof translations !== 'object' || Array.isArray(translations)) return undefined;
  const key = Object.keys(translations).find((k) => sameTag(k, lang));
  const entry = key === undefined ? undefined : translations[key];
  return entry && typeof entry === 'object' && !Array.isArray(entry) ? entry : undefined;
}

const TOUR_FIELDS = ['name', 'park', 'description'];
const STOP_FIELDS = ['name', 'description'];
const ASSET_FIELDS = ['title', 'alt', 'transcript', 'captions'];

/**
 * The tour as a visitor reading `lang` gets it (docs/FORMAT.md, "What a visitor gets"): a new
 * manifest-shaped object whose texts (the tour's `name`, `park`, `description`; each stop's `name`,
 * `description`; each shared asset's `title`, `alt`, `transcript`, `captions`) are their `lang`
 * translation, else the default language's; whose stops' `assets` are the shared ones (no
 * `language`) plus, kind by kind (a video's captions files as a group of their own), those in `lang` — or, where the stop has none of that kind in
 * `lang`, those in the default language; assets in other languages are left out. `translations`
 * are gone (the plain fields hold the visitor's texts) and `languages` stays. Two fields are added:
 * `language`, the tag used (the declared spelling; the default for a missing `lang`), and
 * `fallbacks`, what fell back to the default language:
 * `{stop: the stop's order or null for the tour, field, asset?: path}` — `field` is the text's name,
 * or `'asset'` (with `kind`) for a default-language asset given in place of one in `lang`.
 * A manifest without `languages` comes back as it is, with `language: null` and no fallbacks.
 * @param {any} manifest
 * @param {string|null|undefined} lang
 */
export function localize(manifest, lang) {
  const declared = tourLanguages(manifest);
  if (declared.length === 0) return { ...manifest, language: null, fallbacks: [] };
  const fallback = declared[0];
  const language = declared.find((t) => sameTag(t, lang)) ?? (isTag(lang) ? lang : fallback);
  const isDefault = sameTag(language, fallback);
  const fallbacks = [];

  // The object's texts for `language`, on a copy without `translations`; fallbacks reported.
  const texts = (source, fields, where) => {
    const out = { ...source };
    delete out.translations;
    if (isDefault) return out;
    const own = translationsFor(source.translations, language);
    for (const field of fields) {
      const translated = own?.[field];
      if (typeof translated === 'string' && translated.length > 0) {
        out[field] = translated;
      } else if (source[field] !== undefined && source[field] !== null) {
        fallbacks.push({ ...where, field, ...(where.asset === undefined ? {} : { asset: where.asset }) });
      }
    }
    return out;
  };
  const tagged = (asset) => isTag(asset?.language);

  const stops = Array.isArray(manifest.waypoints) ? manifest.waypoints.map((w, index) => {
    if (!w || typeof w !== 'object') return w;
    const stop = Number.isFinite(w.order) ? w.order : index + 1;
    const out = texts(w, STOP_FIELDS, { stop });
    if (!Array.isArray(w.assets)) return out;
    // A video's captions files stand in for each other as their own group (as in Swift's
    // Waypoint.fileGroups), so a text file in one language never hides another's captions.
    const captionPaths = new Set();
    for (const a of w.assets) {
      if (typeof a?.captions === 'string') captionPaths.add(a.captions);
      for (const t of Object.values(a?.translations ?? {})) {
        if (typeof t?.captions === 'string') captionPaths.add(t.captions);
      }
    }
    const group = (a) => (captionPaths.has(a?.path) ? 'captions' : a?.kind);
    const kindsInLanguage = new Set(w.assets.filter((a) => tagged(a) && sameTag(a.language, language))
      .map(group));
    out.assets = [];
    for (const asset of w.assets) {
      if (!tagged(asset)) {
        out.assets.push(texts(asset, ASSET_FIELDS, { stop, asset: asset?.path }));
      } else if (sameTag(asset.language, language)) {
        const copy = { ...asset };
        delete copy.translations;
        out.assets.push(copy);
      } else if (sameTag(asset.language, fallback) && !kindsInLanguage.has(group(asset))) {
        const copy = { ...asset };
        delete copy.translations;
        out.assets.push(copy);
        fallbacks.push({ stop, field: 'asset', asset: asset.path, kind: asset.kind });
      }
    }
    return out;
  }) : manifest.waypoints;

  const tour = texts(manifest, TOUR_FIELDS, { stop: null });
  tour.waypoints = stops;
  tour.language = language;
  tour.fallbacks = fallbacks;
  return tour;
}

/**
 * The language a text of a localized tour is in: a language-tagged asset's own; the default
 * language where the text fell back to it; else the visitor's. Null for a tour without languages
 * (its language is not named). For `lang` attributes, so that screen readers read Spanish as Spanish.
 * @param {{language: string|null, languages?: string[], fallbacks: any[]}} localized what localize returned
 * @param {number|null} stop the stop's order, null for the tour's own texts
 * @param {string} field
 * @param {{path?: string, language?: string}} [asset] the asset the text belongs to
 * @returns {string|null}
 */
export function textLanguage(localized, stop, field, asset) {
  if (!localized?.language) return null;
  if (asset && isTag(asset.language)) return asset.language;
  const fell = (localized.fallbacks ?? []).some((f) => f.stop === stop && f.field === field
    && (asset ? f.asset === asset.path : f.asset === undefined));
  return fell ? tourLanguages(localized)[0] ?? localized.language : localized.language;
}

/**
 * A language's name: in `inLanguage` (by default its own, "español" written "Español"), by
 * `Intl.DisplayNames` where the browser has it, else the tag itself.
 * @param {string} tag
 * @param {string} [inLanguage]
 */
export function languageName(tag, inLanguage = tag) {
  try {
    const name = new Intl.DisplayNames([inLanguage], { type: 'language', fallback: 'none' }).of(tag);
    if (!isTag(name)) return tag;
    return name.charAt(0).toLocaleUpperCase(inLanguage) + name.slice(1);
  } catch {
    return tag;
  }
}
