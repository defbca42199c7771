#!/usr/bin/env python3
"""A scripted ranger in headless Chromium makes a tour in the control panel, as a person would.

Signs in, creates a tour from nothing, adds three stops by clicking on the map, uploads a photo and a
recording to the first stop with alt text and transcript, sees a finding next to the field it concerns
and fixes it, reorders two stops with the keyboard, adds a fourth stop with the keyboard only, builds
the package and requests review; a reviewer finds it in the queue, plays its recording from the
package, and approves; the publisher releases it and opens the tour's history. axe-core runs on every page; the browser console must stay clean (a
CSP refusal is an error there); a screenshot of each page goes to SHOTS.

usage: panel-walkthrough.py BASE_URL SHOTS USER PASSWORD PHOTO AUDIO FOLDER_ZIP REVIEWER REVIEWER_PASSWORD
prints one JSON line: {"sha256": ..., "draft": "/drafts/SITE/TOUR", "version": ...}; writes the draft's
"Download as a folder" zip to FOLDER_ZIP; exit 1 with the failures on stderr.
"""
import json
import os
import re
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module

browser = import_module("panel-browser")


def chromium(javascript=True):
    """Debian's headless Chromium through chromedriver, its console log kept; optionally without JavaScript."""
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1100"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


class Ranger:
    def __init__(self, base, shots):
        self.base, self.shots, self.failures, self.step = base, shots, [], 0
        self.driver = chromium()
        self.driver.set_script_timeout(60)
        self.axe = browser.axe_source()

    def fail(self, text):
        self.failures.append("step %d: %s" % (self.step, text))

    def check_page(self, name):
        """axe-core and the console on the page now shown, and its screenshot."""
        self.step += 1
        d = self.driver
        WebDriverWait(d, 20).until(lambda d: d.execute_script("return document.readyState") == "complete")
        # Transitions under way are taken to their end first: a button that came under the pointer
        # (the page scrolled, or reloaded where the last click was) fades into its hover colours in
        # 0.15 s, and axe-core measured its contrast halfway (a flake seen once in make test).
        d.execute_script("document.getAnimations().forEach(function (a) { try { a.finish(); } catch (e) {} });")
        d.save_screenshot(os.path.join(self.shots, "%02d-%s.png" % (self.step, name)))
        for violation in browser.axe_violations(d, self.axe):
            self.fail("%s: axe-core: %s" % (name, violation))
        for entry in d.get_log("browser"):
            if entry.get("level") == "SEVERE":
                self.fail("%s: console error: %s" % (name, entry.get("message", "")))

    def wait_for(self, css, timeout=20):
        return WebDriverWait(self.driver, timeout).until(lambda d: d.find_element(By.CSS_SELECTOR, css))

    def wait_reload(self, old):
        WebDriverWait(self.driver, 30).until(lambda d: d.find_element(By.TAG_NAME, "html") != old)
        WebDriverWait(self.driver, 30).until(lambda d: d.execute_script("return document.readyState") == "complete")

    def submit(self, element):
        old = self.driver.find_element(By.TAG_NAME, "html")
        # Bootstrap scrolls smoothly; a click during the scroll lands off the element on a slow machine.
        self.driver.execute_script("document.documentElement.style.scrollBehavior = 'auto';"
                                   " arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})", element)
        element.click()
        self.wait_reload(old)

    def click(self, element):
        """A click on an element that changes the page in place (no navigation)."""
        self.driver.execute_script("document.documentElement.style.scrollBehavior = 'auto';"
                                   " arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})", element)
        element.click()

    def submit_confirmed(self, element):
        """A button whose form asks first (a removal, Release): the question is answered yes."""
        old = self.driver.find_element(By.TAG_NAME, "html")
        self.driver.execute_script("document.documentElement.style.scrollBehavior = 'auto';"
                                   " arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})", element)
        element.click()
        alert = WebDriverWait(self.driver, 10).until(EC.alert_is_present())
        if not alert.text:
            self.fail("the confirmation asks nothing")
        alert.accept()
        self.wait_reload(old)

    def crashed(self, error):
        """A step that raised: a failure naming the page it was on, with a screenshot of it."""
        self.fail("%s: %s (at %s)" % (type(error).__name__, error, self.driver.current_url))
        self.driver.save_screenshot(os.path.join(self.shots, "failure.png"))

    def finish(self, result):
        """Closes the browser, prints the result line and the failures; the exit status."""
        self.driver.quit()
        print(json.dumps(result))
        for failure in self.failures:
            print(failure, file=sys.stderr)
        return 1 if self.failures else 0

    def text(self):
        return self.driver.find_element(By.TAG_NAME, "main").text


