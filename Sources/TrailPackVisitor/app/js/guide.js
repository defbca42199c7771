// The arithmetic of a map that leads (issue #50): where the visitor is along the tour's route, how
// far it is along the route to the next stop and to the end, the time that takes at the tour's
// pace, the direction of the next stop, whether the visitor left the trail, what the map shows
// first, and which markers overlap on screen. The route's rule is docs/FORMAT.md section 3.3's:
// positions are projected onto each segment in a plane centred on them, a segment's point at
// fraction t lies t × its geodesic length (WGS 84, Vincenty, as TrailPackCore's Geodesy) along
// it, and the route passes a point wherever segments come within 20 m of its nearest. A tour
// without a route is walked along straight lines from stop to stop, by the same arithmetic. Pure
// functions: no DOM, no storage, no clock.

/** The mean radius of the Earth (IUGG), in metres: the plane of the projection (FORMAT.md 3.3). */
export const MEAN_RADIUS = 6371008.8;
/** How much farther than the nearest a segment may be and still be a pass (FORMAT.md 3.3). */
export const PASS_SLACK_METRES = 20;
/** Beyond this distance from the route (plus the fix's uncertainty, up to as much again) the visitor is off the trail. */
export const OFF_TRAIL_METRES = 100;
/** A visitor this near the straight lines of a tour without a route is on the tour (for the first view). */
export const NEAR_STRAIGHT_METRES = 1000;
/** Walking pace in metres per second (4.5 km/h): the format has no pace of its own yet. */
export const WALKING_PACE = 4.5 / 3.6;
/** The smallest target on a phone, in CSS pixels (WCAG 2.5.5). */
export const TARGET_PIXELS = 44;

const RAD = Math.PI / 180;
const A = 6378137.0;
const F = 1 / 298.257223563;
const B = A * (1 - F);

/** A difference of longitudes brought into [-180, 180]. @param {number} degrees */
export function wrapped(degrees) {
  return degrees - 360 * Math.round(degrees / 360);
}

/**
 * The great-circle distance in metres on the sphere of the mean radius (haversine).
 * @param {number} lat1 @param {number} lon1 @param {number} lat2 @param {number} lon2
 */
export function greatCircle(lat1, lon1, lat2, lon2) {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = wrapped(lon2 - lon1) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * MEAN_RADIUS * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * The geodesic distance in metres on the WGS 84 ellipsoid between two positions in degrees:
 * Vincenty's inverse formula, as TrailPackCore's `Geodesy.distance` (the great circle where it
 * does not converge, nearly antipodal points that never follow each other on a route).
 * @param {number} lat1 @param {number} lon1 @param {number} lat2 @param {number} lon2
 */
export function geodesicMetres(lat1, lon1, lat2, lon2) {
  const L = wrapped(lon2 - lon1) * RAD;
  const u1 = Math.atan((1 - F) * Math.tan(lat1 * RAD));
  const u2 = Math.atan((1 - F) * Math.tan(lat2 * RAD));
  const sinU1 = Math.sin(u1); const cosU1 = Math.cos(u1);
  const sinU2 = Math.sin(u2); const cosU2 = Math.cos(u2);
  let lambda = L;
  for (let i = 0; i < 200; i++) {
    const sinLambda = Math.sin(lambda); const cosLambda = Math.cos(lambda);
    const x = cosU2 * sinLambda; const y = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda;
    const sinSigma = Math.sqrt(x * x + y * y);
    if (sinSigma === 0) return 0;
    const cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda;
    const sigma = Math.atan2(sinSigma, cosSigma);
    const sinAlpha = (cosU1 * cosU2 * sinLambda) / sinSigma;
    const cos2Alpha = 1 - sinAlpha * sinAlpha;
    const cos2SigmaM = cos2Alpha !== 0 ? cosSigma - (2 * sinU1 * sinU2) / cos2Alpha : 0;
    const c = (F / 16) * cos2Alpha * (4 + F * (4 - 3 * cos2Alpha));
    const previous = lambda;
    lambda = L + (1 - c) * F * sinAlpha
      * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)));
    if (Math.abs(lambda - previous) < 1e-12) {
      const uu = (cos2Alpha * (A * A - B * B)) / (B * B);
      const bigA = 1 + (uu / 16384) * (4096 + uu * (-768 + uu * (320 - 175 * uu)));
      const bigB = (uu / 1024) * (256 + uu * (-128 + uu * (74 - 47 * uu)));
      const deltaSigma = bigB * sinSigma * (cos2SigmaM + (bigB / 4) * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
        - (bigB / 6) * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)));
      return B * bigA * (sigma - deltaSigma);
    }
  }
  return greatCircle(lat1, lon1, lat2, lon2);
}

