#!/usr/bin/env python3
"""`make bench` for several servers: the stack of scripts/stack.py (PostgreSQL, SeaweedFS's S3
gateway, two `trailpack serve` sharing that catalog and that bucket, nginx balancing the two), the
release build, loopback, in one run:

1. A site's package list (the site holds --in-site packages, the catalog --others more in 19 other
   sites; every one built, uploaded, started, approved by a reviewer and pushed through the API,
   two releases at a time) under wrk (2 threads, 32 connections, 10 s): through nginx with two
   instances up, with one (b stopped), instance a alone without nginx, and nginx serving the same
   body from a file (bench/server.py's way: sendfile, a log line per request).
2. Download throughput of a large package (a --mb MB recording: an ID3 header and noise, as the
   visitor app's tests add one): --parallel curl downloads at once to /dev/null, through nginx with
   two instances and with one (streamed from the bucket), beside nginx serving the same file from
   disk and the bucket itself (a signed GET to weed's S3 gateway). Median of 3 rounds after a warm-up.
3. Upload-to-listed latency: from `push` answering on a to the version in the site's list on b
   (polled every 5 ms), median of --releases releases; the same on one `trailpack serve --data` with
   SQLite (release and list on the one server).

During every measured run the machine's CPU is read from /proc: how busy both cores were, how much
of it each part of the stack took (each part's process tree), the load generator (wrk, curl) and
anything else running ("other": the run is only as good as the machine was quiet). The stack is
stopped at the end, whatever happens. Results: bench/results/several-STAMP.json and .md; `bench/readme.py --several` puts the table into
docs/PERFORMANCE.md (and the headline into README.md).

Usage: several.py [--trailpack PATH] [--mb 256] [--parallel 4] [--in-site 50] [--others 950]
                  [--releases 20]
"""
import argparse, http.client, json, os, platform, random, re, resource, shutil, statistics, subprocess, sys, tempfile
import threading, time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STACK = os.path.join(ROOT, "scripts", "stack.py")
FIXTURE = os.path.join(ROOT, "fixtures", "family-hikes")
SITE = "bench-site-07"
LATENCY_SITE = "bench-latency"
CLK_TCK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- HTTP, one kept-alive connection per thread and port

_local = threading.local()


def call(port, method, path, token=None, body=None, headers=None):
    """One request on this thread's kept-alive connection to 127.0.0.1:port: (status, body bytes).
    A connection the server closed while idle is opened again once (a file body is rewound)."""
    conns = _local.__dict__.setdefault("conns", {})
    h = dict(headers or {})
    if token:
        h["Authorization"] = "Bearer " + token
    for attempt in range(2):
        conn = conns.get(port)
        reused = conn is not None
        if conn is None:
            conn = conns[port] = http.client.HTTPConnection("127.0.0.1", port, timeout=600, blocksize=1 << 20)
        try:
            if hasattr(body, "seek"):
                body.seek(0)
            conn.request(method, path, body=body, headers=h)
            r = conn.getresponse()
            data = r.read()
            if (r.getheader("Connection") or "").lower() == "close":
                conn.close()
                conns.pop(port, None)
            return r.status, data
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            conn.close()
            conns.pop(port, None)
            if attempt or not reused:
                raise


def expect(status, data, wanted, what):
    if status not in wanted:
        raise RuntimeError(f"{what}: HTTP {status}: {data[:500].decode(errors='replace')}")
    return data


# ---------------------------------------------------------------- the stack

def stack(*args):
    out = subprocess.run([sys.executable, STACK] + list(args), capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"stack.py {' '.join(args)}: exit {out.returncode}: {out.stderr[-3000:]}{out.stdout[-2000:]}")
    return out.stdout


def load_state(folder):
    return json.load(open(os.path.join(folder, "stack.json")))


def admin(tp, folder, state, *args):
    argv = [tp, "admin", "--data", os.path.join(folder, "admin-data"), "--create", "--catalog", state["catalog"],
            "--catalog-password-file", os.path.join(folder, "catalog.password"), "--blobs", state["blobs"],
            "--blobs-credentials", os.path.join(folder, "aws-credentials")] + list(args)
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def token_of(issued):
    for word in issued.split():
        if word.startswith("tp_"):
            return word
    raise RuntimeError(f"no token in: {issued}")


# ---------------------------------------------------------------- packages

def write_tour(folder, pid, version, site, name):
    if not os.path.exists(folder):
        shutil.copytree(FIXTURE, folder)
    path = os.path.join(folder, "tour.json")
    tour = json.load(open(path))
    tour.update(id=pid, version=version, name=name, site={"id": site, "name": site.replace("-", " ").title()})
    with open(path, "w") as f:
        json.dump(tour, f, indent=2)


