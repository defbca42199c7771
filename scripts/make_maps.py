#!/usr/bin/env python3
"""Writes the sample offline maps (deterministic: run it again, get the same bytes).

- fixtures/santiam-wagon-road/map/santiam-wagon-road.pmtiles: a raster base map for the Santiam
  Wagon Road tour's frame at zoom 8-13: a shaded synthetic relief (made-up terrain rising to the
  Cascade crest, coloured by height, lit from the northwest) with a labelled graticule. A stand-in for a
  real extract (which 'trailpack map extract' cuts from a GIS office's tile set).
- fixtures/maps/santiam-corner-missing.pmtiles: the same frame and zooms, flat tiles, with the
  northeast corner left out at zoom 12 and 13, for the coverage tests.

Pure standard library: PNG via zlib, PMTiles version 3 written here from protomaps' specification
(an implementation independent of trailpack's, which reads these files in the tests).
Usage: python3 scripts/make_maps.py
"""
import gzip, json, math, os, struct, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")
TOUR = os.path.join(FIXTURES, "santiam-wagon-road", "tour.json")


# --- tiles -----------------------------------------------------------------------------------

def tile_id(z, x, y):
    """PMTiles v3 tile id: tiles of lower zooms, then the position on zoom z's Hilbert curve."""
    base = ((1 << (2 * z)) - 1) // 3
    d, s = 0, (1 << z) >> 1
    while s > 0:
        rx = 1 if x & s else 0
        ry = 1 if y & s else 0
        d += s * s * ((3 * rx) ^ ry)
        if ry == 0:
            if rx == 1:
                x, y = s - 1 - x, s - 1 - y
            x, y = y, x
        s >>= 1
    return base + d


def lon_to_x(lon, z):
    return (lon + 180.0) / 360.0 * (1 << z)


def lat_to_y(lat, z):
    r = math.radians(lat)
    return (1.0 - math.log(math.tan(r) + 1.0 / math.cos(r)) / math.pi) / 2.0 * (1 << z)


def x_to_lon(x, z):
    return x / (1 << z) * 360.0 - 180.0


def y_to_lat(y, z):
    return math.degrees(math.atan(math.sinh(math.pi - 2.0 * math.pi * y / (1 << z))))


def frame_tiles(bounds, z):
    """The tiles of zoom z that intersect the frame (as trailpack counts them)."""
    sw, ne = bounds["southwest"], bounds["northeast"]
    n = 1 << z
    x0 = min(n - 1, int(math.floor(lon_to_x(sw["longitude"], z))))
    x1 = max(x0, min(n - 1, int(math.ceil(lon_to_x(ne["longitude"], z))) - 1))
    y0 = min(n - 1, int(math.floor(lat_to_y(ne["latitude"], z))))
    y1 = max(y0, min(n - 1, int(math.ceil(lat_to_y(sw["latitude"], z))) - 1))
    return x0, x1, y0, y1


# --- a shaded synthetic relief ---------------------------------------------------------------

def elevation(lon, lat):
    """Made-up terrain in metres: a valley in the west rising to a crest near 121.85 W, with ridges."""
    crest = math.exp(-((lon + 121.85) / 0.35) ** 2)
    rise = 1.0 / (1.0 + math.exp(-(lon + 122.3) * 4.0))
    ridges = (math.sin(lon * 23.0 + lat * 7.0) * 0.5 + math.sin(lon * 41.0 - lat * 37.0) * 0.3
              + math.sin(lat * 61.0) * 0.2)
    return 150 + 1100 * rise + 900 * crest + 200 * ridges * (0.4 + rise) + 420 * fbm(lon, lat) * (0.3 + rise)


def lattice(i, j, octave):
    h = (i * 374761393 + j * 668265263 + octave * 2246822519) & 0xFFFFFFFF
    h = ((h ^ (h >> 13)) * 1274126177) & 0xFFFFFFFF
    return ((h ^ (h >> 16)) & 0xFFFF) / 65535.0 - 0.5


def fbm(lon, lat, octaves=5):
    """Fractal value noise: hills and gullies at every scale, the same at every zoom."""
    total, amp, freq = 0.0, 1.0, 12.0
    for o in range(octaves):
        u, v = lon * freq, lat * freq * 1.4
        i, j = math.floor(u), math.floor(v)
        fu, fv = u - i, v - j
        fu, fv = fu * fu * (3 - 2 * fu), fv * fv * (3 - 2 * fv)
        a, b = lattice(i, j, o), lattice(i + 1, j, o)
        c, d = lattice(i, j + 1, o), lattice(i + 1, j + 1, o)
        total += amp * ((a + (b - a) * fu) * (1 - fv) + (c + (d - c) * fu) * fv)
        amp *= 0.5
        freq *= 2.0
    return total


