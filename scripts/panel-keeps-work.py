#!/usr/bin/env python3
"""Nothing is lost by a slip, tried in headless Chromium as a ranger and an administrator work.

The ranger starts a tour from a spreadsheet zipped with one photo (which has no alt text yet), names its
language (English) and adds Spanish, and types three Spanish texts (the tour's name and description on
the tour's Spanish tab, stop 2's description on its own). Removing Spanish asks first: a dismissed dialog
removes nothing; an accepted one removes it at once (no second question from the page). The tour's page
then lists Spanish under "Removed earlier, their texts kept", and "Add Spanish back" brings the three
texts back into the Spanish tab's fields. In a browser without JavaScript the server asks instead (a
confirmation page): "Keep Spanish" removes nothing, confirming removes it; added back, the texts return.
Removing stop 3 without JavaScript asks the same way, and confirming removes it; "Bring back" under
"Removed stops" puts it back as stop 3 (and it is removed again for the rest of the walk).

The photo without alt text is badged "Fix" on the tour's page, with a link to its place. Version 1.0.0
builds (the address is …/built/1.0.0: reloading it builds nothing, the same SHA-256 is shown), but
Request review is disabled, the blocking findings listed beside it. The alt text is given on the stop's
page (and the photo, removed there by mistake through the page's dialog, comes back with "Bring back",
its alt text with it), 1.0.1 is built and Request review leads back to the tour's page: "Review requested". The old
address of the build form (GET …/build) is the panel's 404 page with a link back to the tour. An
administrator issues a token: the address is /admin?issued=1#issued-token and the token is shown once;
reloading shows no token. axe-core runs on every page state (in both browsers), the browser console must
stay clean, and a screenshot of each goes to SHOTS.

usage: panel-keeps-work.py BASE SHOTS PHOTO PUBLISHER:PASSWORD ADMIN:PASSWORD
prints one JSON line (every value a string): {"draft": "/drafts/SITE/TOUR", "tour": its id, "spanish":
the Spanish tour description, "spanish_stop": stop 2's Spanish description, "restored": how many texts
came back, "removed_stop": the removed stop's name, "sha256_1.0.0", "sha256": 1.0.1's, "alt": the alt
text given}; exit 1 with the failures on stderr.
"""
import contextlib
import os
import re
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module

walk = import_module("panel-walkthrough")

SHEET = (
    "Stop,Latitude,Longitude,Description,Photo\r\n"
    "Trailhead,44.3922,-122.2441,Where the wagon road leaves the valley.,trailhead.png\r\n"
    "Fish Lake,44.4031,-121.9939,A lake bed that fills in spring.,\r\n"
    "House Rock,44.3930,-122.2450,An overhanging boulder.,\r\n"
)
SPANISH_NAME = "Camino de Carretas"
SPANISH = "El viejo camino de peaje sobre la cordillera de las Cascadas, en coche y a pie."
SPANISH_STOP = "El lecho de un lago que se llena en primavera."
ALT = "The trailhead sign beside the gravel road, firs behind it"


def show(r, element_id):
    """Scrolls the part of the page a screenshot is about to the top of the window."""
    r.driver.execute_script(
        "document.documentElement.style.scrollBehavior = 'auto';"
        " var e = document.getElementById(arguments[0]); if (e) { e.scrollIntoView({block: 'start', behavior: 'instant'}); }",
        element_id)


@contextlib.contextmanager
def driving(r, driver):
    """The Ranger's helpers (check_page, submit, text, wait_for) on another browser for a while."""
    old = r.driver
    r.driver = driver
    try:
        yield
    except Exception:
        driver.save_screenshot(os.path.join(r.shots, "failure-no-script.png"))
        raise
    finally:
        r.driver = old


