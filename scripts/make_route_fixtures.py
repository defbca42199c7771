#!/usr/bin/env python3
"""Writes the route fixtures of format 1.2 (docs/FORMAT.md §3.3; deterministic: run it again, get the same bytes).

  fixtures/santiam-wagon-road/route.gpx   the Santiam Wagon Road as a GPS logger would record it: Sweet Home to
                                          the Cache Creek toll station, one <trk> of one <trkseg>, with <ele> and
                                          <time>, through the tour's eight stops in order
  fixtures/gpx/tracks/*.gpx               small tracks written the way other programs write them (Garmin, OsmAnd,
                                          Strava, QGIS/GDAL), and the awkward cases (no elevation, <rte> only, the
                                          antimeridian, one point, NaN, out of range, waypoints out of walking order)

Every line is made up (coordinates follow the real roads and trails only roughly): no outside file is read.
The tests also make big tracks at run time, never committed:

  python3 scripts/make_route_fixtures.py                          the fixtures above
  python3 scripts/make_route_fixtures.py big --points 100000 OUT.gpx
  python3 scripts/make_route_fixtures.py big --mib 60 OUT.gpx     (stops at the first point past 60 MiB)
"""
import argparse, datetime, math, os, random, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")
R = 6371008.8  # the mean Earth radius, for the local planes the lines are drawn in
GPX_NS = 'xmlns="http://www.topografix.com/GPX/1/1"'
XSI_NS = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
GPX_XSD = "http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd"


# --- geometry in a local plane --------------------------------------------------------------

class Plane:
    """An equirectangular plane around (lat0, lon0), in metres: x east, y north. Exact both ways."""

    def __init__(self, lat0, lon0):
        self.lat0, self.lon0 = lat0, lon0
        self.kx = math.cos(math.radians(lat0)) * math.pi / 180 * R
        self.ky = math.pi / 180 * R

    def xy(self, lat, lon):
        dlon = (lon - self.lon0 + 180) % 360 - 180  # across the antimeridian, the short way
        return (dlon * self.kx, (lat - self.lat0) * self.ky)

    def latlon(self, x, y):
        lon = self.lon0 + x / self.kx
        lon = (lon + 180) % 360 - 180  # past the antimeridian, back into [-180, 180)
        return (self.lat0 + y / self.ky, lon)


def catmull_rom(points, step):
    """A centripetal Catmull-Rom curve through every point (so each point is on it), sampled about every `step` m.
    Returns the samples and, for each given point, the index of its sample."""
    pts = [points[0]] + list(points) + [points[-1]]
    pts[0] = (2 * points[0][0] - points[1][0], 2 * points[0][1] - points[1][1])
    pts[-1] = (2 * points[-1][0] - points[-2][0], 2 * points[-1][1] - points[-2][1])
    out, marks = [], []
    for i in range(1, len(pts) - 2):
        p0, p1, p2, p3 = pts[i - 1], pts[i], pts[i + 1], pts[i + 2]

        def knot(t, a, b):
            return t + max(math.dist(a, b), 1e-9) ** 0.5

        t0 = 0.0
        t1 = knot(t0, p0, p1)
        t2 = knot(t1, p1, p2)
        t3 = knot(t2, p2, p3)
        n = max(2, int(math.dist(p1, p2) / step))
        marks.append(len(out))
        for k in range(n):
            t = t1 + (t2 - t1) * k / n
            a1 = [((t1 - t) * p0[j] + (t - t0) * p1[j]) / (t1 - t0) for j in (0, 1)]
            a2 = [((t2 - t) * p1[j] + (t - t1) * p2[j]) / (t2 - t1) for j in (0, 1)]
            a3 = [((t3 - t) * p2[j] + (t - t2) * p3[j]) / (t3 - t2) for j in (0, 1)]
            b1 = [((t2 - t) * a1[j] + (t - t0) * a2[j]) / (t2 - t0) for j in (0, 1)]
            b2 = [((t3 - t) * a2[j] + (t - t1) * a3[j]) / (t3 - t1) for j in (0, 1)]
            out.append(tuple(((t2 - t) * b1[j] + (t - t1) * b2[j]) / (t2 - t1) for j in (0, 1)))
    marks.append(len(out))
    out.append(tuple(points[-1]))
    return out, marks


def cumulative(line):
    s = [0.0]
    for a, b in zip(line, line[1:]):
        s.append(s[-1] + math.dist(a, b))
    return s


def at(line, s_line, s):
    """The point `s` m along a polyline (with its cumulative lengths), and the unit normal (to the left) there."""
    lo, hi = 0, len(s_line) - 1
    s = min(max(s, 0.0), s_line[-1])
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if s_line[mid] <= s:
            lo = mid
        else:
            hi = mid
    a, b = line[lo], line[hi]
    seg = s_line[hi] - s_line[lo]
    f = (s - s_line[lo]) / seg if seg > 0 else 0.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy) or 1.0
    return (a[0] + f * dx, a[1] + f * dy), (-dy / n, dx / n)


