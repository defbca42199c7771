#!/usr/bin/env python3
"""Drafts kept tidy (#52 item 4), in Chromium, with and without JavaScript.

    panel-drafts-tidy.py BASE SHOTS TRACK.gpx PUBLISHER:PASSWORD

With the page's script: the ranger starts a tour from a GPS file; the same file again is asked
about (the page says which draft it matches and makes none); with "Make a second draft" ticked, a
second one is made. The second is renamed (its address follows, its id stays) and duplicated; the
copy is deleted through the page's dialog and the home page offers it back under "Deleted drafts".
Without JavaScript, deleting the renamed draft asks on the server's confirmation page ("Keep it"
deletes nothing), and "Bring back" restores it. axe-core runs on every state (in both browsers),
the console must stay clean. Prints {"first": …, "second": …, "renamed": …, "copy": …}.
"""
import os
import re
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module

walk = import_module("panel-walkthrough")
keeps = import_module("panel-keeps-work")


def path_of(r):
    return re.sub(r"[?#].*$", "", r.driver.current_url[len(r.base):])


def tour_names(d):
    return [a.text for a in d.find_elements(By.CSS_SELECTOR, "main table a, main .list-group a, main li a")]


def import_track(r, track, again=False):
    """Sends the GPS file from the home page's "Start from a file" (the page's script PUTs it)."""
    d = r.driver
    d.get(r.base + "/")
    r.wait_for("#import-file").send_keys(track)
    if again:
        box = d.find_element(By.ID, "import-again")
        if not box.is_selected():
            r.click(box)
    old = d.find_element(By.TAG_NAME, "html")
    r.click(d.find_element(By.CSS_SELECTOR, "#import-form button[type=submit]"))
    return old


def main():
    base, shots, track = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
    user, password = sys.argv[4].split(":", 1)
    os.makedirs(shots, exist_ok=True)
    r = walk.Ranger(base, shots)
    d = r.driver
    result = {}
    nojs = None
    try:
        walk.sign_in(r, base, user, password)
        r.wait_reload(import_track(r, track))
        r.wait_for("#tour-map")
        result["first"] = path_of(r)
        # The same file again: asked, nothing made.
        import_track(r, track)
        WebDriverWait(d, 30).until(lambda d: "already" in d.find_element(By.ID, "import-status").text)
        said = d.find_element(By.ID, "import-status").text
        if result["first"] not in said or "Make a second draft" not in said:
            r.fail("importing the same file again does not name the draft it matches: %r" % said)
        # The PUT's 409 is the answer meant (Chromium logs it as a failed load).
        keeps.expected_console(r, re.escape(base + "/drafts/import?") + r".* - Failed to load resource: .* 409 ")
        r.check_page("same-file-asked")
        # Asked for: a second draft.
        r.wait_reload(import_track(r, track, again=True))
        r.wait_for("#tour-map")
        result["second"] = path_of(r)
        if result["second"] == result["first"]:
            r.fail("'Make a second draft' opened the first draft again")
        # Renamed: the address follows the name; the id stays.
        tour_id = d.find_element(By.ID, "tour-id").get_attribute("value")
        field = d.find_element(By.ID, "rename-name")
        field.clear()
        field.send_keys("Wagon Road, second walk")
        r.submit(d.find_element(By.ID, "rename-button"))
        result["renamed"] = path_of(r)
        if not result["renamed"].endswith("/wagon-road-second-walk"):
            r.fail("the renamed draft is at %s" % result["renamed"])
        if d.find_element(By.ID, "tour-id").get_attribute("value") != tour_id or "stays the same" not in keeps.notice(d):
            r.fail("renaming changed the tour's id, or does not say it stays: %r" % keeps.notice(d))
        r.check_page("renamed")
        # Duplicated: a new tour of its own.
        r.submit(d.find_element(By.ID, "duplicate-button"))
        result["copy"] = path_of(r)
        if result["copy"] == result["renamed"] or "This is a copy of" not in keeps.notice(d):
            r.fail("'Duplicate' did not open a copy: %s %r" % (result["copy"], keeps.notice(d)))
        r.check_page("duplicated")
        # The copy deleted through the page's dialog; the home page offers it back.
        r.submit_confirmed(d.find_element(By.ID, "delete-button"))
        r.wait_for("#deleted-drafts")
        if "was deleted" not in keeps.notice(d):
            r.fail("deleting does not say so: %r" % keeps.notice(d))
        keeps.show(r, "deleted-drafts")
        r.check_page("copy-deleted")
        # Without JavaScript: the server asks; Keep deletes nothing; confirmed, deleted; brought back.
        nojs = walk.signed_in_without_script(base, user, password)
        with keeps.driving(r, nojs):
            n = r.driver
            n.get(base + result["renamed"])
            r.submit(r.wait_for("#delete-button"))
            if keeps.confirm_page(r, "Delete the draft 'Wagon Road, second walk'?"):
                keeps.check_no_script_page(r, "no-script-delete-asked")
                r.submit(n.find_element(By.ID, "confirm-no"))
                if path_of(r) != result["renamed"]:
                    r.fail("'Keep it' does not lead back to the draft: %s" % n.current_url)
                r.submit(r.wait_for("#delete-button"))
                r.submit(n.find_element(By.ID, "confirm-yes"))
            r.wait_for("#deleted-drafts")
            buttons = [b for b in n.find_elements(By.CSS_SELECTOR, "#deleted-drafts button")
                       if b.text == "Bring back Wagon Road, second walk"]
            if not buttons:
                r.fail("the deleted draft is not offered back: %r" % n.find_element(By.ID, "deleted-drafts").text)
            else:
                keeps.check_no_script_page(r, "no-script-deleted")
                r.submit(buttons[0])
                if path_of(r) != result["renamed"] or "The draft is back" not in keeps.notice(n):
                    r.fail("'Bring back' did not restore the draft: %s %r" % (n.current_url, keeps.notice(n)))
                keeps.check_no_script_page(r, "no-script-brought-back")
    except Exception as error:  # noqa: BLE001 - any failure is reported with its page
        r.crashed(error)
    finally:
        if nojs is not None:
            nojs.quit()
    return r.finish(result)


if __name__ == "__main__":
    sys.exit(main())