def build(tp, folder, out):
    subprocess.run([tp, "build", folder, "-o", out, "-q"], check=True)
    return open(out + ".sha256").read().split()[0]


def add_recording(folder, stop, nbytes):
    """talk.mp3 of `nbytes` (an ID3 header, then noise) on stop `stop`, as VisitorAppTests.addRecording."""
    rng = random.Random(29)
    with open(os.path.join(folder, "waypoints", stop, "talk.mp3"), "wb") as f:
        f.write(b"ID3" + bytes([4, 0, 0, 0, 0, 0, 0]))
        left = nbytes - 10
        while left > 0:
            n = min(left, 8 << 20)
            f.write(rng.randbytes(n))
            left -= n
    path = os.path.join(folder, "waypoints", stop, "waypoint.json")
    waypoint = json.load(open(path))
    waypoint["assets"] = waypoint.get("assets", []) + [
        {"file": "talk.mp3", "title": "The ranger's talk", "transcript": "A talk about the trail."}]
    json.dump(waypoint, open(path, "w"))


def release(zip_path, pid, version, token, reviewer, upload_port, approve_port):
    """Upload on one server, start there, approve on the other (the reviewer), push on the first.
    Returns the moment the push answered (time.perf_counter())."""
    with open(zip_path, "rb") as body:
        s, d = call(upload_port, "POST", "/v1/admin/packages", token, body,
                    {"Content-Type": "application/zip", "Content-Length": str(os.path.getsize(zip_path))})
    expect(s, d, (201,), f"upload {pid} {version}")
    base = f"/v1/admin/packages/{pid}/versions/{version}"
    expect(*call(upload_port, "POST", base + "/start", token), (200,), f"start {pid} {version}")
    expect(*call(approve_port, "POST", base + "/approve", reviewer), (200,), f"approve {pid} {version}")
    s, d = call(upload_port, "POST", base + "/push", token)
    pushed = time.perf_counter()
    expect(s, d, (200,), f"push {pid} {version}")
    return pushed


def fill(tp, work, token, reviewer, ports, in_site, others):
    """`in_site` packages in SITE and `others` in 19 other sites, each built from the family-hikes
    fixture with an id of its own and released through the API (two at a time, alternating servers)."""
    jobs = [(f"gov.usda.fs.bench.s07.p{i:03d}", SITE) for i in range(in_site)]
    sites = [f"bench-site-{i:02d}" for i in range(20) if i != 7]
    jobs += [(f"gov.usda.fs.bench.o{i:05d}", sites[i % len(sites)]) for i in range(others)]
    folders, lock = {}, threading.Lock()
    os.makedirs(os.path.join(work, "fill"), exist_ok=True)

    def one(n):
        pid, site = jobs[n]
        with lock:
            folder = folders.setdefault(threading.get_ident(), os.path.join(work, "fill", f"tour-{len(folders)}"))
        write_tour(folder, pid, "1.0.0", site, f"Bench package {n}")
        out = os.path.join(work, "fill", f"{n}.zip")
        build(tp, folder, out)
        up, other = (ports[0], ports[1]) if n % 2 == 0 else (ports[1], ports[0])
        release(out, pid, "1.0.0", token, reviewer, up, other)
        os.remove(out)
        os.remove(out + ".sha256")

    t0 = time.perf_counter()
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(one, range(len(jobs))))
    return len(jobs), time.perf_counter() - t0


# ---------------------------------------------------------------- CPU from /proc

