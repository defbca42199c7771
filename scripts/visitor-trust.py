#!/usr/bin/env python3
"""The trust settings change while the visitor app stays open (issue #53, row 14), in headless Chromium.

Three tours are released, each signed by the reviewers ken and lee. The server is then started
three times on one address with other trust settings (config.json), while one tab of the app stays
open on one document the whole time (only its address's #fragment changes; the test checks that the
page was never loaded again, so the service worker that controls it is the one of the start):

1. ken and lee trusted, 1 signature needed: the first tour installs;
2. a third reviewer's key added, 3 signatures needed: the second tour is refused (2 valid of 3) —
   the new settings apply on the next check, not once every tab is closed (a service worker
   answering config.json from its copy kept the first settings, and installed it);
3. the same keys, 1 signature needed: the app keeps asking for 3 (the highest it has seen),
   refuses the third tour (2 of 3) and says that the server lowered the number and the app keeps 3.

The remembered threshold (IndexedDB) and the service worker's kept copy of config.json (the last
one served) are read back at the end. axe-core on each view.

usage: /usr/bin/python3 scripts/visitor-trust.py [--bin TRAILPACK] [--app FOLDER] [--shots DIR] [--keep DIR]
--bin: the trailpack binary (default .build/debug/trailpack); --app: the folder holding the visitor
app's files (app/), served with --visitor-app-files (default Sources/TrailPackVisitor of this checkout).
Prints a JSON summary; exit 0 when every check passed, 1 otherwise.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module  # noqa: E402

walkthrough = import_module("visitor-walkthrough")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOURS = [  # (fixture, package id, version)
    ("santiam-wagon-road", "gov.usda.fs.willamette.santiam-wagon-road", "1.0.0"),
    ("family-hikes", "gov.usda.fs.willamette.family-hikes", "3"),
    ("colorado-fourteeners", "org.coloradopeaks.fourteeners", "2024.1"),
]
SITES = ["willamette-mckenzie-river", "willamette-sweet-home", "colorado-peak-checklists"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`trailpack serve` on one fixed port, started again with other trust settings."""

    def __init__(self, binary, app, work):
        self.binary, self.app, self.work = binary, app, work
        self.data = os.path.join(work, "data")
        self.port = free_port()
        self.base = "http://127.0.0.1:%d" % self.port  # a secure origin for the app (service worker, storage)
        self.process = None
        self.tokens = {}
        self.starts = 0

    def run(self, *args):
        out = subprocess.run([self.binary] + list(args), capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError("trailpack %s: %s %s" % (" ".join(args), out.stdout, out.stderr))
        return out.stdout

    def set_up(self):
        """ken and lee (reviewers with keys), maria (publisher of the three sites), root; their tokens."""
        for name in ("ken", "lee", "stranger"):
            self.run("keygen", "-s", self.path(name + ".key"), "-p", self.path(name + ".pub"), "--unencrypted")
        admin = lambda *a: self.run("admin", a[0], a[1], "--data", self.data, "--create", *a[2:])  # noqa: E731
        admin("user", "add", "maria", "--role", "publisher")
        admin("user", "add", "ken", "--role", "reviewer", "--public-key", self.path("ken.pub"))
        admin("user", "add", "lee", "--role", "reviewer", "--public-key", self.path("lee.pub"))
        for site in SITES:
            self.run("admin", "--data", self.data, "site", "add", site)
            self.run("admin", "--data", self.data, "grant", "maria", site)
        for user in ("maria", "ken", "lee"):
            self.tokens[user] = admin("token", "issue", user).strip()

    def path(self, name):
        return os.path.join(self.work, name)

    def trusted(self, name, keys):
        """A folder of the named reviewers' .pub files (what --visitor-trusted-key takes)."""
        folder = self.path(name)
        os.makedirs(folder, exist_ok=True)
        for key in keys:
            shutil.copy(self.path(key + ".pub"), os.path.join(folder, key + ".pub"))
        return folder

    def start(self, approvals, trusted):
        self.stop()
        self.starts += 1
        log = open(self.path("serve-%d.log" % self.starts), "w")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--data", self.data, "--port", str(self.port), "--approvals", str(approvals),
             "--no-malware-scan", "--visitor-trusted-key", trusted, "--visitor-app-files", self.app],
            stdout=log, stderr=log)
        for _ in range(300):
            try:
                urllib.request.urlopen(self.base + "/visit/config.json", timeout=2).read()
                return
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.1)
        raise RuntimeError("the server did not start: see " + self.path("serve-%d.log" % self.starts))

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def call(self, method, path, user, body=None):
        request = urllib.request.Request(self.base + path, data=body, method=method,
                                         headers={"Authorization": "Bearer " + self.tokens[user]})
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def release(self, package, package_id, version):
        """Upload, review start, ken's and lee's signed approvals, release (as VisitorAppTests.release)."""
        path = "/v1/admin/packages/%s/versions/%s" % (package_id, version)
        with open(package, "rb") as f:
            steps = [self.call("POST", "/v1/admin/packages", "maria", f.read())]
        steps.append(self.call("POST", path + "/start", "maria"))
        for reviewer in ("ken", "lee"):
            signature = self.path("%s-%s.minisig" % (reviewer, package_id))
            self.run("sign", package, "-s", self.path(reviewer + ".key"), "-o", signature)
            with open(signature, encoding="utf-8") as f:
                body = json.dumps({"signature": f.read()}).encode()
            steps.append(self.call("POST", path + "/approve", reviewer, body))
        steps.append(self.call("POST", path + "/push", "maria"))
        if [s[0] for s in steps] != [201, 200, 200, 200, 200]:
            raise RuntimeError("releasing %s: %s" % (package_id, steps))


