#!/usr/bin/env python3
"""`make bench` for the server: download throughput, and the list endpoint's p50/p99 latency with
10,000 packages in the catalog, under load from wrk on loopback (bounded: 10 s a run).

Usage: server.py [--trailpack PATH] [--set small]
"""
import argparse, json, os, re, shutil, sqlite3, subprocess, sys, tempfile, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
EICAR = r"X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trailpack", default=os.path.join(HERE, "..", ".build", "release", "trailpack"))
    ap.add_argument("--set", default="small")
    args = ap.parse_args()
    tp = os.path.abspath(args.trailpack)
    sys.path.insert(0, HERE)
    import gen_data
    folder = gen_data.generate(args.set)
    work = tempfile.mkdtemp(prefix="trailpack-server-bench-")
    server = None
    try:
        pkg = os.path.join(work, "pkg.zip")
        subprocess.run([tp, "build", folder, "-o", pkg, "-q"], check=True)
        sha = open(pkg + ".sha256").read().split()[0]
        token = "bench-token-0123456789abcdef"
        open(os.path.join(work, "token"), "w").write(token)
        os.makedirs(os.path.join(work, "db"))
        open(os.path.join(work, "db", "t.ndb"), "w").write("Trailpack.Test.EICAR:0:*:" + EICAR.encode().hex() + "\n")
        server = subprocess.Popen([tp, "serve", "--data", os.path.join(work, "data"), "--port", "0", "--approvals", "0",
                                   "--admin-token-file", os.path.join(work, "token"), "--clamav-db", os.path.join(work, "db")],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = server.stdout.readline()
        base = re.search(r"http://[0-9.]+:\d+", line).group(0)
        size = os.path.getsize(pkg)
        t0 = time.perf_counter()
        req = urllib.request.Request(base + "/v1/admin/packages", data=open(pkg, "rb").read(), method="POST",
                                     headers={"Authorization": f"Bearer {token}"})
        urllib.request.urlopen(req).read()
        upload = time.perf_counter() - t0
        # 10,000 more packages in the catalog, in 20 sites, all pointing at the stored bytes.
        db = sqlite3.connect(os.path.join(work, "data", "catalog.sqlite"))
        row = db.execute("SELECT * FROM packageVersion LIMIT 1").fetchone()
        cols = [d[0] for d in db.execute("SELECT * FROM packageVersion LIMIT 1").description]
        base_row = dict(zip(cols, row))
        db.executemany("INSERT OR IGNORE INTO site (id, name) VALUES (?, ?)", [(f"site-{i}", f"Site {i}") for i in range(20)])
        rows = []
        for i in range(10_000):
            r = dict(base_row)
            r.update(packageID=f"org.example.bench.p{i:05d}", siteID=f"site-{i % 20}", name=f"Package {i}")
            rows.append(tuple(r[c] for c in cols))
        db.executemany(f"INSERT INTO packageVersion ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", rows)
        db.commit()
        db.close()
        # Download throughput: the whole package, three times, median.
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run(["curl", "-s", "-o", "/dev/null", f"{base}/v1/blobs/{sha}.zip"], check=True)
            times.append(time.perf_counter() - t0)
        times.sort()
        download = times[1]
        # The same file from nginx (sendfile on), one stream and 8 connections, against trailpack serve.
        blob_rel = f"{sha[:2]}/{sha}.zip"
        ours = f"{base}/v1/blobs/{sha}.zip"
        versus = nginx_versus(work, os.path.join(work, "data", "blobs"), blob_rel, ours, size, server.pid)
        # The list endpoint under load.
        wrk = subprocess.run(["wrk", "-t2", "-c32", "-d10s", "--latency", f"{base}/v1/sites/site-7/packages?limit=50"],
                             capture_output=True, text=True, check=True).stdout
        def pct(p):
            m = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)", wrk, re.M)
            v = float(m.group(1))
            return v / 1000 if m.group(2) == "us" else (v * 1000 if m.group(2) == "s" else v)
        rps = float(re.search(r"Requests/sec:\s+([\d.]+)", wrk).group(1))
        listing = nginx_list_versus(work, f"{base}/v1/sites/site-7/packages?limit=50")
        result = {"packageBytes": size, "uploadVerifyScanSeconds": upload, "downloadSeconds": download,
                  "downloadMBps": size / 1e6 / download, "listP50ms": pct(50), "listP99ms": pct(99), "listRequestsPerSecond": rps,
                  "catalogPackages": 10_001, "versusNginx": versus, "listVersusNginx": listing}
        md = ["### server", "", "| measure | value |", "|---|---:|",
              f"| upload + verify + ClamAV scan, {size / 1e6:.0f} MB | {upload:.2f} s ({size / 1e6 / upload:.0f} MB/s) |",
              f"| download (curl, loopback), median of 3 | {download:.3f} s ({result['downloadMBps']:.0f} MB/s) |",
              f"| list a site's packages (limit 50, 10,001 in the catalog): p50 | {pct(50):.2f} ms |",
              f"| same: p99 | {pct(99):.2f} ms |",
              f"| same: requests/s (wrk, 2 threads, 32 connections, 10 s) | {rps:.0f} |", ""]
        if versus:
            md += ["| download of the same file | trailpack serve | nginx (sendfile on) | ratio (≥ 0.8 wanted) |", "|---|---:|---:|---:|",
                   f"| one stream (curl), median of 5 | {versus['oursOneMBps']:.0f} MB/s | {versus['nginxOneMBps']:.0f} MB/s | "
                   f"{versus['oursOneMBps'] / versus['nginxOneMBps']:.2f}× {'met' if versus['oursOneMBps'] >= 0.8 * versus['nginxOneMBps'] else 'missed'} |",
                   f"| 8 connections (wrk, 10 s) | {versus['oursWrkMBps']:.0f} MB/s | {versus['nginxWrkMBps']:.0f} MB/s | "
                   f"{versus['oursWrkMBps'] / versus['nginxWrkMBps']:.2f}× {'met' if versus['oursWrkMBps'] >= 0.8 * versus['nginxWrkMBps'] else 'missed'} |",
                   f"| server peak RSS during 20 parallel downloads | {versus['oursPeakRSSMiB']:.1f} MiB | | |", ""]
        if listing:
            ratio = listing["oursRPS"] / listing["nginxRPS"]
            md += ["| a site's list (50 of 10,001), wrk 32 connections, both logging each request | trailpack serve | "
                   "nginx, the same body from a file | target |",
                   "|---|---:|---:|---|",
                   f"| requests/s | {listing['oursRPS']:.0f} | {listing['nginxRPS']:.0f} | "
                   f"≥ 0.5×: {ratio:.2f}× {'met' if ratio >= 0.5 else 'missed'} |",
                   f"| p50 / p99 | {listing['oursP50ms']:.2f} / {listing['oursP99ms']:.2f} ms | "
                   f"{listing['nginxP50ms']:.2f} / {listing['nginxP99ms']:.2f} ms | "
                   f"p99 ≤ 20 ms: {'met' if listing['oursP99ms'] <= 20 else 'missed'} |", ""]
        print("\n".join(md))
        os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        json.dump(result, open(os.path.join(HERE, "results", f"server-{stamp}.json"), "w"), indent=1)
        open(os.path.join(HERE, "results", f"server-{stamp}.md"), "w").write("\n".join(md) + "\n")
    finally:
        if server:
            server.terminate()
            server.wait()
        shutil.rmtree(work, ignore_errors=True)


