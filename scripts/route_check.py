#!/usr/bin/env python3
"""The route's numbers worked out independently of the Swift code (docs/FORMAT.md §3.3), for the tests to
compare with: geodesic lengths by PROJ's geodesic (pyproj.Geod, WGS 84: Karney's algorithm), GPX read by
gpxpy, and the stop rule and Douglas-Peucker written again here from the spec's words. Prints JSON.

  route_check.py gpx FILE.gpx
      the file's tracks (each <trkseg>) and routes: points, geodesic length, ascent and descent (only when
      every point has <ele>), the gaps between the lines, its waypoints and where they lie along the lines
  route_check.py simplify FILE.gpx --tolerance 5 [--builder]
      Douglas-Peucker at that tolerance (metres): points and length kept; with --builder, the builder's rule:
      the tolerance halved until the simplified length is within 0.5 % of the recorded one
  route_check.py route ROUTE.geojson|ROUTE.gpx [--manifest manifest.json | --tour DIR] [--builder]
      the route's lengthMetres, ascentMetres, descentMetres, each stop's distanceMetres and offsetMetres, and
      the stages' lengthMetres, by the spec's rule; beside each, what the file states (a GeoJSON Feature's
      properties) and whether the two disagree by more than 1 m plus 0.1 %. Stops come from the manifest's
      waypoints (by `order`) or from a tour folder's waypoints/ (and its tour.json's stages). A GPX file (or,
      with --builder, a tour folder's route.gpx) is taken as the builder takes it: with --builder, simplified,
      cut at the antimeridian and rounded (7 decimals, elevations to 0.1 m) first.

Exit status: 0 when the JSON was written (findings are in it), 1 when a number disagrees (`route` only),
2 for a usage error or a file that cannot be read.
"""
import argparse, json, math, os, re, sys, unicodedata

try:
    import gpxpy
    import gpxpy.gpx
    from pyproj import Geod
except ImportError as error:  # pragma: no cover
    sys.exit(f"route_check.py needs pyproj and gpxpy (make deps, or pip install pyproj gpxpy): {error}")

GEOD = Geod(ellps="WGS84")
R = 6371008.8  # the spec's radius for the plane centred on a stop
PASS_SLACK = 20.0  # a pass: within d + 20 m
MAX_POSITIONS = 100_000


def fail(message):
    print(json.dumps({"error": message}))
    sys.exit(2)


def wrap(dlon):
    """A difference of longitudes into [-180, 180)."""
    return (dlon + 180.0) % 360.0 - 180.0


# --- reading -----------------------------------------------------------------------------------

def position_errors(lines):
    errors = []
    for li, line in enumerate(lines):
        for pi, p in enumerate(line):
            lon, lat = p[0], p[1]
            if not (isinstance(lat, (int, float)) and isinstance(lon, (int, float))) or not (math.isfinite(lat) and math.isfinite(lon)):
                errors.append({"line": li, "point": pi, "error": "not finite", "latitude": repr(lat), "longitude": repr(lon)})
            elif not (-90 <= lat <= 90 and -180 <= lon <= 180):
                errors.append({"line": li, "point": pi, "error": "out of range", "latitude": lat, "longitude": lon})
            elif len(p) > 2 and p[2] is not None and not math.isfinite(p[2]):
                errors.append({"line": li, "point": pi, "error": "elevation not finite"})
    return errors