def sign_in(r, base, user, password):
    d = r.driver
    outs = d.find_elements(By.CSS_SELECTOR, "form[action='/logout'] button")
    if outs:
        # axe-core leaves pages scrolled (and Bootstrap scrolls smoothly): back to the top first.
        d.execute_script("document.documentElement.style.scrollBehavior = 'auto'; window.scrollTo(0, 0)")
        old = d.find_element(By.TAG_NAME, "html")
        outs[0].click()
        r.wait_reload(old)
    d.get(base + "/login")
    d.find_element(By.ID, "name").send_keys(user)
    d.find_element(By.ID, "password").send_keys(password)
    r.submit(d.find_element(By.CSS_SELECTOR, "form[action='/login'] button"))


def review(r, base, user, password, reviewer, reviewer_password, result):
    """The reviewer's queue and review page (the recording plays out of the stored package), an
    approval; then the publisher releases and reads the tour's history."""
    d = r.driver
    sign_in(r, base, reviewer, reviewer_password)
    d.get(base + "/reviews")
    r.wait_for("main table")
    r.check_page("review-queue")
    links = d.find_elements(By.CSS_SELECTOR, "main table a")
    if not links:
        r.fail("the reviewer's queue lists nothing after review was requested")
        return
    r.submit(links[0])
    r.wait_for("#review-map .tp-stop-label")
    if d.find_element(By.ID, "review-sha256").get_attribute("textContent") != result.get("sha256"):
        r.fail("the review page shows another package than the one built")
    if "first release" not in r.text():
        r.fail("a first version does not say it is the first release")
    # The recording, streamed out of the package (the browser asks with Range), plays.
    played = d.execute_async_script("""
        var done = arguments[arguments.length - 1], audio = document.querySelector("main audio");
        if (!audio) { done("no audio element"); return; }
        audio.muted = true;
        var timer = setTimeout(function () { done("not playing after 20 s; readyState " + audio.readyState); }, 20000);
        audio.addEventListener("timeupdate", function () { if (audio.currentTime > 0) { clearTimeout(timer); done("ok " + audio.duration); } });
        audio.play().catch(function (e) { clearTimeout(timer); done("play() refused: " + e); });
    """)
    if not str(played).startswith("ok"):
        r.fail("the stop's recording does not play on the review page: %s" % played)
    r.check_page("review")
    r.submit(d.find_element(By.ID, "approve-button"))
    if "Approved" not in r.text() or d.find_element(By.ID, "version-status").get_attribute("data-status") != "ready":
        r.fail("approving did not make the version ready: " + r.text()[:300])
    review_url = d.current_url.split("?")[0]
    sign_in(r, base, user, password)
    d.get(review_url)
    button = d.find_elements(By.ID, "release-button")
    if not button:
        r.fail("the publisher sees no Release button on a ready version")
        return
    r.submit_confirmed(button[0])
    if d.find_element(By.ID, "version-status").get_attribute("data-status") != "released":
        r.fail("releasing did not release: " + r.text()[:300])
    r.check_page("released")
    with urllib.request.urlopen(base + "/v1/sites/willamette-sweet-home/packages", timeout=30) as response:
        if result.get("sha256", "?") not in response.read().decode():
            r.fail("the phones' list does not offer the released version")
    r.submit(d.find_element(By.LINK_TEXT, "All versions of this tour"))
    r.wait_for("#timeline-heading")
    if "approved" not in r.text() or "released" not in r.text():
        r.fail("the history's timeline lacks the approval or the release: " + r.text()[:400])
    r.check_page("history")


