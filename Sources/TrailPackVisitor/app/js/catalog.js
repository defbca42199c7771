// The server's catalog API (the same one the Swift client reads), with plain-words errors (in the
// app's language: i18n.js).

import { t } from './i18n.js';
import { discardBody, readBody } from './http.js';

/** A catalog request that failed: `offline` true when the network was unreachable. */
export class CatalogError extends Error {
  constructor(message, offline = false, status = 0) {
    super(message);
    this.name = 'CatalogError';
    this.offline = offline;
    this.status = status;
  }
}

/** The header the service worker puts on its own copy of a file it answered offline (sw.js). */
export const OFFLINE_COPY = 'X-TrailPack-Copy';

/**
 * The JSON document at `path`, read by http.js's `readBody`: a server that sends more than
 * `limit` bytes (or says it will) is cut off as the bytes arrive, never held in memory.
 * @param {string} path @param {number} [limit]
 * @returns {Promise<{document: any, offlineCopy: boolean}>} `offlineCopy`: the service worker's
 *   copy, answered because the network failed
 */
async function fetchJSON(path, limit = 16 << 20) {
  let response;
  try {
    response = await fetch(path, { headers: { Accept: 'application/json' }, cache: 'no-cache' });
  } catch {
    throw new CatalogError(t('catalog.offline'), true);
  }
  if (!response.ok) {
    await discardBody(response);
    throw new CatalogError(
      response.status === 404 ? t('catalog.gone') : t('catalog.status', { status: String(response.status) }),
      false, response.status);
  }
  const bytes = await readBody(response, limit, () => new CatalogError(t('catalog.tooMuch')));
  let document;
  try {
    document = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new CatalogError(t('catalog.notCatalog'));
  }
  return { document, offlineCopy: response.headers.get(OFFLINE_COPY) === 'offline' };
}

/** The JSON document at `path`, at most `limit` bytes (`fetchJSON`). */
const getJSON = async (path, limit) => (await fetchJSON(path, limit)).document;

const enc = encodeURIComponent;

/** The sites. @returns {Promise<{sites: {id: string, name: string, packages: number}[]}>} */
export const sites = () => getJSON('/v1/sites');
/** One page of a site's packages. @param {string} site @param {string} [after] */
export const sitePackages = (site, after) =>
  getJSON(`/v1/sites/${enc(site)}/packages?limit=50${after ? `&after=${enc(after)}` : ''}`);
/** A package's released versions, newest first. @param {string} id */
export const versions = (id) => getJSON(`/v1/packages/${enc(id)}`);
/** A released version's manifest. @param {string} id @param {string} version */
export const manifest = (id, version) => getJSON(`/v1/packages/${enc(id)}/versions/${enc(version)}/manifest`);
/** The reviewers' signatures of a version. @param {string} id @param {string} version */
export const signatures = (id, version) =>
  getJSON(`/v1/packages/${enc(id)}/versions/${enc(version)}/signatures`, 1 << 20);
/**
 * What the operator configured for this app (trusted keys, threshold), as served: from the
 * network first, the service worker's copy only when the network failed (`offlineCopy`).
 * trust.js decides what of it the app uses.
 * @returns {Promise<{document: any, offlineCopy: boolean}>}
 */
export const config = () => fetchJSON('config.json', 1 << 20);

/**
 * Tells the server which SHA-256 arrived (the seed's confirmation), and, for a download the app
 * threw away, why (`refused`: 'hash' or 'signatures'; the server counts it as a failure). Failures
 * to tell are not the visitor's concern: the tour is installed, or refused, either way (the app
 * does not wait for it; `keepalive`, so that it is sent even if the page closes meanwhile).
 * @param {{confirm: string}} entry @param {string} sha256 @param {'hash'|'signatures'} [refused]
 */
export async function confirm(entry, sha256, refused) {
  try {
    const response = await fetch(entry.confirm, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, keepalive: true,
      body: JSON.stringify(refused ? { sha256, refused } : { sha256 }),
    });
    return response.ok;
  } catch {
    return false;
  }
}
