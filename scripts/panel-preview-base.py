#!/usr/bin/env python3
"""The review page's "Preview as a visitor" of a version without its own offline map, in Chromium.

    panel-preview-base.py BASE SHOTS PACKAGE.zip ADMIN-TOKEN-FILE REVIEWER:PASSWORD

The package (built without a map) is uploaded through the API with the admin token; the reviewer
signs in and opens the version's review page, then its visitor preview: the visitor app over the
stored bytes says the tour has no offline map of its own and draws the site's region map under it
(its tiles come from /sites/SITE/tiles, loaded), in the preview only. axe-core runs on the review
page and on the preview; the browser console must stay clean. Prints {"id": …, "version": …, "tiles": N}.
"""
import json
import os
import sys
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module

walk = import_module("panel-walkthrough")

# How many tiles of the site's region map the preview's map has drawn.
REGION_TILES = ("return [...document.querySelectorAll('#tour-map img.leaflet-tile-loaded')]"
                ".filter(t => t.src.includes('/sites/')).length")


def main():
    base, shots, package, token_file = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3], sys.argv[4]
    reviewer, password = sys.argv[5].split(":", 1)
    os.makedirs(shots, exist_ok=True)
    token = open(token_file).read().strip()
    with open(package, "rb") as f:
        body = f.read()
    request = urllib.request.Request(base + "/v1/admin/packages", data=body, method="POST",
                                     headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=120) as response:
        stored = json.load(response)
    entry = stored.get("package") or {}
    package_id, version = entry.get("id"), entry.get("version")
    result = {"id": package_id, "version": version}
    r = walk.Ranger(base, shots)
    d = r.driver
    try:
        walk.sign_in(r, base, reviewer, password)
        d.get("%s/packages/%s/versions/%s" % (base, package_id, version))
        r.wait_for("#visitor-preview")
        r.check_page("review-page")
        preview = d.find_element(By.CSS_SELECTOR, "#visitor-preview iframe").get_attribute("src")
        d.set_window_size(390, 900)
        d.get(preview)
        words = "the site's region map is drawn under the tour"
        try:
            WebDriverWait(d, 60).until(lambda d: words in d.find_element(By.TAG_NAME, "body").text)
        except Exception:
            r.fail("the preview does not say the region map is drawn under the tour: %r"
                   % d.find_element(By.TAG_NAME, "body").text[:400])
        try:
            WebDriverWait(d, 30).until(lambda d: d.execute_script(REGION_TILES) >= 1)
        except Exception:
            r.fail("no tile of the site's region map was drawn in the preview")
        result["tiles"] = d.execute_script(REGION_TILES)
        r.check_page("preview-region-map")
        d.set_window_size(1280, 1100)
    except Exception as error:
        r.crashed(error)
    return r.finish(result)


if __name__ == "__main__":
    sys.exit(main())