def odd_sheet(r, base, user, password, shots):
    """A spreadsheet with headers trailpack does not know (Y, X): the ranger is asked which column is
    which, among the sheet's own names, and the tour is made."""
    d = r.driver
    sign_in(r, base, user, password)
    sheet = os.path.join(shots, "gps-export.csv")
    with open(sheet, "w") as f:
        f.write("Point,Y,X,Remarks\nLava beds,44.4120,-121.9300,Black rock fields\nTombstone Pass,44.4301,-122.1409,Summit meadow\n")
    try:
        d.get(base + "/")
        d.find_element(By.ID, "import-file").send_keys(sheet)
        r.submit(d.find_element(By.CSS_SELECTOR, "#import-form button[type=submit]"))
        r.wait_for("#column-name")
        r.check_page("columns")
        for role, header in (("name", "Point"), ("latitude", "Y"), ("longitude", "X"), ("description", "Remarks")):
            Select(d.find_element(By.ID, "column-" + role)).select_by_visible_text(header)
        r.submit(d.find_element(By.ID, "columns-submit"))
        names = [e.text for e in d.find_elements(By.CSS_SELECTOR, "#stop-list li a")]
        if names != ["Lava beds", "Tombstone Pass"]:
            r.fail("the sheet with chosen columns made stops %s" % names)
    finally:
        os.unlink(sheet)


def signed_in_without_script(base, user, password):
    """A browser with JavaScript turned off, signed in as `user` (the caller quits it)."""
    d = chromium(javascript=False)
    d.set_script_timeout(60)
    try:
        d.get(base + "/login")
        d.find_element(By.ID, "name").send_keys(user)
        d.find_element(By.ID, "password").send_keys(password)
        old = d.find_element(By.TAG_NAME, "html")
        d.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
        WebDriverWait(d, 30).until(lambda d: d.find_element(By.TAG_NAME, "html") != old)
    except Exception:
        d.quit()
        raise
    return d


def no_script_upload(r, base, user, password, draft, shots):
    """A browser with JavaScript turned off: sign in, and add a text file to stop 3 with the page's own
    form (multipart, streamed by the server), which the stop's page then lists."""
    note = os.path.join(shots, "trail-notes.txt")
    with open(note, "w") as f:
        f.write("Wagons rested here before the climb.\n")
    d = signed_in_without_script(base, user, password)
    try:
        d.get(base + draft + "/stops/3")
        if d.find_element(By.ID, "upload-submit").is_displayed():
            r.fail("without JavaScript the stop page shows the script's upload box, which needs the script")
        button = d.find_element(By.ID, "nojs-upload-submit")
        if not button.is_displayed():
            r.fail("without JavaScript the stop page shows no Upload button")
        # Typed and not saved, then a file chosen: both are kept (the form sends the texts with the file).
        description = d.find_element(By.ID, "stop-description")
        typed = " Typed before the upload, never saved by hand."
        description.send_keys(typed)
        d.find_element(By.ID, "nojs-upload-files").send_keys(note)
        old = d.find_element(By.TAG_NAME, "html")
        ActionChains(d).scroll_to_element(button).scroll_by_amount(0, 200).perform()  # the wheel, not a script
        button.click()
        WebDriverWait(d, 30).until(lambda d: d.find_element(By.TAG_NAME, "html") != old)
        WebDriverWait(d, 30).until(lambda d: d.find_element(By.TAG_NAME, "main"))
        page = d.find_element(By.TAG_NAME, "main").text
        if "'trail-notes.txt' was added" not in page or not d.find_elements(By.CSS_SELECTOR, "[id^=file-]"):
            r.fail("without JavaScript the upload form did not add the file: " + page[:300])
        if typed.strip() not in d.find_element(By.ID, "stop-description").get_attribute("value"):
            r.fail("without JavaScript the text typed before the upload was lost")
        r.step += 1
        d.save_screenshot(os.path.join(shots, "%02d-no-script-upload.png" % r.step))
    finally:
        d.quit()
        os.unlink(note)


