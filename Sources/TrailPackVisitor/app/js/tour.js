// An installed tour, read straight out of its stored ZIP: the manifest (bounded), each asset as a
// Blob checked against the manifest's SHA-256 before it is shown, and the map's tiles by byte
// range out of the stored PMTiles entry. Nothing is unpacked whole.

import { BlobSource } from './bytes.js';
import { openZip } from './zip.js';
import { openPMTiles } from './pmtiles.js';
import { toHex } from './sha256.js';
import { createHashers } from './fasthash.js';
import { t, appLanguage } from './i18n.js';

/** A tour that cannot be opened or an asset that does not match, in plain words. */
export class TourError extends Error {
  constructor(message) {
    super(message);
    this.name = 'TourError';
  }
}

const MANIFEST_LIMIT = 16 << 20;

// The media types shown from blob: URLs. Nothing that a browser would run (HTML, SVG, XML,
// script) is ever given a type it renders: package content never runs in this origin.
const SHOWN = new Set([
  'image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/avif',
  'audio/mpeg', 'audio/mp4', 'audio/aac', 'audio/ogg', 'audio/wav', 'audio/x-wav', 'audio/webm', 'audio/flac',
  'video/mp4', 'video/webm', 'video/ogg', 'text/vtt',
]);

/**
 * The type a blob of this asset is given: the manifest's when it is one we show, else bytes.
 * @param {string} mediaType
 */
export function shownType(mediaType) {
  const type = String(mediaType ?? '').split(';')[0].trim().toLowerCase();
  return SHOWN.has(type) ? type : 'application/octet-stream';
}

function isCoordinate(c) {
  return c && Number.isFinite(c.latitude) && Number.isFinite(c.longitude)
    && Math.abs(c.latitude) <= 90 && Math.abs(c.longitude) <= 180;
}

/**
 * Checks the parts of a manifest the app relies on (the server verified the whole package; this
 * guards against storage that changed under us and against a malformed file).
 * @param {any} m
 */
export function checkManifest(m) {
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw new TourError(t('tour.noManifest'));
  for (const key of ['id', 'version', 'name']) {
    if (typeof m[key] !== 'string' || m[key].length === 0) throw new TourError(t('tour.missingField', { field: key }));
  }
  if (!Array.isArray(m.waypoints) || m.waypoints.length === 0) throw new TourError(t('tour.noStops'));
  for (const [i, w] of m.waypoints.entries()) {
    if (!w || typeof w.name !== 'string' || !isCoordinate(w.coordinate)) {
      throw new TourError(t('tour.stopUnplaced', { number: String(i + 1) }));
    }
    if (w.assets !== undefined && !Array.isArray(w.assets)) {
      throw new TourError(t('tour.stopFiles', { number: String(i + 1) }));
    }
  }
  return m;
}

/** The stops in the order a visitor takes them. @param {any} manifest */
export function orderedStops(manifest) {
  return [...manifest.waypoints].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
}

/**
 * Opens an installed package.
 * @param {Blob} file the stored package
 * @returns {Promise<{archive: any, manifest: any, stops: any[]}>}
 */
export function openTour(file) {
  return openTourFrom(new BlobSource(file));
}

/**
 * Opens a package from any byte source (the download worker reads the file it has just written
 * through its own handle: bytes.js's HandleSource).
 * @param {{size: number, read: (offset: number, length: number) => Promise<Uint8Array>}} source
 * @returns {Promise<{archive: any, manifest: any, stops: any[]}>}
 */
export async function openTourFrom(source) {
  let archive;
  try {
    archive = await openZip(source);
  } catch (error) {
    throw new TourError(t('tour.damaged', { why: error.message }));
  }
  const entry = archive.entry('manifest.json');
  if (!entry) throw new TourError(t('tour.noStoredManifest'));
  let manifest;
  try {
    manifest = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(await archive.bytes(entry, MANIFEST_LIMIT)));
  } catch (error) {
    throw new TourError(t('tour.unreadable', { why: error.message }));
  }
  checkManifest(manifest);
  return { archive, manifest, stops: orderedStops(manifest) };
}

/**
 * Reads an asset as a Blob after checking its size and SHA-256 against the manifest. A stored
 * entry is a slice of the package file (nothing copied); a deflated one is inflated in a stream.
 * @param {any} archive
 * @param {{path: string, size: number, sha256: string, mediaType: string}} asset
 * @returns {Promise<Blob>}
 */