class Trust(walkthrough.Walk):
    MARK = "trust-tab-%d" % os.getpid()

    def page(self, fragment):
        """Goes to #fragment of the open document (never a load of the page: only the fragment changes)."""
        self.driver.execute_script("location.hash = arguments[0]", fragment)

    def same_document(self):
        return self.driver.execute_script("return window.__trustTab === arguments[0]", self.MARK)

    def worker(self):
        return self.driver.execute_async_script(
            "var done = arguments[arguments.length - 1];"
            "navigator.serviceWorker.getRegistration().then((r) => done({"
            " controlled: Boolean(navigator.serviceWorker.controller),"
            " waiting: Boolean(r && r.waiting), installing: Boolean(r && r.installing)}),"
            " (e) => done({error: String(e)}));")

    def remembered(self):
        return self.driver.execute_async_script(
            "var done = arguments[arguments.length - 1];"
            "const open = indexedDB.open('trailpack');"
            "open.onsuccess = () => { const get = open.result.transaction('library').objectStore('library').get('trust');"
            " get.onsuccess = () => done(get.result ?? null); get.onerror = () => done('error'); };"
            "open.onerror = () => done('error');")

    def install(self, package_id, what):
        """The tour's page, Download, and the page's words once the install ended (installed or refused)."""
        self.page("#/tours")
        self.wait(lambda d: self.text("main h1") or self.text("main"), "My tours")
        self.page("#/package/" + package_id)
        self.click_link("Download", 60)
        ended = self.wait(lambda d: self.text("main .notice-ok") or self.text("main .notice-error"),
                          "the end of the install of " + what, 120)
        return ended or "", self.text("main .install-status")

    def run(self):
        d, c = self.driver, self.config
        server = c["server"]
        (a, a_id, _), (b, b_id, _), (_, c_id, _) = TOURS
        server.start(1, c["trusted"]["ken+lee"])
        d.get(self.base + "/visit/")
        self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "main .card a"), "the list of sites")
        d.execute_async_script("var done = arguments[arguments.length - 1];"
                               "navigator.serviceWorker.ready.then(() => done(true));")
        # The page is taken over by its worker (clients.claim) before anything is checked.
        self.wait(lambda d: d.execute_script("return Boolean(navigator.serviceWorker.controller)"),
                  "the service worker controlling the page")
        d.execute_script("window.__trustTab = arguments[0]", self.MARK)
        self.summary["phases"] = []

        # 1. One signature needed, ken and lee trusted: the tour signed by both installs.
        words, _ = self.install(a_id, "the first tour (threshold 1)")
        self.summary["phases"].append({"served": 1, "trusted": ["ken", "lee"], "words": words})
        if "on your phone" not in words:
            self.fail("with 1 signature needed, the first tour was not installed: %r" % words)
        self.check_view("t01-threshold-1-installed")

        # 2. The server now trusts a third key and asks for 3 signatures: the next check applies it.
        server.start(3, c["trusted"]["ken+lee+stranger"])
        words, _ = self.install(b_id, "the second tour (threshold 3)")
        self.summary["phases"].append({"served": 3, "trusted": ["ken", "lee", "stranger"], "words": words,
                                       "worker": self.worker(), "sameDocument": self.same_document()})
        if "not signed by enough" not in words or "(2 of 3)" not in words:
            self.fail("with 3 signatures needed, the second tour was not refused as signed by 2 of 3: %r" % words)
        self.check_view("t02-threshold-3-refused")

        # 3. The server lowers it to 1 again: the app keeps 3, refuses, and says so.
        server.start(1, c["trusted"]["ken+lee+stranger"])
        words, status = self.install(c_id, "the third tour (served 1, kept 3)")
        notice = self.text("main .install-status .notice-info")
        self.summary["phases"].append({"served": 1, "trusted": ["ken", "lee", "stranger"], "words": words,
                                       "notice": notice, "sameDocument": self.same_document()})
        if "not signed by enough" not in words or "(2 of 3)" not in words:
            self.fail("after the server lowered its threshold, the third tour was not refused as 2 of 3: %r" % words)
        if "from 3 to 1" not in notice or "keeps asking for 3" not in notice:
            self.fail("no notice that the server lowered its threshold and the app keeps 3: %r" % status)
        self.check_view("t03-lower-threshold-kept")

        # The worker's kept copy (for offline use) follows the network's last answer.
        kept = self.driver.execute_async_script(
            "var done = arguments[arguments.length - 1];"
            "(async () => { const name = (await caches.keys()).find((n) => n.startsWith('trailpack-visitor-'));"
            " const answer = name && await (await caches.open(name)).match(new URL('config.json', location.href).href);"
            " return answer ? (await answer.json()).threshold : null; })().then(done, (e) => done('error: ' + e));")
        self.summary["keptCopyThreshold"] = kept
        if kept != 1:
            self.fail("the service worker's kept copy of config.json says threshold %r, not the last served 1" % (kept,))
        if not self.same_document():
            self.fail("the page was loaded again during the test: the settings did not reach an open app")
        remembered = self.remembered()
        self.summary["remembered"] = remembered
        if not isinstance(remembered, dict) or remembered.get("threshold") != 3:
            self.fail("the remembered threshold is %r, not 3" % (remembered,))
        tours = [n for n in self.opfs_names() if n.endswith(".zip") or n.endswith(".part")]
        self.summary["storage"] = tours
        if len(tours) != 1:
            self.fail("stored packages: %r (only the first tour should be)" % tours)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build/debug/trailpack"))
    parser.add_argument("--app", default=os.path.join(ROOT, "Sources/TrailPackVisitor"))
    parser.add_argument("--shots", default=os.path.join(ROOT, "out/screenshots/visitor-trust"))
    parser.add_argument("--keep", help="work in this folder and keep it (the servers' logs, the data)")
    args = parser.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="visitor-trust-")
    os.makedirs(work, exist_ok=True)
    server = Server(os.path.abspath(args.bin), os.path.join(os.path.abspath(args.app), "app"), work)
    walk = None
    try:
        server.set_up()
        trusted = {"ken+lee": server.trusted("trusted-ken-lee", ["ken", "lee"]),
                   "ken+lee+stranger": server.trusted("trusted-all", ["ken", "lee", "stranger"])}
        packages = []
        for fixture, package_id, version in TOURS:
            out = server.path(fixture + ".zip")
            server.run("build", os.path.join(ROOT, "fixtures", fixture), "-o", out, "-q")
            packages.append((out, package_id, version))
        server.start(2, trusted["ken+lee"])
        for package in packages:
            server.release(*package)
        walk = Trust({"base": server.base, "shots": args.shots, "server": server, "trusted": trusted})
        try:
            walk.run()
        except Exception as error:  # a failed step: reported with the screenshot of where it stopped
            walk.shot("error")
            walk.fail("the walkthrough stopped: %r" % error)
    finally:
        if walk:
            walk.close()
        server.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if walk is None:
        return 1
    walk.summary["failures"] = walk.failures
    print(json.dumps(walk.summary))
    return 1 if walk.failures else 0


if __name__ == "__main__":
    sys.exit(main())
