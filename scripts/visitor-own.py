#!/usr/bin/env python3
"""The visitor's own (issue #51), in headless Chromium on a phone's screen: My log, checklists,
the map to find a tour, installed and kept, the app in Spanish.

The fourteeners tour (a checklist: every peak a stop) is downloaded (the browser refuses to keep
the data: the plain warning shows) and taken twice with the position overridden (stops 1 and 2,
then again from the start: stop 1 is "reached 2 times"), stop 3 by hand ("I was here") with a
note and the favourite mark; the Santiam tour is taken once in Spanish (the app's own words
Spanish: "Parada 1:", the arrival banner, the fallback note); My log shows each tour's progress,
the checklist and a goal; the map shows the tours as pins online and on their own tiles offline;
the install button (on beforeinstallprompt) and the iOS "Add to Home Screen" hint show. The log is
exported as CSV and GPX, deleted with its one confirmed button, the app's data cleared (a new
phone), the CSV imported: the same log. axe-core on every new view, at 390 px and at 320 px with
text at 200 %, a screenshot of each.

usage: visitor-own.py CONFIG.json
CONFIG: {"base", "shots", "fourteeners" (package path), "santiam" (package path)}; each package's
id, SHA-256 and stops are read out of it with Python's zipfile.
Prints a JSON summary on standard output; exit 0 when every check passed, 1 otherwise.
"""
import csv
import hashlib
import io
import json
import os
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
import zipfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from importlib import import_module  # noqa: E402

walkthrough = import_module("visitor-walkthrough")

# A phone whose browser will not keep the app's data (the warning's case), set before any page runs.
REFUSE_PERSIST = """
Object.defineProperty(StorageManager.prototype, 'persist', {value: async () => false});
Object.defineProperty(StorageManager.prototype, 'persisted', {value: async () => false});
"""

IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.5 Mobile/15E148 Safari/604.1")

# The browser's install prompt, as Chromium fires it when the app may be installed.
INSTALL_PROMPT = """
const e = new Event('beforeinstallprompt', {cancelable: true});
e.prompt = async () => {}; e.userChoice = Promise.resolve({outcome: 'accepted'});
window.dispatchEvent(e);
"""

# The log as kept in IndexedDB (to compare before and after the new phone).
READ_LOG = """
const done = arguments[arguments.length - 1];
const r = indexedDB.open('trailpack-log', 1);
r.onupgradeneeded = () => r.result.createObjectStore('log');
r.onsuccess = () => { const g = r.result.transaction('log').objectStore('log').get('log');
  g.onsuccess = () => { r.result.close(); done(JSON.stringify(g.result ?? null)); }; };
r.onerror = () => done('error');
"""


