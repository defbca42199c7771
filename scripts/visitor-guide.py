#!/usr/bin/env python3
"""The visitor app as a guide (issue #50), in headless Chromium on a phone's screen: the map that
leads and hands-free narration, scripted from what the pages show.

The tour is installed; the map's first view is the tour's start; every control and marker on the
map's page is at least 44 x 44 CSS px and no two markers overlap, on the first view and on the
whole tour; with "Play the recording when I arrive" ticked and the position followed, arriving at
the first stop starts its recording by itself (the narration player's time advances); back on
the map, moving along the route makes the distance to the next stop fall; away from the route the
"off the trail" notice shows; arrivals at further stops while the first recording plays wait their
turn: each recording starts by itself after the one before ended, never two at once. axe-core and
a screenshot on each view.

usage: visitor-guide.py CONFIG.json
CONFIG: {"base", "shots", "package" (the package released on the server at base)}; read out of the
package with Python's zipfile (unless given): "tour" (its id), "sha256", "stops" ([{"latitude",
"longitude", "recording": bool}] in the tour's order; a recording is an audio asset in English or
in no language) and "routePoints" ([[lat, lon], ...]: six vertices of map/route.geojson between
the first and the second stop, in walking order, from 1/8 to 6/8 of the way).
Prints a JSON summary on standard output; exit 0 when every check passed, 1 otherwise.
"""
import hashlib
import json
import math
import re
import sys
import time
import zipfile

from selenium.webdriver.common.by import By

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from importlib import import_module  # noqa: E402

walkthrough = import_module("visitor-walkthrough")

# Every target on the map's page: links, buttons, the labels of check boxes, the markers, the map's buttons.
TARGETS = """
const out = [];
const seen = (e) => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && !e.closest('[hidden]'); };
for (const e of document.querySelectorAll('main a, main button, main select, main label.check, header a,'
  + ' #tour-map .stop-marker, #tour-map .stop-group, .leaflet-control-zoom a')) {
  if (!seen(e)) continue;
  const r = e.getBoundingClientRect();
  out.push({what: (e.getAttribute('aria-label') || e.textContent || e.tagName).trim().slice(0, 40),
    width: Math.round(r.width * 10) / 10, height: Math.round(r.height * 10) / 10});
}
return out;
"""

# Visible markers whose boxes overlap.
OVERLAPS = """
const boxes = [...document.querySelectorAll('#tour-map .stop-marker, #tour-map .stop-group')]
  .filter((e) => !e.hidden).map((e) => [e.getAttribute('aria-label'), e.getBoundingClientRect()]);
const out = [];
for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
  const [a, ra] = boxes[i]; const [b, rb] = boxes[j];
  if (ra.left < rb.right - 1 && rb.left < ra.right - 1 && ra.top < rb.bottom - 1 && rb.top < ra.bottom - 1) out.push([a, b]);
}
return {overlaps: out, shown: boxes.map((b) => b[0])};
"""

# The narration player and every other media element: which play, and the player's stop and time.
MEDIA = """
const p = document.getElementById('narration-player');
const others = [...document.querySelectorAll('audio, video')].filter((m) => m !== p && !m.paused && !m.ended);
return {title: document.getElementById('narration-title').textContent, time: p.currentTime,
  playing: !p.paused && !p.ended, src: p.getAttribute('src') || '', othersPlaying: others.length};
"""

UNITS = {"m": 1, "km": 1000, "ft": 0.3048, "mi": 1609.344}


def haversine(a, b):
    """Metres between two [lon, lat] positions on a sphere of the mean Earth radius (enough to space fixes)."""
    lat1, lat2 = math.radians(a[1]), math.radians(b[1])
    h = (math.sin((lat2 - lat1) / 2) ** 2
         + math.cos(lat1) * math.cos(lat2) * math.sin(math.radians(b[0] - a[0]) / 2) ** 2)
    return 2 * 6371008.8 * math.asin(math.sqrt(h))