BANDS = [(120, 170, 110), (150, 185, 115), (190, 195, 130), (200, 180, 140), (175, 150, 125), (230, 230, 225)]
LIGHT = 5  # shade levels
PALETTE = [tuple(int(c * (0.55 + 0.45 * s / (LIGHT - 1))) for c in band) for band in BANDS for s in range(LIGHT)]
GRID_MAJOR = len(PALETTE)
PALETTE.append((70, 70, 90))
FLAT = len(PALETTE)
PALETTE.append((205, 210, 200))


def band(h):
    return min(len(BANDS) - 1, max(0, int((h - 200) / 380)))


def graticule_step(z):
    return 1.0 if z <= 8 else (0.5 if z <= 10 else 0.1)


def relief_tile(z, x, y, cells=64):
    """Palette indices of a 256 x 256 tile, shaded in blocks of 4 x 4 pixels, with graticule lines."""
    scale = 256 // cells
    lons = [x_to_lon(x + (i - 0.5) / cells, z) for i in range(cells + 2)]
    lats = [y_to_lat(y + (j - 0.5) / cells, z) for j in range(cells + 2)]
    h = [[elevation(lon, lat) for lon in lons] for lat in lats]
    metres = 40075016.0 * math.cos(math.radians(lats[cells // 2])) / (1 << z) / cells
    rows = []
    for j in range(1, cells + 1):
        row = bytearray()
        for i in range(1, cells + 1):
            dx = (h[j][i + 1] - h[j][i - 1]) / (2 * metres)
            dy = (h[j + 1][i] - h[j - 1][i]) / (2 * metres)  # south minus north
            # light from the northwest: slopes facing it are bright
            lit = 0.5 + 5.0 * (-dx * 0.7071 + dy * 0.7071)
            s = min(LIGHT - 1, max(0, int(lit * LIGHT)))
            row.append(band(h[j][i]) * LIGHT + s)
        rows.append(bytes(b for b in row for _ in range(scale)))
    pixels = [bytearray(r) for r in rows for _ in range(scale)]
    step = graticule_step(z)
    west, east = x_to_lon(x, z), x_to_lon(x + 1, z)
    north, south = y_to_lat(y, z), y_to_lat(y + 1, z)
    k = math.ceil(west / step)
    while k * step < east:
        px = int((lon_to_x(k * step, z) - x) * 256)
        if 0 <= px < 256:
            for r in pixels:
                r[px] = GRID_MAJOR
        k += 1
    k = math.ceil(south / step)
    while k * step < north:
        py = int((lat_to_y(k * step, z) - y) * 256)
        if 0 <= py < 256:
            pixels[py][:] = bytes([GRID_MAJOR]) * 256
            # Labels: the latitude just above the line at the tile's west edge...
            label(pixels, "%.1fN" % (k * step), 4, py - 13)
        k += 1
    k = math.ceil(west / step)
    while k * step < east:
        px = int((lon_to_x(k * step, z) - x) * 256)
        if 0 <= px < 256:
            # ... and the longitude beside the line near the tile's top.
            label(pixels, "%.1fW" % abs(k * step), px + 4, 4)
        k += 1
    return pixels


# A 3 x 5 pixel font for the graticule labels.
FONT = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111", "3": "111001111001111", "4": "101101111001001",
    "5": "111100111001111", "6": "111100111101111", "7": "111001010010010", "8": "111101111101111", "9": "111101111001111",
    ".": "000000000000010", "N": "101111111111101", "W": "101101111111101", " ": "000000000000000",
}


def label(pixels, text, px, py, scale=2):
    """Draws `text` with its top-left corner at (px, py), clipped to the tile."""
    for i, ch in enumerate(text):
        glyph = FONT[ch]
        for gy in range(5):
            for gx in range(3):
                if glyph[gy * 3 + gx] != "1":
                    continue
                for dy in range(scale):
                    for dx in range(scale):
                        x, y = px + (i * 4 + gx) * scale + dx, py + gy * scale + dy
                        if 0 <= x < 256 and 0 <= y < 256:
                            pixels[y][x] = GRID_MAJOR


def png(pixels):
    """An 8-bit palette PNG."""
    height, width = len(pixels), len(pixels[0])
    raw = b"".join(b"\x00" + bytes(r) for r in pixels)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0))
            + chunk(b"PLTE", b"".join(bytes(c) for c in PALETTE)) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