def main():
    base, shots, user, password, photo, audio, folder_zip, reviewer, reviewer_password = sys.argv[1].rstrip("/"), *sys.argv[2:10]
    os.makedirs(shots, exist_ok=True)
    r = Ranger(base, shots)
    d = r.driver
    result = {}
    try:
        # Sign in (a wrong password first: refused with the fix).
        d.get(base + "/")
        r.wait_for("#password")
        r.check_page("sign-in")
        d.find_element(By.ID, "name").send_keys(user)
        d.find_element(By.ID, "password").send_keys("not the password")
        r.submit(d.find_element(By.CSS_SELECTOR, "form[action='/login'] button"))
        if "wrong" not in r.text():
            r.fail("a wrong password did not say so: " + r.text()[:200])
        d.find_element(By.ID, "name").send_keys(user)
        d.find_element(By.ID, "password").send_keys(password)
        r.submit(d.find_element(By.CSS_SELECTOR, "form[action='/login'] button"))
        r.wait_for("#new-name")
        r.check_page("tours")

        # A new tour, from nothing.
        d.find_element(By.ID, "new-name").send_keys("Santiam Wagon Road")
        d.find_element(By.ID, "new-park").send_keys("Willamette National Forest")
        d.find_element(By.ID, "new-description").send_keys("Follow the 1860s toll road over the Cascades <b>by car</b> with short walks.")
        r.submit(d.find_element(By.CSS_SELECTOR, "form[action='/drafts'] button"))
        r.wait_for("#tour-map .tp-grid-label")
        draft = re.sub(r"[?#].*$", "", d.current_url[len(base):])
        result["draft"] = draft
        r.check_page("editor-new")

        # What to fix, above the map, says the tour has no stops; the first stop added in place
        # answers it there too (before, only the list below changed until the page was loaded again).
        def to_fix():
            return d.find_element(By.ID, "findings-area").text
        if "no stops yet" not in to_fix():
            r.fail("a new tour's summary does not say it has no stops: " + to_fix()[:300])
        # Three stops by clicking on the map, each named in the form the click filled.
        for n, (dx, dy, name) in enumerate([(-200, -60, "Sweet Home"), (0, 40, "House Rock"), (180, -20, "Fish Lake")], start=1):
            the_map = r.wait_for("#tour-map")
            # axe-core leaves the page scrolled; the map's middle in view, as a person would have it.
            d.execute_script("window.scrollTo(0, 0); arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})", the_map)
            time.sleep(0.3)
            ActionChains(d).move_to_element_with_offset(the_map, dx, dy).click().perform()
            lat = d.find_element(By.ID, "add-latitude").get_attribute("value")
            if not lat:
                r.fail("a click on the map did not fill the latitude")
            if d.switch_to.active_element.get_attribute("id") != "add-name":
                r.fail("after a click on the map the name field does not have the focus")
            d.find_element(By.ID, "add-name").send_keys(name)
            # Added in place (no reload): the map keeps its view; the list grows.
            r.click(d.find_element(By.CSS_SELECTOR, "#add-stop button"))
            r.wait_for("#stop-%d" % n)
            if n == 1:
                try:
                    WebDriverWait(d, 20).until(lambda d: "no stops yet" not in to_fix())
                except Exception:
                    r.fail("after the first stop was added the summary still says: " + to_fix()[:300])
        markers = d.find_elements(By.CSS_SELECTOR, ".tp-stop-label")
        if len(markers) != 3:
            r.fail("the map shows %d stop markers, expected 3" % len(markers))
        r.check_page("editor-three-stops")

        # Stop 1: a photo and a recording, streamed with a progress bar; then their texts.
        d.get(base + draft + "/stops/1")
        r.wait_for("#upload-files")
        r.check_page("stop-1")
        old = d.find_element(By.TAG_NAME, "html")
        d.find_element(By.ID, "upload-files").send_keys(photo + "\n" + audio)
        r.wait_reload(old)
        r.wait_for("#file-2")
        page = r.text()
        for name in (os.path.basename(photo), os.path.basename(audio)):
            if name not in page:
                r.fail("the uploaded file %s is not listed on the stop's page" % name)
        r.check_page("stop-1-files")
        # The missing texts are named before review (WCAG 1.1.1, 1.2.1).
        if "has no alt text" not in page or "has no transcript" not in page:
            r.fail("the missing alt text or transcript is not named on the stop page")
        d.find_element(By.ID, "alt-1").send_keys("The South Santiam river at Sweet Home, wagons crossing")
        d.find_element(By.ID, "transcript-2").send_keys("Birdsong by the river: a dipper calls twice.")
        d.find_element(By.ID, "stop-description").send_keys("The valley end of the road. From 1866 wagons set out from here.")
        r.submit(d.find_element(By.CSS_SELECTOR, "#stop-form button[type=submit].btn-primary"))
        if "has no alt text" in r.text() or "has no transcript" in r.text():
            r.fail("alt text and transcript were saved but the page still asks for them")

        # Stop 2 has no description: the finding is shown next to that field; the ranger fixes it.
        d.get(base + draft + "/stops/2")
        note = d.find_elements(By.ID, "stop-description-note")
        if not note:
            r.fail("stop 2 without a description shows no note next to the description field")
        r.check_page("stop-2-finding")
        d.find_element(By.ID, "stop-description").send_keys("A rock shelter used by travelers on the road.")
        r.submit(d.find_element(By.CSS_SELECTOR, "#stop-form button[type=submit].btn-primary"))
        if d.find_elements(By.ID, "stop-description-note"):
            r.fail("the description note stays after the description was written")
        for n in (3,):
            d.get(base + draft + "/stops/%d" % n)
            d.find_element(By.ID, "stop-description").send_keys("Fish Lake, where the road's travelers camped.")
            r.submit(d.find_element(By.CSS_SELECTOR, "#stop-form button[type=submit].btn-primary"))

        # Reorder with the keyboard: stop 2 moves down (Enter on its focused Down button).
        d.get(base + draft)
        r.wait_for("#down-2")
        d.execute_script("document.getElementById('down-2').focus()")
        old = d.find_element(By.TAG_NAME, "html")
        d.switch_to.active_element.send_keys(Keys.ENTER)
        r.wait_reload(old)
        names = [e.text for e in d.find_elements(By.CSS_SELECTOR, "#stop-list li a")]
        if names != ["Sweet Home", "Fish Lake", "House Rock"]:
            r.fail("after moving stop 2 down the order is %s" % names)
        focused = d.switch_to.active_element.get_attribute("id")
        if focused not in ("up-3", "down-3"):
            r.fail("after moving a stop the keyboard focus is on '%s', not on the moved stop's button" % focused)

        # A fourth stop with the keyboard only: typed coordinates (degrees, minutes, seconds), Enter to add.
        name_field = d.find_element(By.ID, "add-name")
        name_field.send_keys("Santiam Pass")
        name_field.send_keys(Keys.TAB, "44°25'29\"N", Keys.TAB, "121°51'06\"W")
        d.switch_to.active_element.send_keys(Keys.ENTER)
        r.wait_for("#stop-4")
        names = [e.text for e in d.find_elements(By.CSS_SELECTOR, "#stop-list li a")]
        if names[-1:] != ["Santiam Pass"]:
            r.fail("the keyboard-added stop is missing: %s" % names)
        d.get(base + draft + "/stops/4")
        d.find_element(By.ID, "stop-description").send_keys("The road's summit at 4,817 feet.")
        r.submit(d.find_element(By.CSS_SELECTOR, "#stop-form button[type=submit].btn-primary"))
        d.get(base + draft)
        r.wait_for("#build-button")
        if "<b>by car</b>" not in d.find_element(By.ID, "tour-description").get_attribute("value"):
            r.fail("the description's HTML was not kept as text")
        # The map frame, drawn by dragging a rectangle around the stops, then saved with the details.
        the_map = r.wait_for("#tour-map")
        d.execute_script("window.scrollTo(0, 0); arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})", the_map)
        time.sleep(0.3)
        d.find_element(By.ID, "draw-frame").click()
        size = the_map.size
        ActionChains(d).move_to_element_with_offset(the_map, -size["width"] // 2 + 10, -size["height"] // 2 + 10).click_and_hold() \
            .move_to_element_with_offset(the_map, 0, 0).move_to_element_with_offset(the_map, size["width"] // 2 - 10, size["height"] // 2 - 10) \
            .release().perform()
        edges = [d.find_element(By.ID, "frame-" + e).get_attribute("value") for e in ("south", "west", "north", "east")]
        if d.find_element(By.ID, "follow").is_selected() or not all(edges) or not float(edges[0]) < float(edges[2]):
            r.fail("drawing the frame did not fill its edges: %s" % edges)
        if d.switch_to.active_element.get_attribute("id") != "save-details":
            r.fail("after drawing the frame the focus is not on 'Save the tour details'")
        r.submit(d.find_element(By.ID, "save-details"))
        r.wait_for("#tour-map")
        drawn = d.find_element(By.ID, "tour-map").get_attribute("data-south")
        if not drawn or abs(float(drawn) - float(edges[0])) > 1e-5 or d.find_element(By.ID, "follow").is_selected():
            r.fail("the drawn frame was not saved: south edge %s, drawn %s" % (drawn, edges[0]))
        result["frame"] = ",".join(edges)
        r.check_page("editor-ready")
        # The map's coordinate grid: no two labels overlap and none is cut by the map's edge; and the
        # page does not scroll smoothly (a reload's smooth scroll restoration glided the map from under
        # the pointer and swallowed the first click).
        boxes = d.execute_script("""
            var map = document.getElementById("tour-map").getBoundingClientRect();
            return Array.prototype.map.call(document.querySelectorAll("#tour-map .tp-grid-label"), function (l) {
              var r = l.getBoundingClientRect();
              return [l.textContent, r.left - map.left, r.top - map.top, r.right - map.left, r.bottom - map.top,
                      map.width, map.height];
            });""")
        if not boxes:
            r.fail("the map shows no coordinate grid labels")
        for i, a in enumerate(boxes):
            if a[1] < -1 or a[2] < -1 or a[3] > a[5] + 1 or a[4] > a[6] + 1:
                r.fail("the grid label %s is cut by the map's edge: %s" % (a[0], a[1:5]))
            for b in boxes[i + 1:]:
                if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]:
                    r.fail("the grid labels %s and %s overlap" % (a[0], b[0]))
        behavior = d.execute_script("return getComputedStyle(document.documentElement).scrollBehavior")
        if behavior != "auto":
            r.fail("the page scrolls %s: a reload's scroll restoration would move the map under the pointer" % behavior)

        # Build, then request review.
        version = d.find_element(By.ID, "build-version").get_attribute("value")
        r.submit(d.find_element(By.ID, "build-button"))
        sha = d.find_elements(By.ID, "built-sha256")
        if not sha:
            r.fail("the build did not succeed: " + r.text()[:600])
        else:
            result["sha256"] = sha[0].get_attribute("textContent").strip()
            result["version"] = version
        r.check_page("built")
        button = d.find_elements(By.ID, "request-review")
        if not button:
            r.fail("no 'Request review' button after the build: " + r.text()[:400])
        else:
            r.submit(button[0])
            if "now waiting for review" not in r.text():
                r.fail("requesting review did not make the version pending: " + r.text()[:300])
            r.check_page("review-requested")
        # "Download as a folder", with the browser's session cookie: the tour folder for the command line.
        cookie = "; ".join("%s=%s" % (c["name"], c["value"]) for c in d.get_cookies())
        request = urllib.request.Request(base + draft + "/folder.zip", headers={"Cookie": cookie})
        with urllib.request.urlopen(request, timeout=30) as response, open(folder_zip, "wb") as out:
            out.write(response.read())
        review(r, base, user, password, reviewer, reviewer_password, result)
        odd_sheet(r, base, user, password, shots)
        no_script_upload(r, base, user, password, draft, shots)
    except Exception as error:  # a step that could not run is a failure, with the page it was on
        r.crashed(error)
    return r.finish(result)


if __name__ == "__main__":
    sys.exit(main())