def from_package(config):
    """The config's tour, sha256, stops and routePoints, read out of config["package"] where not given."""
    path = config["package"]
    with open(path, "rb") as f:
        config.setdefault("sha256", hashlib.sha256(f.read()).hexdigest())
    with zipfile.ZipFile(path) as z:
        manifest = json.loads(z.read("manifest.json"))
        route = json.loads(z.read("map/route.geojson"))
    config.setdefault("tour", manifest["id"])
    waypoints = sorted(manifest["waypoints"], key=lambda w: w["order"])
    config.setdefault("stops", [{
        "latitude": w["coordinate"]["latitude"], "longitude": w["coordinate"]["longitude"],
        "recording": any(a.get("kind") == "audio" and a.get("language", "en") == "en" for a in w["assets"]),
    } for w in waypoints])
    if route["geometry"]["type"] != "LineString":
        raise ValueError("the fixes need a route of one line, not a %s" % route["geometry"]["type"])
    line = route["geometry"]["coordinates"]
    along = [0.0]
    for a, b in zip(line, line[1:]):
        along.append(along[-1] + haversine(a, b))
    places = {s["slug"]: s["distanceMetres"] for s in route["properties"]["stops"]}
    first, second = places[waypoints[0]["slug"]], places[waypoints[1]["slug"]]
    points = []
    for k in range(1, 7):
        target = first + (second - first) * k / 8
        nearest = min(range(len(line)), key=lambda i: abs(along[i] - target))
        points.append([line[nearest][1], line[nearest][0]])
    config.setdefault("routePoints", points)
    return config


def metres(text):
    """The distance along the route in the status line ("12.3 km along the route"), in metres."""
    match = re.search(r"([\d.,]+)\s*(km|m|mi|ft) along the route", text)
    if not match:
        return None
    return float(match.group(1).replace(",", "")) * UNITS[match.group(2)]


