#!/usr/bin/env python3
"""Writes the sample tours under fixtures/ (deterministic: run it again, get the same bytes).

Media are generated: small PNG pictures and a short WAV clip, so the fixtures stay well under 5 MB
and need no outside files. Coordinates are approximate. Usage: python3 scripts/make_fixtures.py
"""
import json, math, os, shutil, struct, zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")


def png(path, width, height, seed):
    """A small RGB picture: a sky-to-ground gradient with a ridge line, varied by seed."""
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            ridge = height * (0.55 + 0.18 * math.sin((x + seed * 7) / (9 + seed % 5)) + 0.07 * math.sin(x / 3.1 + seed))
            if y < ridge:
                r, g, b = 120 + y, 170 + y // 2, 235
            else:
                shade = int(40 + 30 * math.sin((x * y + seed) / 50.0))
                r, g, b = 40 + shade // 2, 90 + shade, 50 + shade // 3
            row += bytes([max(0, min(255, v)) for v in (r, g, b)])
        rows.append(bytes(row))
    raw = zlib.compress(b"".join(rows), 9)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", raw))
        f.write(chunk(b"IEND", b""))


def wav(path, seconds, rate=8000):
    """A short mono 8-bit clip: a falling two-note birdcall."""
    n = int(seconds * rate)
    samples = bytearray()
    for i in range(n):
        t = i / rate
        freq = 2400 - 900 * ((t * 2) % 1.0)
        envelope = math.sin(math.pi * ((t * 2) % 1.0)) ** 2
        samples.append(int(128 + 90 * envelope * math.sin(2 * math.pi * freq * t)))
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 36 + n) + b"WAVE")
        f.write(b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate, 1, 8))
        f.write(b"data" + struct.pack("<I", n) + samples)


def write_json(path, value):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(value, f, indent=2, ensure_ascii=False)
        f.write("\n")


def slug(text):
    out, hyphen = "", False
    for c in text.lower():
        if c.isascii() and c.isalnum():
            if hyphen and out:
                out += "-"
            out += c
            hyphen = False
        else:
            hyphen = True
    return out


def tour(name, fields, stops, media):
    folder = os.path.join(ROOT, name)
    if os.path.exists(folder):
        shutil.rmtree(folder)
    os.makedirs(os.path.join(folder, "waypoints"))
    write_json(os.path.join(folder, "tour.json"), fields)
    width = max(2, len(str(len(stops))))
    for i, stop in enumerate(stops, 1):
        d = os.path.join(folder, "waypoints", f"{i:0{width}d}-{slug(stop['name'])}")
        os.makedirs(d)
        assets = media(i, stop, d)
        waypoint = {"name": stop["name"], "coordinate": {"latitude": stop["lat"], "longitude": stop["lon"]},
                    "description": stop["description"], "assets": assets}
        if stop.get("properties"):
            waypoint["properties"] = stop["properties"]
        write_json(os.path.join(d, "waypoint.json"), waypoint)


# --- Santiam Wagon Road -------------------------------------------------------------------

SANTIAM = [
    ("Sweet Home", 44.3976, -122.7262, "The valley end of the road. From 1866 wagons, stock drives and travelers set out from here up the South Santiam toward the Cascade passes.", 0),
    ("Cascadia", 44.3979, -122.4810, "Soda springs and a shady river bottom made Cascadia a favorite camp. Later it became a resort and today a state park.", 14),
    ("Mountain House", 44.3947, -122.3587, "A roadhouse stood here for travelers and drovers: meals, a bed, and feed for the stock before the long climb.", 22),
    ("House Rock", 44.3923, -122.2445, "A huge overhanging boulder beside the river gave shelter to travelers caught by weather; the old road grade still runs nearby.", 30),
    ("Tombstone Prairie", 44.3955, -122.1404, "A meadow near the summit of the western ridge, named for a grave marker of an early traveler found beside the road.", 37),
    ("Fish Lake", 44.4057, -121.9929, "A way station and, later, a Forest Service remount depot kept pack stock here. The lake fills in spring and drains by late summer.", 47),
    ("Santiam Pass", 44.4245, -121.8613, "The crest of the Cascades. Lava fields from Sand Mountain and the Belknap craters made the crossing rough going for wagons.", 55),
    ("Cache Creek Toll Station", 44.4056, -121.7050, "The toll gate on the east side: wagons, riders and herds paid here to use the road until tolls ended in the early 1900s.", 66),
]


