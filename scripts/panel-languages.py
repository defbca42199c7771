#!/usr/bin/env python3
"""A tour in two languages in the control panel, in headless Chromium, as a ranger and a reviewer use it.

The ranger imports the bilingual sample tour (English and Spanish) from its folder zip. The tour's page
lists its languages in plain words with a completeness meter for Spanish, and tabs (links with
aria-current) choose which language's texts the details form edits; the Spanish tab shows the Spanish
texts. On stop 2's Spanish tab the ranger rewrites the Spanish description and saves; on the
side-by-side page (English on the left) a Spanish stop name is changed. A malformed tag is refused in
plain words; French is added (its name shown as it is typed) and its meter starts at 0 %; a recording
is uploaded to stop 3 as French. Version 1.1.0 is built and sent to review; the reviewer's page shows
the languages, a meter per language and the Spanish changes under Spanish. axe-core runs on every page,
the browser console must stay clean, and a screenshot of each page goes to SHOTS.

usage: panel-languages.py BASE SHOTS TOUR_ZIP AUDIO PUBLISHER:PASSWORD REVIEWER:PASSWORD
prints one JSON line: {"draft": "/drafts/SITE/TOUR", "spanish": the Spanish description typed,
"sha256": the version built}; exit 1 with the failures on stderr.
"""
import json
import os
import re
import shutil
import sys
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module

walk = import_module("panel-walkthrough")

SPANISH = "Manantiales de agua con gas y una vega a la sombra: el campamento preferido de los viajeros."


def show(r, element_id):
    """Scrolls the part of the page a screenshot is about to the top of the window."""
    r.driver.execute_script(
        "document.documentElement.style.scrollBehavior = 'auto';"
        " document.getElementById(arguments[0]).scrollIntoView({block: 'start', behavior: 'instant'})", element_id)


def tab(r, tag):
    """Follows a language tab (a link) and waits for its page."""
    r.submit(r.driver.find_element(By.ID, "tab-" + tag))


def current_tab(r):
    return [a.get_attribute("id") for a in r.driver.find_elements(By.CSS_SELECTOR, "nav a[aria-current=page]")]