def proc_ticks(roots):
    """{root pid: utime + stime ticks of it and every process under it now} (by parent: PostgreSQL's
    processes each start a session of their own)."""
    parent, ticks = {}, {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        parent[int(name)] = int(fields[1])
        ticks[int(name)] = int(fields[11]) + int(fields[12])
    totals = {root: 0 for root in roots}
    for pid, t in ticks.items():
        p, hops = pid, 0
        while p and p not in totals and hops < 64:
            p, hops = parent.get(p, 0), hops + 1
        if p in totals:
            totals[p] += t
    return totals


def machine_ticks():
    """All ticks, the idle ones (idle, iowait), and the kernel's interrupt work (irq, softirq: on loopback,
    much of TCP's receiving, charged to no process)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v[:8]), v[3] + v[4], v[5] + v[6]


class CPU:
    """Cores used while the block ran: the whole machine; each part (its process tree); the load
    generator (wrk, curl: this process's children waited for meanwhile); the kernel's interrupt work;
    and the rest, anything else (other processes, kernel threads)."""

    def __init__(self, parts):
        self.parts = {pid: part for part, pid in parts.items() if pid}

    def __enter__(self):
        self.t0, self.m0, self.p0 = time.perf_counter(), machine_ticks(), proc_ticks(self.parts)
        self.c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        return self

    def __exit__(self, *exc):
        wall = time.perf_counter() - self.t0
        (total1, idle1, irq1), p1 = machine_ticks(), proc_ticks(self.parts)
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        total0, idle0, irq0 = self.m0
        busy = 1 - (idle1 - idle0) / max(1, total1 - total0)
        irq = (irq1 - irq0) / max(1, total1 - total0) * os.cpu_count()
        self.result = {"machineBusy": busy, "cores": os.cpu_count(), "parts": {}}
        for root, part in self.parts.items():
            self.result["parts"][part] = max(0.0, (p1.get(root, 0) - self.p0.get(root, 0)) / CLK_TCK / wall)
        load = (c1.ru_utime + c1.ru_stime - self.c0.ru_utime - self.c0.ru_stime) / wall
        self.result["parts"]["wrk or curl"] = load
        self.result["parts"]["kernel interrupts"] = irq
        self.result["parts"]["other"] = max(0.0, busy * os.cpu_count() - sum(self.result["parts"].values()))
        return False


def cpu_text(cpu):
    parts = ", ".join(f"{k} {v:.2f}" for k, v in cpu["parts"].items() if v >= 0.01)
    return f"{cpu['machineBusy'] * 100:.0f}% of {cpu['cores']} cores busy (cores: {parts})"


# ---------------------------------------------------------------- load

def wrk(url, seconds=10):
    """wrk, 2 threads, 32 connections: requests/s, p50 and p99 (ms), and what was not a 2xx."""
    out = subprocess.run(["wrk", "-t2", "-c32", f"-d{seconds}s", "--latency", url], capture_output=True, text=True,
                         check=True).stdout

    def pct(p):
        m = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)\b", out, re.M)
        v = float(m.group(1))
        return v / 1000 if m.group(2) == "us" else (v * 1000 if m.group(2) == "s" else v)

    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    return {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)), "p50ms": pct(50), "p99ms": pct(99),
            "non2xx": int(bad.group(1)) if bad else 0,
            "socketErrors": sum(int(x) for x in errors.groups()) if errors else 0}


def measure_list(url, parts):
    for _ in range(20):  # warm: the answer made once, nginx's connections open
        subprocess.run(["curl", "-s", "-f", "-o", "/dev/null", url], check=True)
    with CPU(parts) as cpu:
        result = wrk(url)
    result["cpu"] = cpu.result
    return result


def downloads(url, size, n, rounds=3, extra=()):
    """`n` curl downloads at once to /dev/null, a warm-up round then `rounds`: the median MB/s of all together."""
    rates = [download_round(url, size, n, extra) for _ in range(rounds + 1)][1:]
    return statistics.median(rates), rates


def download_round(url, size, n, extra=()):
    """`n` curl downloads of `url` at once to /dev/null: their MB/s all together."""
    t0 = time.perf_counter()
    procs = [subprocess.Popen(["curl", "-s", "-f", "-o", "/dev/null", "-w", "%{size_download}"] + list(extra) + [url],
                              stdout=subprocess.PIPE, text=True) for _ in range(n)]
    got = [p.communicate()[0] for p in procs]
    wall = time.perf_counter() - t0
    if any(p.returncode for p in procs) or any(int(g or 0) != size for g in got):
        raise RuntimeError(f"download of {url}: exit {[p.returncode for p in procs]}, bytes {got} (want {size})")
    return n * size / 1e6 / wall


def paired_downloads(sides, size, n, rounds=5):
    """The sides ({name: (url, extra curl arguments)}) measured by turns, a warm-up round of each then
    `rounds` rounds in which each side's turn alternates first and second: the machine's drift over a
    minute (the page cache, the other processes) falls on both alike. Each side's rates and median."""
    names = list(sides)
    rates = {name: [] for name in names}
    for name in names:
        download_round(sides[name][0], size, n, sides[name][1])
    for r in range(rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            rates[name].append(download_round(sides[name][0], size, n, sides[name][1]))
    return {name: {"MBps": statistics.median(rates[name]), "rounds": rates[name]} for name in names}


def measure_downloads(url, size, n, parts, extra=()):
    with CPU(parts) as cpu:
        mbps, rates = downloads(url, size, n, extra=extra)
    return {"MBps": mbps, "rounds": rates, "cpu": cpu.result}


def listed(port, site, pid, version):
    s, d = call(port, "GET", f"/v1/sites/{site}/packages?limit=500")
    if s != 200:
        return False
    return any(p["id"] == pid and p["version"] == version for p in json.loads(d)["packages"])


def latency(prepared, pid, token, reviewer, push_port, list_port, site):
    """Each prepared (zip, version) released (upload and start on push_port, approve on list_port,
    push on push_port), then list_port's list polled every 5 ms until it names that version: the
    milliseconds from the push's answer to that list. The first release is a warm-up."""
    samples, first = [], 0
    for i, (zip_path, version) in enumerate(prepared):
        pushed = release(zip_path, pid, version, token, reviewer, push_port, list_port)
        tick, polls = pushed, 1
        while not listed(list_port, site, pid, version):
            if time.perf_counter() - pushed > 10:
                raise RuntimeError(f"{pid} {version} not listed on port {list_port} within 10 s of its release")
            tick += 0.005
            time.sleep(max(0.0, tick - time.perf_counter()))
            polls += 1
        seen = time.perf_counter()
        if i:
            samples.append((seen - pushed) * 1000)
            first += polls == 1
    samples.sort()
    return {"medianMs": statistics.median(samples), "p90Ms": samples[int(0.9 * (len(samples) - 1))],
            "maxMs": samples[-1], "minMs": samples[0], "samplesMs": samples, "listedAtFirstPoll": first}


def prepare_versions(tp, work, name, pid, site, count):
    folder = os.path.join(work, name)
    prepared = []
    for i in range(count + 1):
        version = f"1.0.{i}"
        write_tour(folder, pid, version, site, "Latency")
        out = os.path.join(work, f"{name}-{version}.zip")
        build(tp, folder, out)
        prepared.append((out, version))
    return prepared


def sqlite_latency(tp, work, prepared, pid):
    """One `trailpack serve --data` (SQLite, blobs on disk), --approvals 1 as the stack: release, then list, there."""
    data = os.path.join(work, "sqlite-data")
    token = "bench-token-" + os.urandom(12).hex()
    open(os.path.join(work, "sqlite.token"), "w").write(token + "\n")
    base = [tp, "admin", "--data", data, "--create"]
    subprocess.run(base + ["user", "add", "rita", "--role", "reviewer"], check=True, capture_output=True)
    reviewer = token_of(subprocess.run(base + ["token", "issue", "rita"], check=True, capture_output=True, text=True).stdout)
    log = open(os.path.join(work, "sqlite-serve.log"), "wb")
    server = subprocess.Popen([tp, "serve", "--data", data, "--port", "0", "--approvals", "1", "--no-malware-scan",
                               "--admin-token-file", os.path.join(work, "sqlite.token")],
                              stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True)
    try:
        found = re.search(r"http://[0-9.]+:(\d+)", server.stdout.readline())
        if not found:
            raise RuntimeError(f"trailpack serve (SQLite) did not start; see {log.name}: "
                               + open(log.name, errors="replace").read()[-2000:])
        port = int(found.group(1))
        result = latency(prepared, pid, token, reviewer, port, port, LATENCY_SITE)
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    return result


# ---------------------------------------------------------------- the run

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trailpack", default=os.path.join(ROOT, ".build", "release", "trailpack"))
    ap.add_argument("--mb", type=int, default=256, help="the large package's recording, MB")
    ap.add_argument("--parallel", type=int, default=4, help="downloads at once")
    ap.add_argument("--in-site", type=int, default=50, help="packages in the listed site")
    ap.add_argument("--others", type=int, default=950, help="packages in 19 other sites")
    ap.add_argument("--releases", type=int, default=20, help="releases timed for the upload-to-listed latency")
    args = ap.parse_args()
    tp = os.path.abspath(args.trailpack)
    if not os.access(tp, os.X_OK):
        sys.exit(f"no trailpack binary at {tp} (make bench-deps builds it)")
    sys.path.insert(0, HERE)
    import server as server_bench  # nginx serving a folder, as bench/server.py starts it

    work = tempfile.mkdtemp(prefix="trailpack-several-")
    os.chmod(work, 0o755)  # PostgreSQL runs as its own user and must reach its folder
    folder = os.path.join(work, "stack")
    statics = []
    started = False
    result = {"machine": {"cpu": cpu_name(), "cores": os.cpu_count(), "kernel": platform.release()},
              "loadAverageAtStart": os.getloadavg()}
    try:
        print(f"several: starting the stack in {folder}", file=sys.stderr)
        started = True
        stack("up", folder, "--trailpack", tp, "--watch", str(os.getpid()))
        state = load_state(folder)
        p = state["ports"]
        token = open(os.path.join(folder, "admin.token")).read().strip()
        admin(tp, folder, state, "user", "add", "rita", "--role", "reviewer")
        reviewer = token_of(admin(tp, folder, state, "token", "issue", "rita"))

        # The catalog.
        print(f"several: releasing {args.in_site} + {args.others} packages through the API", file=sys.stderr)
        count, seconds = fill(tp, work, token, reviewer, (p["a"], p["b"]), args.in_site, args.others)
        result["catalog"] = {"site": SITE, "inSite": args.in_site, "packages": count, "fillSeconds": seconds,
                             "releasesPerSecond": count / seconds}
        print(f"several: {count} packages released in {seconds:.0f} s ({count / seconds:.1f}/s)", file=sys.stderr)

        # The large package.
        print(f"several: building and releasing the {args.mb} MB package", file=sys.stderr)
        big = os.path.join(work, "big")
        write_tour(big, "gov.usda.fs.bench.big", "1.0.0", "bench-site-big", "Big")
        add_recording(big, "01-sahalie-and-koosah-falls", args.mb * 1_000_000)
        big_zip = os.path.join(work, "big.zip")
        sha = build(tp, big, big_zip)
        shutil.rmtree(big)
        size = os.path.getsize(big_zip)
        t0 = time.perf_counter()
        release(big_zip, "gov.usda.fs.bench.big", "1.0.0", token, reviewer, p["a"], p["b"])
        result["download"] = {"packageBytes": size, "parallel": args.parallel,
                              "releaseSeconds": time.perf_counter() - t0}
        blob = f"http://127.0.0.1:{p['nginx']}/v1/blobs/{sha}.zip"
        list_path = f"/v1/sites/{SITE}/packages?limit=50"
        through_nginx = f"http://127.0.0.1:{p['nginx']}{list_path}"
        body = expect(*call(p["nginx"], "GET", list_path), (200,), "the list")
        if len(json.loads(body)["packages"]) != args.in_site:
            raise RuntimeError(f"the list holds {len(json.loads(body)['packages'])} packages, not {args.in_site}")
        result["list"] = {"bodyBytes": len(body), "url": list_path}

        # Two instances behind nginx, then one.
        print("several: list and downloads through nginx, two instances", file=sys.stderr)
        result["list"]["two"] = measure_list(through_nginx, load_state(folder)["pids"])
        result["download"]["two"] = measure_downloads(blob, size, args.parallel, load_state(folder)["pids"])
        stack("stop", folder, "b")
        print("several: list and downloads through nginx, one instance (b stopped)", file=sys.stderr)
        result["list"]["one"] = measure_list(through_nginx, load_state(folder)["pids"])
        result["download"]["one"] = measure_downloads(blob, size, args.parallel, load_state(folder)["pids"])
        result["list"]["direct"] = measure_list(f"http://127.0.0.1:{p['a']}{list_path}", load_state(folder)["pids"])
        result["download"]["direct"] = measure_downloads(f"http://127.0.0.1:{p['a']}/v1/blobs/{sha}.zip", size,
                                                         args.parallel, load_state(folder)["pids"])
        stack("start", folder, "b")

        # The bucket itself: the same object by a signed GET to weed's S3 gateway.
        creds = dict(re.findall(r"^(\w+)\s*=\s*(\S+)", open(os.path.join(folder, "aws-credentials")).read(), re.M))
        signed = ["--aws-sigv4", "aws:amz:us-east-1:s3",
                  "--user", creds["aws_access_key_id"] + ":" + creds["aws_secret_access_key"]]
        bucket = f"http://127.0.0.1:{p['s3']}/trailpack/blobs/{sha[:2]}/{sha}.zip"
        try:
            result["download"]["bucket"] = measure_downloads(bucket, size, args.parallel, load_state(folder)["pids"],
                                                             extra=signed)
        except RuntimeError as e:  # the object's key is the S3 store's business: say so rather than fail the run
            print(f"several: the bucket's own GET was not measured: {e}", file=sys.stderr)

        # A third server that sends downloads to the bucket (`--blob-downloads redirect`): a 302 to a
        # presigned URL, which curl follows (-L); the bytes come from the bucket, not through trailpack.
        print("several: downloads redirected to the bucket by a third server (--blob-downloads redirect)", file=sys.stderr)
        redirecting = subprocess.Popen(
            [tp, "serve", "--data", os.path.join(folder, "server-c"), "--port", "0",
             "--catalog", state["catalog"], "--catalog-password-file", os.path.join(folder, "catalog.password"),
             "--blobs", state["blobs"], "--blobs-credentials", os.path.join(folder, "aws-credentials"),
             "--blob-downloads", "redirect", "--approvals", "1", "--no-malware-scan", "--log-level", "warning"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        statics.append(redirecting)
        c_url = re.search(r"http://[0-9.]+:\d+", redirecting.stdout.readline() or "")
        if not c_url:
            raise RuntimeError("the third server (--blob-downloads redirect) did not start")
        c_blob = f"{c_url.group(0)}/v1/blobs/{sha}.zip"
        first = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", c_blob],
                               capture_output=True, text=True).stdout
        if not first.startswith("302 http://127.0.0.1:"):
            raise RuntimeError(f"the third server did not redirect the download to the bucket: {first!r}")
        result["download"]["redirect"] = measure_downloads(
            c_blob, size, args.parallel, dict(load_state(folder)["pids"], c=redirecting.pid), extra=["-L"])
        if "bucket" in result["download"]:
            # The target's ratio from rounds taken by turns: measured a minute apart, the two sides
            # differed by as much as their own rounds did (1,133 to 1,369 MB/s redirected).
            print("several: redirected and the bucket's own GET by turns, 5 rounds each", file=sys.stderr)
            result["download"]["redirectPaired"] = paired_downloads(
                {"redirect": (c_blob, ["-L"]), "bucket": (bucket, signed)}, size, args.parallel)
        redirecting.terminate()
        redirecting.wait()
        statics.remove(redirecting)

        # Upload to listed, PostgreSQL: push on a, list on b.
        print(f"several: upload-to-listed latency, {args.releases} releases, PostgreSQL and SQLite", file=sys.stderr)
        pid = "gov.usda.fs.bench.latency"
        prepared = prepare_versions(tp, work, "latency", pid, LATENCY_SITE, args.releases)
        result["latency"] = {"releases": args.releases, "pollMs": 5,
                             "postgres": latency(prepared, pid, token, reviewer, p["a"], p["b"], LATENCY_SITE)}

        # The same body and the same file from nginx, from disk.
        static = os.path.join(work, "static")
        os.makedirs(static)
        open(os.path.join(static, "list.json"), "wb").write(body)
        os.replace(big_zip, os.path.join(static, "big.zip"))
        started_nginx = server_bench.start_nginx(work, static, "nginx-static", access_log=True)
        if not started_nginx:
            sys.exit("several: nginx is not installed (apt-get install nginx-light)")
        statics.append(started_nginx[0])
        port = started_nginx[1]
        server_bench.wait_for(f"http://127.0.0.1:{port}/list.json")
        print("several: nginx serving the same body and the same file from disk", file=sys.stderr)
        parts = dict(load_state(folder)["pids"], **{"nginx from disk": started_nginx[0].pid})
        result["list"]["nginxFile"] = measure_list(f"http://127.0.0.1:{port}/list.json", parts)
        result["download"]["nginxFile"] = measure_downloads(f"http://127.0.0.1:{port}/big.zip", size, args.parallel, parts)
        statics[0].terminate()
        statics.pop().wait()
        stack("down", folder)
        started = False

        # SQLite: one server (the stack is down: nothing else runs).
        result["latency"]["sqlite"] = sqlite_latency(tp, work, prepared, pid)
    finally:
        for proc in statics:
            proc.terminate()
            proc.wait()
        if started:
            try:
                stack("down", folder)
            except Exception as e:  # still remove what we can; say why it did not go down
                print(f"several: stack.py down failed: {e}", file=sys.stderr)
        shutil.rmtree(work, ignore_errors=True)

    md = markdown(result)
    print("\n".join(md))
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    json.dump(result, open(os.path.join(HERE, "results", f"several-{stamp}.json"), "w"), indent=1)
    open(os.path.join(HERE, "results", f"several-{stamp}.md"), "w").write("\n".join(md) + "\n")


def trailpack_cpu_us(x, per):
    """trailpack's CPU (instances a and b together) per request (per="rps") or per MB (per="MBps"), in µs."""
    cores = sum(v for k, v in x["cpu"]["parts"].items() if k in ("a", "b"))
    return cores / x[per] * 1e6 if cores >= 0.05 and x[per] else None  # not a row trailpack served


def targets(r):
    """(what, this run, target, met; None without a target): the targets bench/server.py holds a single server
    to, the stack's tests' 1 s for a release to be listed by both servers, and a second instance never
    costing throughput."""
    ls, dl, pg = r["list"], r["download"], r["latency"]["postgres"]
    one, two, nf = ls["one"], ls["two"], ls["nginxFile"]
    rows = [("list: two instances ÷ one", two["rps"] / one["rps"], "≥ 1.0×", two["rps"] >= one["rps"]),
            ("list through nginx, two instances ÷ nginx from a file", two["rps"] / nf["rps"], "≥ 0.5×",
             two["rps"] >= 0.5 * nf["rps"]),
            ("list through nginx, one instance ÷ nginx from a file", one["rps"] / nf["rps"], "≥ 0.5×",
             one["rps"] >= 0.5 * nf["rps"]),
            ("list p99 through nginx, two instances", two["p99ms"], "≤ 20 ms", two["p99ms"] <= 20),
            ("download: two instances ÷ one", dl["two"]["MBps"] / dl["one"]["MBps"], "≥ 1.0×",
             dl["two"]["MBps"] >= dl["one"]["MBps"]),
            ("download: two instances ÷ nginx from disk", dl["two"]["MBps"] / dl["nginxFile"]["MBps"], "≥ 0.8×",
             dl["two"]["MBps"] >= 0.8 * dl["nginxFile"]["MBps"])]
    if "bucket" in dl:
        rows.append(("download: two instances ÷ the bucket itself", dl["two"]["MBps"] / dl["bucket"]["MBps"], "", None))
        if "redirectPaired" in dl:
            pair = dl["redirectPaired"]
            rows.append(("download redirected to the bucket (`--blob-downloads redirect`) ÷ the bucket itself, "
                         "5 rounds each by turns", pair["redirect"]["MBps"] / pair["bucket"]["MBps"], "≥ 0.9×",
                         pair["redirect"]["MBps"] >= 0.9 * pair["bucket"]["MBps"]))
        elif "redirect" in dl:
            rows.append(("download redirected to the bucket (`--blob-downloads redirect`) ÷ the bucket itself",
                         dl["redirect"]["MBps"] / dl["bucket"]["MBps"], "≥ 0.9×",
                         dl["redirect"]["MBps"] >= 0.9 * dl["bucket"]["MBps"]))
    rows.append(("upload to listed on the other instance, slowest of the releases", pg["maxMs"], "≤ 1 s", pg["maxMs"] <= 1000))
    return [(what, f"{v:.2f} ms" if "p99" in what or "listed" in what else f"{v:.2f}×", target, met)
            for what, v, target, met in rows]


def notes(r):
    """What the figures need said beside them, from the figures themselves."""
    ls, dl = r["list"], r["download"]
    one, two, direct = ls["one"], ls["two"], ls["direct"]
    out = []
    list_scale, dl_scale = two["rps"] / one["rps"], dl["two"]["MBps"] / dl["one"]["MBps"]
    if list_scale < 1.25 or dl_scale < 1.25:
        parts = one["cpu"]["parts"]
        verdict = "slower than" if max(list_scale, dl_scale) < 1.0 else "hardly faster than"
        rest = f", the rest {parts['other']:.2f}" if parts.get("other", 0) >= 0.05 else ""
        text = (f"Two instances are {verdict} one here (list {list_scale:.2f}×, downloads {dl_scale:.2f}×): "
                f"{r['machine']['cores']} cores, {one['cpu']['machineBusy'] * 100:.0f} % busy already with one instance "
                f"(trailpack {parts.get('a', 0):.2f} cores, nginx {parts.get('nginx', 0):.2f}, wrk "
                f"{parts.get('wrk or curl', 0):.2f}, the kernel's loopback work {parts.get('kernel interrupts', 0):.2f}"
                f"{rest}); a second instance adds no core, it shares the same ones")
        us1, us2 = trailpack_cpu_us(one, "rps"), trailpack_cpu_us(two, "rps")
        if us1 and us2 and us2 > 1.05 * us1:
            text += (f", and trailpack's CPU per request rose from {us1:.0f} to {us2:.0f} µs (twice the threads taking "
                     "turns on the same cores, each event loop waking for fewer requests at a time)")
        out.append(text + ". A second instance pays where it brings cores: on another machine.")
    if direct["rps"] > 1.5 * one["rps"] and "direct" in dl:
        out.append(f"nginx in front costs more than a second instance could gain: instance a alone answers "
                   f"{direct['rps']:,.0f} lists/s, through nginx (one worker, on the same cores) {one['rps']:,.0f}/s. "
                   "scripts/stack.py's nginx (and docs/OPERATORS.md's) proxies unbuffered reading 256 KB at a time "
                   "(`proxy_buffer_size 256k`): with the default 4 KB it managed about half, lists and downloads alike.")
    if "bucket" in dl:
        out.append(f"Downloads stream from the bucket: weed's S3 gateway alone gives {dl['bucket']['MBps']:,.0f} MB/s here, "
                   f"nginx from disk {dl['nginxFile']['MBps']:,.0f} MB/s; through trailpack and nginx every byte crosses "
                   "two more loopback connections on the same cores.")
    runs = [x for x in list(ls.values()) + list(dl.values()) if isinstance(x, dict) and "cpu" in x]
    other = max(x["cpu"]["parts"].get("other", 0) for x in runs)
    if other >= 0.5:
        out.append(f"Other work shared the machine: up to {other:.2f} cores went to processes outside the benchmark "
                   "during a measured run.")
    return out


def markdown(r):
    """The rows: figures, ratios, met or missed."""
    ls, dl, lat, cat = r["list"], r["download"], r["latency"], r["catalog"]
    md = ["### several servers", "",
          f"{r['machine']['cpu']}, {r['machine']['cores']} cores; the stack of scripts/stack.py (PostgreSQL 15, SeaweedFS's "
          f"S3 gateway, two `trailpack serve`, nginx with one worker balancing them), all on this machine. Catalog: "
          f"{cat['packages']} packages released through the API ({cat['inSite']} in the listed site; "
          f"{cat['releasesPerSecond']:.1f} releases/s, two at a time).", "",
          f"| a site's list ({cat['inSite']} of {cat['packages']}), wrk 2 threads, 32 connections, 10 s | requests/s | "
          "p50 / p99 ms | trailpack CPU per request | CPU while it ran |", "|---|---:|---:|---:|---|"]
    for key, label in (("two", "nginx → two instances"), ("one", "nginx → one instance (b stopped)"),
                       ("direct", "instance a alone, no nginx"), ("nginxFile", "nginx, the same body from a file")):
        x = ls[key]
        flag = f" ({x['non2xx']} not 2xx, {x['socketErrors']} socket errors)" if x["non2xx"] or x["socketErrors"] else ""
        us = trailpack_cpu_us(x, "rps")
        md.append(f"| {label} | {x['rps']:,.0f}{flag} | {x['p50ms']:.2f} / {x['p99ms']:.2f} | "
                  f"{f'{us:.0f} µs' if us else ''} | {cpu_text(x['cpu'])} |")
    md += ["", f"| download of a {dl['packageBytes'] / 1e6:,.0f} MB package, {dl['parallel']} curl at once, median of 3 | "
           "MB/s (all together) | trailpack CPU per MB | CPU while it ran |", "|---|---:|---:|---|"]
    for key, label in (("two", "nginx → two instances → the bucket"), ("one", "nginx → one instance → the bucket"),
                       ("direct", "instance a alone, no nginx → the bucket"), ("bucket", "the bucket itself (signed GET to weed's S3 gateway)"),
                       ("redirect", "a third instance, `--blob-downloads redirect`: 302 → the bucket (curl -L)"),
                       ("nginxFile", "nginx, the same file from disk")):
        if key in dl:
            us = trailpack_cpu_us(dl[key], "MBps")
            md.append(f"| {label} | {dl[key]['MBps']:,.0f} | {f'{us:.0f} µs' if us else ''} | {cpu_text(dl[key]['cpu'])} |")
    pg, sq = lat["postgres"], lat["sqlite"]
    md += ["", f"| upload to listed: `push` answered → the version in the site's list, polled every {lat['pollMs']} ms, "
           f"{lat['releases']} releases | median | p90 | max | listed at the first poll |", "|---|---:|---:|---:|---:|",
           f"| PostgreSQL stack: push on a, listed by b | {pg['medianMs']:.1f} ms | {pg['p90Ms']:.1f} ms | {pg['maxMs']:.1f} ms | "
           f"{pg.get('listedAtFirstPoll', '?')} of {lat['releases']} |",
           f"| one server, SQLite: push and list on it | {sq['medianMs']:.1f} ms | {sq['p90Ms']:.1f} ms | {sq['maxMs']:.1f} ms | "
           f"{sq.get('listedAtFirstPoll', '?')} of {lat['releases']} |",
           f"| PostgreSQL ÷ SQLite | {pg['medianMs'] / max(sq['medianMs'], 1e-3):.1f}× | | | |", "",
           "| target | this run | target | |", "|---|---:|---:|---|"]
    md += [f"| {what} | {value} | {target} | {'' if met is None else 'met' if met else 'missed'} |"
           for what, value, target, met in targets(r)]
    md += [""] + [f"{note}\n" for note in notes(r)]
    return md


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


if __name__ == "__main__":
    main()
