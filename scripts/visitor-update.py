#!/usr/bin/env python3
"""An update after a text fix, in the visitor app, measured from the access log (issue #50, part 1).

In headless Chromium (390x844): santiam 1.0.0 is installed from the visitor app; 1.0.1 (one
stop's description changed, built with another SOURCE_DATE_EPOCH) is published; the tour's page
offers the update and the visitor takes it. The app puts 1.0.1 together by part (js/updater.js);
every request goes through nginx in front of `trailpack serve`, and nginx's access log counts the
bytes of each answer. Checks: the update was by part, every request for the package during the
update is a single range with If-Range on the package's ETag answered 206, the tour installed is
1.0.1 with the catalog's SHA-256 (the app refuses anything else), 1.0.0's file is gone, and the
package's bytes moved are at most --target of the package (the issue's 2 %). axe-core on each view.

usage: /usr/bin/python3 scripts/visitor-update.py [--bin TRAILPACK] [--app FOLDER] [--target 0.02]
    [--shots DIR] [--keep DIR]
--bin: the trailpack binary (default .build/debug/trailpack); --app: the folder served as the
visitor app's resources (default Sources/TrailPackVisitor of this checkout: the binary is copied
to a temporary folder next to a link to it, so the app's files are this checkout's).
Prints a JSON summary (bytes moved, the package's size, the ratio, each request, the access log's
first line of the update: updateLogLine); exit 0 when every check passed, 1 otherwise. With --keep,
DIR holds access.log and v1.zip, v2.zip.
"""
import argparse
import hashlib
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
import urllib.request

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module  # noqa: E402

walkthrough = import_module("visitor-walkthrough")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOUR = "gov.usda.fs.willamette.santiam-wagon-road"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build(binary, work, name, version, epoch, description=None):
    """The santiam fixture as `version`, built with SOURCE_DATE_EPOCH=epoch; the package's path."""
    tour = os.path.join(work, name)
    shutil.copytree(os.path.join(ROOT, "fixtures", "santiam-wagon-road"), tour)
    path = os.path.join(tour, "tour.json")
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    data["version"] = version
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
    if description:
        path = os.path.join(tour, "waypoints", "02-cascadia", "waypoint.json")
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        data["description"]["en"] = description
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, ensure_ascii=False)
    out = os.path.join(work, name + ".zip")
    subprocess.run([binary, "build", tour, "-o", out, "-q"], check=True,
                   env={"PATH": "/usr/bin:/bin", "SOURCE_DATE_EPOCH": str(epoch)})
    return out


