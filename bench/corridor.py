#!/usr/bin/env python3
"""The map that follows the trail (#49): how many tiles a ±500 m corridor of a tour's route holds at z10-16,
against the tour's whole frame (its bounding box), by `trailpack map estimate --corridor 500 --json`.

Target: the corridor holds at most 10 % of the frame's tiles, on the Santiam Wagon Road (the fixture's route
with its tour's frame) and on held-out real recordings (gpxpy's test files, fetched by pip; their frame is the
recording's box, as `trailpack init --from-gpx` draws it: the points with 0.01° around them). Prints a
Markdown table and writes bench/results/corridor-STAMP.json.
Usage: corridor.py [--trailpack PATH] [--corridor 500] [--zoom 10-16]
"""
import argparse, json, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def estimate(tp, args, zoom, corridor):
    out = subprocess.run([tp, "map", "estimate", "--zoom", zoom, "--corridor", str(corridor), "--json"] + args,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return json.loads(out.stdout)


def track_box(path):
    """The recording's box with 0.01° around it (what a tour made from it gets without bounds)."""
    import gpxpy
    with open(path) as f:
        g = gpxpy.parse(f)
    pts = [(p.longitude, p.latitude) for t in g.tracks for s in t.segments for p in s.points]
    lons, lats = [p[0] for p in pts], [p[1] for p in pts]
    return f"--bounds={min(lons) - 0.01},{min(lats) - 0.01},{max(lons) + 0.01},{max(lats) + 0.01}"


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--trailpack", default=os.path.join(ROOT, ".build", "release", "trailpack"))
    ap.add_argument("--corridor", type=int, default=500)
    ap.add_argument("--zoom", default="10-16")
    args = ap.parse_args(argv)
    tp = os.path.abspath(args.trailpack)
    cases = [("Santiam Wagon Road (fixture route, the tour's frame)",
              ["--tour", os.path.join(ROOT, "fixtures", "santiam-wagon-road")])]
    fetched = subprocess.run([os.path.join(ROOT, "scripts", "fetch_real_tracks.sh")], capture_output=True, text=True, cwd=ROOT)
    if fetched.returncode == 0:
        folder = os.path.join(ROOT, fetched.stdout.strip())
        for name in ["korita-zbevnica.gpx", "Mojstrovka.gpx", "around-visnjan-with-car.gpx", "cerknicko-jezero.gpx"]:
            path = os.path.join(folder, name)
            cases.append((f"{name} (real recording, held out)", ["--route", path, track_box(path)]))
    else:
        print("corridor: the real recordings could not be fetched (" + fetched.stderr.strip() + "); Santiam only", file=sys.stderr)
    rows = []
    for label, extra in cases:
        r = estimate(tp, extra, args.zoom, args.corridor)
        c = r["corridor"]
        rows.append({"what": label, "routeKm": c["routeMetres"] / 1000, "frameTiles": r["tiles"], "corridorTiles": c["tiles"],
                     "frameBytes": r["bytes"], "corridorBytes": c["bytes"], "percent": c["percentOfFrame"],
                     "met": c["percentOfFrame"] <= 10})
    lines = [f"### the map that follows the trail: ±{args.corridor} m corridor against the frame, z{args.zoom}", "",
             "| tour | route km | frame tiles | corridor tiles | corridor ÷ frame | target ≤ 10 % |", "|---|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['what']} | {r['routeKm']:.1f} | {r['frameTiles']:,} | {r['corridorTiles']:,} | {r['percent']:.1f} % | "
                     f"{'met' if r['met'] else 'MISSED'} |")
    print("\n".join(lines))
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    json.dump({"corridorMetres": args.corridor, "zoom": args.zoom, "rows": rows},
              open(os.path.join(HERE, "results", f"corridor-{stamp}.json"), "w"), indent=1)
    return rows


if __name__ == "__main__":
    main()
