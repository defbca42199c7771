#!/usr/bin/env python3
"""A package's content must never run in the panel's origin (issue #28): a reviewer signed in to the
panel in headless Chromium opens a package asset that is an HTML page (named page.png, its manifest
calling it text/html); the page loads a second asset as a script, which reads the reviewer's CSRF
token from the review page and posts "approve". The panel must send the page as a download, never
as a document, so the script never runs.

usage: panel-asset-attack.py BASE SHOTS REVIEWER PASSWORD PAGE_PATH SCRIPT_PATH
prints one JSON object: {"title": the tab's title once the wait ends ("approved 303" when the attack
worked), "page": the page's response headers, "script": the script's}; exit 1 only when the browser
itself fails (the caller asserts on the JSON).
"""
import json
import os
import sys
import urllib.request

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module

walk = import_module("panel-walkthrough")

NAMES = ("Content-Type", "Content-Disposition", "Content-Security-Policy", "X-Content-Type-Options")


def headers(driver, url):
    cookie = "; ".join("%s=%s" % (c["name"], c["value"]) for c in driver.get_cookies())
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Cookie": cookie}), timeout=60) as response:
        response.read()
        return {name: response.headers.get(name) for name in NAMES} | {"status": response.status}


def main():
    base, shots, user, password, page, script = sys.argv[1].rstrip("/"), *sys.argv[2:7]
    os.makedirs(shots, exist_ok=True)
    r = walk.Ranger(base, shots)
    d = r.driver
    try:
        walk.sign_in(r, base, user, password)
        # The reviewer follows a link to the asset, as from the review page.
        d.get(base + page)
        try:
            # Bounded: the attack's script sets the title once its approval is answered.
            WebDriverWait(d, 15).until(lambda d: d.title.startswith("approved"))
        except TimeoutException:
            pass
        d.save_screenshot(os.path.join(shots, "asset-attack.png"))
        result = {"title": d.title, "page": headers(d, base + page), "script": headers(d, base + script)}
    finally:
        d.quit()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
