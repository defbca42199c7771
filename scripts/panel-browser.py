#!/usr/bin/env python3
"""The control panel in headless Chromium: each page loads with no console errors (a CSP refusal is one),
the map draws its coordinate grid, and a screenshot of each page goes to the folder given.

usage: panel-browser.py BASE_URL SCREENSHOT_FOLDER   (exit 0: all checks passed; 1: a check failed)
"""
import json
import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def axe_source():
    """axe-core's axe.min.js, as shipped inside PyPI's axe-selenium-python (installed by the Makefile)."""
    import axe_selenium_python
    with open(os.path.join(os.path.dirname(axe_selenium_python.__file__), "node_modules", "axe-core", "axe.min.js"), encoding="utf-8") as f:
        return f.read()


def axe_violations(driver, source):
    """axe-core's WCAG A/AA violations on the loaded page, one line each."""
    driver.execute_script(source)
    result = driver.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'best-practice']}})"
        ".then(function (r) { done(JSON.stringify(r.violations)); }, function (e) { done(JSON.stringify([{id: 'axe-error', help: String(e), nodes: []}])); });")
    return ["%s: %s (%s)" % (v["id"], v["help"], ", ".join(n.get("target", [""])[0] if isinstance(n.get("target", [""])[0], str) else str(n.get("target")) for n in v["nodes"][:3]))
            for v in json.loads(result)]


def main():
    base, shots = sys.argv[1].rstrip("/"), sys.argv[2]
    os.makedirs(shots, exist_ok=True)
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    failures = []
    try:
        driver.get(base + "/")
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".tp-grid-label"))
        labels = driver.find_elements(By.CSS_SELECTOR, ".tp-grid-label")
        if len(labels) < 4:
            failures.append("home: the coordinate grid has %d labels, expected 4 or more" % len(labels))
        if not driver.find_elements(By.CSS_SELECTOR, "main h1"):
            failures.append("home: no h1 inside main")
        driver.save_screenshot(os.path.join(shots, "home.png"))
        driver.set_script_timeout(60)
        for violation in axe_violations(driver, axe_source()):
            failures.append("home: axe-core: " + violation)
        for entry in driver.get_log("browser"):
            if entry.get("level") == "SEVERE":
                failures.append("home: console error: " + entry.get("message", ""))
    finally:
        driver.quit()
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