# A browser without JavaScript runs no timers, which axe-core waits on: for its run only, a timer is
# a microtask (the page's own scripts stay off; axe-core is given by chromedriver, not the page).
TIMERS = """
window.setTimeout = function (f) { var a = Array.prototype.slice.call(arguments, 2);
  Promise.resolve().then(function () { f.apply(null, a); }); return 1; };
window.clearTimeout = function () {};
"""


def check_no_script_page(r, name):
    """check_page in the browser without JavaScript (axe-core, the console, a screenshot)."""
    WebDriverWait(r.driver, 20).until(lambda d: d.execute_script("return document.readyState") == "complete")
    r.driver.execute_script(TIMERS)
    r.check_page(name)


def expected_console(r, *patterns):
    """Reads the console now: the failed loads these patterns name were meant (a page answered with
    its status); anything else is a failure."""
    for entry in r.driver.get_log("browser"):
        message = entry.get("message", "")
        if entry.get("level") == "SEVERE" and not any(re.search(p, message) for p in patterns):
            r.fail("console error: %s" % message)


def languages(d):
    found = d.find_elements(By.ID, "language-list")
    return found[0].text if found else ""


def kept_words(d):
    found = d.find_elements(By.ID, "kept-languages")
    return found[0].text if found else ""


def notice(d):
    found = d.find_elements(By.CSS_SELECTOR, "main .alert[role=status]")
    return found[0].text if found else ""


def value(d, element_id):
    found = d.find_elements(By.ID, element_id)
    return found[0].get_attribute("value") if found else None


def spanish_texts(r, base, draft):
    """The Spanish tab's fields of the tour and of stop 2, as the browser now driven shows them."""
    d = r.driver
    d.get(base + draft + "?lang=es#tour-details")
    r.wait_for("#tour-description")
    tour = (value(d, "tour-name"), value(d, "tour-description"))
    d.get(base + draft + "/stops/2?lang=es")
    r.wait_for("#stop-description")
    return tour + (value(d, "stop-description"),)


def check_restored(r, base, draft, how):
    got = spanish_texts(r, base, draft)
    if got != (SPANISH_NAME, SPANISH, SPANISH_STOP):
        r.fail("%s: the Spanish texts typed before are not back in the Spanish tab's fields: %r" % (how, got))


def check_removed(r, how, count):
    """The tour's page after Spanish was removed: not listed, no Spanish tab, kept with an Add back button."""
    d = r.driver
    if "Spanish" in languages(d) or d.find_elements(By.ID, "tab-es"):
        r.fail("%s: Spanish is still the tour's after it was removed: %r" % (how, languages(d)))
    words = notice(d)
    if "Spanish (español) was removed" not in words or "%d translated texts are kept" % count not in words:
        r.fail("%s: the removal does not say the %d texts are kept: %r" % (how, count, words))
    kept = kept_words(d)
    if "Spanish (español): %d translated texts kept" % count not in kept or not d.find_elements(By.ID, "add-back-es"):
        r.fail("%s: no 'Add Spanish back' under the kept languages: %r" % (how, kept))
    elif d.find_element(By.ID, "add-back-es").text != "Add Spanish back":
        r.fail("%s: the add-back button says %r" % (how, d.find_element(By.ID, "add-back-es").text))


def add_back(r, how, count):
    d = r.driver
    r.submit(d.find_element(By.ID, "add-back-es"))
    words = notice(d)
    if "was added again, with the %d translated texts it had" % count not in words:
        r.fail("%s: adding Spanish back does not say its %d texts came back: %r" % (how, count, words))
    if "Spanish" not in languages(d) or d.find_elements(By.ID, "kept-languages"):
        r.fail("%s: after 'Add Spanish back' Spanish is not listed, or still listed as kept" % how)


def confirm_page(r, question, detail=None):
    """The server's confirmation page: the question, a button that confirms, a link that keeps."""
    d = r.driver
    asked = d.find_elements(By.ID, "confirm-question")
    if not d.find_elements(By.ID, "confirm-form") or not asked:
        r.fail("no confirmation page for %r: %s" % (question, r.text()[:300]))
        return False
    if question not in asked[0].text or (detail and detail not in asked[0].text):
        r.fail("the confirmation page asks %r, not %r / %r" % (asked[0].text, question, detail))
    if not d.find_elements(By.ID, "confirm-yes") or not d.find_elements(By.ID, "confirm-no"):
        r.fail("the confirmation page lacks its buttons")
        return False
    return True