def chaikin(line, keep, rounds):
    """Chaikin's corner cutting, `rounds` times; the points whose indices are in `keep` stay where they are."""
    for _ in range(rounds):
        out, kept = [line[0]], set()
        for i in range(len(line) - 1):
            a, b = line[i], line[i + 1]
            if i in keep and i > 0:
                kept.add(len(out))
                out.append(a)
            out.append((0.75 * a[0] + 0.25 * b[0], 0.75 * a[1] + 0.25 * b[1]))
            out.append((0.25 * a[0] + 0.75 * b[0], 0.25 * a[1] + 0.75 * b[1]))
        out.append(line[-1])
        line, keep = out, kept | {0, len(out) - 1}
    return line, keep


def smoothstep(x):
    x = min(max(x, 0.0), 1.0)
    return x * x * (3 - 2 * x)


class Jitter:
    """GPS error: a slowly wandering offset (as a receiver's is) plus a little noise, within ±limit."""

    def __init__(self, rng, sigma, white, limit, rho=0.97):
        self.rng, self.sigma, self.white, self.limit, self.rho = rng, sigma, white, limit, rho
        self.value = 0.0

    def next(self):
        self.value = self.rho * self.value + self.rng.gauss(0, self.sigma * math.sqrt(1 - self.rho ** 2))
        return min(max(self.value + self.rng.gauss(0, self.white), -self.limit), self.limit)


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def coord(v, decimals=7):
    return f"{v:.{decimals}f}"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


# --- the Santiam Wagon Road -----------------------------------------------------------------

# The tour's stops (fixtures/santiam-wagon-road/waypoints), their elevations, and the road miles of
# scripts/make_fixtures.py (the route's length to each stop is made to match them within about 2 %).
SANTIAM_STOPS = [
    ("01-sweet-home", 44.3976, -122.7262, 165, 0),
    ("02-cascadia", 44.3979, -122.4810, 260, 14),
    ("03-mountain-house", 44.3947, -122.3587, 420, 22),
    ("04-house-rock", 44.3923, -122.2445, 600, 30),
    ("05-tombstone-prairie", 44.3955, -122.1404, 1250, 37),
    ("06-fish-lake", 44.4057, -121.9929, 960, 47),
    ("07-santiam-pass", 44.4245, -121.8613, 1450, 55),
    ("08-cache-creek-toll-station", 44.4056, -121.7050, 1000, 66),
]

# Each leg: the bends of the valley between two stops (lat, lon), its switchbacks (the fraction of the leg
# where they start, the metres of the valley line they climb along, the half-width of a traverse in metres,
# the number of hairpins), and the lie of the land (amplitudes in metres of gentle rises and dips between
# the stops' elevations).
SANTIAM_LEGS = [
    {"bends": [(44.4065, -122.6990), (44.4135, -122.6700), (44.4160, -122.6330), (44.4060, -122.6050),
               (44.3985, -122.5800), (44.3900, -122.5480), (44.3960, -122.5170)],
     "switchbacks": [], "hills": [6, 4, 3]},
    {"bends": [(44.3890, -122.4500), (44.3990, -122.4150), (44.3870, -122.3850)],
     "switchbacks": [], "hills": [8, 5]},
    {"bends": [(44.4010, -122.3250), (44.3850, -122.2950), (44.3975, -122.2680)],
     "switchbacks": [], "hills": [10, 6]},
    {"bends": [(44.3830, -122.2150), (44.3800, -122.1900), (44.3890, -122.1650)],
     "switchbacks": [(0.46, 520, 170, 7)], "hills": [25, 12]},
    {"bends": [(44.3900, -122.1100), (44.4040, -122.0700), (44.3975, -122.0350), (44.4095, -122.0100)],
     "switchbacks": [(0.10, 380, 130, 5)], "hills": [30, 15, 8]},
    {"bends": [(44.4140, -121.9600), (44.4290, -121.9300), (44.4370, -121.8950), (44.4300, -121.8750)],
     "switchbacks": [(0.36, 450, 160, 6)], "hills": [20, 10]},
    {"bends": [(44.4360, -121.8300), (44.4190, -121.7950), (44.4270, -121.7600), (44.4110, -121.7330)],
     "switchbacks": [(0.55, 450, 150, 6)], "hills": [25, 12, 6]},
]

SANTIAM_MILE = 1609.344


