#!/usr/bin/env python3
"""Generates the benchmark tours under bench/data/ (never committed). Each is a valid tour folder.

  small   ~20 MB: a few videos, photos, clips and texts
  medium  ~1.08 GB (the issue's reference set): 16 videos of 30-50 MB, 200 photos of 1-2 MB, 50 clips of 2-3 MB, 300 texts of 1-50 KB, 40 stops
  large   ~4.7 GB: mostly video (memory flatness; past 4 GiB, so ZIP64 offsets)
  tiny    20,000 files of 1 KB (per-file overhead)
  entries100k  99,999 texts of 100-200 bytes over 1,000 stops: with manifest.json, 100,000 entries,
          the format's limit (memory that must not grow with entries)

Media are incompressible bytes (as real media are); texts are compressible. Deterministic, and
a set already generated with the same parameters is kept. Usage: gen_data.py SET [SET...]
"""
import json, os, random, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
WORDS = "trail ridge creek meadow lookout pass wagon road toll station lava forest river falls lake camp".split()
SETS = {
    # name: (stops, [(count, ext, min bytes, max bytes)])
    "small": (6, [(2, "mp4", 4 << 20, 6 << 20), (8, "jpg", 500 << 10, 1 << 20), (3, "mp3", 1 << 20, 2 << 20), (30, "md", 1 << 10, 20 << 10)]),
    "medium": (40, [(16, "mp4", 30 << 20, 50 << 20), (200, "jpg", 1 << 20, 2 << 20), (50, "mp3", 2 << 20, 3 << 20),
                    (100, "txt", 1 << 10, 50 << 10), (100, "json", 1 << 10, 50 << 10), (100, "md", 1 << 10, 50 << 10)]),
    "large": (20, [(44, "mp4", 90 << 20, 110 << 20), (40, "jpg", 1 << 20, 4 << 20), (20, "md", 1 << 10, 20 << 10)]),
    "tiny": (100, [(20000, "txt", 1000, 1000)]),
    # 100,000 ZIP entries and 100,000 assets are the format's limits; 10,000 stops and 1 MiB per waypoint.json
    # are the others that bind here (100 files a stop keeps each waypoint.json at ~2 KB).
    "entries100k": (1000, [(99999, "txt", 100, 200)]),
}


def incompressible(f, size, rng):
    block = rng.randbytes(1 << 20)
    left = size
    i = 0
    while left > 0:
        n = min(left, len(block))
        # vary the block so that no two MiB are equal (defeats dedup and compression alike)
        f.write(i.to_bytes(8, "little") + block[8:n] if n >= 8 else block[:n])
        left -= n
        i += 1


def text(size, rng):
    out = []
    n = 0
    while n < size:
        w = rng.choice(WORDS)
        out.append(w)
        n += len(w) + 1
    return (" ".join(out))[:size].encode()


def generate(name):
    stops, kinds = SETS[name]
    folder = os.path.join(ROOT, name)
    MAGIC = {"mp4": b"\x00\x00\x00\x18ftypmp42", "jpg": b"\xff\xd8\xff\xe0", "mp3": b"ID3\x04\x00"}
    stamp = os.path.join(folder, ".generated")
    spec = json.dumps(SETS[name]) + " magic id"
    if os.path.exists(stamp) and open(stamp).read() == spec:
        return folder
    rng = random.Random(name)
    os.system(f"rm -rf '{folder}'")
    os.makedirs(os.path.join(folder, "waypoints"))
    lat0, lon0 = 44.40, -122.20
    files = {i: [] for i in range(stops)}
    k = 0
    for count, ext, lo, hi in kinds:
        for j in range(count):
            files[k % stops].append((f"{ext}-{j:05d}.{ext}", ext, rng.randint(lo, hi)))
            k += 1
    for i in range(stops):
        d = os.path.join(folder, "waypoints", f"{i + 1:03d}-stop-{i + 1}")
        os.makedirs(d)
        for fname, ext, size in files[i]:
            with open(os.path.join(d, fname), "wb") as f:
                if ext in ("txt", "md", "json"):
                    f.write(text(size, rng))
                else:
                    # The builder checks media files' first bytes against their extension.
                    head = MAGIC.get(ext, b"")
                    f.write(head)
                    incompressible(f, size - len(head), rng)
        waypoint = {"name": f"Stop {i + 1}", "coordinate": {"latitude": lat0 + i * 0.001, "longitude": lon0 + i * 0.001},
                    "description": f"Benchmark stop {i + 1}.", "assets": [f for f, _, _ in files[i]]}
        json.dump(waypoint, open(os.path.join(d, "waypoint.json"), "w"), indent=1)
    # Not "org.example.": that is the template id trailpack init writes, which servers refuse.
    tour = {"id": f"org.trailpack.bench.{name}", "version": "1", "name": f"Benchmark {name}", "park": "Benchmark Forest",
            "site": {"id": "bench", "name": "Benchmark"}, "mapName": name, "description": f"The {name} benchmark set."}
    json.dump(tour, open(os.path.join(folder, "tour.json"), "w"), indent=1)
    open(stamp, "w").write(spec)
    return folder


if __name__ == "__main__":
    for n in sys.argv[1:] or ["small"]:
        print(generate(n))
