#!/usr/bin/env python3
"""The visitor app in headless Chromium against curl, on a 500 MB tour (the Santiam fixture with a
100 MB video at stop 2 and 400 MB of other recordings), served by a real `trailpack serve` on
loopback with one reviewer's signature required.

    visitor.py [--mb 500] [--out bench/results/visitor.json] [--update-only]

Rows: download + SHA-256 + BLAKE2b + signature check + install, as a rate against `curl -o` of the
same file (best of 3) and against Chromium's own `fetch` of the same bytes into nothing (the
browser's ceiling), three alternating rounds, each install into emptied storage; the fixed cost of
an install, from installs of the Santiam fixture as it is (about 1 MB), and where an install's time
goes, from the steps the app marks on its performance timeline (`trailpack:*`, install.js); tap to map on the installed tour (click to the first tile drawn); a 100 MB
video from tap to playing (its SHA-256 checked first); the JS heap's peak (Performance.getMetrics,
sampled while downloading and playing); an update by part after a one-sentence text fix, as the
bytes of the new package's answers in nginx's access log against the package's size (the Santiam
fixture as it is, about 1 MB: scripts/visitor-update.py's measurement; --update-only runs that row
alone). TRAILPACK_BENCH_BIN picks the trailpack binary; --app-files serves the app's files from a
folder (Sources/TrailPackVisitor/app of this checkout, say) instead of the copy in the binary.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

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


def cpu_seconds(server_pid):
    """User and system CPU time so far of the browser's processes and the server's, in seconds.
    (The dead processes' time is lost: compared over spans in which the same processes live.)"""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                command = f.read().split(b"\0")[0]
            if int(pid) != server_pid and not command.endswith((b"chromium", b"chrome")) and b"/chromium/" not in command:
                continue
            with open("/proc/%s/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
        except (OSError, ValueError, IndexError):
            continue
    return total / ticks


def make_small_tour(work):
    """The Santiam fixture as it is (about 1 MB) under another id: what an install costs besides its bytes."""
    tour = os.path.join(work, "small")
    shutil.copytree(os.path.join(ROOT, "fixtures", "santiam-wagon-road"), tour)
    path = os.path.join(tour, "tour.json")
    data = json.load(open(path, encoding="utf-8"))
    data["id"] += "-small"
    json.dump(data, open(path, "w", encoding="utf-8"), indent=2, ensure_ascii=False)
    run([BIN, "build", tour, "-o", os.path.join(work, "small.zip"), "-q"])
    return os.path.join(work, "small.zip")


# The steps an install marks (install.js, download-worker.js, downloader.js), in order, and what
# the time from the one before each is spent on.
STEPS = [
    ("install-start", None),
    ("worker-start", "checks before the download (room, trust settings, the list)"),
    ("worker-running", "the download worker starting"),
    ("file-open", "the part file opened (OPFS sync access handle)"),
    ("response", "the request until its answer's headers"),
    ("received", "the body: written and handed to the hashing worker"),
    ("hashed", "the hashing worker's last bytes and digests"),
    ("file-closed", "the manifest read back (unless read meanwhile), the file closed"),
    ("downloaded", "the worker's result back on the page"),
    ("checked", "SHA-256 compared, signatures fetched and checked"),
    ("opened", "the manifest the worker read, checked"),
    ("installed", "renamed into place, the list saved (the server's confirmation not waited for)"),
]


def serve(work, packages, signatures=True, app_files=None):
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
                              + (["--visitor-trusted-key", os.path.join(work, "rita.pub")] if signatures else [])
                              + (["--visitor-app-files", app_files] if app_files else []),
                              stdout=out, stderr=subprocess.DEVNULL)
    for _ in range(200):
        text = open(os.path.join(work, "serve.out")).read()
        if "listening on" in text:
            break
        time.sleep(0.1)
    base = "http://" + text.split("http://")[1].split(" ")[0]

    def curl(method, path, user, *extra):
        return run(["curl", "-sf", "-X", method, "-H", "Authorization: Bearer " + tokens[user]] + list(extra) + [base + path])
    manifests = []
    for package in packages:
        manifest = json.loads(run(["unzip", "-p", package, "manifest.json"]).stdout)
        version = "/v1/admin/packages/%s/versions/%s" % (manifest["id"], manifest["version"])
        curl("POST", "/v1/admin/packages", "maria", "--data-binary", "@" + package)
        curl("POST", version + "/start", "maria")
        run([BIN, "sign", package, "-s", os.path.join(work, "rita.key"), "-o", os.path.join(work, "rita.minisig")])
        body = json.dumps({"signature": open(os.path.join(work, "rita.minisig")).read()})
        curl("POST", version + "/approve", "rita", "-d", body)
        curl("POST", version + "/push", "maria")
        manifests.append(manifest)
    return server, base, manifests


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
    parser.add_argument("--no-update", action="store_true", help="every row but the update by part's")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of the ceiling and the installs")
    parser.add_argument("--app-files", help="serve the visitor app's files from this folder")
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
        small = make_small_tour(work)
        size = os.path.getsize(package)
        small_size = os.path.getsize(small)
        sha = run(["sha256sum", package]).stdout[:64]
        server, base, (manifest, small_manifest) = serve(
            work, [package, small], signatures=not args.no_signatures, app_files=args.app_files)
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

        def until(condition, timeout=600, sampling=True):
            deadline = time.time() + timeout
            while time.time() < deadline:
                if sampling:
                    sample()
                if condition():
                    return time.perf_counter()
                time.sleep(0.05 if sampling else 0.01)
            raise RuntimeError("timed out")

        def text(css):
            return " ".join(e.text for e in driver.find_elements(By.CSS_SELECTOR, css))

        def browser_fetch():
            """The browser's own ceiling: the same download read by fetch in a worker, kept nowhere, hashed by nothing."""
            driver.get(base + "/healthz")  # same origin, no CSP: a blob: worker may run here
            before = cpu_seconds(server.pid)
            seconds = driver.execute_async_script("""
                const [url, done] = arguments;
                const code = `onmessage = async (e) => { const t = performance.now(); const r = await fetch(e.data);
                  const reader = r.body.getReader(); let n = 0;
                  for (;;) { const { done, value } = await reader.read(); if (done) break; n += value.length; }
                  postMessage((performance.now() - t) / 1000); };`;
                const w = new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
                w.onmessage = (e) => { w.terminate(); done(e.data); };
                w.onerror = () => done(null);
                w.postMessage(url);""", url)
            return seconds, cpu_seconds(server.pid) - before

        def hashing_alone():
            """The app's own hashers (fasthash.js: SHA-256 and BLAKE2b-512 in WebAssembly) in a worker, over
            the package's size in 1 MiB chunks, nothing else running: what the app's hashing worker can do."""
            driver.get(base + "/healthz")
            return driver.execute_async_script("""
                const [module, size, done] = arguments;
                const code = `import { createHashers } from '${module}';
                  onmessage = async (e) => { const chunk = new Uint8Array(1 << 20).map((_, i) => i * 7);
                    const h = await createHashers({ sha256: true, blake2b: e.data.blake2b });
                    const t = performance.now();
                    for (let n = 0; n < e.data.size; n += chunk.length) { h.sha256.update(chunk); h.blake2b?.update(chunk); }
                    h.sha256.digest(); h.blake2b?.digest();
                    postMessage({ seconds: (performance.now() - t) / 1000, engine: h.engine }); };`;
                const w = new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })), { type: 'module' });
                w.onmessage = (e) => { w.terminate(); done(e.data); };
                w.onerror = (e) => done({ error: String(e.message) });
                w.postMessage({ size, blake2b: true });""", base + "/visit/js/fasthash.js", size)

        def install(tour_id, sampling):
            """Installs the tour into emptied storage from its page; the steps the app marked, in ms from the click."""
            driver.get(base + "/healthz")
            driver.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": base, "storageTypes": "all"})
            driver.get(base + "/visit/#/package/" + tour_id)
            until(lambda: any(b.text.startswith("Download") for b in driver.find_elements(By.CSS_SELECTOR, "main button")))
            button = next(b for b in driver.find_elements(By.CSS_SELECTOR, "main button") if b.text.startswith("Download"))
            if sampling:
                # What earlier pages of this origin left in the renderer's heap is not this install's.
                driver.execute_cdp_cmd("HeapProfiler.collectGarbage", {})
            clicked = driver.execute_script("return performance.now()")
            before = cpu_seconds(server.pid)
            button.click()
            until(lambda: "on your phone" in text("main .notice-ok") or text("main .notice-error"), sampling=sampling)
            cpu = cpu_seconds(server.pid) - before
            if text("main .notice-error"):
                raise RuntimeError("the app refused the package: " + text("main .notice-error"))
            marks = dict(driver.execute_script(
                "return performance.getEntriesByType('mark').filter((m) => m.name.startsWith('trailpack:'))"
                ".map((m) => [m.name.slice(10), m.startTime])"))
            missing = [name for name, _ in STEPS if name not in marks]
            if missing:
                raise RuntimeError("the app did not mark the steps %s" % ", ".join(missing))
            steps = {name: at - marks["install-start"] for name, at in marks.items()}
            steps["cpu"] = cpu
            return steps, marks["install-start"] - clicked

        # Alternating rounds: the ceiling, the small tour, the large one (each install into emptied storage).
        rounds = args.rounds
        fetches, larges, smalls, lags = [], [], [], []
        fetch_cpu = []
        for i in range(rounds):
            seconds, cpu = browser_fetch()
            fetches.append(seconds)
            fetch_cpu.append(cpu / seconds if seconds else None)
            marks, lag = install(small_manifest["id"], sampling=False)
            smalls.append(marks)
            lags.append(lag)
            marks, _ = install(manifest["id"], sampling=(i == 0))  # last: the tour the rows below take
            larges.append(marks)
        hashed = hashing_alone()
        if "seconds" not in hashed or hashed.get("engine") != "wasm":
            raise RuntimeError("the app's hashers did not run in WebAssembly: %s" % hashed)
        hash_rate = size / hashed["seconds"]
        fetch_seconds = statistics.median(f for f in fetches if f) if any(fetches) else None
        app_seconds = statistics.median(m["installed"] for m in larges) / 1000
        fixed_seconds = statistics.median(m["installed"] for m in smalls) / 1000
        app_rate = size / app_seconds
        marginal_rate = (size - small_size) / max(1e-6, app_seconds - fixed_seconds)
        cores = os.cpu_count()
        fetch_cores = statistics.median(c for c in fetch_cpu if c) if any(fetch_cpu) else None
        # The large install's CPU over its span from click to told (the small one's fixed cost included).
        app_cores = statistics.median(m["cpu"] / (m["installed"] / 1000) for m in larges)
        steps = {}
        for label, runs in (("large", larges), ("small", smalls)):
            steps[label] = {}
            for (name, _), (previous, _) in zip(STEPS[1:], STEPS):
                steps[label][name] = round(statistics.median(m[name] - m[previous] for m in runs) / 1000, 4)

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

        ceiling = size / fetch_seconds if fetch_seconds else None
        rows = {
            "packageBytes": size, "curlBytesPerSecond": round(curl_rate), "appBytesPerSecond": round(app_rate),
            "downloadRatio": round(app_rate / curl_rate, 3), "appSeconds": round(app_seconds, 3),
            "curlSeconds": round(min(curl_times), 2),
            "browserFetchBytesPerSecond": round(ceiling) if ceiling else None,
            "ceilingRatio": round(app_rate / ceiling, 3) if ceiling else None,
            "rounds": rounds,
            "appSecondsEach": [round(m["installed"] / 1000, 3) for m in larges],
            "browserFetchSecondsEach": [round(f, 3) if f else None for f in fetches],
            "smallPackageBytes": small_size, "fixedSeconds": round(fixed_seconds, 3),
            "fixedSecondsEach": [round(m["installed"] / 1000, 3) for m in smalls],
            "clickToStartSeconds": round(statistics.median(lags) / 1000, 4),
            "marginalBytesPerSecond": round(marginal_rate),
            "marginalCeilingRatio": round(marginal_rate / ceiling, 3) if ceiling else None,
            "steps": steps,
            "hashBytesPerSecond": round(hash_rate),
            "cores": cores, "browserFetchCores": round(fetch_cores, 2) if fetch_cores else None,
            "appCores": round(app_cores, 2),
            "tapToMapSeconds": round(tap_to_map, 3),
            "videoStartSeconds": round(video_start, 3), "jsHeapPeakMB": round(heap[0], 1),
        }
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        rows["signatures"] = not args.no_signatures
        if not args.no_update:
            rows.update(update_row())
        json.dump(rows, open(args.out, "w"), indent=1)
        print("visitor app, %d MB tour (headless Chromium, loopback%s), medians of %d alternating rounds" % (
            size // 1000000, ", no signature check" if args.no_signatures else ", one reviewer's signature checked",
            rounds))
        print("  download+hash+signature+install  %7.1f MB/s   curl -o %7.1f MB/s   %.2fx curl" % (
            app_rate / 1e6, curl_rate / 1e6, app_rate / curl_rate))
        if ceiling:
            print("  the browser's fetch alone, in a worker, nothing kept: %7.1f MB/s (%.2fx curl)" % (
                ceiling / 1e6, ceiling / curl_rate))
            print("  the app against that ceiling      %7.2fx  (target >= 0.8x) %s" % (
                app_rate / ceiling, "met" if app_rate / ceiling >= 0.8 else "missed"))
            print("  beyond the fixed cost             %7.1f MB/s, %.2fx the ceiling" % (
                marginal_rate / 1e6, marginal_rate / ceiling))
            print("  the app's hashing alone (SHA-256 and BLAKE2b, one worker): %7.1f MB/s, %.2fx the ceiling" % (
                hash_rate / 1e6, hash_rate / ceiling))
            print("  CPU busy (browser and server, of %d cores): the ceiling's fetch %.2f, the app's install %.2f" % (
                cores, fetch_cores or 0, app_cores))
        print("  fixed cost: a %d KB tour          %7.3f s   (target <= 0.1 s) %s" % (
            small_size // 1000, fixed_seconds, "met" if fixed_seconds <= 0.1 else "missed"))
        for name, why in STEPS[1:]:
            print("    %-52s %7.1f ms  (large tour %7.1f ms)" % (
                why, 1000 * steps["small"][name], 1000 * steps["large"][name]))
        print("  tap to map                        %7.3f s   (target <= 1 s) %s" % (
            tap_to_map, "met" if tap_to_map <= 1 else "missed"))
        print("  100 MB video, tap to playing      %7.3f s   (target <= 1 s) %s" % (
            video_start, "met" if video_start <= 1 else "missed"))
        print("  JS heap peak                      %7.1f MB  (target <= 64 MB) %s" % (
            heap[0], "met" if heap[0] <= 64 else "missed"))
        if not args.no_update:
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
