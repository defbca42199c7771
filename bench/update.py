#!/usr/bin/env python3
"""Updates by part against the full package and against zsync, on generated tours.

    update.py [--sets small,medium] [--out bench/results/update.json]

For each set (bench/gen_data.py, with an offline map cut from the Santiam fixture's) version 1.0.0
is built, then each variant of it: a text fix (one stop's description), one recording replaced
(same size, other bytes), one stop added (a photo and a recording), the map replaced (cut again
with one more zoom level). A real `trailpack serve` (release build, loopback) holds them all; for each variant a
library holding 1.0.0 runs `trailpack fetch --json`, which reports the bytes fetched and the range
requests made. Against it: the full package, and zsync 0.6.2 (Debian's `zsync`, `zsyncmake` on the
new version served by nginx, which answers ranges; its control file counted). Prints a table,
writes JSON. TRAILPACK_BENCH_BIN picks another trailpack binary (bytes and requests do not depend
on the build; times do).
"""
import json, os, random, re, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIN = os.environ.get("TRAILPACK_BENCH_BIN") or os.path.join(ROOT, ".build", "release", "trailpack")
sys.path.insert(0, HERE)
import gen_data  # noqa: E402

SANTIAM_MAP = os.path.join(ROOT, "fixtures", "santiam-wagon-road", "map", "santiam-wagon-road.pmtiles")


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw)


def edit(path, change):
    data = json.load(open(path))
    change(data)
    json.dump(data, open(path, "w"), indent=1)


def variants(base, work):
    """(name, folder) for 1.0.0 and each variant."""
    out = []

    def copy(name, version, zoom="8-12"):
        d = os.path.join(work, name)
        shutil.copytree(base, d)
        edit(os.path.join(d, "tour.json"), lambda t: t.update(version=version))
        # The offline map: cut from the Santiam fixture's map (its frame holds the generated stops).
        os.makedirs(os.path.join(d, "map"), exist_ok=True)
        run([BIN, "map", "extract", SANTIAM_MAP, "-o", os.path.join(d, "map", "base.pmtiles"), "--zoom", zoom,
             "--bounds=-122.25,44.38,-122.10,44.47"])
        return d

    out.append(("1.0.0", copy("v1", "1.0.0")))
    d = copy("text", "1.1.0")
    stop = sorted(os.listdir(os.path.join(d, "waypoints")))[0]
    edit(os.path.join(d, "waypoints", stop, "waypoint.json"), lambda w: w.update(description="A typo fixed."))
    out.append(("text fix", d))
    d = copy("recording", "1.2.0")
    rng = random.Random("recording")
    for stop in sorted(os.listdir(os.path.join(d, "waypoints"))):
        mp3s = [f for f in sorted(os.listdir(os.path.join(d, "waypoints", stop))) if f.endswith(".mp3")]
        if mp3s:
            path = os.path.join(d, "waypoints", stop, mp3s[0])
            size = os.path.getsize(path)
            with open(path, "wb") as f:
                f.write(b"ID3\x04\x00")
                gen_data.incompressible(f, size - 5, rng)
            replaced = size
            break
    out.append(("one recording replaced", d))
    d = copy("stop", "1.3.0")
    new = os.path.join(d, "waypoints", "999-new-stop")
    os.makedirs(new)
    rng = random.Random("stop")
    with open(os.path.join(new, "view.jpg"), "wb") as f:
        f.write(b"\xff\xd8\xff\xe0")
        gen_data.incompressible(f, (1 << 20) - 4, rng)
    with open(os.path.join(new, "talk.mp3"), "wb") as f:
        f.write(b"ID3\x04\x00")
        gen_data.incompressible(f, (2 << 20) - 5, rng)
    json.dump({"name": "A new stop", "coordinate": {"latitude": 44.401, "longitude": -122.199},
               "description": "Added in 1.3.0.", "assets": ["view.jpg", "talk.mp3"]},
              open(os.path.join(new, "waypoint.json"), "w"), indent=1)
    out.append(("one stop added", d))
    out.append(("map replaced", copy("map", "1.4.0", zoom="8-13")))
    return out, replaced


