#!/usr/bin/env python3
"""Builds the seed packages for structure-aware fuzzing (fixtures/fuzz/seeds/).

Small valid packages, so that every mutation reaches the deep checks quickly: one built by
trailpack (deflated and stored entries), and the same contents rewritten by other writers —
Python's zipfile streaming (data descriptors), Python's zipfile with forced ZIP64 extra fields,
and Info-ZIP's zip -r (folder entries). Usage: scripts/make_fuzz_seeds.py [TRAILPACK-BINARY]
"""
import io, json, os, subprocess, sys, tempfile, zipfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build/debug/trailpack")
out = os.path.join(root, "fixtures/fuzz/seeds")
os.makedirs(out, exist_ok=True)

with tempfile.TemporaryDirectory() as tmp:
    tour = os.path.join(tmp, "tour")
    os.makedirs(os.path.join(tour, "waypoints/01-trailhead"))
    os.makedirs(os.path.join(tour, "waypoints/02-fish-lake"))
    json.dump({"id": "gov.example.fuzz", "version": "1.0.0", "name": "Fuzz Seed Tour", "park": "Test Forest",
               "site": {"id": "test-site", "name": "Test Site"}, "mapName": "fuzz",
               "description": "A tiny tour for the fuzzer."}, open(os.path.join(tour, "tour.json"), "w"))
    for folder, name, lat, files in [("01-trailhead", "Trailhead", 44.40, {"notes.txt": b"Start here. " * 20}),
                                     ("02-fish-lake", "Fish Lake", 44.41, {"lake.txt": b"A lake.\n", "map.png": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 2})]:
        for f, data in files.items():
            open(os.path.join(tour, "waypoints", folder, f), "wb").write(data)
        json.dump({"name": name, "coordinate": {"latitude": lat, "longitude": -121.9},
                   "description": "Stop " + name, "assets": sorted(files)},
                  open(os.path.join(tour, "waypoints", folder, "waypoint.json"), "w"))
    built = os.path.join(out, "trailpack.zip")
    if os.path.exists(built): os.remove(built)  # the seed is remade, not a new version of it
    subprocess.run([binary, "build", tour, "-o", built, "-q"], check=True)
    os.remove(built + ".sha256")

    src = zipfile.ZipFile(built)
    names = src.namelist()

    class Unseekable(io.RawIOBase):
        def __init__(self, f): self.f = f
        def write(self, b): return self.f.write(b)
        def writable(self): return True

    with open(os.path.join(out, "python-streamed.zip"), "wb") as f, zipfile.ZipFile(Unseekable(f), "w", zipfile.ZIP_DEFLATED) as z:
        for n in names:
            with z.open(zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0)), "w") as w: w.write(src.read(n))
    with zipfile.ZipFile(os.path.join(out, "python-zip64.zip"), "w", zipfile.ZIP_STORED) as z:
        for n in names:
            with z.open(zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0)), "w", force_zip64=True) as w: w.write(src.read(n))
    x = os.path.join(tmp, "x")
    os.makedirs(x)
    src.extractall(x)
    target = os.path.join(out, "info-zip.zip")
    if os.path.exists(target): os.remove(target)
    subprocess.run(["zip", "-q", "-X", target, "manifest.json"], cwd=x, check=True)
    subprocess.run(["zip", "-q", "-X", "-r", target, "waypoints"], cwd=x, check=True)
    for n in sorted(os.listdir(out)):
        subprocess.run([binary, "verify", os.path.join(out, n), "--json"], check=True, stdout=subprocess.DEVNULL)
        print(n, os.path.getsize(os.path.join(out, n)), "bytes, verifies")