/**
 * The initial direction from one position to another, in degrees clockwise from north [0, 360).
 * @param {{latitude: number, longitude: number}} from @param {{latitude: number, longitude: number}} to
 */
export function bearingDegrees(from, to) {
  const p1 = from.latitude * RAD;
  const p2 = to.latitude * RAD;
  const dl = wrapped(to.longitude - from.longitude) * RAD;
  const y = Math.sin(dl) * Math.cos(p2);
  const x = Math.cos(p1) * Math.sin(p2) - Math.sin(p1) * Math.cos(p2) * Math.cos(dl);
  return ((Math.atan2(y, x) / RAD) % 360 + 360) % 360;
}

const COMPASS = ['north', 'north-east', 'east', 'south-east', 'south', 'south-west', 'west', 'north-west'];

/** A direction in words ("north-east") for a bearing in degrees. @param {number} degrees */
export function compassWord(degrees) {
  if (!Number.isFinite(degrees)) return '';
  return COMPASS[Math.round((((degrees % 360) + 360) % 360) / 45) % 8];
}

// MARK: the track

/**
 * @typedef {object} Track
 * @property {Float64Array} lat1 each segment's start and end, latitude and (unwrapped) longitude
 * @property {Float64Array} lon1
 * @property {Float64Array} lat2
 * @property {Float64Array} lon2
 * @property {Float64Array} start how far along the track each segment starts, in metres
 * @property {Float64Array} length each segment's geodesic length, in metres
 * @property {number} lengthMetres the whole track's (gaps between lines left out)
 * @property {boolean} route whether it is the tour's route (else straight lines between stops)
 * @property {number[]} stops each stop's distance along the track, in the stops' order (null where unknown)
 */

/**
 * The segments of lines given as Leaflet points `[lat, lng]` (route.js's Route.lines), in walking
 * order, each with where it starts along them. A line of one point adds nothing.
 * @param {Array<Array<[number, number]>>} lines
 */
function segmentsOf(lines) {
  let n = 0;
  for (const line of lines) n += Math.max(0, line.length - 1);
  const t = {
    lat1: new Float64Array(n), lon1: new Float64Array(n), lat2: new Float64Array(n), lon2: new Float64Array(n),
    start: new Float64Array(n), length: new Float64Array(n),
  };
  let i = 0;
  let along = 0;
  for (const line of lines) {
    for (let j = 1; j < line.length; j++) {
      const [la, lo] = line[j - 1];
      const [lb, lob] = line[j];
      const length = geodesicMetres(la, lo, lb, lob);
      t.lat1[i] = la; t.lon1[i] = lo; t.lat2[i] = lb; t.lon2[i] = lob;
      t.start[i] = along; t.length[i] = length;
      along += length;
      i += 1;
    }
  }
  return { ...t, lengthMetres: along };
}

/**
 * The track a visitor follows: the tour's route when it has one (each stop at the distance the
 * route file gives it, so that the numbers agree with the stop list), else straight lines from
 * stop to stop in their order (each stop where its line starts).
 * @param {import('./route.js').Route|null|undefined} route
 * @param {Array<{slug?: string, coordinate: {latitude: number, longitude: number}}>} stops in order
 * @returns {Track}
 */