def serve(data, token):
    env = dict(os.environ)
    p = subprocess.Popen([BIN, "serve", "--data", data, "--port", "0", "--admin-token-file", token, "--approvals", "0",
                          "--no-malware-scan", "--max-upload-mb", "8192"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, env=env)
    line = p.stdout.readline()
    port = int(re.search(r":(\d+)", line).group(1))
    return p, port


def nginx(root):
    """nginx-light serving `root` on a free loopback port (one process, master_process off)."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    tmp = os.path.join(root, ".nginx-tmp")
    os.makedirs(tmp, exist_ok=True)
    conf = os.path.join(root, ".nginx.conf")
    open(conf, "w").write(f"""master_process off; daemon off; pid {tmp}/nginx.pid; error_log {tmp}/nginx.err;
events {{ worker_connections 64; }}
http {{ access_log off; client_body_temp_path {tmp}; proxy_temp_path {tmp}; fastcgi_temp_path {tmp};
  uwsgi_temp_path {tmp}; scgi_temp_path {tmp};
  server {{ listen 127.0.0.1:{port}; root {root}; location / {{ }} }} }}
""")
    proc = subprocess.Popen(["/usr/sbin/nginx", "-c", conf, "-p", tmp], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(50):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    return proc, port


def bench_set(name, results):
    base = gen_data.generate(name)
    work = tempfile.mkdtemp(prefix=f"trailpack-update-{name}-")
    try:
        versions, replaced = variants(base, work)
        packages = {}
        for label, folder in versions:
            out = os.path.join(work, f"{os.path.basename(folder)}.zip")
            run([BIN, "build", folder, "-o", out, "-q"])
            packages[label] = out
        token = os.path.join(work, "token")
        open(token, "w").write("bench-token-0123456789abcdef0123456789")
        run([BIN, "admin", "--data", os.path.join(work, "data"), "--create", "site", "add", "bench", "Benchmark"])
        server, port = serve(os.path.join(work, "data"), token)
        base_url = f"http://127.0.0.1:{port}"
        try:
            for label in [v[0] for v in versions]:
                # -T streams the file (--data-binary @ would read a 1 GB package into memory first).
                run(["curl", "-sf", "-X", "POST", "-H", f"Authorization: Bearer {open(token).read()}", "-H",
                     "Content-Type: application/zip", "-T", packages[label], base_url + "/v1/admin/packages"])
            pid = f"org.trailpack.bench.{name}"
            v1 = packages["1.0.0"]
            for label, folder in versions[1:]:
                new = packages[label]
                version = json.load(open(os.path.join(folder, "tour.json")))["version"]
                lib = os.path.join(work, "lib-" + os.path.basename(folder))
                run([BIN, "fetch", base_url, pid, "--into", lib, "--package-version", "1.0.0"])
                started = time.monotonic()
                out = run([BIN, "fetch", base_url, pid, "--into", lib, "--package-version", version, "--json"]).stdout
                seconds = time.monotonic() - started
                update = json.loads(out)["update"]
                assert update["mode"] == "by-part", update
                size = os.path.getsize(new)
                # zsync: the new file served over HTTP, its control file made by zsyncmake.
                zdir = os.path.join(work, "zsync-" + os.path.basename(folder))
                os.makedirs(zdir)
                shutil.copy(new, os.path.join(zdir, "new.zip"))
                http, hport = nginx(zdir)
                try:
                    run(["zsyncmake", "-u", f"http://127.0.0.1:{hport}/new.zip", "-o", os.path.join(zdir, "new.zip.zsync"),
                         os.path.join(zdir, "new.zip")])
                    control = os.path.getsize(os.path.join(zdir, "new.zip.zsync"))
                    zstarted = time.monotonic()
                    z = subprocess.run(["zsync", "-i", v1, "-o", os.path.join(work, "z-out.zip"),
                                        f"http://127.0.0.1:{hport}/new.zip.zsync"], capture_output=True, text=True)
                    zseconds = time.monotonic() - zstarted
                    m = re.search(r"fetched (\d+)", z.stdout + z.stderr)
                    zfetched = int(m.group(1)) if m else -1
                    assert open(os.path.join(work, "z-out.zip"), "rb").read() == open(new, "rb").read(), "zsync's result differs"
                    os.unlink(os.path.join(work, "z-out.zip"))
                finally:
                    http.kill()
                row = {"set": name, "change": label, "package": size, "trailpackFetched": update["fetchedBytes"],
                       "trailpackRequests": update["requests"], "trailpackSeconds": round(seconds, 2),
                       "zsyncFetched": zfetched, "zsyncControl": control, "zsyncSeconds": round(zseconds, 2)}
                if label == "one recording replaced":
                    row["assetSize"] = replaced
                results.append(row)
                print_row(row)
        finally:
            server.kill()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def print_row(r):
    pct = 100 * r["trailpackFetched"] / r["package"]
    asset = f", asset {r['assetSize'] / 1e3:.1f} KB" if "assetSize" in r else ""
    zs = r["zsyncFetched"] + r["zsyncControl"] if r["zsyncFetched"] >= 0 else -1
    print(f"{r['set']:7} {r['change']:24} package {r['package'] / 1e6:9.1f} MB | trailpack {r['trailpackFetched'] / 1e3:10.1f} KB"
          f" ({pct:5.2f} %, {r['trailpackRequests']} requests, {r['trailpackSeconds']:.2f} s) | zsync {zs / 1e3:10.1f} KB"
          f" (control {r['zsyncControl'] / 1e3:.1f} KB, {r['zsyncSeconds']:.2f} s){asset}", flush=True)


if __name__ == "__main__":
    sets = ["small"]
    out = os.path.join(HERE, "results", "update.json")
    args = sys.argv[1:]
    if "--sets" in args:
        sets = args[args.index("--sets") + 1].split(",")
    if "--out" in args:
        out = args[args.index("--out") + 1]
    results = []
    for s in sets:
        bench_set(s, results)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    json.dump(results, open(out, "w"), indent=1)
