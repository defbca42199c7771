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
        # The list endpoint under load.
        wrk = subprocess.run(["wrk", "-t2", "-c32", "-d10s", "--latency", f"{base}/v1/sites/site-7/packages?limit=50"],
                             capture_output=True, text=True, check=True).stdout
        def pct(p):
            m = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)", wrk, re.M)
            v = float(m.group(1))
            return v / 1000 if m.group(2) == "us" else (v * 1000 if m.group(2) == "s" else v)
        rps = float(re.search(r"Requests/sec:\s+([\d.]+)", wrk).group(1))
        result = {"packageBytes": size, "uploadVerifyScanSeconds": upload, "downloadSeconds": download,
                  "downloadMBps": size / 1e6 / download, "listP50ms": pct(50), "listP99ms": pct(99), "listRequestsPerSecond": rps,
                  "catalogPackages": 10_001}
        md = ["### server", "", "| measure | value |", "|---|---:|",
              f"| upload + verify + ClamAV scan, {size / 1e6:.0f} MB | {upload:.2f} s ({size / 1e6 / upload:.0f} MB/s) |",
              f"| download (curl, loopback), median of 3 | {download:.3f} s ({result['downloadMBps']:.0f} MB/s) |",
              f"| list a site's packages (limit 50, 10,001 in the catalog): p50 | {pct(50):.2f} ms |",
              f"| same: p99 | {pct(99):.2f} ms |",
              f"| same: requests/s (wrk, 2 threads, 32 connections, 10 s) | {rps:.0f} |", ""]
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


if __name__ == "__main__":
    main()