def wrk_mbps(url):
    out = subprocess.run(["wrk", "-t2", "-c8", "-d10s", url], capture_output=True, text=True, check=True).stdout
    m = re.search(r"Transfer/sec:\s+([\d.]+)(B|KB|MB|GB)", out)
    return float(m.group(1)) * {"B": 1e-6, "KB": 1.024e-3, "MB": 1.048576, "GB": 1073.741824}[m.group(2)]


def one_stream_by_turns(ours, theirs, size, runs=5):
    """One `curl` download at a time of two URLs by turns (one warm-up each, then the order swapped every
    round): each side's (MB/s from the median of `runs`, every run's seconds, sorted)."""
    for url in (ours, theirs):
        subprocess.run(["curl", "-s", "-o", "/dev/null", url], check=True)
    times = {ours: [], theirs: []}
    for i in range(runs):
        for url in ((ours, theirs) if i % 2 == 0 else (theirs, ours)):
            t0 = time.perf_counter()
            subprocess.run(["curl", "-s", "-o", "/dev/null", url], check=True)
            times[url].append(time.perf_counter() - t0)
    out = []
    for url in (ours, theirs):
        t = sorted(times[url])
        out.append((size / 1e6 / t[len(t) // 2], t))
    return out


def peak_rss_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def start_nginx(work, root, name="nginx", access_log=False):
    """nginx-light serving `root` on a free loopback port, sendfile on: (process, port), or None without nginx.
    With `access_log`, a line per request to a file (as trailpack serve writes one per request)."""
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if not nginx:
        print("nginx not installed (apt-get install nginx-light): the comparison is skipped", file=sys.stderr)
        return None
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    conf = os.path.join(work, name + ".conf")
    tmp = os.path.join(work, name + "-tmp")
    os.makedirs(tmp, exist_ok=True)
    open(conf, "w").write(f"""user root;
worker_processes auto;
daemon off;
pid {work}/{name}.pid;
error_log {work}/{name}.err;
events {{ worker_connections 1024; }}
http {{
  access_log {os.path.join(work, name + "-access.log") if access_log else "off"};
  sendfile on;
  tcp_nopush on;
  default_type application/json;
  client_body_temp_path {tmp}; proxy_temp_path {tmp}; fastcgi_temp_path {tmp}; uwsgi_temp_path {tmp}; scgi_temp_path {tmp};
  server {{ listen 127.0.0.1:{port}; root {root}; location / {{ }} }}
}}
""")
    return subprocess.Popen([nginx, "-c", conf, "-p", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), port


def wrk_latency(url):
    """wrk, 2 threads, 32 connections, 10 s: (requests/s, p50 ms, p99 ms)."""
    out = subprocess.run(["wrk", "-t2", "-c32", "-d10s", "--latency", url], capture_output=True, text=True, check=True).stdout
    def pct(p):
        m = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)", out, re.M)
        v = float(m.group(1))
        return v / 1000 if m.group(2) == "us" else (v * 1000 if m.group(2) == "s" else v)
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)), pct(50), pct(99)


def wait_for(url):
    """Until `url` answers (at most 5 s): nginx has just been started."""
    for _ in range(50):
        try:
            urllib.request.urlopen(url).read(1)
            return
        except Exception:
            time.sleep(0.1)


def nginx_list_versus(work, ours):
    """The same list body served by nginx from a file, against trailpack's answer, under wrk."""
    root = os.path.join(work, "static")
    os.makedirs(root, exist_ok=True)
    open(os.path.join(root, "list.json"), "wb").write(urllib.request.urlopen(ours).read())
    started = start_nginx(work, root, "nginx-list", access_log=True)
    if not started:
        return None
    proc, port = started
    try:
        theirs = f"http://127.0.0.1:{port}/list.json"
        wait_for(theirs)
        ours_rps, ours_p50, ours_p99 = wrk_latency(ours)
        nginx_rps, nginx_p50, nginx_p99 = wrk_latency(theirs)
        return {"oursRPS": ours_rps, "oursP50ms": ours_p50, "oursP99ms": ours_p99,
                "nginxRPS": nginx_rps, "nginxP50ms": nginx_p50, "nginxP99ms": nginx_p99}
    finally:
        proc.terminate()
        proc.wait()


def nginx_versus(work, root, blob_rel, ours, size, pid):
    """nginx-light serving the same blob folder on loopback with sendfile on; None without nginx."""
    started = start_nginx(work, root)
    if not started:
        return None
    proc, port = started
    try:
        theirs = f"http://127.0.0.1:{port}/{blob_rel}"
        wait_for(theirs)
        # By turns, so neither gets the warmer cache nor the quieter minute (five of ours then five of
        # nginx's, as this was until 2026-11-30, moved the ratio between 0.78x and 1.81x from run to run).
        (ours_one, ours_times), (nginx_one, nginx_times) = one_stream_by_turns(ours, theirs, size)
        ours_wrk = wrk_mbps(ours)
        nginx_wrk = wrk_mbps(theirs)
        procs = [subprocess.Popen(["curl", "-s", "-o", "/dev/null", "--limit-rate", "200M", ours]) for _ in range(20)]
        for p in procs:
            p.wait()
        return {"oursOneMBps": ours_one, "nginxOneMBps": nginx_one, "oursOneSeconds": ours_times, "nginxOneSeconds": nginx_times,
                "oursWrkMBps": ours_wrk, "nginxWrkMBps": nginx_wrk, "oursPeakRSSMiB": peak_rss_mib(pid)}
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
