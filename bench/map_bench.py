#!/usr/bin/env python3
"""The map benchmark (`run.py --sets map`): `trailpack map extract` of a ~10 km frame at z10-16 out of a
~1 GB synthetic PMTiles source, beside protomaps' Python `pmtiles` reading and writing the same tiles;
then `trailpack verify` of a package carrying a ~200 MB map (read in place, coverage checked).

The sources are written with Python's pmtiles writer (clustered), tiles of incompressible bytes,
deterministic, under bench/data/ (kept between runs: generating 1 GB takes a while).
Usage: map_bench.py [--source-mb 1024] [--map-mb 200] [--runs 1] [--trailpack PATH]
"""
import argparse, json, os, random, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
# The region the sources cover (around the Santiam Pass), and the ~10 km frame cut from it.
REGION = (-122.30, 44.20, -121.60, 44.60)
FRAME = (-121.95, 44.37, -121.83, 44.46)
TILE_BYTES = (4 << 10, 12 << 10)


def lon_x(lon, z):
    return int((lon + 180.0) / 360.0 * (1 << z))


def lat_y(lat, z):
    import math
    r = math.radians(lat)
    return int((1.0 - math.log(math.tan(r) + 1.0 / math.cos(r)) / math.pi) / 2.0 * (1 << z))


def generate(path, megabytes, seed, tile_bytes=TILE_BYTES, max_zoom=18):
    """A PMTiles of about `megabytes`: every tile of REGION from z10 up to `max_zoom` (the deepest zoom only
    until the size is reached, unless it is at most z16)."""
    if os.path.exists(path):
        return path
    from pmtiles.writer import Writer
    from pmtiles.tile import zxy_to_tileid, TileType, Compression
    rng = random.Random(seed)
    budget = megabytes << 20
    ids = []
    total = 0
    for z in range(10, max_zoom + 1):
        x0, x1 = lon_x(REGION[0], z), lon_x(REGION[2], z)
        y0, y1 = lat_y(REGION[3], z), lat_y(REGION[1], z)
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                ids.append((zxy_to_tileid(z, x, y), z))
                total += sum(tile_bytes) // 2
        if total >= budget:
            break
    ids.sort()
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        w = Writer(f)
        written = 0
        for tid, z in ids:
            if written >= budget and z > 16:
                continue
            n = rng.randint(*tile_bytes)
            w.write_tile(tid, b"\x89PNG\r\n\x1a\n" + rng.randbytes(n))
            written += n
        zs = [z for _, z in ids]
        e7 = lambda v: int(v * 1e7)
        w.finalize({"tile_type": TileType.PNG, "tile_compression": Compression.NONE, "min_zoom": min(zs), "max_zoom": max(zs),
                    "min_lon_e7": e7(REGION[0]), "min_lat_e7": e7(REGION[1]), "max_lon_e7": e7(REGION[2]), "max_lat_e7": e7(REGION[3]),
                    "center_zoom": 12, "center_lon_e7": e7(-121.95), "center_lat_e7": e7(44.4)}, {"name": "bench source"})
    os.rename(tmp, path)
    return path


PYTHON_PEER = """
import sys, math
from pmtiles.reader import Reader, MmapSource
from pmtiles.writer import Writer
from pmtiles.tile import zxy_to_tileid, TileType, Compression
w_, s_, e_, n_ = map(float, sys.argv[3].split(","))
def x(lon, z): return min((1 << z) - 1, int((lon + 180) / 360 * (1 << z)))
def y(lat, z):
    r = math.radians(lat)
    return min((1 << z) - 1, int((1 - math.log(math.tan(r) + 1 / math.cos(r)) / math.pi) / 2 * (1 << z)))
with open(sys.argv[1], "rb") as f, open(sys.argv[2], "wb") as out:
    r = Reader(MmapSource(f))
    w = Writer(out)
    tiles = []
    for z in range(10, 17):
        for tx in range(x(w_, z), x(e_, z) + 1):
            for ty in range(y(n_, z), y(s_, z) + 1):
                tiles.append((zxy_to_tileid(z, tx, ty), z, tx, ty))
    for tid, z, tx, ty in sorted(tiles):
        data = r.get(z, tx, ty)
        if data: w.write_tile(tid, data)
    h = r.header()
    w.finalize({k: h[k] for k in ("tile_type", "tile_compression", "min_lon_e7", "min_lat_e7", "max_lon_e7", "max_lat_e7", "center_zoom", "center_lon_e7", "center_lat_e7")}, r.metadata())
"""