def package(path):
    with open(path, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    with zipfile.ZipFile(path) as z:
        manifest = json.loads(z.read("manifest.json"))
    stops = sorted(manifest["waypoints"], key=lambda w: w["order"])
    return {"id": manifest["id"], "sha256": sha, "name": manifest["name"], "stops": [
        {"slug": w["slug"], "name": w["name"], "latitude": w["coordinate"]["latitude"],
         "longitude": w["coordinate"]["longitude"]} for w in stops]}


class Own(walkthrough.Walk):
    def __init__(self, config):
        super().__init__(config)
        self.peaks = package(config["fourteeners"])
        self.santiam = package(config["santiam"])
        self.downloads = tempfile.mkdtemp(prefix="visitor-own-")
        self.cdp("Page.addScriptToEvaluateOnNewDocument", source=REFUSE_PERSIST)
        self.cdp("Browser.setDownloadBehavior", behavior="allow", downloadPath=self.downloads)

    def move(self, lat, lon):
        self.cdp("Emulation.setGeolocationOverride", latitude=lat, longitude=lon, accuracy=5)

    def own_view(self, name):
        """A new view: axe at 390 px, then 320 px wide with text at 200 % (no sideways scrolling) and axe again."""
        self.check_view(name)
        self.narrow(name)
        self.cdp("Emulation.setDeviceMetricsOverride", width=320, height=700, deviceScaleFactor=1, mobile=True)
        self.driver.execute_script("document.documentElement.style.fontSize = '200%'")
        self.check_view(name + "-320px-200pct-axe")
        self.driver.execute_script("document.documentElement.style.fontSize = ''")
        self.cdp("Emulation.setDeviceMetricsOverride", width=390, height=844, deviceScaleFactor=1, mobile=True)

    def click_link(self, text, timeout=30):
        """As the walkthrough's, with the arrival banner first tapped away (it covers the page's bottom)."""
        self.driver.execute_script("const a = document.getElementById('announce'); if (a) a.textContent = '';")
        return super().click_link(text, timeout)

    def install(self, tour):
        d = self.driver
        d.get(self.base + "/visit/#/package/" + tour["id"])
        self.click_link("Download")
        self.wait(lambda d: "on your phone" in self.text("main .notice-ok"), "%s installed" % tour["id"], 120)

    def arrive(self, tour, number, words="stop %d:"):
        stop = tour["stops"][number - 1]
        self.move(stop["latitude"] - 0.0045, stop["longitude"])
        time.sleep(0.4)
        self.move(stop["latitude"], stop["longitude"])
        banner = self.wait(lambda d: (words % number) in self.text("#announce").lower() and self.text("#announce"),
                           "stop %d of %s announced" % (number, tour["id"]), 20)
        self.wait(lambda d: d.current_url.endswith("/stop/%d" % number), "stop %d's page" % number)
        return banner

    def follow(self, tour):
        d = self.driver
        d.get(self.base + "/visit/#/tour/" + tour["sha256"])
        self.wait(lambda d: d.find_elements(By.ID, "follow"), "the tour's map")
        self.move(tour["stops"][0]["latitude"] - 0.0045, tour["stops"][0]["longitude"])
        d.execute_script("document.getElementById('announce').textContent = ''")
        # (Still following from the walk before: the map page keeps the watch; a press would stop it.)
        if d.find_element(By.ID, "follow").get_attribute("aria-pressed") != "true":
            d.find_element(By.ID, "follow").click()
        self.wait(lambda d: d.find_element(By.ID, "follow").get_attribute("aria-pressed") == "true", "following on")

    def downloaded(self, suffix):
        """The exported file once Chromium has written it: it makes the file under its final name
        before the bytes come (an empty file was read once on a loaded machine), so the file counts
        when nothing is in progress and its size, not zero, is the same at two looks in a row."""
        sizes = {}

        def found(d):
            names = os.listdir(self.downloads)
            if any(n.endswith(".crdownload") for n in names):
                return None
            for name in (n for n in names if n.endswith(suffix)):
                path = os.path.join(self.downloads, name)
                size = os.path.getsize(path)
                if size > 0 and sizes.get(path) == size:
                    return path
                sizes[path] = size
            return None
        return self.wait(found, "the %s export" % suffix, 30)

    def log_text(self):
        return {"stops": [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, "main .log-stops li")],
                "checklists": self.text("main .checklist"), "goals": self.text("main .goal p")}

    def run(self):
        d, peaks, santiam = self.driver, self.peaks, self.santiam
        # 1. The fourteeners downloaded: the browser will not keep the data, and the visitor is told.
        self.install(peaks)
        # The web app manifest (maskable icons, screenshots for the richer install sheet) has no errors.
        manifest = self.cdp("Page.getAppManifest")
        if manifest.get("errors"):
            self.fail("web app manifest errors: %s" % manifest["errors"])
        parsed = json.loads(manifest.get("data") or "{}")
        self.summary["manifestScreenshots"] = len(parsed.get("screenshots", []))
        if not parsed.get("screenshots"):
            self.fail("the web app manifest has no screenshots")
        warning = self.wait(lambda d: self.text("main .persist-warning"), "the persistence warning", 20)
        self.summary["persistWarning"] = warning
        if warning and "may remove the tour if it runs out of space" not in warning:
            self.fail("the persistence warning: %r" % warning)
        self.check_view("o01-downloaded-persistence-warning")

        # 2. Taken twice: stops 1 and 2, then again from the start (stop 1 again); stop 3 by hand.
        self.follow(peaks)
        for number in (1, 2):
            self.arrive(peaks, number)
        d.get(self.base + "/visit/#/tour/" + peaks["sha256"])
        self.click_link("Start the tour again")
        self.wait(lambda d: d.find_elements(By.ID, "follow"), "the map again")
        self.follow(peaks)
        self.arrive(peaks, 1)
        times = self.wait(lambda d: "Reached 2 times" in self.text("main .stop-times") and self.text("main .stop-times"),
                          "stop 1 reached 2 times")
        self.summary["stop1Times"] = times
        self.own_view("o02-stop-reached-twice")
        d.get(self.base + "/visit/#/tour/%s/stop/3" % peaks["sha256"])
        self.click_link("I was here")
        self.wait(lambda d: "Reached once" in self.text("main .stop-times"), "stop 3 logged by hand")
        d.find_element(By.ID, "stop-favourite").click()
        self.wait(lambda d: "favourite" in self.text("main .mark-status"), "the favourite kept")
        d.find_element(By.ID, "stop-note").send_keys("Windy summit, \"cold\"; turned back at noon")
        self.click_link("Save the note")
        self.wait(lambda d: "The note was saved" in self.text("main .mark-status"), "the note kept")
        self.check_view("o03-stop-by-hand-note-favourite")

        # 3. Santiam once, in Spanish: the app's own words follow the tour's language.
        d.get(self.base + "/visit/#/package/" + santiam["id"])
        switch = self.wait(lambda d: d.find_elements(By.ID, "tour-language"), "the language switch")
        if switch:
            Select(switch[0]).select_by_value("es")
        # The tour's page before install speaks the chosen language too.
        self.click_link("Descargar" if switch else "Download")
        self.wait(lambda d: ("en su teléfono" if switch else "on your phone") in self.text("main .notice-ok"),
                  "Santiam installed", 120)
        d.get(self.base + "/visit/#/tour/" + santiam["sha256"])
        self.wait(lambda d: "Seguir mi posición" in self.text("#follow"), "the map's words in Spanish")
        self.summary["pageLang"] = d.execute_script("return document.documentElement.lang")
        if self.summary["pageLang"] != "es":
            self.fail("the page's language is %r on a Spanish tour" % self.summary["pageLang"])
        self.check_view("o04-santiam-map-in-spanish")
        self.follow(santiam)
        banner = self.arrive(santiam, 1, words="parada %d:")
        self.summary["spanishBanner"] = banner
        if not banner or "Ha llegado a la parada 1" not in banner:
            self.fail("the arrival banner is not Spanish: %r" % banner)
        self.wait(lambda d: self.text("main h1").startswith("Parada 1:"), "the stop's title in Spanish")
        self.summary["spanishTitle"] = self.text("main h1")
        self.summary["fallbackNote"] = self.text("main .language-note")
        words = self.text("main")
        for expected in ("Mi diario", "Estuve aquí", "Volver al mapa"):
            if expected not in words:
                self.fail("the stop page in Spanish lacks %r" % expected)
        if "Transcript" in words and "Transcripción" not in words:
            self.fail("'Transcript' stays English on a Spanish stop")
        self.own_view("o05-santiam-stop-in-spanish")
        # A stop with a recording's transcript: its summary in Spanish too.
        d.get(self.base + "/visit/#/tour/%s/stop/4" % santiam["sha256"])
        self.wait(lambda d: "Transcripción" in self.text("main summary"), "'Transcripción' on stop 4")
        self.check_view("o05b-santiam-transcript-in-spanish")
        d.get(self.base + "/visit/#/log")
        self.wait(lambda d: "Mi diario" in self.text("main h1"), "My log in Spanish")
        self.check_view("o06-my-log-in-spanish")
        d.execute_script("localStorage.setItem('trailpack.language', 'en')")

        # 4. My log: each tour's progress, the checklist, a goal.
        d.get(self.base + "/visit/#/log")
        d.refresh()
        self.wait(lambda d: "Visited 3 of %d stops" % len(peaks["stops"]) in self.text("main .log-progress"),
                  "the fourteeners' progress")
        self.summary["progress"] = self.text("main .log-progress")
        checklist = self.text("main .checklist")
        self.summary["checklist"] = checklist
        if "Colorado fourteeners: 3 of %d done" % len(peaks["stops"]) not in checklist:
            self.fail("the checklist's progress: %r" % checklist)
        d.find_element(By.ID, "goal-target").clear()
        d.find_element(By.ID, "goal-target").send_keys("12")
        self.click_link("Add the goal")
        self.wait(lambda d: "1 of 12 days" in self.text("main .goal"), "the goal's progress")
        self.own_view("o07-my-log")

        # 5. The map: online, the server's tours as pins on a plain background; offline, on their own tiles.
        d.get(self.base + "/visit/#/map")
        self.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#find-map .find-pin")) >= 2, "the tours' pins")
        self.summary["mapListOnline"] = [e.text for e in d.find_elements(By.CSS_SELECTOR, "main .map-list a")]
        # No pin covers another (nearby sites share one pin that zooms in to them), no name runs off
        # the map or lies on a pin or another name (the list names them all), and the list is
        # numbered once (its text, as the pins are), not by its markers too.
        layout = d.execute_script(
            "const map = document.getElementById('find-map').getBoundingClientRect();"
            "const shown = (css) => [...document.querySelectorAll(css)].filter((e) => !e.hidden && e.offsetParent)"
            "  .map((e) => e.getBoundingClientRect());"
            "const pins = shown('#find-map .find-pin, #find-map .stop-group');"
            "let overlaps = 0;"
            "for (let i = 0; i < pins.length; i++) for (let j = i + 1; j < pins.length; j++) {"
            "  const a = pins[i], b = pins[j];"
            "  if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) overlaps++; }"
            "const labels = shown('#find-map .pin-label');"
            "const cut = labels.filter((r) => r.left < map.left - 1 || r.right > map.right + 1).length;"
            "const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;"
            "const covered = labels.filter((l, i) => pins.some((p) => hit(l, p)) || labels.some((m, j) => j !== i && hit(l, m))).length;"
            "const where = {map: [map.left, map.right], labels: labels.map((r) => [Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)])};"
            "const marker = getComputedStyle(document.querySelector('main .map-list')).listStyleType;"
            "return {pins: pins.length, overlaps, cut, covered, marker, where};")
        self.summary["mapLayoutOnline"] = layout
        if layout["overlaps"] or layout["cut"] or layout["covered"] or layout["marker"] != "none":
            self.fail("the map of tours: %r" % layout)
        self.own_view("o08-map-online")
        self.cdp("Network.enable")
        self.cdp("Network.emulateNetworkConditions", offline=True, latency=0, downloadThroughput=-1, uploadThroughput=-1)
        self.offline = True
        d.execute_script("location.hash = '#/tours'")
        time.sleep(0.3)
        d.execute_script("location.hash = '#/map'")
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#find-map img.leaflet-tile-loaded"), "the offline map's tiles")
        self.summary["mapListOffline"] = [e.text for e in d.find_elements(By.CSS_SELECTOR, "main .map-list a")]
        self.check_view("o09-map-offline")
        self.cdp("Network.emulateNetworkConditions", offline=False, latency=0, downloadThroughput=-1, uploadThroughput=-1)
        self.offline = False

        # 6. Installed: the button on the browser's prompt; on an iPhone, the hint.
        d.get(self.base + "/visit/#/tours")
        self.wait(lambda d: self.text("main .card h2"), "My tours")
        d.execute_script(INSTALL_PROMPT)
        self.wait(lambda d: d.find_elements(By.ID, "install-app"), "the Install button")
        self.check_view("o10-install-button")
        d.find_element(By.ID, "install-app").click()
        self.wait(lambda d: "The app is installed" in self.text("main .install-offer"), "installed")
        self.cdp("Emulation.setUserAgentOverride", userAgent=IPHONE)
        d.get(self.base + "/visit/#/log")
        hint = self.wait(lambda d: self.text("main .ios-hint"), "the iOS hint")
        self.summary["iosHint"] = hint
        self.check_view("o11-ios-add-to-home-screen")
        self.cdp("Emulation.setUserAgentOverride", userAgent=d.execute_script("return navigator.userAgent").replace(IPHONE, "")
                 or "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120 Mobile Safari/537.36")

        # 7. Export, delete, a new phone, import: the same log.
        d.get(self.base + "/visit/#/log")
        self.wait(lambda d: self.text("main .log-stops"), "My log")
        before = self.log_text()
        stored_before = json.loads(d.execute_async_script(READ_LOG))
        self.click_link("Export as CSV")
        csv_path = self.downloaded(".csv")
        self.click_link("Export as GPX")
        gpx_path = self.downloaded(".gpx")
        if csv_path:
            with open(csv_path, encoding="utf-8") as f:
                rows = list(csv.DictReader(io.StringIO(f.read())))
            visits = [r for r in rows if r["record"] == "visit"]
            self.summary["csvVisits"] = len(visits)
            if len(visits) != 5:
                self.fail("the CSV has %d visits, expected 5 (2 + 1 + by hand 1 + Santiam 1)" % len(visits))
        if gpx_path:
            points = ET.parse(gpx_path).getroot().findall("{http://www.topografix.com/GPX/1/1}wpt")
            self.summary["gpxPoints"] = len(points)
            if len(points) != 5 or any(p.find("{http://www.topografix.com/GPX/1/1}time") is None for p in points):
                self.fail("the GPX has %d timed waypoints, expected 5" % len(points))
        self.click_link("Delete my whole log")
        self.wait(lambda d: d.switch_to.alert, "the confirmation").accept()
        self.wait(lambda d: "Your log was deleted" in self.text("main .notice-ok"), "the log deleted")
        self.check_view("o12-log-deleted")
        origin = self.base.split("/visit")[0]
        self.cdp("Storage.clearDataForOrigin", origin=origin, storageTypes="all")
        d.get(self.base + "/visit/#/log")
        d.refresh()
        self.wait(lambda d: "Nothing logged yet" in self.text("main"), "an empty log on a new phone")
        if csv_path:
            d.find_element(By.ID, "log-import").send_keys(csv_path)
            self.wait(lambda d: "Imported: 5 visits" in self.text("main .notice-ok"), "the import")
        after = self.log_text()
        stored_after = json.loads(d.execute_async_script(READ_LOG))
        self.summary["logBefore"] = before
        self.summary["logAfter"] = after
        if before["stops"] != after["stops"] or before["checklists"] != after["checklists"] or before["goals"] != after["goals"]:
            self.fail("the imported log differs: %s / %s" % (before, after))
        if stored_before != stored_after:
            self.fail("the stored log differs after the import")
        self.own_view("o13-imported-on-a-new-phone")
        # A hostile file: refused with the line and field, nothing imported.
        bad = os.path.join(self.downloads, "bad.csv")
        with open(bad, "w", encoding="utf-8") as f:
            f.write("record,tour,stop,time,how,tour_name,stop_name,latitude,longitude,favourite,note,target\n"
                    "visit,org.example,a-stop,yesterday,arrival,,,,,,,\n")
        d.find_element(By.ID, "log-import").send_keys(bad)
        refused = self.wait(lambda d: self.text("main .notice-error"), "the refusal of a bad file")
        self.summary["badImport"] = refused
        if refused and 'Line 2, field "time"' not in refused:
            self.fail("the bad file's refusal: %r" % refused)
        self.check_view("o14-bad-import-refused")


if __name__ == "__main__":
    sys.exit(walkthrough.main(Own))