def santiam():
    fields = {
        "id": "gov.usda.fs.willamette.santiam-wagon-road",
        "version": "1.0.0",
        "name": "Santiam Wagon Road",
        "park": "Willamette National Forest",
        "site": {"id": "willamette-sweet-home", "name": "Sweet Home Ranger District"},
        "mapName": "santiam-wagon-road",
        "bounds": {"southwest": {"latitude": 44.30, "longitude": -122.80},
                   "northeast": {"latitude": 44.50, "longitude": -121.60}},
        "description": "Follow the 1860s toll road that linked the Willamette Valley with Central Oregon over the Cascades: "
                       "eight stops from Sweet Home to the Cache Creek toll station. Allow a day by car with short walks.",
    }
    stops = [{"name": n, "lat": la, "lon": lo, "description": d, "properties": {"roadMile": m}} for (n, la, lo, d, m) in SANTIAM]

    def media(i, stop, d):
        with open(os.path.join(d, "about.md"), "w", encoding="utf-8", newline="\n") as f:
            # The description lives in waypoint.json only; about.md is further reading, never a copy of it.
            f.write(f"# {stop['name']}\n\nLook for the brown Santiam Wagon Road marker near the parking area.\n")
        png(os.path.join(d, "view.png"), 96, 64, i)
        assets = ["about.md", {"file": "view.png", "title": f"The view at {stop['name']}"}]
        if stop["name"] == "House Rock":
            wav(os.path.join(d, "birdsong.wav"), 1.5)
            assets.append({"file": "birdsong.wav", "title": "Varied thrush along the river"})
        return assets

    tour("santiam-wagon-road", fields, stops, media)


# --- Colorado fourteeners -----------------------------------------------------------------

