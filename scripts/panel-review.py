#!/usr/bin/env python3
"""Part 2 of the control panel in headless Chromium: a new version of a released tour goes through review.

The publisher starts from the released tour's folder zip, moves stop 2, replaces stop 1's photo and
adds a stop, builds 1.1.0 and requests review. Reviewer one sees exactly those three changes, plays
the recording out of the package, downloads it, signs it with `trailpack sign` and approves with the
signature; reviewer two denies with a reason. The publisher reads the reason, fixes the new stop,
builds 1.1.0 again (the number the tour page proposes: the fix takes the sent-back version's place)
and asks again; reviewer one sees what changed since the last build; both reviewers approve with
signatures; the publisher releases and the phones' API lists 1.1.0. axe-core runs on the queue, review and history pages; screenshots go to SHOTS.

usage: panel-review.py BASE SHOTS TRAILPACK TOUR_ZIP NEW_PHOTO WORK PUBLISHER:PASSWORD REVIEWER1:PASSWORD:KEY REVIEWER2:PASSWORD:KEY
prints one JSON line: {"id": ..., "version": "1.1.0", "sha256": ...}; exit 1 with the failures on stderr.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module

walk = import_module("panel-walkthrough")


def cookie_get(d, url, path):
    cookie = "; ".join("%s=%s" % (c["name"], c["value"]) for c in d.get_cookies())
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Cookie": cookie}), timeout=60) as response, open(path, "wb") as out:
        out.write(response.read())


def own_map_drawn(r, where):
    """The tour's own offline map is the base layer: tiles from the panel's tile route have loaded."""
    try:
        WebDriverWait(r.driver, 20).until(lambda d: d.execute_script(
            "return Array.prototype.some.call(document.querySelectorAll('img.leaflet-tile-loaded'), function (i) {"
            " return i.src.indexOf('/tiles/') >= 0 && i.naturalWidth > 0; })"))
    except Exception:
        r.fail("%s does not draw the tour's offline map" % where)


def main():
    base, shots, tp, tour_zip, new_photo, work = sys.argv[1].rstrip("/"), *sys.argv[2:7]
    publisher, reviewer1, reviewer2 = (a.split(":") for a in sys.argv[7:10])
    os.makedirs(shots, exist_ok=True)
    os.makedirs(work, exist_ok=True)
    r = walk.Ranger(base, shots)
    d = r.driver
    result = {}

    def build(version):
        field = d.find_element(By.ID, "build-version")
        field.clear()
        field.send_keys(version)
        r.submit(d.find_element(By.ID, "build-button"))
        if not d.find_elements(By.ID, "built-sha256"):
            r.fail("building %s failed: %s" % (version, r.text()[:600]))
            return None
        sha = d.find_element(By.ID, "built-sha256").get_attribute("textContent").strip()
        r.submit(d.find_element(By.ID, "request-review"))
        if "now waiting for review" not in r.text():
            r.fail("requesting review of %s failed: %s" % (version, r.text()[:300]))
        return sha

    def open_review(version, name):
        d.get(base + "/reviews")
        r.wait_for("main")
        r.check_page("queue-" + name)
        links = [a for a in d.find_elements(By.CSS_SELECTOR, "main table a")]
        row = [a for a in links if a.get_attribute("href").endswith("/versions/" + version)]
        if not row:
            r.fail("%s's queue does not list version %s" % (name, version))
            return False
        r.submit(row[0])
        r.wait_for("#review-sha256")
        return True

    def approve_signed(reviewer, version):
        name, password, key = reviewer
        walk.sign_in(r, base, name, password)
        if not open_review(version, name):
            return
        package = os.path.join(work, "%s-%s.zip" % (name, version))
        cookie_get(d, d.find_element(By.ID, "package-download").get_attribute("href"), package)
        signed = subprocess.run([tp, "sign", package, "-s", key, "-o", package + ".minisig"], capture_output=True, text=True)
        if signed.returncode != 0:
            r.fail("trailpack sign failed: " + signed.stderr)
            return
        with open(package + ".minisig") as f:
            text = f.read()
        box = d.find_element(By.ID, "signature")
        # Pasted, as a person would (typing would turn the trusted comment's tabs into focus moves).
        d.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", box, text)
        typed = box.get_attribute("value")
        if typed.strip() != text.strip():
            r.fail("the signature box holds %r, not the file's %r" % (typed, text))
        r.submit(d.find_element(By.ID, "approve-button"))
        if "Approved with your signature" not in r.text():
            r.fail("%s's signed approval of %s was not taken: %s" % (name, version, r.text()[:400]))

    try:
        # The publisher starts from the released tour's folder zip.
        walk.sign_in(r, base, publisher[0], publisher[1])
        r.wait_for("#import-file")
        d.find_element(By.ID, "import-file").send_keys(tour_zip)
        r.submit(d.find_element(By.CSS_SELECTOR, "#import-form button[type=submit]"))
        r.wait_for("#tour-map")
        draft = re.sub(r"[?#].*$", "", d.current_url[len(base):])
        own_map_drawn(r, "the editor")
        # 1. Stop 2 moves about 500 m north (typed on its page).
        d.get(base + draft + "/stops/2")
        lat = d.find_element(By.ID, "stop-latitude")
        moved = "%.6f" % (float(lat.get_attribute("value")) + 0.0045)
        lat.clear()
        lat.send_keys(moved)
        r.submit(d.find_element(By.CSS_SELECTOR, "#stop-form button[type=submit].btn-primary"))
        # 2. Stop 1's photo is replaced by a new one of the same name.
        d.get(base + draft + "/stops/1")
        photo = os.path.join(work, "view.png")
        shutil.copyfile(new_photo, photo)
        old = d.find_element(By.TAG_NAME, "html")
        d.find_element(By.ID, "upload-files").send_keys(photo)
        # The page asks before replacing a file of the same name (its alt text is cleared): yes.
        alert = WebDriverWait(d, 20).until(EC.alert_is_present())
        if "Replace it?" not in alert.text:
            r.fail("replacing a photo of the same name asks something else: %r" % alert.text)
        alert.accept()
        r.wait_reload(old)
        cleared = [f for f in d.find_elements(By.CSS_SELECTOR, "input[id^='alt-']") if not f.get_attribute("value")]
        if len(cleared) != 1:
            r.fail("the replaced photo's alt text was not cleared (or more were): %d empty" % len(cleared))
        for field in cleared[:1]:
            field.send_keys("The new view of the Cascades, from the pass")
        r.submit(d.find_element(By.CSS_SELECTOR, "#stop-form button[type=submit].btn-primary"))
        # 3. A new stop at the end, typed, with a description.
        d.get(base + draft)
        d.find_element(By.ID, "add-name").send_keys("Tombstone Pass")
        d.find_element(By.ID, "add-latitude").send_keys("44.4301")
        d.find_element(By.ID, "add-longitude").send_keys("-122.1409")
        before = len(d.find_elements(By.CSS_SELECTOR, "#stop-list li"))
        r.click(d.find_element(By.CSS_SELECTOR, "#add-stop button"))
        WebDriverWait(d, 20).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#stop-list li")) == before + 1)
        count = before + 1
        d.get(base + draft + "/stops/%d" % count)
        d.find_element(By.ID, "stop-description").send_keys("The pass")
        r.submit(d.find_element(By.CSS_SELECTOR, "#stop-form button[type=submit].btn-primary"))
        d.get(base + draft)
        r.wait_for("#build-button")
        build("1.1.0")

        # Reviewer one: exactly the three changes, the recording plays, a signed approval.
        walk.sign_in(r, base, reviewer1[0], reviewer1[1])
        if open_review("1.1.0", reviewer1[0]):
            changes = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#changes ul.tp-changes > li[class^=tp-change-]")]
            kinds = sorted(li.get_attribute("class") for li in d.find_elements(By.CSS_SELECTOR, "#changes ul.tp-changes > li[class^=tp-change-]"))
            text = "\n".join(changes)
            if len(changes) != 3 or kinds != ["tp-change-added", "tp-change-changed", "tp-change-changed"] \
                    or "Added: Tombstone Pass" not in text or " m" not in text or "view.png replaced" not in text:
                r.fail("the diff does not show exactly the three changes: %s" % changes)
            own_map_drawn(r, "the review page")
            if "Coverage of the map frame" not in r.text():
                r.fail("the review page does not show the map's coverage")
            played = d.execute_async_script("""
                var done = arguments[arguments.length - 1], audio = document.querySelector("main audio");
                if (!audio) { done("no audio element"); return; }
                audio.muted = true;
                var timer = setTimeout(function () { done("not playing after 20 s"); }, 20000);
                audio.addEventListener("timeupdate", function () { if (audio.currentTime > 0) { clearTimeout(timer); done("ok"); } });
                audio.play().catch(function (e) { clearTimeout(timer); done("play() refused: " + e); });
            """)
            if played != "ok":
                r.fail("the recording does not play on the review page: %s" % played)
            r.check_page("review-diff")
        approve_signed(reviewer1, "1.1.0")

        # Reviewer two denies, with a reason.
        walk.sign_in(r, base, reviewer2[0], reviewer2[1])
        if open_review("1.1.0", reviewer2[0]):
            d.find_element(By.ID, "reason").send_keys("Tombstone Pass needs more than two words: say what visitors see there.")
            r.submit(d.find_element(By.ID, "deny-button"))
            if "Sent back" not in r.text():
                r.fail("the denial was not taken: " + r.text()[:300])

        # The publisher reads the reason, fixes the stop, builds 1.1.0 again and asks again.
        walk.sign_in(r, base, publisher[0], publisher[1])
        if open_review("1.1.0", publisher[0]):
            denial = d.find_elements(By.ID, "denial")
            if not denial or "Tombstone Pass needs more" not in denial[0].text:
                r.fail("the publisher does not see the denial's reason")
            r.check_page("denied")
        d.get(base + draft + "/stops/%d" % count)
        d.find_element(By.ID, "stop-description").send_keys(": the old toll road's summit meadow, with views of Iron Mountain.")
        r.submit(d.find_element(By.CSS_SELECTOR, "#stop-form button[type=submit].btn-primary"))
        d.get(base + draft)
        r.wait_for("#build-button")
        proposed = d.find_element(By.ID, "build-version").get_attribute("value")
        state = d.find_element(By.ID, "review-state").text
        if proposed != "1.1.0" or "build version 1.1.0 again" not in state:
            r.fail("after the denial the tour page proposes %r and says %r, not building 1.1.0 again" % (proposed, state))
        result["sha256"] = build(proposed)

        # Reviewer one sees what changed since the bytes that were sent back; both approve, signed.
        walk.sign_in(r, base, reviewer1[0], reviewer1[1])
        if open_review("1.1.0", reviewer1[0]):
            since = d.find_elements(By.ID, "since-denied")
            if not since or "since this version was built the last" not in since[0].text \
                    or "summit meadow" not in since[0].text:
                r.fail("the reviewer does not see what changed since the sent-back build: %s"
                       % (since[0].text[:400] if since else "no section"))
            r.check_page("review-rebuilt")
        approve_signed(reviewer1, "1.1.0")
        approve_signed(reviewer2, "1.1.0")
        walk.sign_in(r, base, publisher[0], publisher[1])
        if open_review("1.1.0", publisher[0]):
            r.submit_confirmed(d.find_element(By.ID, "release-button"))
            if d.find_element(By.ID, "version-status").get_attribute("data-status") != "released":
                r.fail("release failed: " + r.text()[:300])
            result["id"] = re.search(r"/packages/([^/]+)/versions/", d.current_url).group(1)
            r.submit(d.find_element(By.LINK_TEXT, "All versions of this tour"))
            r.wait_for("#timeline-heading")
            if "Tombstone Pass needs more" not in r.text():
                r.fail("the history does not show the denial's reason")
            r.check_page("history")
        result["version"] = "1.1.0"
    except Exception as error:  # a step that could not run is a failure, with the page it was on
        r.crashed(error)
    return r.finish(result)


if __name__ == "__main__":
    sys.exit(main())
