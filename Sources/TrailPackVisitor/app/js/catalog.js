// The server's catalog API (the same one the Swift client reads), with plain-words errors (in the
// app's language: i18n.js).

import { t } from './i18n.js';

/** A catalog request that failed: `offline` true when the network was unreachable. */
export class CatalogError extends Error {
  constructor(message, offline = false, status = 0) {
    super(message);
    this.name = 'CatalogError';
    this.offline = offline;
    this.status = status;
  }
}

async function getJSON(path, limit = 16 << 20) {
  let response;
  try {
    response = await fetch(path, { headers: { Accept: 'application/json' }, cache: 'no-cache' });
  } catch {
    throw new CatalogError(t('catalog.offline'), true);
  }
  if (!response.ok) {
    throw new CatalogError(
      response.status === 404 ? t('catalog.gone') : t('catalog.status', { status: String(response.status) }),
      false, response.status);
  }
  // Read as a stream up to the limit: a server that sends more is cut off, not held in memory.
  const declared = Number(response.headers.get('Content-Length') ?? 0);
  if (declared > limit) {
    await response.body?.cancel();
    throw new CatalogError(t('catalog.tooMuch'));
  }
  const parts = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel();
      throw new CatalogError(t('catalog.tooMuch'));
    }
    parts.push(value);
  }
  const text = new TextDecoder().decode(await new Blob(parts).arrayBuffer());
  try {
    return JSON.parse(text);
  } catch {
    throw new CatalogError(t('catalog.notCatalog'));
  }
}

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
/** What the operator configured for this app (trusted keys, threshold). */
export const config = () => getJSON('config.json', 1 << 20);

/**
 * Tells the server which SHA-256 arrived (the seed's confirmation), and, for a download the app
 * threw away, why (`refused`: 'hash' or 'signatures'; the server counts it as a failure). Failures
 * to tell are not the visitor's concern: the tour is installed, or refused, either way.
 * @param {{confirm: string}} entry @param {string} sha256 @param {'hash'|'signatures'} [refused]
 */
export async function confirm(entry, sha256, refused) {
  try {
    const response = await fetch(entry.confirm, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(refused ? { sha256, refused } : { sha256 }),
    });
    return response.ok;
  } catch {
    return false;
  }
}
