#!/usr/bin/env python3
"""Draws the visitor app's icons (Sources/TrailPackVisitor/app/icons): a winding white trail with
a stop marker on the park green. Pure Python (zlib + struct), so the PNGs can be made again here.

The maskable icons (icon-maskable-*.png) hold the same artwork drawn smaller, within the safe zone:
a launcher may cut the icon to a circle of 40 % of its size around the centre (205 px of 512), so
no artwork lies farther out (Tests/VisitorAppJS/icons.test.mjs decodes the PNGs and checks)."""
import math, os, struct, zlib

GREEN, WHITE, GOLD = (0x1B, 0x43, 0x32), (0xFF, 0xFF, 0xFF), (0xF2, 0xC1, 0x4E)
# The trail, in a 0..1 square: from the lower left, winding up to the marker.
TRAIL = [(0.18, 0.86), (0.36, 0.70), (0.28, 0.52), (0.52, 0.44), (0.66, 0.56), (0.74, 0.36)]
MARKER, MARKER_R = (0.74, 0.26), 0.11

def seg_distance(p, a, b):
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)

# How much smaller the maskable artwork is drawn: its farthest point (the trail's lower-left end,
# 0.53 of the size from the centre with the stroke) comes to 0.37, inside the safe zone's 0.40.
MASKABLE_SCALE = 0.70


def pixel(x, y, n, scale=1.0):
    p = (0.5 + ((x + 0.5) / n - 0.5) / scale, 0.5 + ((y + 0.5) / n - 0.5) / scale)
    if math.hypot(p[0] - MARKER[0], p[1] - MARKER[1]) <= MARKER_R:
        return GOLD if math.hypot(p[0] - MARKER[0], p[1] - MARKER[1]) > MARKER_R * 0.45 else GREEN
    d = min(seg_distance(p, TRAIL[i], TRAIL[i + 1]) for i in range(len(TRAIL) - 1))
    return WHITE if d <= 0.045 else GREEN

def png(n, path, scale=1.0):
    rows = b"".join(b"\x00" + bytes(c for x in range(n) for c in pixel(x, y, n, scale)) for y in range(n))
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", n, n, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))

def svg(path):
    pts = " ".join(f"{x * 512:.0f},{y * 512:.0f}" for x, y in TRAIL)
    cx, cy, r = MARKER[0] * 512, MARKER[1] * 512, MARKER_R * 512
    with open(path, "w") as f:
        f.write(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"><rect width="512" height="512" fill="#1b4332"/>'
                f'<polyline points="{pts}" fill="none" stroke="#fff" stroke-width="46" stroke-linecap="round" stroke-linejoin="round"/>'
                f'<circle cx="{cx:.0f}" cy="{cy:.0f}" r="{r:.0f}" fill="#f2c14e"/><circle cx="{cx:.0f}" cy="{cy:.0f}" r="{r * 0.45:.0f}" fill="#1b4332"/></svg>\n')

if __name__ == "__main__":
    out = os.path.join(os.path.dirname(__file__), "..", "Sources", "TrailPackVisitor", "app", "icons")
    os.makedirs(out, exist_ok=True)
    for n in (192, 512):
        png(n, os.path.join(out, f"icon-{n}.png"))
        png(n, os.path.join(out, f"icon-maskable-{n}.png"), MASKABLE_SCALE)
    svg(os.path.join(out, "icon.svg"))