PEAKS = [
    ("Mount Elbert", 39.1178, -106.4454, 14440, "1", "Sawatch"),
    ("Mount Massive", 39.1875, -106.4757, 14428, "2", "Sawatch"),
    ("Mount Harvard", 38.9244, -106.3207, 14421, "2", "Sawatch"),
    ("Blanca Peak", 37.5775, -105.4856, 14351, "2", "Sangre de Cristo"),
    ("La Plata Peak", 39.0294, -106.4729, 14343, "2", "Sawatch"),
    ("Uncompahgre Peak", 38.0717, -107.4621, 14321, "2", "San Juan"),
    ("Crestone Peak", 37.9668, -105.5855, 14300, "3", "Sangre de Cristo"),
    ("Mount Lincoln", 39.3515, -106.1116, 14293, "2", "Mosquito"),
    ("Castle Peak", 39.0097, -106.8614, 14279, "2", "Elk"),
    ("Grays Peak", 39.6339, -105.8176, 14278, "1", "Front"),
    ("Mount Antero", 38.6741, -106.2462, 14276, "2", "Sawatch"),
    ("Torreys Peak", 39.6428, -105.8212, 14275, "2", "Front"),
    ("Quandary Peak", 39.3973, -106.1064, 14271, "1", "Tenmile"),
    ("Mount Blue Sky", 39.5883, -105.6438, 14271, "2", "Front"),
    ("Longs Peak", 40.2550, -105.6151, 14259, "3", "Front"),
    ("Mount Wilson", 37.8391, -107.9916, 14252, "4", "San Juan"),
    ("Mount Shavano", 38.6192, -106.2393, 14231, "2", "Sawatch"),
    ("Mount Princeton", 38.7492, -106.2424, 14204, "2", "Sawatch"),
    ("Mount Belford", 38.9607, -106.3609, 14203, "2", "Sawatch"),
    ("Crestone Needle", 37.9647, -105.5766, 14203, "3", "Sangre de Cristo"),
    ("Mount Yale", 38.8442, -106.3138, 14200, "2", "Sawatch"),
    ("Kit Carson Peak", 37.9797, -105.6026, 14170, "3", "Sangre de Cristo"),
    ("Maroon Peak", 39.0708, -106.9890, 14163, "3", "Elk"),
    ("Mount Sneffels", 38.0038, -107.7923, 14157, "2", "San Juan"),
    ("Capitol Peak", 39.1503, -107.0829, 14137, "4", "Elk"),
    ("Pikes Peak", 38.8405, -105.0442, 14115, "1", "Front"),
    ("Snowmass Mountain", 39.1188, -107.0665, 14099, "3", "Elk"),
    ("Mount Eolus", 37.6218, -107.6209, 14090, "3", "San Juan"),
    ("Mount Bierstadt", 39.5826, -105.6688, 14065, "2", "Front"),
    ("Sunlight Peak", 37.6274, -107.5959, 14063, "4", "San Juan"),
    ("Handies Peak", 37.9130, -107.5044, 14053, "1", "San Juan"),
    ("Little Bear Peak", 37.5666, -105.4972, 14043, "4", "Sangre de Cristo"),
    ("Mount Sherman", 39.2250, -106.1699, 14043, "2", "Mosquito"),
    ("Pyramid Peak", 39.0714, -106.9502, 14025, "4", "Elk"),
    ("Wetterhorn Peak", 38.0607, -107.5109, 14021, "3", "San Juan"),
    ("Huron Peak", 38.9454, -106.4381, 14009, "2", "Sawatch"),
]


def fourteeners():
    fields = {
        "id": "org.coloradopeaks.fourteeners",
        "version": "2024.1",
        "name": "Colorado Fourteeners Checklist",
        "park": "Colorado Rocky Mountains",
        "site": {"id": "colorado-peak-checklists", "name": "Colorado Peak Checklists"},
        "mapName": "colorado-fourteeners",
        "bounds": {"southwest": {"latitude": 36.99, "longitude": -109.05},
                   "northeast": {"latitude": 41.00, "longitude": -102.04}},
        "description": "A checklist of Colorado peaks over 14,000 feet, highest first, with the easiest route's class and the range. "
                       "Check conditions before you go: these are serious mountains.",
    }
    stops = [{"name": n, "lat": la, "lon": lo,
              "description": f"{n}, {e:,} ft, in the {r} range. Easiest standard route: class {c}.",
              # "checklist": the publisher marks every peak as on one checklist (a waypoint property,
              # FORMAT.md 3: no new manifest field, so older readers take the tour); the visitor app counts it (#51).
              "properties": {"elevationFeet": e, "class": c, "range": r, "checklist": "Colorado fourteeners"}}
             for (n, la, lo, e, c, r) in PEAKS]

    def media(i, stop, d):
        with open(os.path.join(d, "route.md"), "w", encoding="utf-8", newline="\n") as f:
            p = stop["properties"]
            f.write(f"# {stop['name']}\n\n- Elevation: {p['elevationFeet']:,} ft\n- Range: {p['range']}\n- Standard route: class {p['class']}\n\n"
                    "Start early, turn around by noon, and carry the ten essentials.\n")
        return ["route.md"]

    tour("colorado-fourteeners", fields, stops, media)


# --- Family hike library ------------------------------------------------------------------