class Stack:
    """`trailpack serve` with this checkout's app files, behind nginx writing an access log."""

    def __init__(self, binary, app, work):
        self.work = work
        self.binary = binary
        self.app = os.path.join(app, "app")
        self.token = hashlib.sha256(os.urandom(16)).hexdigest()
        with open(os.path.join(work, "token"), "w") as f:
            f.write(self.token)
        self.out = open(os.path.join(work, "serve.out"), "w+")
        self.server = subprocess.Popen(
            [self.binary, "serve", "--data", os.path.join(work, "data"), "--port", "0", "--admin-token-file",
             os.path.join(work, "token"), "--approvals", "0", "--no-malware-scan",
             "--visitor-app-files", self.app],
            stdout=self.out, stderr=open(os.path.join(work, "serve.log"), "w"))
        upstream = None
        for _ in range(300):
            self.out.seek(0)
            found = re.search(r"http://[0-9.]+:([0-9]+)", self.out.read())
            if found:
                upstream = int(found.group(1))
                break
            time.sleep(0.1)
        if upstream is None:
            raise RuntimeError("the server did not start: see " + os.path.join(work, "serve.log"))
        self.upstream = "http://127.0.0.1:%d" % upstream
        port = free_port()
        tmp = os.path.join(work, "nginx-tmp")
        os.makedirs(tmp)
        self.log = os.path.join(work, "access.log")
        with open(os.path.join(work, "nginx.conf"), "w") as f:
            f.write("""
master_process off;
daemon off;
pid %(work)s/nginx.pid;
error_log %(work)s/nginx.err;
events { worker_connections 64; }
http {
  log_format bytes '$request_method $uri $status $body_bytes_sent $bytes_sent "$http_range" "$http_if_range"';
  access_log %(log)s bytes;
  client_body_temp_path %(tmp)s; proxy_temp_path %(tmp)s; fastcgi_temp_path %(tmp)s; uwsgi_temp_path %(tmp)s;
  scgi_temp_path %(tmp)s;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:%(port)d;
    location / { proxy_pass %(upstream)s; proxy_http_version 1.1; proxy_set_header Host $http_host;
                 proxy_request_buffering off; proxy_buffering off; }
  }
}
""" % {"work": work, "log": self.log, "tmp": tmp, "port": port, "upstream": self.upstream})
        self.nginx = subprocess.Popen(["/usr/sbin/nginx", "-c", os.path.join(work, "nginx.conf"), "-p", work],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # 127.0.0.1 is a secure origin for the app (service worker, storage).
        self.base = "http://127.0.0.1:%d" % port
        for _ in range(100):
            try:
                urllib.request.urlopen(self.base + "/v1/sites", timeout=2).read()
                break
            except OSError:
                time.sleep(0.1)

    def upload(self, package):
        with open(package, "rb") as f:
            request = urllib.request.Request(self.upstream + "/v1/admin/packages", data=f.read(), method="POST",
                                             headers={"Authorization": "Bearer " + self.token})
        with urllib.request.urlopen(request, timeout=120) as answer:
            if answer.status != 201:
                raise RuntimeError("upload of %s: HTTP %d" % (package, answer.status))

    def log_lines(self):
        with open(self.log, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()

    def stop(self):
        for process in (self.nginx, self.server):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


LINE = re.compile(r'^(\S+) (\S+) (\d+) (\d+) (\d+) "([^"]*)" "([^"]*)"$')


class Update(walkthrough.Walk):
    def installed(self):
        """The app's list of installed tours (IndexedDB), as the app keeps it."""
        return self.driver.execute_async_script(
            "var done = arguments[arguments.length - 1];"
            "import(location.origin + '/visit/js/storage.js').then((s) => s.readLibrary())"
            ".then((lib) => done(lib.tours), (e) => done('error: ' + e));")

    @staticmethod
    def blob_requests(lines, sha):
        """The access log's answers for the package `sha` (status, bytes, Range, If-Range) and the bytes of all others."""
        requests, other = [], 0
        for line in lines:
            m = LINE.match(line)
            if not m:
                continue
            method, uri, status, body, sent, rng, if_range = m.groups()
            if uri == "/v1/blobs/%s.zip" % sha:
                requests.append({"status": int(status), "body": int(body), "sent": int(sent), "range": rng,
                                 "ifRange": if_range.replace("\\x22", '"')})
            else:
                other += int(sent)
        return requests, other

    def run(self):
        d, c = self.driver, self.config
        stack = c["stack"]
        stack.upload(c["v1"])
        d.get(self.base + "/visit/#/package/" + TOUR)
        self.click_link("Download")
        self.wait(lambda d: "on your phone" in self.text("main .notice-ok"), "1.0.0 installed", 120)
        self.check_view("30-installed-1.0.0")
        before = self.installed()
        if not (isinstance(before, list) and [t["version"] for t in before] == ["1.0.0"]):
            self.fail("after the first download the phone holds %r" % before)

        stack.upload(c["v2"])
        # (The same address again would not load the page: My tours first, then the tour's page.)
        d.get(self.base + "/visit/#/tours")
        self.wait(lambda d: "Santiam" in self.text("main"), "My tours")
        opened = len(stack.log_lines())
        d.get(self.base + "/visit/#/package/" + TOUR)
        self.wait(lambda d: any(b.text.startswith("Update to version 1.0.1")
                                for b in d.find_elements(By.CSS_SELECTOR, "main button")), "the update offered")
        # The page reads its route line and first photo out of the new package by ranges: those
        # requests are the page's, counted apart; the update's start with the click.
        self.wait(lambda d: self.text("main .route-summary") and d.find_elements(By.CSS_SELECTOR, "main .photo-slot img"),
                  "the tour page's route line and photo")
        time.sleep(1)
        mark = len(stack.log_lines())
        # (Where the update's lines start in access.log, for a reader of the log kept by --keep.)
        self.summary["updateLogLine"] = mark
        self.summary["pageRequests"] = self.blob_requests(stack.log_lines()[opened:mark], c["v2sha"])[0]
        self.check_view("31-update-offered")
        self.click_link("Update to version 1.0.1")
        self.wait(lambda d: "on your phone" in self.text("main .notice-ok"), "1.0.1 installed", 120)
        self.check_view("32-updated")
        notice = self.text("main .notice-ok")
        self.summary["notice"] = notice
        if "Updated with" not in notice:
            self.fail("the page does not say the update came by part: %r" % notice)
        after = self.installed()
        tours = after if isinstance(after, list) else []
        if [t["version"] for t in tours] != ["1.0.1"] or tours[0]["sha256"] != c["v2sha"]:
            self.fail("after the update the phone holds %r" % after)
        else:
            self.summary["appReport"] = tours[0].get("update")
            if (tours[0].get("update") or {}).get("mode") != "by-part":
                self.fail("the update was not by part: %r" % tours[0].get("update"))
        names = self.opfs_names()
        if names != [c["v2sha"] + ".zip"]:
            self.fail("stored files after the update: %r (1.0.0's should be gone)" % names)

        # The bytes moved, from the access log: every answer for 1.0.1's package during the update.
        time.sleep(1)  # (nginx writes a line when the answer ends)
        requests, other = self.blob_requests(stack.log_lines()[mark:], c["v2sha"])
        page = self.summary["pageRequests"]
        self.summary["pageBodyBytes"] = sum(r["body"] for r in page)
        body = sum(r["body"] for r in requests)
        sent = sum(r["sent"] for r in requests)
        self.summary.update({
            "packageBytes": c["v2size"], "bodyBytes": body, "bytesWithHeaders": sent,
            "ratio": round(body / c["v2size"], 5), "ratioWithHeaders": round(sent / c["v2size"], 5),
            "requests": requests, "otherBytesDuringUpdate": other,
        })
        if not requests:
            self.fail("no request for the new package in the access log")
        for r in requests:
            if r["status"] != 206 or not re.fullmatch(r"bytes=\d+-\d+", r["range"]) or r["ifRange"] != '"%s"' % c["v2sha"]:
                self.fail("a request that is not one single range with If-Range answered 206: %r" % r)
        if sent > c["target"] * c["v2size"]:
            self.fail("the update moved %d bytes of %d (%.2f %%), more than %.1f %%"
                      % (sent, c["v2size"], 100.0 * sent / c["v2size"], 100 * c["target"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build/debug/trailpack"))
    parser.add_argument("--app", default=os.path.join(ROOT, "Sources/TrailPackVisitor"))
    parser.add_argument("--target", type=float, default=0.02)
    parser.add_argument("--shots", default=os.path.join(ROOT, "out/screenshots/visitor-update"))
    parser.add_argument("--keep", help="work in this folder and keep it (the access log, the packages)")
    args = parser.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="visitor-update-")
    os.makedirs(work, exist_ok=True)
    stack = None
    walk = None
    try:
        v1 = build(args.bin, work, "v1", "1.0.0", 1700000000)
        v2 = build(args.bin, work, "v2", "1.0.1", 1750000000,
                   description="The Cascadia stop: a typo fixed in this sentence, nothing else changed.")
        with open(v2, "rb") as f:
            data = f.read()
        stack = Stack(os.path.abspath(args.bin), os.path.abspath(args.app), work)
        config = {"base": stack.base, "shots": args.shots, "stack": stack, "v1": v1, "v2": v2,
                  "v2sha": hashlib.sha256(data).hexdigest(), "v2size": len(data), "target": args.target}
        walk = Update(config)
        try:
            walk.run()
        except Exception as error:  # a failed step: reported with the screenshot of where it stopped
            walk.shot("error")
            walk.fail("the update stopped: %r" % error)
    finally:
        if walk:
            walk.close()
        if stack:
            stack.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    walk.summary["failures"] = walk.failures
    print(json.dumps(walk.summary))
    return 1 if walk.failures else 0


if __name__ == "__main__":
    sys.exit(main())