export function trackOf(route, stops) {
  if (route && route.lines.length > 0) {
    const track = segmentsOf(route.lines);
    const known = stops.map((s) => {
      const d = typeof s.slug === 'string' ? route.stops.get(s.slug)?.distanceMetres : undefined;
      return Number.isFinite(d) ? d : null;
    });
    // A stop the file does not place is put where the rule puts it.
    let previous = -Infinity;
    const placed = known.map((d, i) => {
      const along = d ?? locateStop(track, stops[i].coordinate, previous).alongMetres;
      previous = along;
      return along;
    });
    return { ...track, route: true, stops: placed };
  }
  const points = [];
  let previous = NaN;
  for (const s of stops) {
    const lng = Number.isFinite(previous) ? previous + wrapped(s.coordinate.longitude - previous) : s.coordinate.longitude;
    previous = lng;
    points.push([s.coordinate.latitude, lng]);
  }
  const line = points.length > 1 ? points : [...points, ...points];
  const track = segmentsOf([line]);
  const placed = points.map((_, i) => (i < track.start.length ? track.start[i] : track.lengthMetres));
  return { ...track, route: false, stops: placed };
}

/**
 * Every segment's planar distance from `c` and the distance along the track of its nearest point
 * (FORMAT.md 3.3's projection), with the smallest distance.
 * @param {Track} t @param {{latitude: number, longitude: number}} c
 */
function project(t, c) {
  const n = t.start.length;
  const offsets = new Float64Array(n);
  const alongs = new Float64Array(n);
  const kx = Math.cos(c.latitude * RAD) * RAD * MEAN_RADIUS;
  const ky = RAD * MEAN_RADIUS;
  let nearest = Infinity;
  for (let i = 0; i < n; i++) {
    const ax = wrapped(t.lon1[i] - c.longitude) * kx;
    const ay = (t.lat1[i] - c.latitude) * ky;
    const bx = wrapped(t.lon2[i] - c.longitude) * kx;
    const by = (t.lat2[i] - c.latitude) * ky;
    const dx = bx - ax;
    const dy = by - ay;
    const lengthSquared = dx * dx + dy * dy;
    const f = lengthSquared > 0 ? Math.min(1, Math.max(0, -(ax * dx + ay * dy) / lengthSquared)) : 0;
    const px = ax + f * dx;
    const py = ay + f * dy;
    const d = Math.sqrt(px * px + py * py);
    offsets[i] = d;
    alongs[i] = t.start[i] + f * t.length[i];
    if (d < nearest) nearest = d;
  }
  return { offsets, alongs, nearest };
}

/** The passes: runs of consecutive segments within the nearest + 20 m, each at its nearest point. */
function passes({ offsets, alongs, nearest }) {
  const limit = nearest + PASS_SLACK_METRES;
  const out = [];
  let i = 0;
  while (i < offsets.length) {
    if (offsets[i] > limit) {
      i += 1;
      continue;
    }
    let best = i;
    i += 1;
    while (i < offsets.length && offsets[i] <= limit) {
      if (offsets[i] < offsets[best]) best = i;
      i += 1;
    }
    out.push(alongs[best]);
  }
  return out;
}

/**
 * Where a stop lies on the track by FORMAT.md 3.3's rule: the first pass at or after the previous
 * stop's point (the first pass when there is none after it). What the builder writes as the
 * stop's `distanceMetres` and `offsetMetres`.
 * @param {Track} track @param {{latitude: number, longitude: number}} coordinate
 * @param {number} [previous] the previous stop's distance along the track (-Infinity for the first)
 * @returns {{alongMetres: number, offsetMetres: number}}
 */
export function locateStop(track, coordinate, previous = -Infinity) {
  if (track.start.length === 0) return { alongMetres: 0, offsetMetres: 0 };
  const projection = project(track, coordinate);
  const found = passes(projection);
  const along = found.find((a) => a >= previous) ?? found[0] ?? 0;
  return { alongMetres: along, offsetMetres: projection.nearest };
}

/**
 * Where the visitor is on the track: the same projection and passes as a stop's, and of the
 * passes the one nearest to where the visitor was last along it (`hint`): the stop rule takes the
 * first pass after the previous stop, but a visitor may turn back, and a fix may jitter backwards.
 * Null for a position that is not a pair of finite numbers or an empty track.
 * @param {Track} track
 * @param {{latitude: number, longitude: number}} position
 * @param {number} [hint] the visitor's last distance along the track (0, the start, when unknown)
 * @returns {{alongMetres: number, offsetMetres: number} | null}
 */