def languages_with_script(r, base, draft, count):
    """Removing Spanish in the page's dialog: dismissed, nothing; accepted, removed at once; added back."""
    d = r.driver
    d.get(base + draft + "#tour-languages")
    button = r.wait_for("#remove-language-es")
    if d.find_element(By.XPATH, "//button[@id='remove-language-es']/ancestor::form").get_attribute("data-confirm") is None:
        r.fail("the form removing Spanish does not ask first (no data-confirm)")
    old = d.find_element(By.TAG_NAME, "html")
    r.click(button)
    alert = WebDriverWait(d, 10).until(EC.alert_is_present())
    if "Remove Spanish?" not in alert.text or "kept" not in alert.text:
        r.fail("the dialog asks %r" % alert.text)
    alert.dismiss()
    time.sleep(1)
    if d.find_element(By.TAG_NAME, "html") != old:
        r.fail("the dismissed dialog still sent the form")
        r.wait_for("#tour-languages")
    d.get(base + draft + "#tour-languages")
    r.wait_for("#language-list")
    if "es — Spanish (español)" not in languages(d) or d.find_elements(By.ID, "kept-languages"):
        r.fail("a dismissed dialog removed Spanish: %r" % languages(d))
    show(r, "tour-languages")
    r.check_page("remove-dismissed")

    old = d.find_element(By.TAG_NAME, "html")
    r.click(d.find_element(By.ID, "remove-language-es"))
    alert = WebDriverWait(d, 10).until(EC.alert_is_present())
    alert.accept()
    r.wait_reload(old)
    if d.find_elements(By.ID, "confirm-form"):
        r.fail("the dialog was asked, then the page asked again")
        r.check_page("asked-again")
        r.submit(d.find_element(By.ID, "confirm-yes"))
    r.wait_for("#tour-languages")
    check_removed(r, "with JavaScript", count)
    show(r, "tour-languages")
    r.check_page("removed-kept")

    add_back(r, "with JavaScript", count)
    show(r, "tour-languages")
    r.check_page("added-back")
    check_restored(r, base, draft, "with JavaScript")
    r.check_page("stop-2-spanish-back")


def languages_without_script(r, nojs, base, draft, count):
    """The same without JavaScript: the server's confirmation page; Keep removes nothing; confirmed, removed."""
    with driving(r, nojs):
        d = r.driver
        d.get(base + draft + "#tour-languages")
        r.submit(r.wait_for("#remove-language-es"))
        if confirm_page(r, "Remove Spanish (español) from", "Its %d translated texts are kept" % count):
            check_no_script_page(r, "no-script-confirm-language")
            r.submit(d.find_element(By.ID, "confirm-no"))
            r.wait_for("#tour-languages")
            if "es — Spanish (español)" not in languages(d) or d.find_elements(By.ID, "kept-languages"):
                r.fail("without JavaScript 'Keep Spanish' removed it: %r" % languages(d))
            if not d.current_url.startswith(base + draft):
                r.fail("'Keep Spanish' leads to %s, not the tour's page" % d.current_url)
            show(r, "tour-languages")
            check_no_script_page(r, "no-script-kept-spanish")
            r.submit(d.find_element(By.ID, "remove-language-es"))
            confirm_page(r, "Remove Spanish (español) from")
            r.submit(d.find_element(By.ID, "confirm-yes"))
            r.wait_for("#tour-languages")
            check_removed(r, "without JavaScript", count)
            show(r, "tour-languages")
            check_no_script_page(r, "no-script-removed-kept")
            add_back(r, "without JavaScript", count)
            show(r, "tour-languages")
            check_no_script_page(r, "no-script-added-back")
            check_restored(r, base, draft, "without JavaScript")