export async function verifiedBlob(archive, asset) {
  const entry = archive.entry(asset.path);
  if (!entry) throw new TourError(t('tour.fileMissing', { path: asset.path }));
  if (entry.size !== asset.size) throw new TourError(t('tour.fileSize', { path: asset.path }));
  const type = shownType(asset.mediaType);
  const { sha256: hash } = await createHashers({ sha256: true });
  let blob;
  if (entry.method === 0) {
    blob = await archive.blob(entry, type);
    const reader = blob.stream().getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      hash.update(value);
    }
  } else {
    const parts = [];
    const reader = archive.stream(entry).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      hash.update(value);
      parts.push(value);
    }
    blob = new Blob(parts, { type });
  }
  if (toHex(hash.digest()) !== String(asset.sha256).toLowerCase()) {
    throw new TourError(t('tour.fileChanged', { path: asset.path }));
  }
  return blob;
}

/**
 * The tour's base map, read by byte range out of its stored PMTiles entry, or null when the tour
 * has none (or it is compressed in the ZIP, which a byte-range reader cannot use).
 * @param {any} archive @param {any} manifest
 */
export async function openMap(archive, manifest) {
  const asset = (manifest.mapAssets ?? []).find((a) => a?.map?.role === 'base' || a?.kind === 'tiles');
  if (!asset) return null;
  const entry = archive.entry(asset.path);
  if (!entry || entry.method !== 0) return null;
  return { asset, tiles: await openPMTiles(await archive.window(entry)) };
}

/**
 * For the control panel's preview of a version without its own map: the site's region map, drawn
 * under it so the reviewer sees where the stops are (the page says visitors will not get it). Asked
 * of the panel through the reviewer's session; null when the site has none, or anything fails.
 * @param {{site?: {id?: string}}} manifest
 * @param {(url: string, init: object) => Promise<Response>} [fetchImpl]
 * @returns {Promise<{tiles: string, minZoom: number, maxZoom: number} | null>}
 */
export async function previewBase(manifest, fetchImpl = (url, init) => fetch(url, init)) {
  const site = manifest?.site?.id;
  if (typeof site !== 'string' || site === '') return null;
  try {
    const response = await fetchImpl(`/sites/${encodeURIComponent(site)}/map`, {
      credentials: 'same-origin', headers: { Accept: 'application/json' },
    });
    if (!response.ok) return null;
    const answer = await response.json();
    const { tiles, minZoom, maxZoom } = answer ?? {};
    const zoom = (z) => Number.isInteger(z) && z >= 0 && z <= 24;
    if (typeof tiles !== 'string' || !tiles.startsWith('/sites/') || !zoom(minZoom) || !zoom(maxZoom)
      || minZoom > maxZoom) return null;
    return { tiles, minZoom, maxZoom };
  } catch {
    return null;
  }
}

/**
 * Great-circle distance in metres.
 * @param {{latitude: number, longitude: number}} a @param {{latitude: number, longitude: number}} b
 */
export function distanceMetres(a, b) {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h = Math.sin(dLat / 2) ** 2
    + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The radius within which a stop is announced: the stop's own (`properties.radiusMetres`), else 30 m. */
export function arrivalRadius(stop) {
  const own = stop?.properties?.radiusMetres;
  return Number.isFinite(own) && own >= 5 && own <= 1000 ? own : 30;
}

/** Compares dotted version numbers (1.10.0 > 1.9.2); text parts compare as text. */
export function compareVersions(a, b) {
  const pa = String(a).split(/[.+-]/);
  const pb = String(b).split(/[.+-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '0';
    const y = pb[i] ?? '0';
    const nx = /^\d+$/.test(x) ? Number(x) : NaN;
    const ny = /^\d+$/.test(y) ? Number(y) : NaN;
    if (!Number.isNaN(nx) && !Number.isNaN(ny)) {
      if (nx !== ny) return nx < ny ? -1 : 1;
    } else if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

/** Bytes in the units people read (1 decimal, powers of 1000, as phones' storage settings show). */
export function formatBytes(n) {
  if (!Number.isFinite(n)) return '';
  if (n < 1000) return `${n} bytes`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = n / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  // The decimal sign of the app's language ("1.5 MB", "1,5 MB"), the digits as toFixed rounds them.
  let sign = '.';
  try {
    sign = new Intl.NumberFormat(appLanguage()).formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.';
  } catch {
    // a point
  }
  const shown = value.toFixed(value < 10 ? 1 : 0).replace('.', sign);
  return `${shown} ${units[unit]}`;
}

/** Metres in words: "40 m", "1.2 km". */
export function formatDistance(m) {
  if (m < 1000) return `${Math.round(m)} m`;
  return `${(m / 1000).toFixed(m < 10000 ? 1 : 0)} km`;
}