export function locateVisitor(track, position, hint = 0) {
  if (track.start.length === 0 || !Number.isFinite(position?.latitude) || !Number.isFinite(position?.longitude)) {
    return null;
  }
  const projection = project(track, position);
  const found = passes(projection);
  const target = Number.isFinite(hint) ? hint : 0;
  let along = found[0] ?? 0;
  for (const a of found) if (Math.abs(a - target) < Math.abs(along - target)) along = a;
  return { alongMetres: along, offsetMetres: projection.nearest };
}

/**
 * Whether a visitor this far from the route is off the trail: beyond 100 m, plus the fix's own
 * uncertainty up to 100 m more (a fix known to 80 m that puts the visitor 150 m away is not yet
 * off). Never for a tour without a route: straight lines are not a trail.
 * @param {Track} track @param {number} offsetMetres @param {number} [accuracy]
 */
export function isOffTrail(track, offsetMetres, accuracy) {
  if (!track.route || !Number.isFinite(offsetMetres)) return false;
  const slack = Number.isFinite(accuracy) && accuracy > 0 ? Math.min(accuracy, OFF_TRAIL_METRES) : 0;
  return offsetMetres > OFF_TRAIL_METRES + slack;
}

/**
 * @typedef {object} Guidance
 * @property {{alongMetres: number, offsetMetres: number} | null} located the visitor on the track
 * @property {boolean} offTrail
 * @property {{index: number, straightMetres: number, bearing: number, alongMetres: number|null,
 *   seconds: number|null} | null} next the next stop not visited (index in the stops' order): how
 *   far in a straight line and in which direction, and how far along the track (negative: the
 *   stop is behind the visitor) and the time that takes
 * @property {number|null} leftMetres what is left of the tour along the track (to the route's
 *   end, or to the last stop of straight lines); null when the visitor is not on it
 * @property {number|null} leftSeconds
 */

/**
 * The numbers the tour's page shows for a position.
 * @param {object} input
 * @param {Track} input.track
 * @param {Array<{coordinate: {latitude: number, longitude: number}}>} input.stops in order
 * @param {Set<number>} input.visited stop numbers (1-based) already visited
 * @param {{latitude: number, longitude: number, accuracy?: number}} input.position
 * @param {number} [input.hint] the visitor's last distance along the track
 * @param {number} [input.pace] metres per second (walking unless given)
 * @returns {Guidance}
 */
export function guidance({ track, stops, visited, position, hint, pace = WALKING_PACE }) {
  const located = locateVisitor(track, position, hint);
  const offTrail = located ? isOffTrail(track, located.offsetMetres, position.accuracy) : false;
  const index = stops.findIndex((_, i) => !visited.has(i + 1));
  const speed = Number.isFinite(pace) && pace > 0 ? pace : WALKING_PACE;
  const time = (metres) => (Number.isFinite(metres) ? Math.abs(metres) / speed : null);
  let next = null;
  if (index >= 0 && located) {
    const stop = stops[index];
    const straightMetres = geodesicMetres(position.latitude, position.longitude, stop.coordinate.latitude, stop.coordinate.longitude);
    const at = track.stops[index];
    // Off the trail, the way back to it is not along it: the straight line is the honest number.
    const alongMetres = offTrail || at === null || at === undefined ? null : at - located.alongMetres;
    next = {
      index, straightMetres, bearing: bearingDegrees(position, stop.coordinate), alongMetres,
      seconds: time(alongMetres ?? straightMetres),
    };
  }
  const end = track.route ? track.lengthMetres : track.stops[track.stops.length - 1] ?? 0;
  const leftMetres = located && !offTrail ? Math.max(0, end - located.alongMetres) : null;
  return { located, offTrail, next, leftMetres, leftSeconds: time(leftMetres) };
}

/**
 * The points the map's first view fits: the visitor and the next stop when the visitor is on the
 * tour (on the route, or within 1 km of a tour's straight lines), else the start (the route's
 * first point and the first stop). Leaflet points `[lat, lng]`.
 * @param {object} input
 * @param {Track} input.track
 * @param {Array<{coordinate: {latitude: number, longitude: number}}>} input.stops in order
 * @param {Set<number>} input.visited
 * @param {{latitude: number, longitude: number, accuracy?: number} | null} input.position
 * @returns {{onTour: boolean, points: Array<[number, number]>}}
 */