# --- PMTiles version 3 -----------------------------------------------------------------------

def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def directory(entries):
    out = bytearray(varint(len(entries)))
    last = 0
    for tid, _, _, _ in entries:
        out += varint(tid - last)
        last = tid
    for e in entries:
        out += varint(e[3])
    for e in entries:
        out += varint(e[2])
    for i, (_, off, length, _) in enumerate(entries):
        prev = entries[i - 1] if i else None
        out += varint(0) if prev and off == prev[1] + prev[2] else varint(off + 1)
    return gzip.compress(bytes(out), compresslevel=9, mtime=0)


def write_pmtiles(path, tiles, bounds, minzoom, maxzoom, name):
    """tiles: {tile id: PNG bytes}. Clustered, identical tiles stored once, runs merged."""
    entries, data, seen = [], bytearray(), {}
    for tid in sorted(tiles):
        blob = tiles[tid]
        if blob in seen:
            off = seen[blob]
            last = entries[-1] if entries else None
            if last and last[1] == off and last[0] + last[3] == tid:
                entries[-1] = (last[0], last[1], last[2], last[3] + 1)
                continue
            entries.append((tid, off, len(blob), 1))
        else:
            seen[blob] = len(data)
            entries.append((tid, len(data), len(blob), 1))
            data += blob
    root = directory(entries)
    assert 127 + len(root) <= 16384, "the root directory must fit the first 16 KiB"
    meta = gzip.compress(json.dumps({"name": name, "format": "png", "attribution": "synthetic relief, trailpack sample",
                                     "description": "A stand-in map drawn by scripts/make_maps.py"}, sort_keys=True).encode(), compresslevel=9, mtime=0)
    sw, ne = bounds["southwest"], bounds["northeast"]
    e7 = lambda v: int(round(v * 1e7))
    header = b"PMTiles" + bytes([3]) + struct.pack(
        "<QQQQQQQQQQQ", 127, len(root), 127 + len(root), len(meta), 127 + len(root) + len(meta), 0,
        127 + len(root) + len(meta), len(data), sum(e[3] for e in entries), len(entries), len(seen))
    header += bytes([1, 2, 1, 2, minzoom, maxzoom])  # clustered, gzip directories, tiles as they are, PNG
    header += struct.pack("<iiii", e7(sw["longitude"]), e7(sw["latitude"]), e7(ne["longitude"]), e7(ne["latitude"]))
    header += bytes([10]) + struct.pack("<ii", e7((sw["longitude"] + ne["longitude"]) / 2), e7((sw["latitude"] + ne["latitude"]) / 2))
    assert len(header) == 127
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(header + root + meta + bytes(data))
    return len(entries), len(seen), 127 + len(root) + len(meta) + len(data)


def main():
    with open(TOUR, encoding="utf-8") as f:
        bounds = json.load(f)["bounds"]
    base, corner = {}, {}
    flat = png([bytearray([FLAT]) * 256 for _ in range(256)])
    for z in range(8, 14):
        x0, x1, y0, y1 = frame_tiles(bounds, z)
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                tid = tile_id(z, x, y)
                base[tid] = png(relief_tile(z, x, y))
                # Leave out the northeast third of the frame at zoom 12 and 13.
                fx = (x - x0 + 0.5) / (x1 - x0 + 1)
                fy = (y - y0 + 0.5) / (y1 - y0 + 1)
                if z >= 12 and fx > 2 / 3 and fy < 1 / 3:
                    continue
                corner[tid] = flat
    out = write_pmtiles(os.path.join(FIXTURES, "santiam-wagon-road", "map", "santiam-wagon-road.pmtiles"), base, bounds, 8, 13, "Santiam Wagon Road (sample relief)")
    print("base map: %d entries, %d distinct tiles, %d bytes" % out)
    out = write_pmtiles(os.path.join(FIXTURES, "maps", "santiam-corner-missing.pmtiles"), corner, bounds, 8, 13, "Santiam, northeast corner missing at z12-13")
    print("corner-missing map: %d entries, %d distinct tiles, %d bytes" % out)


if __name__ == "__main__":
    main()