def santiam_leg(backbone, s_back, a, b, leg, rng, scale):
    """The planar line of one leg (without its last point): the backbone between samples a and b, swung by
    meanders of `scale` (tapered to nothing at the stops) and zig-zagged on its switchbacks."""
    s0, s1 = s_back[a], s_back[b]
    L = s1 - s0
    waves = [(rng.uniform(0.6, 1.0), rng.uniform(1800, 3200), rng.uniform(0, 2 * math.pi)),
             (rng.uniform(0.3, 0.6), rng.uniform(700, 1300), rng.uniform(0, 2 * math.pi)),
             (rng.uniform(0.1, 0.25), rng.uniform(350, 500), rng.uniform(0, 2 * math.pi))]

    def meander(s):
        taper = smoothstep(min(s, L - s) / 700.0)
        return scale * taper * sum(amp * math.sin(2 * math.pi * s / wl + ph) for amp, wl, ph in waves)

    out, corners = [], []
    zones = [(f0 * L, f0 * L + along, half, n) for (f0, along, half, n) in leg["switchbacks"]]
    s = 0.0
    while s < L:
        zone = next((z for z in zones if z[0] <= s < z[1]), None)
        if zone is None:
            nxt = min([z[0] for z in zones if z[0] > s] + [L])
            step = min(20.0, nxt - s) if nxt - s > 1e-6 else 20.0
            p, n = at(backbone, s_back, s0 + s)
            m = meander(s)
            out.append((p[0] + n[0] * m, p[1] + n[1] * m))
            s += step
            continue
        z0, z1, half, hairpins = zone
        # knots of the zig-zag: half a traverse out, `hairpins` full ones, half back onto the line
        knots = [(0.0, 0.0)] + [((2 * k + 1) / (2 * hairpins), half if k % 2 == 0 else -half)
                                for k in range(hairpins)] + [(1.0, 0.0)]
        for (u0, w0), (u1, w1) in zip(knots, knots[1:]):
            if 0 < u0 < 1:
                corners.append(len(out))
            steps = max(2, int(abs(w1 - w0) / 12))
            for k in range(steps):
                u = u0 + (u1 - u0) * k / steps
                w = w0 + (w1 - w0) * k / steps
                ss = z0 + (z1 - z0) * u
                p, n = at(backbone, s_back, s0 + ss)
                m = meander(ss) + w
                out.append((p[0] + n[0] * m, p[1] + n[1] * m))
        s = z1
    # round each hairpin: a quadratic Bézier from 3 points before the knot to 3 after, the knot its control
    for k in corners:
        a, c, b = out[k - 3], out[k], out[k + 3]
        for j in range(-2, 3):
            u = (j + 3) / 6
            out[k + j] = tuple((1 - u) ** 2 * a[i] + 2 * u * (1 - u) * c[i] + u * u * b[i] for i in (0, 1))
    return out, corners


def santiam_line(seed):
    """The road in a plane: each leg's meanders scaled until its length is its road miles', the hairpins
    rounded. Returns the plane, the line and the indices of the stops in it."""
    plane = Plane(44.40, -122.20)
    rng = random.Random(seed)
    control, stop_marks = [], []
    for i, (_, lat, lon, _, _) in enumerate(SANTIAM_STOPS):
        stop_marks.append(len(control))
        control.append(plane.xy(lat, lon))
        if i < len(SANTIAM_LEGS):
            control.extend(plane.xy(la, lo) for la, lo in SANTIAM_LEGS[i]["bends"])
    backbone, marks = catmull_rom(control, 10.0)
    s_back = cumulative(backbone)
    stop_idx = [marks[m] for m in stop_marks]
    line, stops_at = [], []
    for i, leg in enumerate(SANTIAM_LEGS):
        target = (SANTIAM_STOPS[i + 1][4] - SANTIAM_STOPS[i][4]) * SANTIAM_MILE
        leg_seed = rng.random()
        lo, hi = 0.0, 900.0
        for _ in range(24):
            scale = (lo + hi) / 2
            part, _ = santiam_leg(backbone, s_back, stop_idx[i], stop_idx[i + 1], leg, random.Random(leg_seed), scale)
            length = cumulative(part + [backbone[stop_idx[i + 1]]])[-1]
            lo, hi = (scale, hi) if length < target else (lo, scale)
        stops_at.append(len(line))
        line.extend(part)
    stops_at.append(len(line))
    line.append(backbone[-1])
    # round the hairpins; the stops stay exactly where they are
    line, keep = chaikin(line, set(stops_at), 3)
    return plane, line, sorted(keep)


def santiam_profile(leg_index, f, rng_hills):
    """Elevation (m) a fraction f of the way along leg `leg_index`."""
    e0, e1 = SANTIAM_STOPS[leg_index][3], SANTIAM_STOPS[leg_index + 1][3]
    hills = SANTIAM_LEGS[leg_index]["hills"]
    base = e0 + (e1 - e0) * (0.5 * f + 0.5 * smoothstep(f))
    return base + sum(h * math.sin(math.pi * (k + 2) * f + rng_hills[leg_index][k] * math.pi) * math.sin(math.pi * f)
                      for k, h in enumerate(hills))


