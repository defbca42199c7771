#!/usr/bin/env python3
"""The control panel in headless Chromium: each page loads with no console errors (a CSP refusal is one),
the map draws its coordinate grid, and a screenshot of each page goes to the folder given.

usage: panel-browser.py BASE_URL SCREENSHOT_FOLDER   (exit 0: all checks passed; 1: a check failed)
"""
import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


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
