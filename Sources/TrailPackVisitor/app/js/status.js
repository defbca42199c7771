// Honest status (issue #50, part 4): the versions this phone refused (the download did not match
// the catalog's SHA-256, or was not signed by enough reviewers), kept so that one is not offered
// again until the catalog names another file; and the space the app stored, counted by the app
// itself (the browser's estimate is padded and late: it is used only for what is still free).
// Pure: the library in, the library out.

/** The most refusals kept (one per tour; the oldest go first). */
export const MAX_REFUSALS = 200;

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * @typedef {{id: string, version: string, sha256: string, reason: 'sha256'|'signatures', message: string, at: number}} Refusal
 */

/**
 * The refusals of a stored library, each checked (a damaged entry is dropped, never trusted).
 * @param {unknown} list
 * @returns {Refusal[]}
 */
export function validRefusals(list) {
  if (!Array.isArray(list)) return [];
  return list.filter((r) => r && typeof r.id === 'string' && typeof r.version === 'string'
    && typeof r.sha256 === 'string' && HEX64.test(r.sha256) && (r.reason === 'sha256' || r.reason === 'signatures')
    && typeof r.message === 'string' && Number.isFinite(r.at)).slice(-MAX_REFUSALS);
}

/**
 * The library with this refusal: one per tour, the latest (a refusal of an older file no longer matters).
 * @template {{refused?: Refusal[]}} L
 * @param {L} library @param {Refusal} refusal
 * @returns {L}
 */
export function withRefusal(library, refusal) {
  const kept = validRefusals(library.refused).filter((r) => r.id !== refusal.id);
  return { ...library, refused: validRefusals([...kept, refusal]) };
}

/**
 * The refusal that stands for this catalog entry: the same tour and the same file. The catalog
 * naming another file (a new version, or the same version rebuilt) makes it stand no more.
 * @param {{refused?: Refusal[]}} library @param {{id: string, sha256: string}} entry
 * @returns {Refusal|null}
 */
export function refusalOf(library, entry) {
  return validRefusals(library.refused).find((r) => r.id === entry.id && r.sha256 === entry.sha256) ?? null;
}

/**
 * The library without the refusals of this tour (it was installed from another file).
 * @template {{refused?: Refusal[]}} L
 * @param {L} library @param {string} id
 * @returns {L}
 */
export function withoutRefusals(library, id) {
  return { ...library, refused: validRefusals(library.refused).filter((r) => r.id !== id) };
}

/**
 * What the app stored, by its own count: each installed tour's size and what arrived of each
 * download.
 * @param {{tours: Array<{size?: number}>}} library
 * @param {number[]} partSizes what is stored of each download
 * @returns {{tours: number, downloads: number, total: number}}
 */
export function spaceUsed(library, partSizes) {
  const count = (n) => (Number.isSafeInteger(n) && n > 0 ? n : 0);
  const tours = library.tours.reduce((sum, t) => sum + count(t.size), 0);
  const downloads = partSizes.reduce((sum, n) => sum + count(n), 0);
  return { tours, downloads, total: tours + downloads };
}

/**
 * What the browser still gives the app, from its estimate (0 when it says nothing).
 * @param {{usage: number, quota: number}} estimate
 */
export function spaceFree({ usage, quota }) {
  return Number.isFinite(quota) && quota > 0 ? Math.max(0, quota - (Number.isFinite(usage) ? usage : 0)) : 0;
}