def santiam(seed=1866):
    plane, line, stops = santiam_line(seed)
    s_line = cumulative(line)

    rng = random.Random(seed + 1)
    hills = [[rng.uniform(-1, 1) for _ in range(4)] for _ in SANTIAM_LEGS]
    jx, jy = Jitter(rng, 1.2, 0.25, 2.8), Jitter(rng, 1.2, 0.25, 2.8)
    jz = Jitter(rng, 0.8, 0.15, 1.8)
    t = datetime.datetime(2024, 7, 13, 15, 20, 0, tzinfo=datetime.timezone.utc)
    points = []
    total = s_line[-1]
    stop_s = [s_line[k] for k in stops]
    s, leg, interval = 0.0, 0, 2
    while True:
        while leg < len(SANTIAM_LEGS) - 1 and s >= stop_s[leg + 1]:
            leg += 1
        f = (s - stop_s[leg]) / (stop_s[leg + 1] - stop_s[leg])
        ele = santiam_profile(leg, f, hills)
        p, _ = at(line, s_line, s)
        lat, lon = plane.latlon(p[0] + jx.next(), p[1] + jy.next())
        points.append((lat, lon, ele + jz.next(), t))
        if s >= total:
            break
        # speed: a forest road by car, slower on grades and through bends (the logger writes every 2 s)
        ahead, _ = at(line, s_line, s + 40)
        behind, _ = at(line, s_line, max(0.0, s - 40))
        bend = 1 - math.dist(ahead, behind) / max(1.0, min(80.0, s + 40, total - s + 40))
        f2 = (min(s + 30, stop_s[leg + 1]) - stop_s[leg]) / (stop_s[leg + 1] - stop_s[leg])
        grade = abs(santiam_profile(leg, f2, hills) - ele) / 30
        speed = 11.5 - 40 * grade - 30 * bend + rng.uniform(-0.6, 0.6)
        speed = min(max(speed, 5.0), 12.0)
        nxt = min(s + speed * interval, total)
        t += datetime.timedelta(seconds=interval)
        # a pause at each stop: the logger records nothing while the car stands
        for k in range(1, len(stop_s) - 1):
            if s < stop_s[k] <= nxt:
                t += datetime.timedelta(seconds=rng.randrange(600, 1500))
        s = nxt

    head = (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<gpx version="1.1" creator="trailpack scripts/make_route_fixtures.py" {GPX_NS} {XSI_NS}'
            f' xsi:schemaLocation="{GPX_XSD}">\n'
            f'  <metadata>\n    <name>Santiam Wagon Road</name>\n'
            f'    <desc>A made-up recording of the historic road from Sweet Home to the Cache Creek toll station, for trailpack\'s tests: it follows the real road only roughly.</desc>\n'
            f'    <time>{iso(points[0][3])}</time>\n  </metadata>\n'
            f'  <trk>\n    <name>Santiam Wagon Road</name>\n    <type>driving</type>\n    <trkseg>\n')
    body = "".join(f'      <trkpt lat="{coord(la)}" lon="{coord(lo)}"><ele>{e:.1f}</ele><time>{iso(tt)}</time></trkpt>\n'
                   for la, lo, e, tt in points)
    write(os.path.join(ROOT, "santiam-wagon-road", "route.gpx"), head + body + "    </trkseg>\n  </trk>\n</gpx>\n")


# --- small tracks as other programs write them ------------------------------------------------

def wander(lat, lon, heading, n, step, rng, turn=0.08, plane=None):
    """n points of a smooth walk from (lat, lon): the heading (degrees from north) drifts a little each step."""
    plane = plane or Plane(lat, lon)
    x, y = plane.xy(lat, lon)
    h, dh = math.radians(heading), 0.0
    out = []
    for _ in range(n):
        out.append(plane.latlon(x, y))
        dh = 0.85 * dh + rng.gauss(0, turn)
        h += dh * 0.3
        st = step * rng.uniform(0.8, 1.2)
        x += st * math.sin(h)
        y += st * math.cos(h)
    return out


def through(waypoints, step, rng, swing=25.0):
    """A smooth line through the given (lat, lon) points, sampled about every `step` m, with small bends."""
    plane = Plane(*waypoints[0])
    line, marks = catmull_rom([plane.xy(*p) for p in waypoints], step / 4)
    s = cumulative(line)
    phase = rng.uniform(0, 6.28)
    out, pos = [], 0.0
    while pos <= s[-1]:
        p, n = at(line, s, pos)
        taper = smoothstep(min(pos, s[-1] - pos) / 150)
        w = swing * taper * math.sin(pos / 180 + phase)
        out.append(plane.latlon(p[0] + n[0] * w, p[1] + n[1] * w))
        pos += step * rng.uniform(0.8, 1.2)
    return out, plane, line, s


def elevations(n, start, rng, climb=0.0, wobble=4.0):
    out, e, v = [], start, 0.0
    for k in range(n):
        v = 0.9 * v + rng.gauss(0, 0.3)
        out.append(start + climb * k / max(1, n - 1) + wobble * math.sin(k / 23.0) + v)
    return out


