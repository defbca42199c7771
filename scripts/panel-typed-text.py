#!/usr/bin/env python3
"""Nothing a ranger types is lost, tried in headless Chromium as a ranger works.

The ranger starts a tour from a spreadsheet zipped with its photos in a media/ folder (the photos
are found by name; a file the sheet names but the zip lacks is listed by row). On stop 1 a
description is typed and a photo chosen at once: the text is saved before the file goes, and is
there after the page reloads. Typed text saves itself ("Saved at …") and survives a reload. The
session then ends (its cookie is dropped, as when it times out): an autosave says so and keeps the
text; after signing in again in another tab the next autosave renews its token and saves. The
session ends again and the ranger presses "Save the stop": the sign-in page keeps the form, and
after signing in a page shows what was typed with a button that saves it. Every page lands on a
GET (303 after each form: no "Confirm Form Resubmission"). axe-core runs on every page, the browser
console must stay clean, and a screenshot of each page goes to SHOTS.

First an administrator, in the browser, adds the site and the ranger (a first password, the site to
make tours for); the ranger then signs in with that password.

usage: panel-typed-text.py BASE SHOTS PHOTO ADMIN:PASSWORD USER:PASSWORD
prints one JSON line: {"draft": "/drafts/SITE/TOUR", "description": the text saved last};
exit 1 with the failures on stderr.
"""
import json
import os
import re
import sys
import tempfile
import zipfile

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module

walk = import_module("panel-walkthrough")

SHEET = (
    "Stop,Latitude,Longitude,Description,Photo\r\n"
    "Trailhead,44.3922,-122.2441,Where the wagon road leaves the valley.,trailhead.png\r\n"
    "Fish Lake,44.4031,-121.9939,A lake bed that fills in spring.,lake.png\r\n"
    "House Rock,44.3930,-122.2450,An overhanging boulder.,house-rock.jpg\r\n"
)


def expected_console(r, *patterns):
    """Reads the console now: the failed loads these patterns name were meant (a refusal the page
    shows); anything else is a failure."""
    for entry in r.driver.get_log("browser"):
        message = entry.get("message", "")
        if entry.get("level") == "SEVERE" and not any(re.search(p, message) for p in patterns):
            r.fail("console error: %s" % message)


def status_text(d):
    found = d.find_elements(By.ID, "autosave-status")
    return found[0].text if found else ""


def wait_status(r, prefix, timeout=20):
    try:
        WebDriverWait(r.driver, timeout).until(lambda d: status_text(d).startswith(prefix))
    except Exception:
        r.fail("the save status never said %r; it says %r" % (prefix, status_text(r.driver)))


def description(d):
    return d.find_element(By.ID, "stop-description").get_attribute("value")


def type_into(d, element_id, text, clear=True):
    field = d.find_element(By.ID, element_id)
    if clear:
        field.clear()
    field.send_keys(text)


def outline(d):
    """The focused element's outline, as the browser draws it."""
    return d.execute_script(
        "var s = getComputedStyle(document.activeElement); return s.outlineStyle + ' ' + s.outlineWidth")


