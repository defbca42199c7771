#!/usr/bin/env python3
"""A visitor takes a tour in headless Chromium (390x844, a phone's screen), scripted from what the
pages show: find the site and the tour, refuse a package whose bytes were altered on the server,
download and install the tour, lose the network (the server is stopped and the browser is set
offline), start the app again, walk the route with the position overridden and see each stop
announced in order, play a recording and a video with captions, and delete the tour. axe-core on
every view, a screenshot of each, the JS heap measured throughout.

usage: visitor-walkthrough.py CONFIG.json
CONFIG: {"base", "shots", "serverPid", "site", "tour", "altered", "videoStop", "audioStop"}
Prints a JSON summary on standard output; exit 0 when every check passed, 1 otherwise.
"""
import json
import os
import signal
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import (ElementClickInterceptedException, StaleElementReferenceException,
                                        TimeoutException)
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait


def axe_source():
    import axe_selenium_python
    path = os.path.join(os.path.dirname(axe_selenium_python.__file__), "node_modules", "axe-core", "axe.min.js")
    with open(path, encoding="utf-8") as f:
        return f.read()


class Walk:
    def __init__(self, config):
        self.config = config
        self.base = config["base"].rstrip("/")
        self.shots = config["shots"]
        os.makedirs(self.shots, exist_ok=True)
        self.failures = []
        self.summary = {"views": [], "announced": [], "heapMaxMB": 0}
        self.axe = axe_source()
        options = Options()
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=390,844", "--autoplay-policy=no-user-gesture-required"):
            options.add_argument(flag)
        options.binary_location = "/usr/bin/chromium"
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.driver.set_script_timeout(120)
        self.cdp("Emulation.setDeviceMetricsOverride", width=390, height=844, deviceScaleFactor=1, mobile=True)
        self.cdp("Browser.grantPermissions", origin=self.base, permissions=["geolocation"])
        self.cdp("Performance.enable")
        self.offline = False

    def cdp(self, command, **params):
        return self.driver.execute_cdp_cmd(command, params)

    def fail(self, message):
        self.failures.append(message)
        print("FAIL: " + message, file=sys.stderr)

    def wait(self, condition, what, timeout=30):
        try:
            # A page that redraws while it is read is read again (a stale element is not a failure).
            return WebDriverWait(self.driver, timeout, poll_frequency=0.1,
                                 ignored_exceptions=[StaleElementReferenceException]).until(condition)
        except TimeoutException:
            self.fail("timed out waiting for " + what)
            self.shot("timeout-" + what.replace(" ", "-")[:40])
            return None

    def text(self, css):
        for _ in range(5):
            try:
                return " ".join(e.text for e in self.driver.find_elements(By.CSS_SELECTOR, css))
            except StaleElementReferenceException:
                time.sleep(0.05)
        return ""

    def heap(self):
        metrics = {m["name"]: m["value"] for m in self.cdp("Performance.getMetrics")["metrics"]}
        mb = metrics.get("JSHeapUsedSize", 0) / 1048576
        self.summary["heapMaxMB"] = max(self.summary["heapMaxMB"], round(mb, 1))

    def shot(self, name):
        self.driver.save_screenshot(os.path.join(self.shots, name + ".png"))

    def check_view(self, name, transient_app_files=False, blocked=False):
        """axe-core (WCAG 2.1 A/AA and best practice), console errors, a screenshot, the heap.

        transient_app_files: a net::ERR_FAILED of one of the app's own files (/visit/...) is counted
        in the summary's "transientLoadFailures", not failed; the caller checks that the app coped.
        blocked: files the test itself blocked (net::ERR_BLOCKED_BY_CLIENT) are not errors.
        """
        self.heap()
        self.shot(name)
        self.summary["views"].append(name)
        self.driver.execute_script(self.axe)
        result = self.driver.execute_async_script(
            "var done = arguments[arguments.length - 1];"
            "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'best-practice']}})"
            ".then(function (r) { done(JSON.stringify(r.violations)); },"
            " function (e) { done(JSON.stringify([{id: 'axe-error', help: String(e), nodes: []}])); });")
        for v in json.loads(result):
            targets = ", ".join(str(n.get("target")) for n in v["nodes"][:3])
            self.fail("%s: axe-core: %s: %s (%s)" % (name, v["id"], v["help"], targets))
        for entry in self.driver.get_log("browser"):
            message = entry.get("message", "")
            if entry.get("level") != "SEVERE":
                continue
            # Offline, the service worker's refresh of its copy fails as it should.
            if self.offline and ("ERR_INTERNET_DISCONNECTED" in message or "Failed to fetch" in message
                                 or "ERR_CONNECTION_REFUSED" in message):
                continue
            if "favicon" in message:
                continue
            if blocked and "net::ERR_BLOCKED_BY_CLIENT" in message:
                continue
            if transient_app_files and "net::ERR_FAILED" in message and message.startswith(self.base + "/visit/"):
                self.summary.setdefault("transientLoadFailures", []).append(message.split(" ")[0])
                continue
            self.fail("%s: console error: %s" % (name, message))

    def narrow(self, name):
        """The same view 320 px wide with the text at 200 %: nothing needs sideways scrolling (WCAG 1.4.4, 1.4.10)."""
        self.cdp("Emulation.setDeviceMetricsOverride", width=320, height=700, deviceScaleFactor=1, mobile=True)
        self.driver.execute_script("document.documentElement.style.fontSize = '200%'")
        time.sleep(0.3)
        width = self.driver.execute_script("return document.documentElement.scrollWidth")
        self.shot(name + "-320px-200pct")
        if width > 320:
            self.fail("%s: 320 px wide at 200 %% text scrolls sideways (%d px)" % (name, width))
        self.driver.execute_script("document.documentElement.style.fontSize = ''")
        self.cdp("Emulation.setDeviceMetricsOverride", width=390, height=844, deviceScaleFactor=1, mobile=True)

    def click_link(self, text, timeout=30):
        """Clicks the first link or button whose words start with `text` (found again if the page redraws)."""
        def clicked(d):
            try:
                link = next((a for a in d.find_elements(By.CSS_SELECTOR, "main a, main button")
                             if a.text.strip().startswith(text) and a.is_displayed()), None)
                if link is None:
                    return False
                link.click()
                return True
            except StaleElementReferenceException:
                return False
            except ElementClickInterceptedException as error:
                # Covered for now (the page redrawing on a loaded machine, a banner sliding in): tried
                # again until the wait ends, which names what covered it if it never goes away.
                covered[0] = (error.msg or "").split("\n")[0]
                return False
        covered = [""]
        done = self.wait(clicked, "a link or button '%s'" % text, timeout)
        if done is None and covered[0]:
            self.fail("'%s' stayed covered: %s" % (text, covered[0]))
        return done

    def download_workers(self):
        """The app's download and hashing workers alive (dedicated workers are DevTools targets)."""
        targets = self.cdp("Target.getTargets").get("targetInfos", [])
        return [t["url"] for t in targets if t.get("type") == "worker"
                and t.get("url", "").rsplit("/", 1)[-1] in ("download-worker.js", "hash-worker.js")]

    def opfs_names(self):
        return self.driver.execute_async_script(
            "var done = arguments[arguments.length - 1];"
            "(async () => { const root = await navigator.storage.getDirectory();"
            " const dir = await root.getDirectoryHandle('trailpack-tours', {create: true});"
            " const names = []; for await (const n of dir.keys()) names.push(n); return names.sort(); })()"
            ".then(done, (e) => done(['error: ' + e]));")

    def run(self):
        d = self.driver
        c = self.config
        # A reviewer previews the version as a visitor, from the control panel's review page.
        d.get(self.base + "/login")
        d.find_element(By.ID, "name").send_keys(c["reviewer"])
        d.find_element(By.ID, "password").send_keys(c["reviewerPassword"])
        d.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        self.wait(lambda d: "/login" not in d.current_url, "the reviewer's sign-in")
        d.get("%s/packages/%s/versions/%s" % (self.base, c["tour"], c["version"]))
        frame = self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#visitor-preview iframe"), "the preview frame")
        if frame:
            d.get(frame[0].get_attribute("src"))
            self.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#tour-map .stop-marker")) == len(c["stops"]),
                      "the previewed tour's map")
            self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#tour-map img.leaflet-tile-loaded"),
                      "the previewed tour's tiles")
            self.check_view("00-preview-as-a-visitor")
        d.delete_all_cookies()

        d.get(self.base + "/visit/")
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "main .card a"), "the list of sites")
        self.check_view("01-find-a-tour")
        # Installable as an app (web app manifest, icons, standalone, a service worker with a fetch handler).
        d.execute_async_script("var done = arguments[arguments.length - 1];"
                               "navigator.serviceWorker.ready.then(() => done(true));")
        errors = self.cdp("Page.getInstallabilityErrors").get("installabilityErrors", [])
        if errors:
            self.fail("not installable: %s" % errors)
        manifest = self.cdp("Page.getAppManifest")
        if manifest.get("errors"):
            self.fail("web app manifest errors: %s" % manifest["errors"])
        self.summary["installable"] = not errors
        self.click_link(c["siteName"])
        self.wait(lambda d: c["tourName"] in self.text("main .card h2"), "the site's tours")
        self.wait(lambda d: "stops" in self.text("main .card .muted"), "the number of stops")
        self.check_view("02-site-tours")

        # A package whose bytes were changed on the server after release: refused, nothing kept.
        d.get(self.base + "/visit/#/package/" + c["altered"])
        self.click_link("Download")
        alert = self.wait(lambda d: self.text("main .notice-error"), "the refusal of the altered package", 60)
        if alert and "does not match" not in alert:
            self.fail("the altered package's message: " + alert)
        self.summary["alteredMessage"] = alert
        leftovers = [n for n in self.opfs_names() if n.endswith(".part") or n.endswith(".zip")]
        if leftovers:
            self.fail("the altered package left files in storage: %s" % leftovers)
        self.check_view("03-altered-package-refused")

        # The tour itself: preview (first photo read by range from the server), download, install.
        d.get(self.base + "/visit/#/package/" + c["tour"])
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "main figure img"), "the preview's first photo")
        stops = d.find_elements(By.CSS_SELECTOR, "main ol.stop-list li")
        if len(stops) != len(c["stops"]):
            self.fail("the preview lists %d stops, the tour has %d" % (len(stops), len(c["stops"])))
        self.check_view("04-tour-preview")
        # A tour in several languages: the switch shows it in Spanish (texts marked lang="es"), and back.
        switch = d.find_elements(By.ID, "tour-language")
        if c.get("spanishName"):
            if not switch:
                self.fail("the bilingual tour has no language switch")
            Select(switch[0]).select_by_value("es")
            self.wait(lambda d: d.find_elements(By.XPATH, "//main//span[@lang='es'][normalize-space()='%s']"
                                                % c["spanishName"]), "the tour's name in Spanish")
            items = [li.get_attribute("lang") for li in d.find_elements(By.CSS_SELECTOR, "main ol.stop-list li")]
            if any(lang != "es" for lang in items):
                self.fail("the stop names are not all marked Spanish: %s" % items)
            self.check_view("04b-tour-preview-in-spanish")
            self.summary["spanishPreview"] = True
            Select(d.find_element(By.ID, "tour-language")).select_by_value("en")
            self.wait(lambda d: d.find_elements(By.XPATH, "//main//span[@lang='en'][normalize-space()='%s']"
                                                % c["tourName"]), "the tour's name in English again")
        # Where Download is offered, a download worker (and its hashing worker) is started ahead of
        # the tap; leaving the page lets them go, and coming back starts them again.
        self.wait(lambda d: self.download_workers(), "the spare download worker of the package's page")
        d.execute_script("location.hash = '#/tours'")
        self.wait(lambda d: not self.download_workers(), "the spare download worker let go on leaving the page")
        self.summary["spareWorkerReleased"] = True
        if c.get("spanishName"):
            # Leaving just after switching the language: the page drawn again for the switch is
            # still reading the catalog when the visitor is on My tours. It must not draw itself over
            # My tours or start a spare worker there (it did both: route() had run for My tours, so
            # the hash no longer told the two apart).
            d.get(self.base + "/visit/#/package/" + c["tour"])
            self.wait(lambda d: d.find_elements(By.ID, "tour-language") and self.download_workers(),
                      "the package's page and its spare worker, before switching and leaving")
            manifests = "performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/manifest')).length"
            before = d.execute_script("return " + manifests)
            d.execute_script("const s = document.getElementById('tour-language'); s.value = 'es';"
                             " s.dispatchEvent(new Event('change', { bubbles: true })); location.hash = '#/tours';")
            self.wait(lambda d: d.execute_script("return " + manifests) > before,
                      "the switched page's reading of the manifest, after leaving")
            self.wait(lambda d: d.execute_script("return location.hash") == "#/tours"
                      and not self.download_workers(), "My tours without a spare worker")
            # What the left drawing would do comes after its reads: watched for two seconds.
            deadline = time.time() + 2
            while time.time() < deadline:
                heading = self.text("main h1")
                if self.download_workers() or d.find_elements(By.CSS_SELECTOR, "main ol.stop-list, #tour-language"):
                    self.fail("after leaving a page switched to another language, My tours showed %r with workers %s"
                              % (heading, self.download_workers()))
                    break
                time.sleep(0.1)
            self.summary["leftDrawingDropped"] = True
            # The switch was kept (the tour's language is the visitor's choice): back to English.
            d.get(self.base + "/visit/#/package/" + c["tour"])
            self.wait(lambda d: d.find_elements(By.ID, "tour-language"), "the package's page again, in Spanish")
            Select(d.find_element(By.ID, "tour-language")).select_by_value("en")
            self.wait(lambda d: d.find_elements(By.XPATH, "//main//span[@lang='en'][normalize-space()='%s']"
                                                % c["tourName"]), "the tour's name in English once more")
        d.get(self.base + "/visit/#/package/" + c["tour"])
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "main figure img"), "the preview's first photo again")
        self.wait(lambda d: self.download_workers(), "the spare download worker started again")
        started = time.time()
        self.click_link("Download")
        self.wait(lambda d: "on your phone" in self.text("main .notice-ok"), "the installed tour", 120)
        self.summary["installSeconds"] = round(time.time() - started, 2)
        self.check_view("05-installed")
        names = self.opfs_names()
        if not any(n.endswith(".zip") for n in names) or any(n.endswith(".part") for n in names):
            self.fail("storage after install: %s" % names)
        self.summary["storage"] = names

        # The app shell is cached by the service worker before the network goes.
        cached = d.execute_async_script(
            "var done = arguments[arguments.length - 1];"
            "navigator.serviceWorker.ready.then(async () => { const count = async () => {"
            " const name = (await caches.keys()).find((n) => n.startsWith('trailpack-visitor-'));"
            " return name ? (await (await caches.open(name)).keys()).length : 0; };"
            " for (let i = 0; i < 100; i++) { if (await count() >= 29) break;"
            " await new Promise(r => setTimeout(r, 100)); } done(await count()); });")
        self.summary["cachedFiles"] = cached

        # No network at all: the server is stopped and the browser is told it is offline.
        os.kill(int(c["serverPid"]), signal.SIGTERM)
        time.sleep(1)
        self.cdp("Network.enable")
        self.cdp("Network.emulateNetworkConditions", offline=True, latency=0, downloadThroughput=-1,
                 uploadThroughput=-1)
        self.offline = True
        d.get(self.base + "/visit/")
        self.wait(lambda d: c["tourTitle"] in self.text("main .card h2"), "My tours, offline")
        self.check_view("06-offline-my-tours")

        # Tap to map: the map drawn from the package's own tiles.
        started = time.time()
        self.click_link("Take the tour")
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#tour-map img.leaflet-tile-loaded"), "the map's tiles")
        self.summary["tapToMapSeconds"] = round(time.time() - started, 2)
        markers = d.find_elements(By.CSS_SELECTOR, "#tour-map .stop-marker")
        if len(markers) != len(c["stops"]):
            self.fail("the map shows %d stop markers, the tour has %d" % (len(markers), len(c["stops"])))
        for marker in markers:
            if not (marker.get_attribute("aria-label") or "").startswith("Stop "):
                self.fail("a stop marker has no accessible name")
        self.check_view("07-tour-map")
        self.narrow("07-tour-map")

        # Walk the route: near each stop in order, it is announced and opens.
        self.click_link("Follow my position")
        for number, stop in enumerate(c["stops"], start=1):
            lat, lon = stop["latitude"], stop["longitude"]
            # 500 m south first (nothing announced), then at the stop.
            self.cdp("Emulation.setGeolocationOverride", latitude=lat - 0.0045, longitude=lon, accuracy=5)
            time.sleep(0.4)
            self.cdp("Emulation.setGeolocationOverride", latitude=lat, longitude=lon, accuracy=5)
            offered = []

            def arrived(d, n=number):
                if offered:
                    return d.current_url.endswith("/stop/%d" % n)
                if ("stop %d:" % n) not in self.text("#announce"):
                    return False
                if d.current_url.endswith("/stop/%d" % n):
                    return True
                # A recording or video still playing is not cut off: the stop is offered instead.
                offer = d.find_elements(By.CSS_SELECTOR, "#announce a")
                if offer and offer[0].text == "Open stop %d" % n:
                    self.summary.setdefault("offeredWhilePlaying", []).append(n)
                    offered.append(n)
                    offer[0].click()
                return False
            if self.wait(arrived, "stop %d announced" % number, 20):
                self.summary["announced"].append(number)
            self.wait(lambda d: not d.find_elements(By.XPATH, "//main//p[text()='Opening…']"),
                      "stop %d's files" % number, 30)
            if number == 1:
                self.check_view("08-stop-announced")
                self.narrow("08-stop-announced")
            if number == c["audioStop"]:
                # Paused once it has played: whether it would still play at the next stop (which is
                # then offered, not opened) must not depend on the machine's speed; the video is
                # the one left playing (below).
                played = d.execute_async_script(
                    "var done = arguments[arguments.length - 1]; const a = document.querySelector('main audio');"
                    "if (!a) return done(-1); a.muted = true; a.play().catch(() => {});"
                    "setTimeout(() => { const t = a.currentTime; a.pause(); done(t); }, 1500);")
                self.summary["audioCurrentTime"] = played
                if not played or played <= 0.2:
                    self.fail("the recording did not play (currentTime %s)" % played)
                if not d.find_elements(By.CSS_SELECTOR, "main details summary"):
                    self.fail("the recording has no transcript")
                self.check_view("09-audio-stop")
            if number == c["videoStop"]:
                # Looped, so that it still plays when the walk reaches the next stop, however slow the
                # machine: there the stop must be offered, not opened over it. (The clip is a few
                # seconds long; on a loaded CI machine it once ended first, and stop 3 simply opened.)
                video = d.execute_async_script(
                    "var done = arguments[arguments.length - 1]; const v = document.querySelector('main video');"
                    "if (!v) return done(null); v.muted = true; v.loop = true;"
                    "const t = v.textTracks[0]; if (t) t.mode = 'showing';"
                    "v.play().catch(() => {}); setTimeout(() => done({time: v.currentTime,"
                    " tracks: v.textTracks.length, cues: t && t.cues ? t.cues.length : 0}), 1500);")
                self.summary["video"] = video
                if not video or video["time"] <= 0.2 or video["tracks"] < 1 or video["cues"] < 1:
                    self.fail("the video did not play with captions: %s" % video)
                self.check_view("10-video-stop")
            self.heap()
        if self.summary["announced"] != list(range(1, len(c["stops"]) + 1)):
            self.fail("stops announced: %s" % self.summary["announced"])
        d.get(self.base + "/visit/#/tour/" + c["sha256"])
        self.wait(lambda d: "visited every stop" in self.text("main .next-stop"), "the end of the tour")
        self.check_view("11-tour-done")

        # Delete the tour: the space is given back and the list is empty.
        d.get(self.base + "/visit/#/tours")
        self.click_link("Delete")
        self.wait(lambda d: d.switch_to.alert, "the confirmation").accept()
        self.wait(lambda d: "was deleted" in self.text("main .notice-ok"), "the deletion")
        if any(n.endswith(".zip") for n in self.opfs_names()):
            self.fail("the deleted tour's file is still stored")
        self.check_view("12-deleted")
        if self.summary["heapMaxMB"] > 64:
            self.fail("the JS heap reached %.1f MB (limit 64)" % self.summary["heapMaxMB"])

    def close(self):
        self.driver.quit()


def main(kind=Walk):
    """Runs a walkthrough of `kind` on the CONFIG file named first: prints its summary, 1 on any failure."""
    with open(sys.argv[1], encoding="utf-8") as f:
        config = json.load(f)
    walk = kind(config)
    try:
        walk.run()
    except Exception as error:  # a failed step: reported with the screenshot of where it stopped
        walk.shot("error")
        walk.fail("the walkthrough stopped: %r" % error)
    finally:
        walk.close()
    walk.summary["failures"] = walk.failures
    print(json.dumps(walk.summary))
    return 1 if walk.failures else 0


if __name__ == "__main__":
    sys.exit(main())