def garmin_etrex():
    rng = random.Random(32)
    t = datetime.datetime(2024, 6, 1, 18, 5, 33, tzinfo=datetime.timezone.utc)
    # Fish Lake to the lava edge, three segments: the receiver lost its fix under the trees for about 300 m
    seg1 = wander(44.4057, -121.9929, 40, 120, 9, rng)
    plane = Plane(44.4057, -121.9929)
    x, y = plane.xy(*seg1[-1])
    gap_start = plane.latlon(x + 300 * math.sin(math.radians(70)), y + 300 * math.cos(math.radians(70)))
    seg2 = wander(gap_start[0], gap_start[1], 70, 110, 9, rng)
    x, y = plane.xy(*seg2[-1])
    seg3 = wander(*plane.latlon(x + 8, y + 6), 20, 90, 9, rng)
    eles = elevations(320, 963.0, rng, climb=38)
    # the device's own summary of the track (its distance bridges the gap, as a Garmin's does)
    flat = [plane.xy(*p) for p in seg1 + seg2 + seg3]
    distance = sum(math.dist(a, b) for a, b in zip(flat, flat[1:]))
    rises = [b - a for a, b in zip(eles, eles[1:])]
    stats = (f"<gpxtrkx:Distance>{distance:.0f}</gpxtrkx:Distance><gpxtrkx:TotalElapsedTime>2705</gpxtrkx:TotalElapsedTime>"
             f"<gpxtrkx:MovingTime>2390</gpxtrkx:MovingTime><gpxtrkx:Ascent>{sum(r for r in rises if r > 0):.0f}</gpxtrkx:Ascent>"
             f"<gpxtrkx:Descent>{-sum(r for r in rises if r < 0):.0f}</gpxtrkx:Descent>")
    head = ('<?xml version="1.0" encoding="UTF-8" standalone="no" ?>'
            '<gpx xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxx="http://www.garmin.com/xmlschemas/GpxExtensions/v3"'
            ' xmlns:gpxtrkx="http://www.garmin.com/xmlschemas/TrackStatsExtension/v1"'
            ' xmlns:wptx1="http://www.garmin.com/xmlschemas/WaypointExtension/v1"'
            ' xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" creator="eTrex Touch 35" version="1.1"'
            ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
            ' xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd'
            ' http://www.garmin.com/xmlschemas/GpxExtensions/v3 http://www8.garmin.com/xmlschemas/GpxExtensionsv3.xsd'
            ' http://www.garmin.com/xmlschemas/TrackStatsExtension/v1 http://www8.garmin.com/xmlschemas/TrackStatsExtension.xsd'
            ' http://www.garmin.com/xmlschemas/WaypointExtension/v1 http://www8.garmin.com/xmlschemas/WaypointExtensionv1.xsd'
            ' http://www.garmin.com/xmlschemas/TrackPointExtension/v1 http://www.garmin.com/xmlschemas/TrackPointExtensionv1.xsd">'
            f'<metadata><link href="http://www.garmin.com"><text>Garmin International</text></link><time>{iso(t)}</time></metadata>'
            '<trk><name>2024-06-01 11:05:33 Day</name><extensions><gpxx:TrackExtension><gpxx:DisplayColor>Cyan'
            f'</gpxx:DisplayColor></gpxx:TrackExtension><gpxtrkx:TrackStatsExtension>{stats}'
            '</gpxtrkx:TrackStatsExtension></extensions>')
    body, k, hr = [], 0, 96.0
    for n, seg in enumerate((seg1, seg2, seg3)):
        body.append("<trkseg>")
        if n:
            t += datetime.timedelta(seconds=180 if n == 1 else 40)
        for lat, lon in seg:
            hr = min(max(hr + rng.gauss(0.15, 1.2), 88), 142)
            body.append(f'<trkpt lat="{lat:.6f}" lon="{lon:.6f}"><ele>{eles[k]:.2f}</ele><time>{iso(t)}</time>'
                        '<extensions><gpxtpx:TrackPointExtension>'
                        f'<gpxtpx:atemp>{17 + k / 80:.1f}</gpxtpx:atemp><gpxtpx:hr>{int(hr)}</gpxtpx:hr>'
                        f'<gpxtpx:cad>{rng.randrange(48, 58)}</gpxtpx:cad>'
                        '</gpxtpx:TrackPointExtension></extensions></trkpt>')
            t += datetime.timedelta(seconds=rng.choice((6, 7, 8, 8, 9)))
            k += 1
        body.append("</trkseg>")
    write(os.path.join(ROOT, "gpx", "tracks", "garmin-etrex.gpx"), head + "".join(body) + "</trk></gpx>")