def main(argv=None, runs=None, trailpack=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-mb", type=int, default=1024)
    ap.add_argument("--map-mb", type=int, default=200)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--trailpack", default=os.path.join(HERE, "..", ".build", "release", "trailpack"))
    args = ap.parse_args(argv)
    tp = os.path.abspath(trailpack or args.trailpack)
    runs = runs or args.runs
    VERIFY = f"trailpack verify ({args.map_mb} MB map)"
    sys.path.insert(0, HERE)
    from run import bench, run_once
    os.makedirs(DATA, exist_ok=True)
    src = generate(os.path.join(DATA, f"map-source-{args.source_mb}mb.pmtiles"), args.source_mb, 16)
    frame = ",".join(str(v) for v in FRAME)
    work = tempfile.mkdtemp(prefix="trailpack-map-bench-", dir=DATA)
    lines = []
    try:
        out_tp, out_py = os.path.join(work, "tp.pmtiles"), os.path.join(work, "py.pmtiles")
        res = bench([("trailpack map extract", [tp, "map", "extract", src, "-o", out_tp, "--bounds=" + frame, "--zoom", "10-16"], None),
                     ("python pmtiles (read + write)", [sys.executable, "-c", PYTHON_PEER, src, out_py, frame], None)], runs)
        tiles = json.loads(subprocess.run([tp, "map", "inspect", out_tp, "--json"], capture_output=True, check=True).stdout)["tiles"]["addressed"]
        size = os.path.getsize(src)
        lines += [f"### map extract: a {FRAME[2] - FRAME[0]:.2f}° x {FRAME[3] - FRAME[1]:.2f}° frame at z10-16 ({tiles} tiles) from a {size / 1e9:.2f} GB PMTiles", "",
                  "| command | median s | peak RSS MiB | trailpack ÷ this |", "|---|---:|---:|---:|"]
        mine = res["trailpack map extract"][0]
        for label, (m, r, _, _) in res.items():
            lines.append(f"| {label} | {m:.3f} | {r:.1f} | {mine / m:.2f} |")
        # A package with a ~200 MB map: the map must cover the tour's frame at every zoom it has.
        # Whole zooms 10-16 (complete coverage of the frame), tiles sized to reach about map_mb.
        avg = max(1024, int((args.map_mb << 20) / 17_000))
        map_src = generate(os.path.join(DATA, f"map-{args.map_mb}mb.pmtiles"), args.map_mb, 17, tile_bytes=(avg // 2, avg * 3 // 2), max_zoom=16)
        tour = os.path.join(work, "tour")
        os.makedirs(os.path.join(tour, "waypoints", "01-pass"))
        os.makedirs(os.path.join(tour, "map"))
        json.dump({"id": "bench.map-tour", "version": "1", "name": "Map bench", "park": "Bench", "site": {"id": "bench", "name": "Bench"},
                   "mapName": "bench", "description": "A tour with a big map.",
                   "bounds": {"southwest": {"latitude": FRAME[1], "longitude": FRAME[0]}, "northeast": {"latitude": FRAME[3], "longitude": FRAME[2]}}},
                  open(os.path.join(tour, "tour.json"), "w"))
        json.dump({"name": "Pass", "coordinate": {"latitude": 44.42, "longitude": -121.9}, "description": "The pass.", "assets": ["about.md"]},
                  open(os.path.join(tour, "waypoints", "01-pass", "waypoint.json"), "w"))
        open(os.path.join(tour, "waypoints", "01-pass", "about.md"), "w").write("The pass.\n")
        os.link(map_src, os.path.join(tour, "map", "bench.pmtiles")) if os.stat(map_src).st_dev == os.stat(tour).st_dev else shutil.copy(map_src, os.path.join(tour, "map", "bench.pmtiles"))
        pkg = os.path.join(work, "map.zip")
        subprocess.run([tp, "build", tour, "-o", pkg, "-q", "--min-map-zoom", "0"], check=True)
        v = bench([(VERIFY, [tp, "verify", pkg, "--min-map-zoom", "0"], None),
                   ("openssl dgst -sha256", ["openssl", "dgst", "-sha256", pkg], None)], runs)
        tv, to = v[VERIFY][0], v["openssl dgst -sha256"][0]
        lines += ["", f"### verify of a package with a {os.path.getsize(pkg) / 1e6:.0f} MB map (read in place, every directory walked, coverage checked)", "",
                  "| command | median s | peak RSS MiB |", "|---|---:|---:|"]
        for label, (m, r, _, _) in v.items():
            lines.append(f"| {label} | {m:.3f} | {r:.1f} |")
        lines += ["", f"- {'met' if tv <= 1.3 * to else 'MISSED'}: verify ≤ 1.3× openssl dgst ({tv / to:.2f}×)",
                  f"- {'met' if v['trailpack verify (200 MB map)'][1] <= 48 else 'MISSED'}: peak RSS ≤ 48 MiB ({v['trailpack verify (200 MB map)'][1]:.1f})", ""]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("\n".join(lines), flush=True)
    return lines


if __name__ == "__main__":
    main()