def stop_without_script(r, nojs, base, draft, result):
    """Removing stop 3 without JavaScript: the confirmation page, Keep, then confirmed."""
    with driving(r, nojs):
        d = r.driver
        d.get(base + draft + "/stops/3")
        remove = r.wait_for("section[aria-labelledby=stop-actions-heading] button[type=submit]")
        name = value(d, "stop-name") or "House Rock"
        result["removed_stop"] = name
        r.submit(remove)
        if not confirm_page(r, "Remove stop 3, %s?" % name):
            return
        check_no_script_page(r, "no-script-confirm-stop")
        r.submit(d.find_element(By.ID, "confirm-no"))
        if not d.current_url.split("?")[0].endswith(draft + "/stops/3") or value(d, "stop-name") != name:
            r.fail("'Keep the stop' does not lead back to stop 3: %s" % d.current_url)
        r.submit(r.wait_for("section[aria-labelledby=stop-actions-heading] button[type=submit]"))
        confirm_page(r, "Remove stop 3, %s?" % name)
        r.submit(d.find_element(By.ID, "confirm-yes"))
        r.wait_for("#stop-list")
        names = [e.text for e in d.find_elements(By.CSS_SELECTOR, "#stop-list li a")]
        if names != ["Trailhead", "Fish Lake"]:
            r.fail("after confirming the removal of stop 3 the stops are %s" % names)
        show(r, "stops-section")
        check_no_script_page(r, "no-script-stop-removed")
        # "Bring back" under "Removed stops" puts it back as stop 3; then removed again (the rest of the
        # walk has two stops).
        show(r, "removed-stops")
        r.submit(r.wait_for("#bring-back-1"))
        r.wait_for("#stop-list")
        names = [e.text for e in d.find_elements(By.CSS_SELECTOR, "#stop-list li a")]
        if names != ["Trailhead", "Fish Lake", name]:
            r.fail("after 'Bring back' the stops are %s" % names)
        if "%s is back, as stop 3." % name not in notice(d):
            r.fail("'Bring back' does not say so: %r" % notice(d))
        check_no_script_page(r, "no-script-stop-back")
        d.get(base + draft + "/stops/3")
        r.submit(r.wait_for("section[aria-labelledby=stop-actions-heading] button[type=submit]"))
        confirm_page(r, "Remove stop 3, %s?" % name)
        r.submit(d.find_element(By.ID, "confirm-yes"))
        r.wait_for("#stop-list")


def build(r, version):
    """Builds `version` from the tour's page now shown; its SHA-256, or None."""
    d = r.driver
    field = r.wait_for("#build-version")
    field.clear()
    field.send_keys(version)
    r.submit(d.find_element(By.ID, "build-button"))
    path = d.current_url.split("?")[0].split("#")[0]
    if not path.endswith("/built/" + version):
        r.fail("building %s leads to %s, not …/built/%s" % (version, d.current_url, version))
    sha = d.find_elements(By.ID, "built-sha256")
    if not sha:
        r.fail("building %s failed: %s" % (version, r.text()[:600]))
        return None
    return sha[0].get_attribute("textContent").strip()