def osmand():
    rng = random.Random(4710)
    t = datetime.datetime(2024, 8, 10, 16, 14, 3, tzinfo=datetime.timezone.utc)
    # the Sahalie and Koosah Falls loop on the McKenzie River
    pts, _, _, _ = through([(44.3487, -121.9966), (44.3470, -121.9978), (44.3449, -121.9962), (44.3445, -121.9940),
                            (44.3468, -121.9935), (44.3490, -121.9948)], 6, rng, swing=8)
    eles = elevations(len(pts), 862.0, rng, climb=-6, wobble=6)
    name = "2024-08-10_09-14_Sat"
    out = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n",
           '<gpx version="1.1" creator="OsmAnd~ 4.7.10" xmlns="http://www.topografix.com/GPX/1/1"'
           ' xmlns:osmand="https://osmand.net" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
           ' xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">\n',
           f"  <metadata>\n    <name>{name}</name>\n    <time>{iso(t)}</time>\n  </metadata>\n",
           f"  <trk>\n    <name>{name}</name>\n    <trkseg>\n"]
    for (lat, lon), e in zip(pts, eles):
        speed = rng.uniform(0.9, 1.6)
        out.append(f'      <trkpt lat="{lat:.7f}" lon="{lon:.7f}">\n        <ele>{e:.1f}</ele>\n'
                   f'        <time>{iso(t)}</time>\n        <hdop>{rng.choice((3.2, 3.8, 4.3, 5.0, 6.4, 8.0))}</hdop>\n'
                   f'        <extensions>\n          <osmand:speed>{speed:.1f}</osmand:speed>\n        </extensions>\n'
                   '      </trkpt>\n')
        t += datetime.timedelta(seconds=rng.choice((4, 5, 5, 6)))
    out.append("    </trkseg>\n  </trk>\n  <extensions>\n    <osmand:show_arrows>false</osmand:show_arrows>\n"
               "    <osmand:show_start_finish>true</osmand:show_start_finish>\n    <osmand:split_type>no_split</osmand:split_type>\n"
               "    <osmand:split_interval>0.0</osmand:split_interval>\n    <osmand:width></osmand:width>\n"
               "    <osmand:color>#ff5020</osmand:color>\n  </extensions>\n</gpx>\n")
    write(os.path.join(ROOT, "gpx", "tracks", "osmand.gpx"), "".join(out))


def strava():
    rng = random.Random(9)
    t = datetime.datetime(2024, 7, 6, 15, 2, 11, tzinfo=datetime.timezone.utc)
    # up the Iron Mountain trail from the highway
    pts = wander(44.3960, -122.1380, 330, 300, 8, rng, turn=0.15)
    eles = elevations(len(pts), 1262.0, rng, climb=210, wobble=3)
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n',
           '<gpx creator="StravaGPX" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
           ' xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd'
           ' http://www.garmin.com/xmlschemas/GpxExtensions/v3 http://www.garmin.com/xmlschemas/GpxExtensionsv3.xsd'
           ' http://www.garmin.com/xmlschemas/TrackPointExtension/v1 http://www.garmin.com/xmlschemas/TrackPointExtensionv1.xsd"'
           ' version="1.1" xmlns="http://www.topografix.com/GPX/1/1"'
           ' xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"'
           ' xmlns:gpxx="http://www.garmin.com/xmlschemas/GpxExtensions/v3">\n',
           f" <metadata>\n  <time>{iso(t)}</time>\n </metadata>\n",
           " <trk>\n  <name>Iron Mountain wildflowers</name>\n  <type>hiking</type>\n  <trkseg>\n"]
    hr = 101.0
    for (lat, lon), e in zip(pts, eles):
        hr = min(max(hr + rng.gauss(0.1, 1.0), 92), 156)
        out.append(f'   <trkpt lat="{lat:.7f}" lon="{lon:.7f}">\n    <ele>{e:.1f}</ele>\n    <time>{iso(t)}</time>\n'
                   f'    <extensions>\n     <gpxtpx:TrackPointExtension>\n      <gpxtpx:hr>{int(hr)}</gpxtpx:hr>\n'
                   '     </gpxtpx:TrackPointExtension>\n    </extensions>\n   </trkpt>\n')
        t += datetime.timedelta(seconds=rng.choice((6, 7, 8)))
    out.append("  </trkseg>\n </trk>\n</gpx>\n")
    write(os.path.join(ROOT, "gpx", "tracks", "strava.gpx"), "".join(out))


def gdal_double(v):
    """GDAL's OGRFormatDouble with 15 significant digits, trailing zeros dropped."""
    text = f"{v:.15g}"
    return text if "e" not in text else f"{v:.15f}".rstrip("0")


def qgis():
    rng = random.Random(36)
    # the Clear Lake loop as drawn in QGIS over a basemap (few vertices, no elevation, no time) and saved as GPX
    pts, _, _, _ = through([(44.3705, -121.9941), (44.3745, -121.9890), (44.3800, -121.9885), (44.3830, -121.9935),
                            (44.3790, -121.9995), (44.3720, -121.9990), (44.3700, -121.9950)], 15, rng, swing=12)
    lats, lons = [p[0] for p in pts], [p[1] for p in pts]
    out = ['<?xml version="1.0"?>\n<gpx version="1.1" creator="GDAL 3.8.4" \n'
           'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \n'
           'xmlns:ogr="http://osgeo.org/gdal" \n'
           'xmlns="http://www.topografix.com/GPX/1/1" \n'
           'xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">\n',
           f'<metadata><bounds minlat="{min(lats):.15f}" minlon="{min(lons):.15f}" maxlat="{max(lats):.15f}"'
           f' maxlon="{max(lons):.15f}"/></metadata>                  \n',
           '<trk>\n  <name>Clear Lake Loop</name>\n  <extensions>\n    <ogr:id>1</ogr:id>\n'
           '    <ogr:surface>dirt</ogr:surface>\n  </extensions>\n  <trkseg>\n']
    for lat, lon in pts:
        out.append(f'    <trkpt lat="{gdal_double(round(lat, 9))}" lon="{gdal_double(round(lon, 9))}">\n    </trkpt>\n')
    out.append("  </trkseg>\n</trk>\n</gpx>\n")
    write(os.path.join(ROOT, "gpx", "tracks", "qgis.gpx"), "".join(out))