HIKES = [
    ("Sahalie and Koosah Falls", 44.3487, -121.9966, "easy", "4-7", 2.6, False, 300, "Two roaring waterfalls on the McKenzie River joined by a riverside loop."),
    ("Clear Lake Loop", 44.3705, -121.9941, "moderate", "8+", 5.5, False, 200, "A loop around a spring-fed lake so cold and clear you can see drowned trees far below."),
    ("Tamolitch Blue Pool", 44.2977, -122.0347, "moderate", "8+", 4.2, False, 300, "The river vanishes under lava and reappears in an astonishing blue pool."),
    ("Proxy Falls", 44.1674, -121.9273, "easy", "4-7", 1.6, False, 150, "A short loop over old lava to a lacy, many-stranded waterfall."),
    ("House Rock Loop", 44.3923, -122.2445, "easy", "0-3", 1.0, True, 100, "A gentle loop past a giant boulder and a stretch of the old wagon road."),
    ("Iron Mountain", 44.4028, -122.1515, "hard", "8+", 6.8, False, 1800, "Wildflower meadows in July and a lookout with a view of the Cascade peaks."),
    ("Clear Lake Resort Boardwalk", 44.3660, -121.9950, "easy", "0-3", 0.5, True, 20, "A flat boardwalk by the lake, good for strollers and first hikes."),
    ("Koosah Falls Viewpoint", 44.3449, -121.9962, "easy", "0-3", 0.3, True, 10, "A paved path to a railed overlook of the falls."),
]


def family_hikes():
    fields = {
        "id": "gov.usda.fs.willamette.family-hikes",
        "version": "3",
        "name": "Family Hikes of the McKenzie River",
        "park": "Willamette National Forest",
        "site": {"id": "willamette-mckenzie-river", "name": "McKenzie River Ranger District"},
        "mapName": "mckenzie-family-hikes",
        "description": "Short hikes for families, rated by difficulty and by the age of children they suit, with the length and whether a stroller can go.",
    }
    stops = [{"name": n, "lat": la, "lon": lo, "description": desc,
              "properties": {"difficulty": diff, "childAgeGroup": age, "lengthMiles": length, "strollerFriendly": stroller,
                             "elevationGainFeet": gain}}
             for (n, la, lo, diff, age, length, stroller, gain, desc) in HIKES]

    def media(i, stop, d):
        with open(os.path.join(d, "notes.txt"), "w", encoding="utf-8", newline="\n") as f:
            p = stop["properties"]
            f.write(f"{stop['name']}\n{p['lengthMiles']} miles, {p['elevationGainFeet']} ft gain, {p['difficulty']}, ages {p['childAgeGroup']}"
                    f"{', stroller friendly' if p['strollerFriendly'] else ''}.\n\n"
                    "Bring water and a paper map; the trail is signed from the parking area. "
                    "Check the forest's website for closures before you go.\n")
        png(os.path.join(d, "trail.png"), 64, 48, 100 + i)
        return ["notes.txt", "trail.png"]

    tour("family-hikes", fields, stops, media)


def gpx():
    folder = os.path.join(ROOT, "gpx")
    os.makedirs(folder, exist_ok=True)
    points = SANTIAM[3:6]
    with open(os.path.join(folder, "santiam-stops.gpx"), "w", encoding="utf-8", newline="\n") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="eTrex 32x" xmlns="http://www.topografix.com/GPX/1/1">\n')
        for (n, la, lo, d, _) in points:
            f.write(f'  <wpt lat="{la}" lon="{lo}">\n    <ele>1000.0</ele>\n    <name>{n}</name>\n    <desc>{d}</desc>\n  </wpt>\n')
        f.write('  <trk><name>drive</name><trkseg><trkpt lat="44.39" lon="-122.24"/></trkseg></trk>\n</gpx>\n')


if __name__ == "__main__":
    santiam()
    # The Santiam tour's offline map (and the corner-missing one), drawn by scripts/make_maps.py.
    import make_maps
    make_maps.main()
    fourteeners()
    family_hikes()
    gpx()