def alt_text_and_review(r, base, draft, result):
    """The photo without alt text: Fix on the tour's page; 1.0.0 built, reloaded, review blocked; the
    alt text given; 1.0.1 built and sent to review."""
    d = r.driver
    d.get(base + draft)
    r.wait_for("#findings")
    result["tour"] = value(d, "tour-id") or ""
    items = [li for li in d.find_elements(By.CSS_SELECTOR, "#findings li") if "has no alt text" in li.text]
    if not items:
        r.fail("the photo without alt text is not among the tour's findings: %s" % r.text()[:600])
    else:
        badge = items[0].find_element(By.CSS_SELECTOR, ".badge")
        if badge.text != "Fix" or "text-bg-danger" not in badge.get_attribute("class"):
            r.fail("the missing alt text is badged %r (%s), not Fix" % (badge.text, badge.get_attribute("class")))
        links = items[0].find_elements(By.CSS_SELECTOR, "a[href]")
        if not links or "/stops/1" not in links[0].get_attribute("href"):
            r.fail("the missing alt text has no link to its stop: %s" % items[0].get_attribute("outerHTML"))
    show(r, "findings")
    r.check_page("fix-missing-alt")

    sha = build(r, "1.0.0")
    if sha is None:
        return
    result["sha256_1.0.0"] = sha
    result["built"] = notice(d)
    show(r, "main")
    r.check_page("built-1.0.0")
    # A reload is a GET of the stored version: nothing is built again (a second build of 1.0.0 would be
    # refused: the catalog holds it), the same package is shown, the build's own note was shown once.
    url = d.current_url
    d.refresh()
    r.wait_for("main")
    if d.title.startswith("No such page") or d.current_url != url:
        r.fail("reloading the built page shows %r at %s" % (d.title, d.current_url))
    again = d.find_elements(By.ID, "built-sha256")
    if not again or again[0].get_attribute("textContent").strip() != sha:
        r.fail("after a reload the built page does not show the same package: %s" % r.text()[:400])
    if d.find_elements(By.CSS_SELECTOR, "main .alert-danger"):
        r.fail("reloading the built page shows an error: %s" % r.text()[:400])
    result["reloaded"] = notice(d)
    button = d.find_elements(By.ID, "request-review")
    if not button or button[0].is_enabled() or button[0].get_attribute("aria-describedby") != "review-blockers":
        r.fail("Request review is not disabled with the reason: %s" % [b.get_attribute("outerHTML") for b in button])
    blockers = d.find_elements(By.ID, "review-blockers")
    if not blockers or "has no alt text" not in blockers[0].text or not blockers[0].find_elements(By.CSS_SELECTOR, "a[href]"):
        r.fail("the findings that block review are not listed: %s" % r.text()[:600])
        return
    show(r, "review-blockers")
    r.check_page("review-blocked")

    # The alt text, given where the link leads (the photo's field on stop 1).
    link = blockers[0].find_element(By.CSS_SELECTOR, "a[href]")
    if "/stops/1" not in link.get_attribute("href"):
        r.fail("the blocking finding on the built page links to %s, not to the photo on stop 1"
               % link.get_attribute("href")[len(base):])
        d.get(base + draft + "/stops/1#file-1")
    else:
        r.submit(link)
    field = r.wait_for("#alt-1")
    field.clear()
    field.send_keys(ALT)
    r.submit(d.find_element(By.CSS_SELECTOR, "#stop-form button[type=submit].btn-primary"))
    if "has no alt text" in r.text() or value(d, "alt-1") != ALT:
        r.fail("the alt text was not saved: %s" % r.text()[:300])
    result["alt"] = ALT
    r.check_page("alt-given")
    # The photo removed by mistake (the page's dialog asks first) comes back with "Bring back",
    # its alt text with it.
    old = d.find_element(By.TAG_NAME, "html")
    r.click(d.find_element(By.CSS_SELECTOR, "button[form=remove-1]"))
    WebDriverWait(d, 10).until(EC.alert_is_present()).accept()
    r.wait_reload(old)
    back = r.wait_for("#bring-back-file-button-1")
    if d.find_elements(By.ID, "alt-1") or "It is listed under \"Removed files\"" not in notice(d):
        r.fail("after removing the photo the stop still shows it, or says nothing: %r" % notice(d))
    show(r, "removed-files")
    r.check_page("file-removed")
    old = d.find_element(By.TAG_NAME, "html")
    r.click(back)
    r.wait_reload(old)
    if value(d, "alt-1") != ALT or " is back in stop 1." not in notice(d):
        r.fail("'Bring back' did not put the photo back with its alt text: %r, %r" % (value(d, "alt-1"), notice(d)))
    r.check_page("file-back")
    d.get(base + draft)
    r.wait_for("#build-version")
    if "has no alt text" in r.text():
        r.fail("the tour's page still asks for the alt text")
    sha = build(r, "1.0.1")
    if sha is None:
        return
    result["sha256"] = sha
    button = d.find_elements(By.ID, "request-review")
    if not button or not button[0].is_enabled() or d.find_elements(By.ID, "review-blockers"):
        r.fail("Request review is not offered for 1.0.1: %s" % r.text()[:400])
        return
    show(r, "main")
    r.check_page("built-1.0.1")
    r.submit(button[0])
    path, _, rest = d.current_url.partition("?")
    if path != base + draft or "saved=1" not in rest or not d.current_url.endswith("#review-state"):
        r.fail("requesting review leads to %s, not the tour's page at #review-state" % d.current_url)
    if "Review requested for version 1.0.1" not in notice(d):
        r.fail("the tour's page does not say review was requested: %r" % notice(d))
    r.check_page("review-requested")


