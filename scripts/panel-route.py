#!/usr/bin/env python3
"""The trail itself in the control panel, in headless Chromium (issue #49).

A ranger starts from the Santiam Wagon Road's folder zip (its stops, no route), adds the recorded track
(the Santiam GPX) on the tour's page with the page's script and sees the line on the map, its length in
km and mi, its climb, the elevation profile and each stop's distance along the route; a file that is not
a track is refused beside the form (a photo before it is sent, a GPX with a NaN latitude by the server);
the route is removed (the page asks first) and added again from a browser without JavaScript; the tour is
built and the version's review page shows the line too, as does its visitor preview. axe-core runs on every state, at 1280 px and at
390 px; the console must stay clean; screenshots go to SHOTS.

usage: panel-route.py BASE SHOTS USER PASSWORD TOUR_ZIP TRACK NAN_TRACK PHOTO PACKAGE_ID
prints one JSON line: {"draft": ..., "length": ..., "sha256": ...}; exit 1 with the failures on stderr.
"""
import json
import os
import re
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module

walk = import_module("panel-walkthrough")


def line_drawn(d, map_id):
    """The route's line on the Leaflet map: its two paths (casing and line), long ones."""
    return d.execute_script(
        "return Array.prototype.filter.call(document.querySelectorAll('#' + arguments[0] + ' .leaflet-overlay-pane path'),"
        " function (p) { return (p.getAttribute('d') || '').length > 200; }).length", map_id)


def shot(r, name, css=None, widths=(1280, 390)):
    """The page at each width, scrolled to `css`: axe-core, the console and a screenshot."""
    d = r.driver
    for width in widths:
        if width != 1280:
            d.set_window_size(width, 900)
            d.refresh()
        if css:
            d.execute_script("document.documentElement.style.scrollBehavior = 'auto';"
                             " var e = document.querySelector(arguments[0]); if (e) { e.scrollIntoView({block: 'start'}); }", css)
        r.check_page("%s-%d" % (name, width))
        wide = d.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        if wide > 1:
            r.fail("%s at %d px is %d px wider than the window (it scrolls sideways)" % (name, width, wide))
        if width != 1280:
            d.set_window_size(1280, 1100)
            d.refresh()


