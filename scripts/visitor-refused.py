#!/usr/bin/env python3
"""A download refused by the reviewers' signatures, in headless Chromium (issue #50, part 4).

The server trusts fewer of the signers than it asks for (the test serves a stranger's key beside
one reviewer's): the app downloads the tour, finds too few valid signatures, deletes what arrived,
says so, and tells the server (the confirmation route, refused: "signatures"); after a reload the
tour's page says the version was refused and offers no Download button. axe-core on each view.

usage: visitor-refused.py CONFIG.json
CONFIG: {"base", "shots", "tour" (package id)}
Prints a JSON summary on standard output; exit 0 when every check passed, 1 otherwise.
"""
import sys

from selenium.webdriver.common.by import By

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from importlib import import_module  # noqa: E402

walkthrough = import_module("visitor-walkthrough")


class Refused(walkthrough.Walk):
    def run(self):
        d, c = self.driver, self.config
        d.get(self.base + "/visit/#/package/" + c["tour"])
        self.click_link("Download")
        message = self.wait(lambda d: self.text("main .notice-error"), "the refusal by the signatures", 120)
        self.summary["message"] = message
        if message and "not signed by enough" not in message:
            self.fail("the refusal's message: %r" % message)
        leftovers = [n for n in self.opfs_names() if n.endswith(".part") or n.endswith(".zip")]
        if leftovers:
            self.fail("the refused package left files in storage: %s" % leftovers)
        self.check_view("r01-refused-by-signatures")
        # Kept: after a reload the page says so and does not offer the same file again.
        d.get(self.base + "/visit/#/tours")
        self.wait(lambda d: self.text("main"), "My tours")
        d.get(self.base + "/visit/#/package/" + c["tour"])
        kept = self.wait(lambda d: "was refused on this phone" in self.text("main") and self.text("main"),
                         "the refusal kept after a reload", 30)
        self.summary["kept"] = bool(kept)
        offered = [b.text for b in d.find_elements(By.CSS_SELECTOR, "main a, main button")
                   if b.text.strip().startswith("Download")]
        if offered:
            self.fail("the refused version is offered again: %s" % offered)
        self.check_view("r02-refusal-kept")


if __name__ == "__main__":
    sys.exit(walkthrough.main(Refused))