def check_map(r, d):
    """The editor's map by keyboard: focus visible on the map and a marker, a marker named and moved
    with the arrow keys (Escape puts it back, Enter saves), and a stop added without the page reloading."""
    page = d.find_element(By.TAG_NAME, "html")
    the_map = r.wait_for("#tour-map")
    if not the_map.is_displayed():
        r.fail("the map is not shown with JavaScript on")
    d.execute_script("arguments[0].focus()", the_map)
    d.execute_script("arguments[0].dispatchEvent(new KeyboardEvent('keydown', {key: 'Tab'}))", the_map)
    if not d.execute_script("return document.activeElement.id") == "tour-map" or "none" in outline(d):
        r.fail("the focused map shows no outline: %s" % outline(d))
    markers = d.find_elements(By.CSS_SELECTOR, "#tour-map .tp-stop-label")
    if len(markers) != 3:
        r.fail("the map shows %d markers, not 3" % len(markers))
        return
    label = markers[0].get_attribute("aria-label") or ""
    if not label.startswith("Stop 1: Trailhead") or markers[0].get_attribute("tabindex") != "0":
        r.fail("the first marker has no accessible name or cannot be focused: %r" % label)
    markers[0].send_keys(Keys.ARROW_RIGHT)
    if not markers[0] == d.switch_to.active_element or "none" in outline(d):
        r.fail("the focused marker shows no outline: %s" % outline(d))
    bar = d.find_element(By.ID, "move-bar").text
    if "Stop 1, Trailhead, moved" not in bar or "Save the new place" not in bar:
        r.fail("moving a marker by keyboard asks nothing: %r" % bar)
    d.execute_script("document.documentElement.style.scrollBehavior = 'auto';"
                     " document.getElementById('map-heading').scrollIntoView({block: 'start'})")
    d.save_screenshot(os.path.join(r.shots, "map-marker-moved-by-keyboard.png"))
    r.check_page("marker-moved-by-keyboard")
    markers[0].send_keys(Keys.ESCAPE)
    if d.find_element(By.ID, "move-bar").text:
        r.fail("Escape did not put the marker back")
    # A stop added by typing: no reload, the map keeps its zoom, the list and the markers grow.
    zoom = d.execute_script("return document.getElementById('tour-map')._leaflet_id")
    d.find_element(By.ID, "add-name").send_keys("Tombstone Prairie")
    d.find_element(By.ID, "add-latitude").send_keys("44.3955")
    d.find_element(By.ID, "add-longitude").send_keys("-122.1404")
    r.click(d.find_element(By.CSS_SELECTOR, "#add-stop button[type=submit]"))
    WebDriverWait(d, 20).until(lambda d: "Added stop 4" in d.find_element(By.ID, "add-status").text)
    WebDriverWait(d, 20).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#stop-list li")) == 4)
    if d.find_element(By.TAG_NAME, "html") != page:
        r.fail("adding a stop reloaded the page")
    if len(d.find_elements(By.CSS_SELECTOR, "#tour-map .tp-stop-label")) != 4:
        r.fail("the new stop has no marker")
    if d.execute_script("return document.getElementById('tour-map')._leaflet_id") != zoom:
        r.fail("the map was made again")
    d.execute_script("document.getElementById('map-heading').scrollIntoView({block: 'start'})")
    d.save_screenshot(os.path.join(r.shots, "map-stop-added-in-place.png"))
    r.check_page("stop-added-in-place")


