#!/usr/bin/env python3
"""The visitor app in headless Chromium against curl, on a 500 MB tour (the Santiam fixture with a
100 MB video at stop 2 and 400 MB of other recordings), served by a real `trailpack serve` on
loopback with one reviewer's signature required.

    visitor.py [--mb 500] [--out bench/results/visitor.json] [--update-only]

Rows: download + SHA-256 + BLAKE2b + signature check + install, as a rate against `curl -o` of the
same file (best of 3); tap to map on the installed tour (click to the first tile drawn); a 100 MB
video from tap to playing (its SHA-256 checked first); the JS heap's peak (Performance.getMetrics,
sampled while downloading and playing); an update by part after a one-sentence text fix, as the
bytes of the new package's answers in nginx's access log against the package's size (the Santiam
fixture as it is, about 1 MB: scripts/visitor-update.py's measurement; --update-only runs that row
alone). TRAILPACK_BENCH_BIN picks the trailpack binary.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import gen_data  # noqa: E402

BIN = os.environ.get("TRAILPACK_BENCH_BIN") or next(
    (p for p in (os.path.join(ROOT, ".build", "release", "trailpack"), os.path.join(ROOT, ".build", "debug", "trailpack"))
     if os.path.exists(p)), "trailpack")


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw)


def make_tour(work, total_mb):
    tour = os.path.join(work, "tour")
    shutil.copytree(os.path.join(ROOT, "fixtures", "santiam-wagon-road"), tour)
    rng = __import__("random").Random(29)
    stop2 = os.path.join(tour, "waypoints", "02-cascadia")
    # A real WebM (recorded by Chromium) padded to 100 MB: the player starts on its first clusters.
    run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "make-test-video.py"), os.path.join(work, "clip.webm"), "3"])
    with open(os.path.join(stop2, "walk.webm"), "wb") as f:
        f.write(open(os.path.join(work, "clip.webm"), "rb").read())
        gen_data.incompressible(f, (100 << 20) - f.tell(), rng)
    with open(os.path.join(stop2, "walk.vtt"), "w") as f:
        f.write("WEBVTT\n\n00:00.000 --> 00:03.000\nThe trail at Cascadia.\n")
    edit = json.load(open(os.path.join(stop2, "waypoint.json")))
    edit["assets"] += [{"file": "walk.webm", "title": "The trail", "captions": "walk.vtt", "transcript": "A marker moves."},
                       "walk.vtt"]
    json.dump(edit, open(os.path.join(stop2, "waypoint.json"), "w"), indent=1)
    rest = max(0, total_mb - 100) << 20
    stops = sorted(d for d in os.listdir(os.path.join(tour, "waypoints")) if not d.startswith("02-"))
    for i, stop in enumerate(stops):
        path = os.path.join(tour, "waypoints", stop)
        with open(os.path.join(path, "talk.mp3"), "wb") as f:
            f.write(b"ID3\x04\x00\x00\x00\x00\x00\x00")  # an MP3's tag header: the builder checks content
            gen_data.incompressible(f, rest // len(stops) - f.tell(), rng)
        w = json.load(open(os.path.join(path, "waypoint.json")))
        w["assets"].append({"file": "talk.mp3", "title": "The ranger's talk", "transcript": "A talk about the road."})
        json.dump(w, open(os.path.join(path, "waypoint.json"), "w"), indent=1)
    run([BIN, "build", tour, "-o", os.path.join(work, "tour.zip"), "-q"])
    return os.path.join(work, "tour.zip")


def serve(work, package, signatures=True):
    data = os.path.join(work, "data")

    def admin(*a):
        return run([BIN, "admin", "--data", data, "--create"] + list(a)).stdout.strip()
    run([BIN, "keygen", "-s", os.path.join(work, "rita.key"), "-p", os.path.join(work, "rita.pub"), "--unencrypted"])
    admin("user", "add", "maria", "--role", "publisher")
    admin("user", "add", "rita", "--role", "reviewer", "--public-key", os.path.join(work, "rita.pub"))
    admin("site", "add", "willamette-sweet-home", "Sweet Home Ranger District")
    admin("grant", "maria", "willamette-sweet-home")
    tokens = {u: admin("token", "issue", u) for u in ("maria", "rita")}
    out = open(os.path.join(work, "serve.out"), "w")
    server = subprocess.Popen([BIN, "serve", "--data", data, "--port", "0", "--approvals", "1", "--no-malware-scan",
                               "--max-upload-mb", "2048"]
                              + (["--visitor-trusted-key", os.path.join(work, "rita.pub")] if signatures else []),
                              stdout=out, stderr=subprocess.DEVNULL)
    for _ in range(200):
        text = open(os.path.join(work, "serve.out")).read()
        if "listening on" in text:
            break
        time.sleep(0.1)
    base = "http://" + text.split("http://")[1].split(" ")[0]

    def curl(method, path, user, *extra):
        return run(["curl", "-sf", "-X", method, "-H", "Authorization: Bearer " + tokens[user]] + list(extra) + [base + path])
    manifest = json.loads(run(["unzip", "-p", package, "manifest.json"]).stdout)
    version = "/v1/admin/packages/%s/versions/%s" % (manifest["id"], manifest["version"])
    curl("POST", "/v1/admin/packages", "maria", "--data-binary", "@" + package)
    curl("POST", version + "/start", "maria")
    run([BIN, "sign", package, "-s", os.path.join(work, "rita.key"), "-o", os.path.join(work, "rita.minisig")])
    body = json.dumps({"signature": open(os.path.join(work, "rita.minisig")).read()})
    curl("POST", version + "/approve", "rita", "-d", body)
    curl("POST", version + "/push", "maria")
    return server, base, manifest


def update_row():
    """scripts/visitor-update.py's measurement: santiam 1.0.0 installed in the app, 1.0.1 with one
    changed text published, updated by part behind nginx; its JSON summary."""
    done = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "visitor-update.py"), "--bin", BIN,
                           "--shots", os.path.join(ROOT, "out", "screenshots", "visitor-update-bench")],
                          capture_output=True, text=True)
    lines = done.stdout.strip().splitlines()
    summary = json.loads(lines[-1]) if lines else {}
    if done.returncode != 0 or "bodyBytes" not in summary:
        raise RuntimeError("visitor-update.py failed: %s %s" % (summary.get("failures"), done.stderr[-2000:]))
    return {
        "updatePackageBytes": summary["packageBytes"], "updateBodyBytes": summary["bodyBytes"],
        "updateBytesWithHeaders": summary["bytesWithHeaders"], "updateRequests": len(summary["requests"]),
        "updateRatio": summary["ratio"], "updateRatioWithHeaders": summary["ratioWithHeaders"],
    }


def print_update(rows):
    ratio = rows["updateRatioWithHeaders"]
    print("  update by part, one text fixed    %7d B of %d (%.2f %%; %.2f %% with headers, %d requests)"
          " (target <= 2 %%) %s" % (
              rows["updateBodyBytes"], rows["updatePackageBytes"], 100 * rows["updateRatio"], 100 * ratio,
              rows["updateRequests"], "met" if ratio <= 0.02 else "missed"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=500)
    parser.add_argument("--out", default=os.path.join(HERE, "results", "visitor.json"))
    parser.add_argument("--no-signatures", action="store_true",
                        help="no trusted keys: the app hashes SHA-256 only (what the signature check costs)")
    parser.add_argument("--update-only", action="store_true", help="only the update by part's row")
    args = parser.parse_args()
    if args.update_only:
        rows = update_row()
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        json.dump(rows, open(args.out, "w"), indent=1)
        print("visitor app, the update by part (headless Chromium behind nginx, loopback)")
        print_update(rows)
        return
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    work = tempfile.mkdtemp(prefix="visitor-bench-")
    server = None
    driver = None
    try:
        package = make_tour(work, args.mb)
        size = os.path.getsize(package)
        sha = run(["sha256sum", package]).stdout[:64]
        server, base, manifest = serve(work, package, signatures=not args.no_signatures)
        url = "%s/v1/blobs/%s.zip" % (base, sha)
        curl_times = []
        for _ in range(3):
            target = os.path.join(work, "curl.zip")
            started = time.perf_counter()
            run(["curl", "-sf", "-o", target, url])
            curl_times.append(time.perf_counter() - started)
            os.remove(target)
        curl_rate = size / min(curl_times)

        options = Options()
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=390,844", "--autoplay-policy=no-user-gesture-required"):
            options.add_argument(flag)
        options.binary_location = "/usr/bin/chromium"
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        driver.set_script_timeout(300)
        driver.execute_cdp_cmd("Performance.enable", {})
        heap = [0.0]

        def sample():
            metrics = {m["name"]: m["value"] for m in driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]}
            heap[0] = max(heap[0], metrics.get("JSHeapUsedSize", 0) / 1048576)

        def until(condition, timeout=600):
            deadline = time.time() + timeout
            while time.time() < deadline:
                sample()
                if condition():
                    return time.perf_counter()
                time.sleep(0.05)
            raise RuntimeError("timed out")

        def text(css):
            return " ".join(e.text for e in driver.find_elements(By.CSS_SELECTOR, css))

        driver.get(base + "/healthz")  # same origin, no CSP: a blob: worker may run here
        # The browser's own ceiling: the same download read by fetch in a worker, kept nowhere, hashed by nothing.
        fetch_seconds = driver.execute_async_script("""
            const [url, done] = arguments;
            const code = `onmessage = async (e) => { const t = performance.now(); const r = await fetch(e.data);
              const reader = r.body.getReader(); let n = 0;
              for (;;) { const { done, value } = await reader.read(); if (done) break; n += value.length; }
              postMessage((performance.now() - t) / 1000); };`;
            const w = new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
            w.onmessage = (e) => { w.terminate(); done(e.data); };
            w.onerror = () => done(null);
            w.postMessage(url);""", url)
        driver.get(base + "/visit/#/package/" + manifest["id"])
        button = None
        until(lambda: any(b.text.startswith("Download") for b in driver.find_elements(By.CSS_SELECTOR, "main button")))
        button = next(b for b in driver.find_elements(By.CSS_SELECTOR, "main button") if b.text.startswith("Download"))
        started = time.perf_counter()
        button.click()
        done = until(lambda: "on your phone" in text("main .notice-ok") or text("main .notice-error"))
        if text("main .notice-error"):
            raise RuntimeError("the app refused the package: " + text("main .notice-error"))
        app_seconds = done - started
        app_rate = size / app_seconds

        driver.get(base + "/visit/#/tours")
        until(lambda: any(a.text == "Take the tour" for a in driver.find_elements(By.CSS_SELECTOR, "main a")))
        link = next(a for a in driver.find_elements(By.CSS_SELECTOR, "main a") if a.text == "Take the tour")
        started = time.perf_counter()
        link.click()
        drawn = until(lambda: driver.find_elements(By.CSS_SELECTOR, "#tour-map img.leaflet-tile-loaded"), 60)
        tap_to_map = drawn - started

        stop_link = next(a for a in driver.find_elements(By.CSS_SELECTOR, "main ol a") if "Cascadia" in a.text)
        started = time.perf_counter()
        stop_link.click()
        until(lambda: driver.find_elements(By.CSS_SELECTOR, "main video"), 120)
        driver.execute_script("const v = document.querySelector('main video'); v.muted = true; v.play();")
        playing = until(lambda: driver.execute_script(
            "const v = document.querySelector('main video'); return v && v.currentTime > 0;"), 120)
        video_start = playing - started

        rows = {
            "packageBytes": size, "curlBytesPerSecond": round(curl_rate), "appBytesPerSecond": round(app_rate),
            "downloadRatio": round(app_rate / curl_rate, 3), "appSeconds": round(app_seconds, 2),
            "curlSeconds": round(min(curl_times), 2),
            "browserFetchBytesPerSecond": round(size / fetch_seconds) if fetch_seconds else None, "tapToMapSeconds": round(tap_to_map, 3),
            "videoStartSeconds": round(video_start, 3), "jsHeapPeakMB": round(heap[0], 1),
        }
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        rows["signatures"] = not args.no_signatures
        rows.update(update_row())
        json.dump(rows, open(args.out, "w"), indent=1)
        print("visitor app, %d MB tour (headless Chromium, loopback%s)" % (
            size // 1000000, ", no signature check" if args.no_signatures else ", one reviewer's signature checked"))
        print("  download+hash+signature+install  %7.1f MB/s   curl -o %7.1f MB/s   %.2fx (target >= 0.7x) %s" % (
            app_rate / 1e6, curl_rate / 1e6, app_rate / curl_rate, "met" if app_rate / curl_rate >= 0.7 else "missed"))
        if fetch_seconds:
            print("  (the browser's fetch alone, in a worker, nothing kept: %7.1f MB/s, %.2fx curl)" % (
                size / fetch_seconds / 1e6, size / fetch_seconds / curl_rate))
        print("  tap to map                        %7.3f s   (target <= 1 s) %s" % (
            tap_to_map, "met" if tap_to_map <= 1 else "missed"))
        print("  100 MB video, tap to playing      %7.3f s   (target <= 1 s) %s" % (
            video_start, "met" if video_start <= 1 else "missed"))
        print("  JS heap peak                      %7.1f MB  (target <= 64 MB) %s" % (
            heap[0], "met" if heap[0] <= 64 else "missed"))
        print_update(rows)
    finally:
        if driver:
            driver.quit()
        if server:
            server.terminate()
            server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