def no_such_page(r, base, draft):
    """The old address of the build form, asked for as a page: the panel's 404 page, a link back."""
    d = r.driver
    cookie = "; ".join("%s=%s" % (c["name"], c["value"]) for c in d.get_cookies())
    request = urllib.request.Request(base + draft + "/build", headers={"Cookie": cookie, "Accept": "text/html"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            r.fail("GET %s/build answers %d, not 404" % (draft, response.status))
    except urllib.error.HTTPError as error:
        kind = error.headers.get("Content-Type", "")
        if error.code != 404 or not kind.startswith("text/html"):
            r.fail("GET %s/build answers %d %s, not a 404 page" % (draft, error.code, kind))
    d.get(base + draft + "/build")
    r.wait_for("main")
    # Chromium says the page's own 404 in the console: that one, and nothing else.
    expected_console(r, re.escape(base + draft + "/build") + r" - Failed to load resource: .* 404 ")
    if not d.title.startswith("No such page"):
        r.fail("the old build address shows %r, not 'No such page'" % d.title)
    back = d.find_elements(By.ID, "error-back")
    if not back or back[0].get_attribute("href") != base + draft:
        r.fail("the 404 page has no link back to the tour: %s" % [b.get_attribute("href") for b in back])
        r.check_page("no-such-page")
        return
    r.check_page("no-such-page")
    r.submit(back[0])
    if not d.find_elements(By.ID, "build-form"):
        r.fail("the 404 page's link does not lead to the tour's page: %s" % d.current_url)


def issue_token(r, base, admin, publisher):
    """An administrator issues a token: shown once on the page the form leads to; a reload shows none."""
    d = r.driver
    walk.sign_in(r, base, admin[0], admin[1])
    d.get(base + "/admin")
    r.wait_for("#person-%s" % publisher)
    r.submit(d.find_element(By.CSS_SELECTOR, "#person-%s form[action='/admin/tokens'] button" % publisher))
    if not d.current_url.endswith("/admin?issued=1#issued-token"):
        r.fail("issuing a token leads to %s" % d.current_url)
    token = d.find_elements(By.ID, "token-value")
    if not token or len(token[0].text.strip()) < 20:
        r.fail("the issued token is not shown: %s" % r.text()[:300])
    tokens = "#person-%s form[action$='/revoke'][action^='/admin/tokens/']" % publisher
    if len(d.find_elements(By.CSS_SELECTOR, tokens)) != 1:
        r.fail("%s has %d tokens listed after one was issued" % (publisher, len(d.find_elements(By.CSS_SELECTOR, tokens))))
    show(r, "issued-token")
    r.check_page("token-issued")
    d.refresh()
    r.wait_for("#people-heading")
    if not d.current_url.endswith("/admin?issued=1#issued-token"):
        r.fail("the reloaded page is %s" % d.current_url)
    if d.find_elements(By.ID, "token-value") or d.find_elements(By.ID, "issued-token"):
        r.fail("reloading the page shows the token again")
    if len(d.find_elements(By.CSS_SELECTOR, tokens)) != 1:
        r.fail("reloading the page issued another token: %d listed" % len(d.find_elements(By.CSS_SELECTOR, tokens)))
    r.check_page("token-reloaded")


def main():
    base, shots, photo = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
    publisher = sys.argv[4].split(":", 1)
    admin = sys.argv[5].split(":", 1)
    os.makedirs(shots, exist_ok=True)
    r = walk.Ranger(base, shots)
    d = r.driver
    result = {}
    work = tempfile.mkdtemp(prefix="panel-keeps-work-")
    nojs = None
    try:
        sheet_zip = os.path.join(work, "wagon road stops.zip")
        with zipfile.ZipFile(sheet_zip, "w") as z:
            z.writestr("Santiam Wagon Road.csv", SHEET)
            z.write(photo, "media/trailhead.png")
        walk.sign_in(r, base, publisher[0], publisher[1])
        r.wait_for("#import-file")
        d.find_element(By.ID, "import-file").send_keys(sheet_zip)
        r.submit(d.find_element(By.CSS_SELECTOR, "#import-form button[type=submit]"))
        r.wait_for("#tour-map")
        draft = re.sub(r"[?#].*$", "", d.current_url[len(base):])
        result["draft"] = draft
        # The tour's details, then its language named and Spanish added.
        d.find_element(By.ID, "tour-park").send_keys("Willamette National Forest")
        d.find_element(By.ID, "tour-description").send_keys("The 1860s toll road over the Cascades, by car and on foot.")
        r.submit(d.find_element(By.ID, "save-details"))
        for tag in ("en", "es"):
            d.find_element(By.ID, "language-tag").send_keys(tag)
            r.submit(d.find_element(By.ID, "add-language-button"))
        if "es — Spanish (español)" not in languages(d):
            r.fail("Spanish was not added: %r" % r.text()[:300])
        # Three Spanish texts: the tour's name and description, stop 2's description.
        r.submit(d.find_element(By.ID, "tab-es"))
        for element_id, text in (("tour-name", SPANISH_NAME), ("tour-description", SPANISH)):
            field = d.find_element(By.ID, element_id)
            field.clear()
            field.send_keys(text)
        r.submit(d.find_element(By.ID, "save-details"))
        d.get(base + draft + "/stops/2?lang=es")
        field = r.wait_for("#stop-description")
        field.clear()
        field.send_keys(SPANISH_STOP)
        r.submit(d.find_element(By.CSS_SELECTOR, "#stop-form button[type=submit].btn-primary"))
        if "The Spanish texts were saved" not in r.text():
            r.fail("stop 2's Spanish description was not saved: %s" % r.text()[:300])
        result["spanish"], result["spanish_stop"] = SPANISH, SPANISH_STOP
        if spanish_texts(r, base, draft) != (SPANISH_NAME, SPANISH, SPANISH_STOP):
            r.fail("the Spanish texts were not saved: %r" % (spanish_texts(r, base, draft),))
        count = 3
        result["restored"] = str(count)

        languages_with_script(r, base, draft, count)
        nojs = walk.signed_in_without_script(base, publisher[0], publisher[1])
        languages_without_script(r, nojs, base, draft, count)
        stop_without_script(r, nojs, base, draft, result)
        alt_text_and_review(r, base, draft, result)
        no_such_page(r, base, draft)
        issue_token(r, base, admin, publisher[0])
    except Exception as error:  # noqa: BLE001 - any failure is reported with its page
        r.crashed(error)
    finally:
        if nojs is not None:
            nojs.quit()
        for name in os.listdir(work):
            os.unlink(os.path.join(work, name))
        os.rmdir(work)
    return r.finish(result)


if __name__ == "__main__":
    sys.exit(main())