def main():
    base, shots, tour_zip, audio = sys.argv[1].rstrip("/"), *sys.argv[2:5]
    publisher, reviewer = (a.split(":", 1) for a in sys.argv[5:7])
    os.makedirs(shots, exist_ok=True)
    r = walk.Ranger(base, shots)
    d = r.driver
    result = {}
    work = tempfile.mkdtemp(prefix="panel-languages-")
    try:
        walk.sign_in(r, base, publisher[0], publisher[1])
        r.wait_for("#import-file")
        d.find_element(By.ID, "import-file").send_keys(tour_zip)
        r.submit(d.find_element(By.CSS_SELECTOR, "#import-form button[type=submit]"))
        r.wait_for("#tour-map")
        draft = re.sub(r"[?#].*$", "", d.current_url[len(base):])
        result["draft"] = draft

        # The tour's languages, in plain words, with a meter for Spanish; the tabs, English current.
        languages = d.find_element(By.ID, "language-list").text
        if "en — English" not in languages or "es — Spanish (español)" not in languages \
                or "default" not in languages:
            r.fail("the tour's languages are not listed in plain words: %r" % languages)
        meter = d.find_elements(By.ID, "meter-es")
        if not meter or meter[0].get_attribute("value") != "100":
            r.fail("no full completeness meter for Spanish: %s" % [m.get_attribute("outerHTML") for m in meter])
        label = d.find_element(By.CSS_SELECTOR, "label[for=meter-es]").text
        if not re.match(r"Spanish: (\d+) of \1 texts, 1 of 1 recordings, 8 of 8 other files", label):
            r.fail("the Spanish meter's words: %r" % label)
        if current_tab(r) != ["tab-en"]:
            r.fail("the English tab is not the current one: %s" % current_tab(r))
        show(r, "tour-languages")
        r.check_page("languages")

        # The Spanish tab shows the Spanish texts, the English beside them.
        tab(r, "es")
        if current_tab(r) != ["tab-es"]:
            r.fail("after choosing Spanish the current tab is %s" % current_tab(r))
        name = d.find_element(By.ID, "tour-name").get_attribute("value")
        if name != "Camino de Carretas de Santiam":
            r.fail("the Spanish tab shows the tour name %r" % name)
        if "Santiam Wagon Road" not in d.find_element(By.ID, "tour-name-source").text:
            r.fail("the Spanish tab does not show the English name beside it")
        if d.find_elements(By.ID, "tour-id"):
            r.fail("the Spanish tab shows the tour id, which is the same in every language")
        show(r, "tour-details")
        r.check_page("tour-spanish")

        # Stop 2, Spanish tab: the Spanish description rewritten and saved.
        d.get(base + draft + "/stops/2")
        r.wait_for("#tab-es")
        tab(r, "es")
        box = d.find_element(By.ID, "stop-description")
        if "manantiales" not in box.get_attribute("value"):
            r.fail("stop 2's Spanish tab does not show the Spanish description: %r" % box.get_attribute("value"))
        if box.get_attribute("lang") != "es":
            r.fail("the Spanish description field is not marked lang=es")
        box.clear()
        box.send_keys(SPANISH)
        r.submit(d.find_element(By.CSS_SELECTOR, "#stop-form button[type=submit].btn-primary"))
        if "The Spanish texts were saved" not in r.text() or current_tab(r) != ["tab-es"]:
            r.fail("saving the Spanish texts did not say so on the Spanish tab: %s" % r.text()[:300])
        if d.find_element(By.ID, "stop-description").get_attribute("value") != SPANISH:
            r.fail("the saved Spanish description is not shown again")
        result["spanish"] = SPANISH
        r.check_page("stop-spanish")

        # Side by side: English on the left, Spanish on the right; a stop name changed there.
        d.get(base + draft)
        r.submit(r.wait_for("#translate-es"))
        r.wait_for("#translate-form")
        left = d.find_element(By.ID, "stop-2-description-source").text
        right = d.find_element(By.ID, "stop-2-description").get_attribute("value")
        if not left.startswith("Soda springs") or right != SPANISH:
            r.fail("the side-by-side page shows %r beside %r" % (left[:40], right[:40]))
        field = d.find_element(By.ID, "stop-6-name")
        field.clear()
        field.send_keys("Lago Fish")
        r.check_page("translate")
        r.submit(d.find_element(By.ID, "save-translations"))
        if "The Spanish texts were saved" not in r.text() \
                or d.find_element(By.ID, "stop-6-name").get_attribute("value") != "Lago Fish":
            r.fail("the side-by-side page did not save: %s" % r.text()[:300])

        # A malformed tag is refused in plain words; French is added, its name shown while typing.
        d.get(base + draft + "#tour-languages")
        d.find_element(By.ID, "language-tag").send_keys("Spanish language")
        r.submit(d.find_element(By.ID, "add-language-button"))
        problem = d.find_elements(By.ID, "language-problem")
        if not problem or "is not a language tag" not in problem[0].text or "es for Spanish" not in problem[0].text:
            r.fail("a malformed tag was not refused in plain words beside the form: %s" % r.text()[:300])
        show(r, "tour-languages")
        r.check_page("tag-refused")
        d.find_element(By.ID, "language-tag").send_keys("fr")
        WebDriverWait(d, 10).until(lambda d: "French" in d.find_element(By.ID, "language-tag-name").text)
        if d.find_element(By.ID, "language-tag-name").text != "fr — French (français)":
            r.fail("the name shown under the tag: %r" % d.find_element(By.ID, "language-tag-name").text)
        r.submit(d.find_element(By.ID, "add-language-button"))
        if "fr — French (français)" not in d.find_element(By.ID, "language-list").text:
            r.fail("French is not listed after it was added")
        meter = d.find_elements(By.ID, "meter-fr")
        if not meter or meter[0].get_attribute("value") != "0":
            r.fail("French has no meter at 0 %")
        show(r, "tour-languages")
        r.check_page("french-added")

        # A recording for stop 3, uploaded as French (the tab's language is the upload's).
        d.get(base + draft + "/stops/3?lang=fr")
        choice = Select(r.wait_for("#upload-language")).first_selected_option.text
        if choice != "French (français)":
            r.fail("on the French tab the upload's language is %r" % choice)
        recording = os.path.join(work, "historia.wav")
        shutil.copyfile(audio, recording)
        old = d.find_element(By.TAG_NAME, "html")
        d.find_element(By.ID, "upload-files").send_keys(recording)
        r.wait_reload(old)
        cards = [c for c in d.find_elements(By.CSS_SELECTOR, "#stop-files .card") if "historia.wav" in c.text]
        if not cards or "in French (français)" not in cards[0].text:
            r.fail("the uploaded recording is not listed as French: %s" % [c.text for c in cards])
        else:
            # Its transcript, in French (the file's own text), written on the French tab.
            transcript = cards[0].find_element(By.CSS_SELECTOR, "textarea[id^=transcript-]")
            if transcript.get_attribute("lang") != "fr":
                r.fail("the French recording's transcript field is not marked lang=fr")
            transcript.send_keys("Des chants d'oiseaux près de Mountain House, sans paroles.")
            show(r, "stop-files")
            r.check_page("stop-french-upload")
            r.submit(d.find_element(By.CSS_SELECTOR, "#stop-form button[type=submit].btn-primary"))
            if "The French texts were saved" not in r.text():
                r.fail("the French transcript was not saved: %s" % r.text()[:300])

        # 1.1.0 built and sent to review.
        d.get(base + draft)
        version = r.wait_for("#build-version")
        version.clear()
        version.send_keys("1.1.0")
        r.submit(d.find_element(By.ID, "build-button"))
        sha = d.find_elements(By.ID, "built-sha256")
        if not sha:
            r.fail("the build failed: " + r.text()[:600])
            return r.finish(result)
        result["sha256"] = sha[0].get_attribute("textContent").strip()
        r.submit(d.find_element(By.ID, "request-review"))
        if "now waiting for review" not in r.text():
            r.fail("requesting review failed: " + r.text()[:300])

        # The reviewer: the languages, a meter for each, the Spanish changes under Spanish.
        walk.sign_in(r, base, reviewer[0], reviewer[1])
        d.get(base + "/reviews")
        links = d.find_elements(By.CSS_SELECTOR, "main table a")
        row = [a for a in links if a.get_attribute("href").endswith("/1.1.0")]
        if not row:
            r.fail("the reviewer's queue does not list 1.1.0")
            return r.finish(result)
        r.submit(row[0])
        r.wait_for("#review-sha256")
        names = d.find_element(By.ID, "review-language-names").text
        if names != "English (the default), Spanish (español), French (français)":
            r.fail("the review page's languages: %r" % names)
        for tag in ("es", "fr"):
            if not d.find_elements(By.ID, "review-meter-" + tag):
                r.fail("the review page has no meter for %s" % tag)
        changes = d.find_element(By.ID, "changes").text
        if "Languages: English, Spanish → English, Spanish, French; added French" not in changes:
            r.fail("the languages' change is not shown: %s" % changes[:600])
        spanish = d.find_elements(By.ID, "translation-changes-es")
        if not spanish or "Stop 2, Cascadia — description" not in spanish[0].text \
                or "Stop 6, Fish Lake — name: 'Fish Lake' → 'Lago Fish'" not in spanish[0].text \
                or not spanish[0].find_elements(By.CSS_SELECTOR, "ins"):
            r.fail("the Spanish changes are not grouped under Spanish: %s" % (spanish[0].text if spanish else changes))
        if "historia.wav (in French) added" not in changes:
            r.fail("the French recording is not among the changes: %s" % changes[:800])
        show(r, "changes")
        r.check_page("review-changes")
        show(r, "review-languages")
        r.check_page("review-languages")
    except Exception as error:  # a step that could not run is a failure, with the page it was on
        r.crashed(error)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return r.finish(result)


if __name__ == "__main__":
    sys.exit(main())