def main():
    base, shots, user, password, tour_zip, track, nan_track, photo, package_id = sys.argv[1].rstrip("/"), *sys.argv[2:10]
    os.makedirs(shots, exist_ok=True)
    r = walk.Ranger(base, shots)
    d = r.driver
    result = {}
    try:
        walk.sign_in(r, base, user, password)
        r.wait_for("#import-file")
        d.find_element(By.ID, "import-file").send_keys(tour_zip)
        r.submit(d.find_element(By.CSS_SELECTOR, "#import-form button[type=submit]"))
        r.wait_for("#tour-map")
        draft = re.sub(r"[?#].*$", "", d.current_url[len(base):])
        result["draft"] = draft
        if not d.find_elements(By.ID, "route-none"):
            r.fail("a tour without a route does not say so")
        shot(r, "no-route", "#tour-route", widths=(1280,))

        # A photo is refused before it is sent; a GPX with a NaN latitude by the server, beside the form.
        d.find_element(By.ID, "route-file").send_keys(photo)
        r.click(d.find_element(By.ID, "route-button"))
        status = d.find_element(By.ID, "route-status")
        WebDriverWait(d, 10).until(lambda d: "is not a GPX file" in status.text)
        if d.find_element(By.ID, "route-file").get_attribute("aria-invalid") != "true":
            r.fail("the refused file's field is not marked invalid")
        d.find_element(By.ID, "route-file").send_keys(nan_track)
        r.click(d.find_element(By.ID, "route-button"))
        WebDriverWait(d, 30).until(lambda d: "The track was not added" in status.text)
        if "could not be read as a GPX track" not in status.text or "nan.gpx" not in status.text:
            r.fail("the NaN track's refusal does not name the file and the problem: %r" % status.text)
        # The refusal is a 422 answer, which Chromium's console reports: that one, and nothing else.
        for entry in d.get_log("browser"):
            if entry.get("level") == "SEVERE" and "/route?_csrf=" in entry.get("message", "") and "422" in entry.get("message", ""):
                continue
            if entry.get("level") == "SEVERE":
                r.fail("console error: " + entry.get("message", ""))
        shot(r, "refused", "#tour-route", widths=(1280,))

        # The Santiam recording: the line, its length, climb, profile and the stops along it.
        d.find_element(By.ID, "route-file").send_keys(track)
        old = d.find_element(By.TAG_NAME, "html")
        r.click(d.find_element(By.ID, "route-button"))
        r.wait_reload(old)
        r.wait_for("#route-summary")
        summary = d.find_element(By.ID, "route-summary").text
        result["length"] = summary.split(",")[0]
        if not re.search(r"\d+\.\d km \(\d+\.\d mi\)", summary) or " m up and " not in summary:
            r.fail("the route's length (km and mi) and climb are not shown: %r" % summary)
        if "was added" not in r.text():
            r.fail("the page does not say the track was added")
        try:
            WebDriverWait(d, 20).until(lambda d: line_drawn(d, "tour-map") >= 2)
        except Exception:
            r.fail("the editor's map does not draw the route")
        profile = d.find_elements(By.CSS_SELECTOR, "#route-profile svg[role=img]")
        if not profile or "climbs from" not in (profile[0].get_attribute("aria-label") or ""):
            r.fail("no elevation profile with a text alternative")
        along = [e.text for e in d.find_elements(By.CSS_SELECTOR, "#stop-list .tp-along")]
        if len(along) != 8 or not along[0].startswith("km 0.0 along the route"):
            r.fail("the stops' distances along the route are not listed: %s" % along)
        shot(r, "route", "#map-heading")
        shot(r, "route-profile", "#tour-route")

        # Remove: the page asks first (the details open on the question); then the line is gone.
        summary_toggle = d.find_element(By.CSS_SELECTOR, "#route-remove summary")
        r.click(summary_toggle)
        button = d.find_element(By.ID, "route-remove-button")
        if not button.is_displayed():
            r.fail("'Remove the route' does not ask before removing")
        shot(r, "remove-asks", "#tour-route", widths=(1280,))
        r.submit(button)
        if "The route was removed from the tour. A copy is kept aside" not in r.text():
            r.fail("the removal is not confirmed: %s" % r.text()[:300])
        if line_drawn(d, "tour-map"):
            r.fail("the removed route is still drawn")

        # Without JavaScript: the plain form adds it again (303 to the tour's page).
        nojs = walk.chromium(javascript=False)
        try:
            nojs.get(base + "/login")
            nojs.find_element(By.ID, "name").send_keys(user)
            nojs.find_element(By.ID, "password").send_keys(password)
            old = nojs.find_element(By.TAG_NAME, "html")
            nojs.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
            WebDriverWait(nojs, 30).until(lambda n: n.find_element(By.TAG_NAME, "html") != old)
            nojs.get(base + draft)
            nojs.find_element(By.ID, "route-file").send_keys(track)
            old = nojs.find_element(By.TAG_NAME, "html")
            nojs.execute_script("arguments[0].scrollIntoView({block: 'center'})", nojs.find_element(By.ID, "route-button"))
            nojs.find_element(By.ID, "route-button").click()
            WebDriverWait(nojs, 60).until(lambda n: n.find_element(By.TAG_NAME, "html") != old)
            WebDriverWait(nojs, 30).until(lambda n: n.find_elements(By.ID, "route-summary"))
            if "was added" not in nojs.find_element(By.TAG_NAME, "main").text:
                r.fail("without JavaScript the track was not added")
            nojs.execute_script("document.getElementById('tour-route').scrollIntoView()")
            r.step += 1
            nojs.save_screenshot(os.path.join(shots, "%02d-no-script-route.png" % r.step))
        finally:
            nojs.quit()

        # Built, the version's review page draws the line and lists the stops along it.
        d.get(base + draft)
        r.wait_for("#build-button")
        field = d.find_element(By.ID, "build-version")
        field.clear()
        field.send_keys("1.0.0")
        r.submit(d.find_element(By.ID, "build-button"))
        if not d.find_elements(By.ID, "built-sha256"):
            r.fail("building failed: %s" % r.text()[:600])
        else:
            result["sha256"] = d.find_element(By.ID, "built-sha256").get_attribute("textContent").strip()
            d.get(base + "/packages/" + package_id + "/versions/1.0.0")
            r.wait_for("#review-map")
            if not d.find_elements(By.ID, "review-route-heading"):
                r.fail("the review page does not show the route")
            try:
                WebDriverWait(d, 20).until(lambda d: line_drawn(d, "review-map") >= 2)
            except Exception:
                r.fail("the review page's map does not draw the route")
            shot(r, "review-route", "#map-heading")
            # The visitor preview (the visitor app over the stored package) says the route and draws it.
            frame = d.find_elements(By.CSS_SELECTOR, "#visitor-preview iframe")
            if not frame:
                r.fail("the review page has no visitor preview")
            else:
                d.set_window_size(390, 900)
                d.get(frame[0].get_attribute("src"))
                try:
                    WebDriverWait(d, 60).until(lambda d: any(
                        e.is_displayed() and e.text.startswith("Route: ") for e in d.find_elements(By.CSS_SELECTOR, ".route-summary")))
                    # The app's own map (its view may be close in: the line clipped to it, short).
                    WebDriverWait(d, 20).until(lambda d: d.execute_script(
                        "return document.querySelectorAll('#tour-map .leaflet-overlay-pane path').length") >= 1)
                except Exception:
                    r.fail("the visitor preview does not show the route")
                r.step += 1
                d.save_screenshot(os.path.join(shots, "%02d-visitor-preview-390.png" % r.step))
                d.set_window_size(1280, 1100)
    except Exception as error:
        r.crashed(error)
    return r.finish(result)


if __name__ == "__main__":
    sys.exit(main())