class Guide(walkthrough.Walk):
    def __init__(self, config):
        super().__init__(from_package(config) if "package" in config else config)
        self.summary["routePoints"] = self.config["routePoints"]

    def targets(self, name):
        small = [t for t in self.driver.execute_script(TARGETS) if t["width"] < 44 or t["height"] < 44]
        for t in small:
            self.fail("%s: a target smaller than 44 x 44 px: %s" % (name, t))
        self.summary.setdefault("smallTargets", {})[name] = len(small)

    def overlaps(self, name):
        result = self.driver.execute_script(OVERLAPS)
        if result["overlaps"]:
            self.fail("%s: markers overlap: %s" % (name, result["overlaps"]))
        self.summary.setdefault("markersShown", {})[name] = result["shown"]

    def move(self, lat, lon, accuracy=5):
        self.cdp("Emulation.setGeolocationOverride", latitude=lat, longitude=lon, accuracy=accuracy)

    def show_map(self):
        self.driver.execute_script("document.getElementById('tour-map')?.scrollIntoView({block: 'start'})")

    def media(self):
        return self.driver.execute_script(MEDIA)

    def run(self):
        d = self.driver
        c = self.config
        d.get(self.base + "/visit/#/package/" + c["tour"])
        self.click_link("Download")
        self.wait(lambda d: "on your phone" in self.text("main .notice-ok"), "the installed tour", 120)
        self.click_link("Take the tour")
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#tour-map img.leaflet-tile-loaded"), "the map's tiles")
        time.sleep(0.5)
        self.check_view("g01-first-view-the-start")
        self.targets("g01-first-view-the-start")
        self.overlaps("g01-first-view-the-start")
        self.narrow("g01-first-view-the-start")
        first = d.find_element(By.CSS_SELECTOR, "#tour-map .stop-marker")
        box = d.find_element(By.ID, "tour-map").rect
        if not (box["x"] <= first.rect["x"] <= box["x"] + box["width"]
                and box["y"] <= first.rect["y"] <= box["y"] + box["height"]):
            self.fail("the first view does not show the first stop")

        d.find_element(By.CSS_SELECTOR, "button[aria-label='Show the whole tour']").click()
        time.sleep(0.8)
        self.check_view("g02-the-whole-tour")
        self.targets("g02-the-whole-tour")
        self.overlaps("g02-the-whole-tour")
        groups = d.find_elements(By.CSS_SELECTOR, "#tour-map .stop-group")
        self.summary["groupsOnWholeTour"] = [g.text for g in groups]
        if groups:
            groups[0].click()
            time.sleep(0.8)
            self.overlaps("g03-a-group-zoomed-in")
            self.shot("g03-a-group-zoomed-in")

        # Hands-free: the opt-in, then follow the position.
        d.find_element(By.ID, "narrate").click()
        self.move(c["stops"][0]["latitude"] - 0.0045, c["stops"][0]["longitude"])
        self.click_link("Follow my position")
        self.wait(lambda d: d.find_element(By.ID, "follow").get_attribute("aria-pressed") == "true", "following on")
        self.wait(lambda d: " away" in self.text("main .next-stop") or "along the route" in self.text("main .next-stop")
                  or "as the crow flies" in self.text("main .next-stop") or "north" in self.text("main .next-stop"),
                  "the distance to the first stop")
        self.show_map()
        self.check_view("g04-following-near-the-start")
        self.targets("g04-following-near-the-start")

        # Arrival at stop 1: its recording starts by itself.
        heard = []
        samples = []

        def sample():
            m = self.media()
            samples.append(m)
            if m["othersPlaying"] + (1 if m["playing"] else 0) > 1:
                self.fail("two recordings at once: %s" % m)
            if m["playing"]:
                number = re.match(r"Stop (\d+):", m["title"])
                if number and (not heard or heard[-1] != int(number.group(1))):
                    heard.append(int(number.group(1)))
            return m

        self.move(c["stops"][0]["latitude"], c["stops"][0]["longitude"])
        start = self.wait(lambda d: sample()["playing"] and sample()["time"] > 0.3, "stop 1's recording to play", 20)
        if start:
            t0 = sample()["time"]
            time.sleep(1)
            t1 = sample()["time"]
            self.summary["stop1Time"] = [t0, t1]
            if t1 <= t0:
                self.fail("stop 1's recording does not advance (%s, %s)" % (t0, t1))
        self.wait(lambda d: d.current_url.endswith("/stop/1"), "stop 1's page")
        self.check_view("g05-stop-1-narrated")

        # Back on the map while it plays (the player is outside the page: not cut off); along the route.
        d.execute_script("location.hash = arguments[0]", "#/tour/" + c["sha256"])
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#tour-map"), "the map again")
        distances = []
        for lat, lon in c["routePoints"]:
            self.move(lat, lon)
            before = distances[-1] if distances else None

            def changed(d, before=before):
                value = metres(self.text("main .next-stop"))
                return value if value is not None and value != before else None
            value = self.wait(changed, "the distance to the next stop", 10)
            if value is not None:
                distances.append(value)
            sample()
        self.summary["distancesToNextStop"] = distances
        if len(distances) < 3 or any(b >= a for a, b in zip(distances, distances[1:])):
            self.fail("the distance along the route to stop 2 does not fall: %s" % distances)
        if not sample()["playing"]:
            self.fail("stop 1's recording stopped when the visitor went back to the map")
        self.summary["tourLeft"] = self.text("main .tour-left")
        self.show_map()
        self.check_view("g06-following-along-the-route")
        self.targets("g06-following-along-the-route")
        # Off the trail: 1 km north of the last point.
        lat, lon = c["routePoints"][-1]
        self.move(lat + 0.009, lon)
        notice = self.wait(lambda d: self.text("main .off-trail"), "the off-the-trail notice", 10)
        self.summary["offTrail"] = notice
        self.show_map()
        self.check_view("g07-off-the-trail")
        self.move(lat, lon)
        self.wait(lambda d: not self.text("main .off-trail"), "the notice gone back on the trail", 10)

        # The next stops in a hurry: their recordings wait for the one playing, then start by themselves.
        for number, stop in enumerate(c["stops"][1:], start=2):
            self.move(stop["latitude"], stop["longitude"])
            self.wait(lambda d, n=number: ("stop %d:" % n) in self.text("#announce").lower(), "stop %d announced" % number, 20)
            sample()
        expected = [n for n, s in enumerate(c["stops"], start=1) if s["recording"]]
        end = time.time() + 90
        while time.time() < end and heard != expected:
            sample()
            time.sleep(0.1)
        self.summary["heard"] = heard
        if heard != expected:
            self.fail("recordings heard %s, expected %s in order" % (heard, expected))
        self.summary["samples"] = len(samples)
        self.check_view("g08-last-recording")

        d.get(self.base + "/visit/#/tour/" + c["sha256"])
        self.wait(lambda d: "visited every stop" in self.text("main .next-stop"), "the end of the tour")
        self.check_view("g09-tour-done")


if __name__ == "__main__":
    sys.exit(walkthrough.main(Guide))