def read_gpx(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            return gpxpy.parse(f)
    except (OSError, UnicodeDecodeError, gpxpy.gpx.GPXException, ValueError) as error:
        fail(f"{path}: {error}")


def gpx_lines(gpx):
    """The builder's lines of a GPX file: each <trkseg> in file order, or, in a file with no <trk>, each <rte>.
    Positions are [lon, lat, ele or None]."""
    if gpx.tracks:
        source = "trk"
        lines = [[[p.longitude, p.latitude, p.elevation] for p in seg.points] for t in gpx.tracks for seg in t.segments]
    elif gpx.routes:
        source = "rte"
        lines = [[[p.longitude, p.latitude, p.elevation] for p in r.points] for r in gpx.routes]
    else:
        source, lines = None, []
    return source, lines


def with_elevations(lines):
    """Every position with an elevation: [lon, lat, ele]; else [lon, lat] throughout."""
    points = [p for line in lines for p in line]
    if points and all(len(p) > 2 and p[2] is not None for p in points):
        return [[[p[0], p[1], float(p[2])] for p in line] for line in lines], True
    return [[[p[0], p[1]] for p in line] for line in lines], False


def strict_json(path):
    def pairs(items):
        seen = {}
        for key, value in items:
            if key in seen:
                raise ValueError(f"duplicate key {key!r}")
            seen[key] = value
        return seen

    def constant(name):
        raise ValueError(f"not JSON: {name}")

    try:
        with open(path, "r", encoding="utf-8") as f:
            return json.load(f, object_pairs_hook=pairs, parse_constant=constant)
    except (OSError, ValueError) as error:
        fail(f"{path}: {error}")


def geojson_lines(doc):
    """The lines of a route.geojson: a Feature, a FeatureCollection of one line Feature, or a bare
    LineString or MultiLineString. Returns (lines, stated properties)."""
    props = {}
    if isinstance(doc, dict) and doc.get("type") == "FeatureCollection":
        features = doc.get("features") or []
        if len(features) != 1:
            fail(f"a FeatureCollection of {len(features)} features (one line Feature expected)")
        doc = features[0]
    if isinstance(doc, dict) and doc.get("type") == "Feature":
        props = doc.get("properties") or {}
        doc = doc.get("geometry")
    if not isinstance(doc, dict):
        fail("not a GeoJSON line")
    if doc.get("type") == "LineString":
        lines = [doc.get("coordinates")]
    elif doc.get("type") == "MultiLineString":
        lines = doc.get("coordinates")
    else:
        fail(f"geometry of type {doc.get('type')!r} (LineString or MultiLineString expected)")
    lines = [[list(p) for p in line] for line in lines]
    return lines, props


# --- the numbers -------------------------------------------------------------------------------

def segment_lengths(line):
    """The geodesic (WGS 84) length of each segment of a line."""
    if len(line) < 2:
        return []
    lons = [p[0] for p in line]
    lats = [p[1] for p in line]
    _, _, dist = GEOD.inv(lons[:-1], lats[:-1], lons[1:], lats[1:])
    return [float(d) for d in dist]


def climb(lines):
    """Ascent and descent: the rises and the falls between consecutive positions of each line."""
    up = down = 0.0
    for line in lines:
        for a, b in zip(line, line[1:]):
            d = b[2] - a[2]
            if d > 0:
                up += d
            else:
                down -= d
    return up, down


def gaps(lines):
    out = []
    for i in range(len(lines) - 1):
        if lines[i] and lines[i + 1]:
            a, b = lines[i][-1], lines[i + 1][0]
            _, _, d = GEOD.inv(a[0], a[1], b[0], b[1])
            out.append({"after": i, "metres": round(float(d), 3)})
    return out


def summary(lines):
    """Points, length and climb of some lines (positions [lon, lat(, ele)])."""
    lengths = [sum(segment_lengths(line)) for line in lines]
    lines_e, has_ele = with_elevations(lines)
    out = {"lines": len(lines), "points": sum(len(l) for l in lines), "lengthMetres": sum(lengths),
           "lineLengthsMetres": lengths, "hasElevation": has_ele}
    if has_ele:
        out["ascentMetres"], out["descentMetres"] = climb(lines_e)
    return out


def locate(stops, lines):
    """Each stop (slug, lat, lon) on the route, by FORMAT.md §3.3: the projection onto every segment in a plane
    centred on the stop, clamped; offset d = the smallest planar distance; a pass is a run of consecutive segments
    within d + 20 m, at its nearest point; the stop's point is the first pass at or after the previous stop's point
    (the first pass overall when there is none after it); distanceMetres = the route's length up to that point."""
    segments = []  # (lonA, latA, lonB, latB, start, length, line, index)
    along = 0.0
    for li, line in enumerate(lines):
        lengths = segment_lengths(line)
        for i, length in enumerate(lengths):
            a, b = line[i], line[i + 1]
            segments.append((a[0], a[1], b[0], b[1], along, length, li, i))
            along += length
    out, previous = [], -math.inf
    rad = math.pi / 180
    for slug, lat, lon in stops:
        kx, ky = math.cos(lat * rad) * rad * R, rad * R
        found = []
        nearest = math.inf
        for (lon_a, lat_a, lon_b, lat_b, start, length, li, i) in segments:
            ax, ay = wrap(lon_a - lon) * kx, (lat_a - lat) * ky
            bx, by = wrap(lon_b - lon) * kx, (lat_b - lat) * ky
            dx, dy = bx - ax, by - ay
            ll = dx * dx + dy * dy
            t = min(1.0, max(0.0, -(ax * dx + ay * dy) / ll)) if ll > 0 else 0.0
            px, py = ax + t * dx, ay + t * dy
            d = math.hypot(px, py)
            found.append((d, start + t * length, li, i, t))
            nearest = min(nearest, d)
        # A pass: a run of consecutive segments within d + 20 m; its point is its nearest (the first of equals).
        passes, run = [], None
        for (d, at, li, i, t) in found:
            if d <= nearest + PASS_SLACK:
                if run is None or d < run[0]:
                    run = (d, at, li, i, t) if run is None else (d, at, li, i, t)
            elif run is not None:
                passes.append(run)
                run = None
        if run is not None:
            passes.append(run)
        chosen = first = None
        for (d, at, li, i, t) in passes:
            if first is None:
                first = (at, li, i, t)
            if at >= previous:
                chosen = (at, li, i, t)
                break
        pick = chosen or first or (0.0, None, None, None)
        previous = pick[0]
        out.append({"slug": slug, "distanceMetres": pick[0], "offsetMetres": nearest if segments else 0.0,
                     "line": pick[1], "segment": pick[2], "t": pick[3], "afterPrevious": chosen is not None})
    return out


# --- Douglas-Peucker ---------------------------------------------------------------------------

def douglas_peucker(line, tolerance):
    """The indices kept by Douglas-Peucker at `tolerance` metres, in a local equirectangular plane of the line
    (centred on its middle latitude and first longitude, longitudes unwrapped; x = Δlon·cos(lat0)·R, y = Δlat·R),
    measuring each point's distance to the chord (the segment between the kept ends, clamped). First and last
    points are always kept. Horizontal only: elevations play no part."""
    n = len(line)
    if n <= 2:
        return list(range(n))
    lats = [p[1] for p in line]
    lat0 = (min(lats) + max(lats)) / 2
    lon0 = line[0][0]
    kx, ky = math.cos(math.radians(lat0)) * math.pi / 180 * R, math.pi / 180 * R
    xs, ys = [], []
    unwrapped = lon0
    for p in line:
        unwrapped = unwrapped + wrap(p[0] - unwrapped)  # follow the line across the antimeridian
        xs.append((unwrapped - lon0) * kx)
        ys.append((p[1] - lat0) * ky)
    keep = [False] * n
    keep[0] = keep[-1] = True
    stack = [(0, n - 1)]
    while stack:
        a, b = stack.pop()
        if b - a < 2:
            continue
        ax, ay, bx, by = xs[a], ys[a], xs[b], ys[b]
        dx, dy = bx - ax, by - ay
        ll = dx * dx + dy * dy
        worst, at = -1.0, -1
        for k in range(a + 1, b):
            px, py = xs[k] - ax, ys[k] - ay
            if ll > 0:
                t = (px * dx + py * dy) / ll
                t = 0.0 if t < 0 else (1.0 if t > 1 else t)
                ex, ey = px - t * dx, py - t * dy
            else:
                ex, ey = px, py
            d = ex * ex + ey * ey
            if d > worst:
                worst, at = d, k
        if worst > tolerance * tolerance:
            keep[at] = True
            stack.append((a, at))
            stack.append((at, b))
    return [k for k in range(n) if keep[k]]


def simplify(lines, tolerance):
    return [[line[k] for k in douglas_peucker(line, tolerance)] for line in lines]


def builder_simplify(lines, tolerance=5.0, within=0.005):
    """The builder's rule: Douglas-Peucker at 5 m, the tolerance halved until the simplified length is within
    0.5 % of the recorded one. Returns (lines, tolerance used, halvings)."""
    recorded = sum(sum(segment_lengths(l)) for l in lines)
    halvings = 0
    while True:
        out = simplify(lines, tolerance)
        length = sum(sum(segment_lengths(l)) for l in out)
        if recorded == 0 or abs(recorded - length) <= within * recorded or tolerance < 1e-3:
            return out, tolerance, halvings
        tolerance /= 2
        halvings += 1


def cut_antimeridian(lines):
    """Cut every segment that crosses 180° into two lines, ending and starting on the meridian (RFC 7946
    §3.1.9), the crossing's latitude interpolated linearly in unwrapped longitude (elevation likewise)."""
    out = []
    for line in lines:
        current = [line[0]] if line else []
        for a, b in zip(line, line[1:]):
            if abs(b[0] - a[0]) > 180:
                lon_b = b[0] + (360 if b[0] < a[0] else -360)
                edge = 180.0 if a[0] > 0 else -180.0
                f = (edge - a[0]) / (lon_b - a[0])
                mid = [edge, a[1] + f * (b[1] - a[1])] + ([a[2] + f * (b[2] - a[2])] if len(a) > 2 else [])
                current.append(mid)
                out.append(current)
                current = [[-edge] + mid[1:], b]
            else:
                current.append(b)
        if current:
            out.append(current)
    return out


def rounded(lines):
    def r(p):
        q = [round(p[0], 7), round(p[1], 7)]
        if len(p) > 2:
            q.append(round(p[2], 1))
        return q
    return [[r(p) for p in line] for line in lines]


# --- tours and manifests -----------------------------------------------------------------------

def folder_slug(text):
    """The slug of a waypoint folder's name after its digits (FORMAT.md §4): lowercased, accents dropped, runs
    of other characters turned into single hyphens."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


def manifest_stops(path):
    m = strict_json(path)
    waypoints = sorted(m.get("waypoints", []), key=lambda w: w["order"])
    return [(w["slug"], w["coordinate"]["latitude"], w["coordinate"]["longitude"]) for w in waypoints], []


def tour_stops(folder):
    stops, names = [], {}
    base = os.path.join(folder, "waypoints")
    for name in sorted(os.listdir(base)):
        path = os.path.join(base, name, "waypoint.json")
        if not os.path.isfile(path):
            continue
        m = re.match(r"^(\d+)(.*)$", name)
        w = strict_json(path)
        order = w.get("order", int(m.group(1)) if m else 0)
        slug = folder_slug(m.group(2) if m else name)
        c = w["coordinate"]
        stops.append((order, slug, c["latitude"], c["longitude"]))
        names[name] = slug
        names[slug] = slug
    stops.sort()
    stages = []
    tour = os.path.join(folder, "tour.json")
    if os.path.isfile(tour):
        for st in strict_json(tour).get("stages", []) or []:
            stages.append({"name": st.get("name"), "from": names.get(st["from"], st["from"]), "to": names.get(st["to"], st["to"])})
    return [(slug, lat, lon) for (_, slug, lat, lon) in stops], stages


# --- commands ----------------------------------------------------------------------------------

def cmd_gpx(args):
    gpx = read_gpx(args.file)
    tracks = []
    for t in gpx.tracks:
        segs = []
        for seg in t.segments:
            line = [[p.longitude, p.latitude, p.elevation] for p in seg.points]
            s = summary([line]) if not position_errors([line]) else {"points": len(line), "lengthMetres": None}
            s.pop("lineLengthsMetres", None)
            s.pop("lines", None)
            s["hasTime"] = bool(line) and all(p.time is not None for p in seg.points)
            segs.append(s)
        tracks.append({"name": t.name, "segments": segs, "points": sum(s["points"] for s in segs)})
    routes = []
    for r in gpx.routes:
        line = [[p.longitude, p.latitude, p.elevation] for p in r.points]
        s = summary([line]) if not position_errors([line]) else {"points": len(line), "lengthMetres": None}
        s.pop("lineLengthsMetres", None)
        s.pop("lines", None)
        routes.append({"name": r.name, **s})
    source, lines = gpx_lines(gpx)
    out = {"file": args.file, "creator": gpx.creator, "source": source, "tracks": tracks, "routes": routes}
    errors = position_errors(lines)
    out["errors"] = errors
    if lines and not errors:
        out.update(summary(lines))
        out["gaps"] = gaps(lines)
        out["crossesAntimeridian"] = any(abs(b[0] - a[0]) > 180 for l in lines for a, b in zip(l, l[1:]))
        out["shortLines"] = [i for i, l in enumerate(lines) if len(l) < 2]
    else:
        out.update({"lines": len(lines), "points": sum(len(l) for l in lines), "lengthMetres": None})
    wpts = [(w.name, w.latitude, w.longitude) for w in gpx.waypoints]
    out["waypoints"] = [{"name": n, "latitude": la, "longitude": lo} for n, la, lo in wpts]
    if wpts and lines and not errors:
        # where each waypoint lies along the lines on its own (no previous stop): the order init should give them
        placed = [locate([w], lines)[0] for w in wpts]
        for w, p in zip(out["waypoints"], placed):
            w["distanceMetres"], w["offsetMetres"] = p["distanceMetres"], p["offsetMetres"]
        out["walkingOrder"] = [w["name"] for w in sorted(out["waypoints"], key=lambda w: w["distanceMetres"])]
    print(json.dumps(out, indent=1))
    return 0


def cmd_simplify(args):
    gpx = read_gpx(args.file)
    source, lines = gpx_lines(gpx)
    if not lines or position_errors(lines):
        fail("no lines, or positions out of range")
    recorded = summary(lines)
    if args.builder:
        out_lines, tolerance, halvings = builder_simplify(lines, args.tolerance)
    else:
        out_lines, tolerance, halvings = simplify(lines, args.tolerance), args.tolerance, 0
    simplified = summary(out_lines)
    out = {"file": args.file, "tolerance": tolerance, "halvings": halvings,
           "recorded": {k: recorded[k] for k in ("lines", "points", "lengthMetres")},
           "simplified": {k: simplified[k] for k in ("lines", "points", "lengthMetres")},
           "lengthChange": (simplified["lengthMetres"] - recorded["lengthMetres"]) / recorded["lengthMetres"] if recorded["lengthMetres"] else 0.0}
    for k in ("ascentMetres", "descentMetres"):
        if k in simplified:
            out["simplified"][k] = simplified[k]
            out["recorded"][k] = recorded[k]
    if args.points:
        out["simplified"]["positions"] = out_lines
    print(json.dumps(out, indent=1))
    return 0


def close(stated, computed):
    return abs(stated - computed) <= 1.0 + 0.001 * abs(computed)


def cmd_route(args):
    path = args.route
    stops, stages = [], None
    if args.tour:
        stops, stages = tour_stops(args.tour)
        if os.path.isdir(path):
            names = [n for n in ("route.gpx", "route.geojson") if os.path.isfile(os.path.join(path, n))]
            if len(names) != 1:
                fail(f"{path}: expected one of route.gpx, route.geojson (found {names})")
            path = os.path.join(path, names[0])
    if args.manifest:
        stops, _ = manifest_stops(args.manifest)
    stated = {}
    if path.lower().endswith(".gpx"):
        _, lines = gpx_lines(read_gpx(path))
        lines, _ = with_elevations(lines)
    else:
        lines, stated = geojson_lines(strict_json(path))
    errors = position_errors(lines)
    if errors:
        print(json.dumps({"file": path, "errors": errors}, indent=1))
        return 1
    out = {"file": path}
    if args.builder and path.lower().endswith(".gpx"):
        recorded = sum(sum(segment_lengths(l)) for l in lines)
        lines, tolerance, halvings = builder_simplify(lines)
        lines = rounded(cut_antimeridian(lines))
        out["builder"] = {"recordedLengthMetres": recorded, "tolerance": tolerance, "halvings": halvings}
    lines, has_ele = with_elevations(lines)
    s = summary(lines)
    out.update({"lines": s["lines"], "points": s["points"], "hasElevation": has_ele,
                "gaps": gaps(lines),
                "shortLines": [i for i, l in enumerate(lines) if len(l) < 2],
                "crossesAntimeridian": any(abs(b[0] - a[0]) > 180 for l in lines for a, b in zip(l, l[1:])),
                "tooManyPositions": s["points"] > MAX_POSITIONS})
    mismatches = []

    def number(name, value, given):
        entry = {"computed": value}
        if given is not None:
            entry["stated"] = given
            entry["ok"] = close(given, value)
            if not entry["ok"]:
                mismatches.append(name)
        return entry

    out["lengthMetres"] = number("lengthMetres", s["lengthMetres"], stated.get("lengthMetres"))
    if has_ele:
        out["ascentMetres"] = number("ascentMetres", s["ascentMetres"], stated.get("ascentMetres"))
        out["descentMetres"] = number("descentMetres", s["descentMetres"], stated.get("descentMetres"))
    elif "ascentMetres" in stated or "descentMetres" in stated:
        mismatches.append("ascent/descent stated without elevations")
    if stops:
        located = locate(stops, lines)
        given = {st.get("slug"): st for st in stated.get("stops", []) or []}
        out["stops"] = []
        for k, st in enumerate(located, 1):
            g = given.get(st["slug"], {})
            out["stops"].append({"number": k, "slug": st["slug"],
                                 "distanceMetres": number(f"stops[{st['slug']}].distanceMetres", st["distanceMetres"], g.get("distanceMetres")),
                                 "offsetMetres": number(f"stops[{st['slug']}].offsetMetres", st["offsetMetres"], g.get("offsetMetres")),
                                 "afterPrevious": st["afterPrevious"]})
        if stated.get("stops") is not None and [st.get("slug") for st in stated["stops"]] != [st["slug"] for st in located]:
            mismatches.append("stops: not every waypoint once, in order")
        where = {st["slug"]: st["distanceMetres"] for st in located}
        stage_list = stages if stages else [{"name": g.get("name"), "from": g.get("from"), "to": g.get("to"),
                                             "lengthMetres": g.get("lengthMetres")} for g in stated.get("stages", []) or []]
        stated_stages = {(g.get("from"), g.get("to")): g for g in stated.get("stages", []) or []}
        if stage_list:
            out["stages"] = []
            for g in stage_list:
                if g["from"] not in where or g["to"] not in where:
                    out["stages"].append({"name": g["name"], "from": g["from"], "to": g["to"], "error": "unknown stop"})
                    continue
                given_length = stated_stages.get((g["from"], g["to"]), {}).get("lengthMetres")
                out["stages"].append({"name": g["name"], "from": g["from"], "to": g["to"],
                                      "lengthMetres": number(f"stages[{g['name']}].lengthMetres", where[g["to"]] - where[g["from"]], given_length)})
    out["mismatches"] = mismatches
    print(json.dumps(out, indent=1))
    return 1 if mismatches else 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("gpx", help="a GPX file's lines: points, length, climb, gaps, waypoints")
    g.add_argument("file")
    s = sub.add_parser("simplify", help="Douglas-Peucker of a GPX file's lines")
    s.add_argument("file")
    s.add_argument("--tolerance", type=float, default=5.0, help="metres (default 5)")
    s.add_argument("--builder", action="store_true", help="halve the tolerance until the length is within 0.5 %%")
    s.add_argument("--points", action="store_true", help="print the simplified positions too")
    r = sub.add_parser("route", help="a route's numbers by the spec's rule, against what it states")
    r.add_argument("route", help="route.geojson, a GPX file, or (with --tour) the tour folder")
    src = r.add_mutually_exclusive_group()
    src.add_argument("--manifest", help="a package's manifest.json: its waypoints are the stops")
    src.add_argument("--tour", help="a tour folder: its waypoints/ are the stops, its tour.json's stages the stages")
    r.add_argument("--builder", action="store_true", help="for a GPX route: simplify, cut and round as the builder does")
    args = parser.parse_args(argv)
    return {"gpx": cmd_gpx, "simplify": cmd_simplify, "route": cmd_route}[args.command](args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