def main():
    base, shots, photo = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
    admin, admin_password = sys.argv[4].split(":", 1)
    user, password = sys.argv[5].split(":", 1)
    os.makedirs(shots, exist_ok=True)
    r = walk.Ranger(base, shots)
    d = r.driver
    result = {}
    work = tempfile.mkdtemp(prefix="panel-typed-text-")
    try:
        # A sheet zipped with its photos in a media/ folder, one of them missing.
        sheet_zip = os.path.join(work, "wagon road stops.zip")
        with zipfile.ZipFile(sheet_zip, "w") as z:
            z.writestr("stops.csv", SHEET)
            z.write(photo, "media/trailhead.png")
            z.write(photo, "media/more/lake.png")
        # The administrator adds the site and the ranger, in the browser.
        walk.sign_in(r, base, admin, admin_password)
        d.get(base + "/admin")
        r.wait_for("#add-site")
        r.check_page("admin")
        d.find_element(By.ID, "new-site-id").send_keys("willamette-sweet-home")
        d.find_element(By.ID, "new-site-name").send_keys("Sweet Home Ranger District")
        r.submit(d.find_element(By.ID, "add-site-button"))
        if "Added the site Sweet Home Ranger District" not in r.text():
            r.fail("the site was not added: %r" % r.text()[:300])
        d.find_element(By.ID, "new-user").send_keys(user)
        Select(d.find_element(By.ID, "new-role")).select_by_value("publisher")
        Select(d.find_element(By.ID, "new-user-site")).select_by_value("willamette-sweet-home")
        d.find_element(By.ID, "new-password").send_keys(password)
        d.find_element(By.ID, "new-password2").send_keys(password)
        r.submit(d.find_element(By.ID, "add-person-button"))
        if "Added %s as publisher" % user not in r.text() or "They can sign in now" not in r.text():
            r.fail("the ranger was not added: %r" % r.text()[:300])
        r.check_page("admin-added-ranger")
        walk.sign_in(r, base, user, password)
        r.wait_for("#import-file")
        d.find_element(By.ID, "import-file").send_keys(sheet_zip)
        d.find_element(By.CSS_SELECTOR, "#import-form button[type=submit]").click()
        WebDriverWait(d, 30).until(lambda d: d.find_element(By.ID, "import-status").text.startswith("Not made"))
        expected_console(r, r"/drafts/import\?.* 422 ")
        r.check_page("refused-missing-photo")
        said = d.find_element(By.ID, "import-status").text
        if "row 4" not in said or "'house-rock.jpg' is not in the zip" not in said or "/tmp" in said:
            r.fail("the missing photo is not named by its row in the zip's words: %r" % said)
        with zipfile.ZipFile(sheet_zip, "a") as z:
            z.write(photo, "media/house-rock.jpg")
        d.find_element(By.ID, "import-file").clear()
        d.find_element(By.ID, "import-file").send_keys(sheet_zip)
        r.submit(d.find_element(By.CSS_SELECTOR, "#import-form button[type=submit]"))
        r.wait_for("#tour-map")
        r.check_page("imported")
        if "The tour was made from" not in r.text():
            r.fail("the editor does not say the tour was made: %r" % r.text()[:300])
        draft = re.sub(r"[?#].*$", "", d.current_url[len(base):])
        result["draft"] = draft
        check_map(r, d)

        # Stop 1: its photo came from media/; a description typed and a photo chosen at once.
        d.get(base + draft + "/stops/1")
        r.wait_for("#stop-description")
        if "trailhead.png" not in r.text():
            r.fail("stop 1 does not hold the photo found in media/: %r" % r.text()[:400])
        typed = "Typed just before choosing a photo."
        type_into(d, "stop-description", typed)
        old = d.find_element(By.TAG_NAME, "html")
        d.find_element(By.ID, "upload-files").send_keys(photo)
        r.wait_reload(old)
        r.wait_for("#stop-description")
        if description(d) != typed:
            r.fail("the text typed before the upload is gone: %r" % description(d))
        r.check_page("text-kept-through-upload")

        # Autosave: typed, saved by itself, still there after a reload.
        type_into(d, "stop-description", " Saved by itself.", clear=False)
        wait_status(r, "Saved at")
        d.refresh()
        r.wait_for("#stop-description")
        if description(d) != typed + " Saved by itself.":
            r.fail("the autosaved text is not there after a reload: %r" % description(d))

        # The session ends: the autosave says so and keeps the text; signing in again in another tab
        # renews this page's token, and the next autosave goes through.
        d.delete_cookie("trailpack_session")
        type_into(d, "stop-description", " Typed after the session ended.", clear=False)
        wait_status(r, "Not saved: your session has ended")
        expected_console(r, r"/stops/1 - .* 401 ", r"/session - .* 401 ")
        r.check_page("session-ended-autosave")
        if not d.find_elements(By.CSS_SELECTOR, "#autosave-status a[href='/login'][target=_blank]"):
            r.fail("the status offers no way to sign in again in a new tab")
        page = d.current_window_handle
        d.switch_to.new_window("tab")
        walk.sign_in(r, base, user, password)
        d.close()
        d.switch_to.window(page)
        type_into(d, "stop-description", " Back.", clear=False)
        wait_status(r, "Saved at")
        d.refresh()
        r.wait_for("#stop-description")
        expected = typed + " Saved by itself. Typed after the session ended. Back."
        if description(d) != expected:
            r.fail("the text typed while signed out was not saved after signing in again: %r" % description(d))

        # The session ends again and the ranger presses Save: the sign-in page keeps the form.
        d.delete_cookie("trailpack_session")
        final = "Written while the session had ended, then saved after signing in."
        d.execute_script("var f = document.getElementById('stop-description'); f.value = arguments[0];", final)
        r.submit(d.find_element(By.ID, "save-stop"))
        # (403: the autosave with the old session's token, before it asked for the new one.)
        expected_console(r, r"/stops/1 - .* 40[13] ", r"/session - .* 401 ")
        r.check_page("session-ended-sign-in")
        if "not saved yet" not in r.text():
            r.fail("the sign-in page does not say the form is kept: %r" % r.text()[:300])
        d.find_element(By.ID, "name").send_keys(user)
        d.find_element(By.ID, "password").send_keys(password)
        r.submit(d.find_element(By.CSS_SELECTOR, "form[action='/login'] button"))
        r.check_page("resume")
        if final not in r.text():
            r.fail("the page after signing in does not show what was typed: %r" % r.text()[:400])
        r.submit(d.find_element(By.ID, "resume-save"))
        r.wait_for("#stop-description")
        if description(d) != final:
            r.fail("the kept form was not saved: %r" % description(d))
        if "saved=1" not in d.current_url:
            r.fail("a save did not end on a GET page (303): %s" % d.current_url)
        result["description"] = description(d)
        r.check_page("resumed-and-saved")
    except Exception as error:  # noqa: BLE001 - any failure is reported with its page
        r.crashed(error)
    return r.finish(result)


if __name__ == "__main__":
    sys.exit(main())