export function firstView({ track, stops, visited, position }) {
  const first = stops[0]?.coordinate;
  const start = [];
  if (track.start.length > 0) start.push([track.lat1[0], track.lon1[0]]);
  if (first) start.push([first.latitude, first.longitude]);
  if (!position) return { onTour: false, points: start };
  const located = locateVisitor(track, position, 0);
  const near = located && (track.route
    ? !isOffTrail(track, located.offsetMetres, position.accuracy)
    : located.offsetMetres <= NEAR_STRAIGHT_METRES);
  if (!near) return { onTour: false, points: start };
  const points = [[position.latitude, position.longitude]];
  const index = stops.findIndex((_, i) => !visited.has(i + 1));
  if (index >= 0) points.push([stops[index].coordinate.latitude, stops[index].coordinate.longitude]);
  return { onTour: true, points };
}

// MARK: time and words

/**
 * A duration in the locale's words, rounded to 5 minutes above an hour: "12 min", "1 hr 35 min".
 * @param {number} seconds @param {string} [locale]
 * @returns {string} empty for a duration that is not a number
 */
export function formatDuration(seconds, locale) {
  if (!Number.isFinite(seconds) || seconds < 0) return '';
  const unit = (value, name) => {
    const options = { style: 'unit', unit: name, unitDisplay: 'short', maximumFractionDigits: 0 };
    try {
      return new Intl.NumberFormat(locale ?? undefined, options).format(value);
    } catch {
      return new Intl.NumberFormat('en', options).format(value);
    }
  };
  const minutes = Math.max(1, Math.round(seconds / 60));
  if (minutes < 60) return unit(minutes, 'minute');
  const rounded = Math.round(minutes / 5) * 5;
  const hours = Math.floor(rounded / 60);
  const rest = rounded % 60;
  return rest === 0 ? unit(hours, 'hour') : `${unit(hours, 'hour')} ${unit(rest, 'minute')}`;
}

// MARK: markers on screen

/**
 * The markers that overlap on screen, grouped: markers nearer than `size` pixels (centre to
 * centre, on either axis' box) are in one group, and so is every marker overlapping one of a
 * group's. Groups in the order of their first marker, each listing its markers' indexes in order.
 * @param {Array<{x: number, y: number}>} points screen positions of the markers
 * @param {number} [size] the markers' size in pixels
 * @returns {number[][]}
 */
export function overlappingGroups(points, size = TARGET_PIXELS) {
  const parent = points.map((_, i) => i);
  const root = (i) => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      if (Math.abs(points[i].x - points[j].x) < size && Math.abs(points[i].y - points[j].y) < size) {
        const a = root(i);
        const b = root(j);
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
      }
    }
  }
  const groups = new Map();
  points.forEach((_, i) => {
    const r = root(i);
    if (!groups.has(r)) groups.set(r, []);
    groups.get(r).push(i);
  });
  return [...groups.values()];
}

/**
 * Screen offsets that spread `n` markers of `size` pixels around their common place so that none
 * overlaps: on a circle, clockwise from the top, far enough apart that neighbours' boxes do not
 * touch. One marker stays where it is.
 * @param {number} n @param {number} [size]
 * @returns {Array<{x: number, y: number}>}
 */
export function spreadOffsets(n, size = TARGET_PIXELS) {
  if (n <= 1) return n === 1 ? [{ x: 0, y: 0 }] : [];
  // Neighbours on the circle are 2r·sin(π/n) apart; a box of `size` fits when that is ≥ size·√2.
  const radius = Math.max(size, (size * Math.SQRT2) / (2 * Math.sin(Math.PI / n)));
  return Array.from({ length: n }, (_, i) => {
    const angle = (2 * Math.PI * i) / n;
    return { x: Math.round(radius * Math.sin(angle)), y: Math.round(-radius * Math.cos(angle)) };
  });
}

/**
 * A group's label: its stop numbers as runs, "2–5" or "2, 4, 7".
 * @param {number[]} numbers in order
 */
export function groupLabel(numbers) {
  const runs = [];
  for (const n of numbers) {
    const last = runs[runs.length - 1];
    if (last && n === last[1] + 1) last[1] = n;
    else runs.push([n, n]);
  }
  return runs.map(([a, b]) => (a === b ? `${a}` : b === a + 1 ? `${a}, ${b}` : `${a}–${b}`)).join(', ');
}