def plain_track(name, pts, creator, extra_points=None):
    """A bare GPX 1.1 track: no elevation, no time (as a hand-made or converted file often is)."""
    out = [f'<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="{creator}" {GPX_NS}>\n',
           f"  <trk>\n    <name>{name}</name>\n    <trkseg>\n"]
    for k, (lat, lon) in enumerate(pts):
        la, lo = (extra_points or {}).get(k, (coord(lat, 6), coord(lon, 6)))
        out.append(f'      <trkpt lat="{la}" lon="{lo}"/>\n')
    out.append("    </trkseg>\n  </trk>\n</gpx>\n")
    return "".join(out)


def small_cases():
    folder = os.path.join(ROOT, "gpx", "tracks")
    rng = random.Random(7)
    # Tamolitch Blue Pool trail, drawn by hand: no <ele>, no <time>
    pts, _, _, _ = through([(44.3160, -122.0370), (44.3080, -122.0365), (44.2977, -122.0347)], 12, rng)
    write(os.path.join(folder, "no-elevation-no-time.gpx"), plain_track("Tamolitch Blue Pool", pts, "gpx.studio"))

    # a planned route: <rte> and its <rtept>s, no track (Garmin BaseCamp writes routes like this)
    rte, _, _, _ = through([(44.3923, -122.2445), (44.3880, -122.2200), (44.3830, -122.1950), (44.3955, -122.1404)],
                           160, rng, swing=60)
    out = ['<?xml version="1.0" encoding="UTF-8" standalone="no" ?>\n'
           '<gpx xmlns="http://www.topografix.com/GPX/1/1" creator="BaseCamp" version="1.1"'
           ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
           ' xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">\n'
           '  <metadata>\n    <time>2024-05-20T17:02:45Z</time>\n  </metadata>\n'
           '  <rte>\n    <name>House Rock to Tombstone</name>\n']
    for k, (lat, lon) in enumerate(rte):
        nm = {0: "House Rock", len(rte) - 1: "Tombstone Prairie"}.get(k, f"{k:03d}")
        out.append(f'    <rtept lat="{lat:.9f}" lon="{lon:.9f}">\n      <name>{nm}</name>\n    </rtept>\n')
    out.append("  </rte>\n</gpx>\n")
    write(os.path.join(folder, "route-only-rte.gpx"), "".join(out))

    # Taveuni, Fiji: from the meridian marker to Lavena Point, across 180° (lon 179.9x, then -179.9x)
    fiji, _, _, _ = through([(-16.8050, 179.9650), (-16.8100, 179.9900), (-16.8230, 179.9995), (-16.8380, -179.9700),
                             (-16.8520, -179.9300), (-16.8600, -179.8900)], 50, rng, swing=40)
    eles = elevations(len(fiji), 12.0, rng, climb=0, wobble=5)
    t = datetime.datetime(2024, 9, 2, 20, 10, 0, tzinfo=datetime.timezone.utc)
    out = [f'<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="OsmAnd~ 4.7.10" {GPX_NS}>\n'
           '  <trk>\n    <name>Taveuni coast road</name>\n    <trkseg>\n']
    for (lat, lon), e in zip(fiji, eles):
        out.append(f'      <trkpt lat="{lat:.7f}" lon="{lon:.7f}"><ele>{abs(e) + 2:.1f}</ele><time>{iso(t)}</time></trkpt>\n')
        t += datetime.timedelta(seconds=5)
    out.append("    </trkseg>\n  </trk>\n</gpx>\n")
    write(os.path.join(folder, "antimeridian.gpx"), "".join(out))

    write(os.path.join(folder, "single-point.gpx"),
          f'<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="eTrex 32x" {GPX_NS}>\n'
          '  <trk>\n    <name>Fix only</name>\n    <trkseg>\n'
          '      <trkpt lat="44.405700" lon="-121.992900"><ele>961.4</ele><time>2024-06-01T18:05:33Z</time></trkpt>\n'
          '    </trkseg>\n  </trk>\n</gpx>\n')

    base, _, _, _ = through([(44.4057, -121.9929), (44.4080, -121.9870)], 12, rng)
    write(os.path.join(folder, "nan.gpx"), plain_track("Bad fix", base, "GPSLogger 131", {len(base) // 2: ("NaN", coord(base[len(base) // 2][1], 6))}))
    write(os.path.join(folder, "out-of-range.gpx"),
          plain_track("Bad latitude", base, "GPSLogger 131", {len(base) // 3: ("91.2", coord(base[len(base) // 3][1], 6))}))

    # McKenzie River Trail: four stops along the track, listed out of walking order (3, 1, 4, 2)
    pts, plane, line, s = through([(44.3660, -121.9950), (44.3560, -121.9985), (44.3487, -121.9966),
                                   (44.3449, -121.9962), (44.3390, -121.9985)], 10, rng, swing=15)
    stops = [("Clear Lake south shore", 0.02, 6), ("Sahalie Falls", 0.40, -9), ("Koosah Falls", 0.62, 12),
             ("Carmen Reservoir", 0.97, -5)]
    wpts = []
    for nm, frac, off in stops:
        k = int(frac * (len(pts) - 1))
        x, y = plane.xy(*pts[k])
        x2, y2 = plane.xy(*pts[k + 1])
        d = math.hypot(x2 - x, y2 - y) or 1
        wpts.append((nm, plane.latlon(x - (y2 - y) / d * off, y + (x2 - x) / d * off)))
    order = [2, 0, 3, 1]
    out = [f'<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="eTrex 32x" {GPX_NS}>\n']
    for i in order:
        nm, (lat, lon) = wpts[i]
        out.append(f'  <wpt lat="{lat:.6f}" lon="{lon:.6f}">\n    <name>{nm}</name>\n    <sym>Flag, Blue</sym>\n  </wpt>\n')
    eles = elevations(len(pts), 930.0, rng, climb=-120, wobble=3)
    t = datetime.datetime(2024, 8, 3, 16, 0, 0, tzinfo=datetime.timezone.utc)
    out.append("  <trk>\n    <name>McKenzie River Trail</name>\n    <trkseg>\n")
    for (lat, lon), e in zip(pts, eles):
        out.append(f'      <trkpt lat="{lat:.6f}" lon="{lon:.6f}"><ele>{e:.1f}</ele><time>{iso(t)}</time></trkpt>\n')
        t += datetime.timedelta(seconds=8)
    out.append("    </trkseg>\n  </trk>\n</gpx>\n")
    write(os.path.join(folder, "waypoints-and-track.gpx"), "".join(out))


# --- big tracks, made by the tests at run time ------------------------------------------------

def big(path, points=None, mib=None, seed=60):
    """A long track wandering inside the Santiam tour's bounds (44.3..44.5 N, -122.8..-121.6 E), with ele and
    time: `points` points, or points until the file passes `mib` MiB. Written as it goes."""
    rng = random.Random(seed)
    plane = Plane(44.40, -122.20)
    x0, y0 = plane.xy(44.305, -122.795)
    x1, y1 = plane.xy(44.495, -121.605)
    x, y, h, dh, e = 0.0, 0.0, 1.0, 0.0, 800.0
    t = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    limit = None if mib is None else int(mib * 1024 * 1024)
    tail = "    </trkseg>\n  </trk>\n</gpx>\n"
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        head = (f'<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="trailpack make_route_fixtures.py big" {GPX_NS}>\n'
                '  <trk>\n    <name>Long recording</name>\n    <trkseg>\n')
        f.write(head)
        size, n = len(head) + len(tail), 0
        chunk = []
        while (points is not None and n < points) or (limit is not None and size < limit):
            lat, lon = plane.latlon(x, y)
            line = f'      <trkpt lat="{lat:.7f}" lon="{lon:.7f}"><ele>{e:.1f}</ele><time>{iso(t)}</time></trkpt>\n'
            chunk.append(line)
            size += len(line)
            n += 1
            if len(chunk) >= 4096:
                f.write("".join(chunk))
                chunk = []
            dh = 0.9 * dh + rng.gauss(0, 0.05)
            h += dh * 0.2
            step = rng.uniform(8, 20)
            nx, ny = x + step * math.sin(h), y + step * math.cos(h)
            if not (x0 < nx < x1):
                h = -h
                nx = x + step * math.sin(h)
            if not (y0 < ny < y1):
                h = math.pi - h
                ny = y + step * math.cos(h)
            x, y = nx, ny
            e = min(max(e + rng.gauss(0, 0.6), 150), 1900)
            t += datetime.timedelta(seconds=2)
        f.write("".join(chunk))
        f.write(tail)
    return n


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command")
    b = sub.add_parser("big", help="write a big track (for the tests; never committed)")
    group = b.add_mutually_exclusive_group(required=True)
    group.add_argument("--points", type=int, help="this many points")
    group.add_argument("--mib", type=float, help="points until the file is this many MiB")
    b.add_argument("--seed", type=int, default=60)
    b.add_argument("out")
    args = parser.parse_args(argv)
    if args.command == "big":
        n = big(args.out, points=args.points, mib=args.mib, seed=args.seed)
        print(f"{args.out}: {n} points, {os.path.getsize(args.out)} bytes")
        return
    santiam()
    garmin_etrex()
    osmand()
    strava()
    qgis()
    small_cases()


if __name__ == "__main__":
    main(sys.argv[1:])
