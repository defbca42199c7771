// A tour's route (format 1.2, docs/FORMAT.md section 3.3): the file `map/route.geojson`, read out
// of the stored package (bounded, its SHA-256 checked against the manifest), checked again here
// (a package may be hostile, or storage may have changed under us) and turned into the lines
// Leaflet draws. Nothing here throws on a bad route: the answer is `{route: null, reason}` and the
// app joins the stops with straight lines as it does for a tour without a route. Also the route's
// numbers in the units of the phone's locale. No DOM, no storage.

import { t } from './i18n.js';
import { createHashers } from './fasthash.js';
import { toHex } from './sha256.js';

/** The route's path in the package (readers find it by this exact path). */
export const ROUTE_PATH = 'map/route.geojson';
/** The largest route file read, in bytes (the format's limit). */
export const ROUTE_LIMIT = 16 << 20;
/** The most positions a route may have, over all its lines. */
export const MAX_POSITIONS = 100000;

const MIN_ELEVATION = -1000;
const MAX_ELEVATION = 10000;

/**
 * @typedef {object} Route
 * @property {Array<Array<[number, number]>>} lines each line as Leaflet latlngs `[lat, lng]`, in
 *   walking order, longitudes unwrapped (a route across the antimeridian runs on past 180° or
 *   -180° instead of jumping across the world, also from one line to the next)
 * @property {number} positions the number of positions over all lines
 * @property {boolean} elevations whether the positions have elevations
 * @property {number} lengthMetres
 * @property {number} [ascentMetres] present exactly when the positions have elevations
 * @property {number} [descentMetres]
 * @property {Map<string, {distanceMetres: number, offsetMetres: number}>} stops by waypoint slug
 * @property {Array<{name: string, from: string, to: string, lengthMetres: number}>} stages
 *   (empty when the route has none)
 */

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isLength = (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const fail = (reason) => ({ route: null, reason });

/**
 * `lon` moved by whole turns to lie within 180° of `reference` (the same longitude, drawn on the
 * copy of the world nearest the reference). `lon` as it is when `reference` is not finite.
 * @param {number} lon @param {number} reference
 */
export function nearLongitude(lon, reference) {
  if (!Number.isFinite(lon) || !Number.isFinite(reference)) return lon;
  return lon + 360 * Math.round((reference - lon) / 360);
}

/**
 * Leaflet points `[lat, lng]` with each longitude unwrapped against the one before it (the first
 * against `reference`, when given), so that a line through stops on either side of the
 * antimeridian is drawn across it. A new array; the input is not changed.
 * @param {Array<[number, number]>} points
 * @param {number} [reference]
 * @returns {Array<[number, number]>}
 */
export function unwrapPoints(points, reference) {
  let previous = reference;
  return points.map(([lat, lng]) => {
    const unwrapped = Number.isFinite(previous) ? nearLongitude(lng, previous) : lng;
    previous = unwrapped;
    return [lat, unwrapped];
  });
}

/**
 * Checks a parsed route file and turns it into a Route, or tells why not. Never throws.
 * @param {unknown} json what JSON.parse gave for the file
 * @returns {{route: Route, reason: null} | {route: null, reason: string}}
 */
export function parseRoute(json) {
  try {
    return parse(json);
  } catch (error) {
    // Not expected (every step is checked); a route that breaks the checker is still no route.
    return fail(`the route cannot be read (${error?.message ?? error})`);
  }
}

function parse(json) {
  if (!isObject(json) || json.type !== 'Feature') return fail('the route is not a GeoJSON Feature');
  const geometry = json.geometry;
  if (!isObject(geometry)) return fail('the route has no geometry');
  let rawLines;
  if (geometry.type === 'LineString') rawLines = [geometry.coordinates];
  else if (geometry.type === 'MultiLineString') rawLines = geometry.coordinates;
  else return fail('the route\'s geometry is not a LineString or a MultiLineString');
  if (!Array.isArray(rawLines) || rawLines.length === 0) return fail('the route has no lines');

  // Sizes first, before a position is looked at: a hostile file's huge arrays are refused unread.
  let positions = 0;
  for (const [i, line] of rawLines.entries()) {
    if (!Array.isArray(line)) return fail(`line ${i + 1} of the route is not a list of positions`);
    if (line.length < 2) return fail(`line ${i + 1} of the route has fewer than 2 positions`);
    positions += line.length;
    if (positions > MAX_POSITIONS) return fail(`the route has more than ${MAX_POSITIONS} positions`);
  }

  let dimensions = null;
  let previous = NaN; // the last unwrapped longitude, carried from one line to the next
  const lines = [];
  for (const [i, line] of rawLines.entries()) {
    const out = new Array(line.length);
    for (let j = 0; j < line.length; j++) {
      const where = `position ${j + 1} of line ${i + 1}`;
      const p = line[j];
      if (!Array.isArray(p) || (p.length !== 2 && p.length !== 3)) {
        return fail(`${where} is not [longitude, latitude] or [longitude, latitude, elevation]`);
      }
      if (dimensions === null) dimensions = p.length;
      else if (p.length !== dimensions) return fail(`${where} differs from the others: elevations on some positions only`);
      const [lon, lat, ele] = p;
      if (typeof lon !== 'number' || typeof lat !== 'number' || !Number.isFinite(lon) || !Number.isFinite(lat)) {
        return fail(`${where} is not a pair of finite numbers`);
      }
      if (lon < -180 || lon > 180) return fail(`${where} has a longitude outside -180 to 180`);
      if (lat < -90 || lat > 90) return fail(`${where} has a latitude outside -90 to 90`);
      if (p.length === 3 && (typeof ele !== 'number' || !Number.isFinite(ele)
        || ele < MIN_ELEVATION || ele > MAX_ELEVATION)) {
        return fail(`${where} has an elevation that is not a number from ${MIN_ELEVATION} to ${MAX_ELEVATION} m`);
      }
      // Within a line, no two positions are more than 180° apart: a line across the antimeridian
      // is cut there into two (RFC 7946 section 3.1.9). Between lines the unwrap carries on, so a
      // route cut at 180° is drawn as one.
      if (j > 0 && Math.abs(lon - line[j - 1][0]) > 180) {
        return fail(`line ${i + 1} of the route crosses the antimeridian at position ${j + 1} without being cut there`);
      }
      const lng = Number.isFinite(previous) ? nearLongitude(lon, previous) : lon;
      previous = lng;
      out[j] = [lat, lng];
    }
    lines.push(out);
  }

  const properties = json.properties;
  if (!isObject(properties)) return fail('the route has no properties');
  const { lengthMetres, ascentMetres, descentMetres } = properties;
  if (!isLength(lengthMetres)) return fail('the route\'s length is not a number of metres');
  const elevations = dimensions === 3;
  if (elevations) {
    if (!isLength(ascentMetres) || !isLength(descentMetres)) {
      return fail('the route has elevations but no ascent and descent in metres');
    }
  } else if (ascentMetres !== undefined || descentMetres !== undefined) {
    return fail('the route has an ascent or descent but no elevations');
  }

  if (!Array.isArray(properties.stops)) return fail('the route does not list its stops');
  const stops = new Map();
  for (const [i, s] of properties.stops.entries()) {
    if (!isObject(s) || typeof s.slug !== 'string' || s.slug.length === 0
      || !isLength(s.distanceMetres) || !isLength(s.offsetMetres)) {
      return fail(`stop ${i + 1} of the route's list has no slug or no distances in metres`);
    }
    if (stops.has(s.slug)) return fail(`the route lists the stop '${s.slug}' twice`);
    stops.set(s.slug, { distanceMetres: s.distanceMetres, offsetMetres: s.offsetMetres });
  }

  const stages = [];
  if (properties.stages !== undefined) {
    if (!Array.isArray(properties.stages) || properties.stages.length === 0) {
      return fail('the route\'s stages are not a list of stages');
    }
    for (const [i, s] of properties.stages.entries()) {
      if (!isObject(s) || typeof s.name !== 'string' || s.name.trim().length === 0
        || typeof s.from !== 'string' || typeof s.to !== 'string' || !isLength(s.lengthMetres)) {
        return fail(`stage ${i + 1} of the route has no name, stops or length`);
      }
      stages.push({ name: s.name, from: s.from, to: s.to, lengthMetres: s.lengthMetres });
    }
  }

  /** @type {Route} */
  const route = { lines, positions, elevations, lengthMetres, stops, stages };
  if (elevations) {
    route.ascentMetres = ascentMetres;
    route.descentMetres = descentMetres;
  }
  return { route, reason: null };
}

/**
 * The route of an installed tour: `map/route.geojson` as `mapAssets` lists it, read out of the
 * stored ZIP (at most 16 MiB), its size and SHA-256 checked against the manifest, decoded as
 * strict UTF-8 JSON and checked by parseRoute. Never throws: `{route: null, reason: null}` for a
 * tour without a route, `{route: null, reason}` for one whose route cannot be used.
 * @param {{entry: (name: string) => any, bytes: (entry: any, limit: number) => Promise<Uint8Array>}} archive
 * @param {any} manifest
 * @returns {Promise<{route: Route, reason: null} | {route: null, reason: string|null}>}
 */
export async function readRoute(archive, manifest) {
  try {
    const assets = Array.isArray(manifest?.mapAssets) ? manifest.mapAssets : [];
    const asset = assets.find((a) => isObject(a) && a.path === ROUTE_PATH);
    if (!asset) return { route: null, reason: null };
    if (!Number.isSafeInteger(asset.size) || asset.size < 0) return fail('the route\'s size is not stated');
    if (asset.size > ROUTE_LIMIT) return fail(`the route is ${asset.size} bytes; the limit is ${ROUTE_LIMIT}`);
    if (typeof asset.sha256 !== 'string' || !/^[0-9a-fA-F]{64}$/.test(asset.sha256)) {
      return fail('the route has no SHA-256 to check it against');
    }
    const entry = archive.entry(ROUTE_PATH);
    if (!entry) return fail(`the file ${ROUTE_PATH} is missing from the tour`);
    if (entry.size !== asset.size) return fail(`the file ${ROUTE_PATH} does not have the size the tour says`);
    const bytes = await archive.bytes(entry, ROUTE_LIMIT);
    const { sha256: hash } = await createHashers({ sha256: true });
    hash.update(bytes);
    if (toHex(hash.digest()) !== asset.sha256.toLowerCase()) {
      return fail(`the file ${ROUTE_PATH} was changed on this phone`);
    }
    let json;
    try {
      json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch (error) {
      return fail(`the route is not JSON in UTF-8 (${error.message})`);
    }
    return parseRoute(json);
  } catch (error) {
    return fail(`the route cannot be read (${error?.message ?? error})`);
  }
}

/**
 * How far along the route a stop is, in metres, by its slug; null without a route or when the
 * route does not list the stop.
 * @param {Route|null|undefined} route
 * @param {{slug?: string}} stop
 * @returns {number|null}
 */
export function stopDistance(route, stop) {
  if (!route || typeof stop?.slug !== 'string') return null;
  return route.stops.get(stop.slug)?.distanceMetres ?? null;
}

/**
 * The manifest's bounds as Leaflet corners `[[south, west], [north, east]]`, the east edge past
 * 180° for bounds across the antimeridian (west edge east of the east edge), the whole frame moved
 * by whole turns to be near `reference` (the longitude the map's drawing starts at). Null for
 * bounds that are missing or not numbers in range.
 * @param {any} bounds `{southwest: {latitude, longitude}, northeast: {latitude, longitude}}`
 * @param {number} [reference]
 * @returns {[[number, number], [number, number]] | null}
 */
export function mapFrame(bounds, reference) {
  const sw = bounds?.southwest;
  const ne = bounds?.northeast;
  const ok = (c) => c && typeof c.latitude === 'number' && typeof c.longitude === 'number'
    && Math.abs(c.latitude) <= 90 && Math.abs(c.longitude) <= 180; // (NaN fails both)
  if (!ok(sw) || !ok(ne) || sw.latitude > ne.latitude) return null;
  const west = sw.longitude;
  const east = ne.longitude < west ? ne.longitude + 360 : ne.longitude;
  const middle = (west + east) / 2;
  const shift = nearLongitude(middle, reference) - middle;
  return [[sw.latitude, west + shift], [ne.latitude, east + shift]];
}

/** The phone's locale for numbers and units (`navigator.language`), or undefined. */
export function routeLocale() {
  return globalThis.navigator?.language || undefined;
}

// MARK: units

/**
 * Whether a locale reads distances in miles and feet: one of the United States (`en-US`,
 * `es-US`); every other locale, and an unreadable one, in kilometres and metres.
 * @param {string|null|undefined} locale a BCP 47 tag (`navigator.language`)
 * @returns {'imperial'|'metric'}
 */
export function unitSystem(locale) {
  let region;
  try {
    // Only a region written in the tag counts (`maximize` would make a bare `en` American).
    region = new Intl.Locale(String(locale ?? '').trim().replace(/_/g, '-')).region;
  } catch {
    region = undefined; // no tag, or not one
  }
  return region === 'US' ? 'imperial' : 'metric';
}

const METRES_PER_MILE = 1609.344;
const METRES_PER_FOOT = 0.3048;

/** A number with a unit in the locale's words (`96.4 km`, `96,4 km`), or the locale's fallback. */
function unitNumber(value, unit, locale, fractionDigits) {
  const options = {
    style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: fractionDigits, minimumFractionDigits: 0,
  };
  try {
    return new Intl.NumberFormat(locale ?? undefined, options).format(value);
  } catch {
    return new Intl.NumberFormat('en', options).format(value); // an invalid tag
  }
}

/**
 * A distance along the route in the locale's units: kilometres (metres under 1 km), or miles
 * (feet under 0.1 mile) for the United States. One decimal under 100, whole numbers above.
 * @param {number} metres
 * @param {string|null|undefined} locale
 * @returns {string} empty for a number that is not a length
 */
export function formatLength(metres, locale) {
  if (!isLength(metres)) return '';
  if (unitSystem(locale) === 'imperial') {
    const miles = metres / METRES_PER_MILE;
    if (miles < 0.1) return unitNumber(Math.round(metres / METRES_PER_FOOT), 'foot', locale, 0);
    return unitNumber(miles, 'mile', locale, miles < 100 ? 1 : 0);
  }
  if (metres < 1000) return unitNumber(Math.round(metres), 'meter', locale, 0);
  const km = metres / 1000;
  return unitNumber(km, 'kilometer', locale, km < 100 ? 1 : 0);
}

/**
 * A height (an ascent, a descent) in the locale's units: whole metres, or whole feet for the
 * United States.
 * @param {number} metres
 * @param {string|null|undefined} locale
 * @returns {string} empty for a number that is not a length
 */
export function formatHeight(metres, locale) {
  if (!isLength(metres)) return '';
  return unitSystem(locale) === 'imperial'
    ? unitNumber(Math.round(metres / METRES_PER_FOOT), 'foot', locale, 0)
    : unitNumber(Math.round(metres), 'meter', locale, 0);
}

/**
 * The route in one line for the tour's page: `Route: 96.4 km, 1,571 m up, 843 m down` (the
 * climb only when the route has elevations). The app's own words are English (language-view.js);
 * the numbers and units follow the phone's locale.
 * @param {{lengthMetres: number, ascentMetres?: number, descentMetres?: number}} route
 * @param {string|null|undefined} locale
 */
export function routeSummary(route, locale) {
  const length = t('route.length', { length: formatLength(route.lengthMetres, locale) });
  if (!isLength(route.ascentMetres) || !isLength(route.descentMetres)) return length;
  return length + t('route.climb', { up: formatHeight(route.ascentMetres, locale), down: formatHeight(route.descentMetres, locale) });
}
