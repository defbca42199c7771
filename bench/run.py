#!/usr/bin/env python3
"""`make bench`: trailpack against the tools people would use instead, on the same machine, in one run.

For every data set: each command is run once to warm up, then RUNS times, the commands alternating
(A B C A B C ...), and the median wall time and the peak RSS of each (from wait4, per process tree)
are reported, with MB/s and the ratio trailpack / peer. Results go to bench/results/ as JSON and
Markdown. Nothing here fails the build: the targets are printed as met or missed.

Usage: run.py [--sets small,tiny,map] [--runs 3] [--trailpack PATH] [--zf PATH]
(map: bench/map_bench.py, map extract from a ~1 GB PMTiles and verify with a ~200 MB map)
"""
import argparse, json, os, platform, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
MEDIA = ".mp4:.m4v:.mov:.webm:.mp3:.m4a:.aac:.ogg:.opus:.flac:.jpg:.jpeg:.png:.webp:.gif:.heic:.avif:.mbtiles:.pmtiles:.pbf:.mvt"


def run_once(cmd, cwd=None):
    """Wall seconds and peak RSS (MiB) of one run; raises if the command fails.

    The peak RSS comes from GNU time, a small C parent: a child forked (or even vforked) from
    this Python process would inherit its ~20 MiB high-water mark at exec, and every peer
    would seem to need 20 MiB.
    """
    argv = ["/bin/sh", "-c", cmd] if isinstance(cmd, str) else list(cmd)
    with tempfile.NamedTemporaryFile("r") as report, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name] + argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        elapsed = time.perf_counter() - t0
        if p.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{cmd!r} failed ({p.returncode}): {err.read().decode(errors='replace')[-500:]}")
        rss_kib = int(report.read().strip().splitlines()[-1])
    return elapsed, rss_kib / 1024


def bench(commands, runs, setup=None):
    """commands: [(label, cmd, cwd)]. Alternates them; returns {label: (median s, max RSS MiB, [times])}."""
    times = {label: [] for label, _, _ in commands}
    rss = {label: 0.0 for label, _, _ in commands}
    for round_ in range(runs + 1):  # round 0 warms up
        for label, cmd, cwd in commands:
            if setup:
                setup()
            t, r = run_once(cmd, cwd)
            if round_ > 0:
                times[label].append(t)
                rss[label] = max(rss[label], r)
    return {label: (statistics.median(times[label]), rss[label], times[label]) for label in times}


def tree_bytes(folder):
    total = files = 0
    for dirpath, _, names in os.walk(folder):
        for n in names:
            if not n.startswith("."):
                total += os.path.getsize(os.path.join(dirpath, n))
                files += 1
    return total, files


def drop_caches():
    try:
        subprocess.run(["sync"], check=True)
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="small,tiny")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--trailpack", default=os.path.join(HERE, "..", ".build", "release", "trailpack"))
    ap.add_argument("--zf", default=os.path.join(HERE, "zf-peer", ".build", "release", "zf-bench"))
    args = ap.parse_args()
    tp = os.path.abspath(args.trailpack)
    zf = os.path.abspath(args.zf) if os.path.exists(args.zf) else None
    sets = args.sets.split(",")
    sys.path.insert(0, HERE)
    import gen_data

    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    work = tempfile.mkdtemp(prefix="trailpack-bench-", dir=os.path.join(HERE, "data"))
    results = {"machine": {"cpu": cpu_name(), "cores": os.cpu_count(), "kernel": platform.release(), "python": platform.python_version()},
               "runs": args.runs, "sets": {}}
    md = [f"Machine: {results['machine']['cpu']}, {os.cpu_count()} cores. Medians of {args.runs} alternating runs after a warm-up; "
          "peak RSS per process tree; ratio = trailpack ÷ peer (below 1 means trailpack is faster).", ""]
    try:
        for name in sets:
            if name == "map":  # PMTiles: map extract from ~1 GB, verify with a ~200 MB map (bench/map_bench.py)
                import map_bench
                md += map_bench.main([], runs=args.runs, trailpack=tp)
                continue
            folder = gen_data.generate(name)
            size, nfiles = tree_bytes(folder)
            out = os.path.join(work, "out.zip")
            pkg = os.path.join(work, f"{name}.zip")
            subprocess.run([tp, "build", folder, "-o", pkg, "-q"], check=True)
            digest = open(pkg + ".sha256").read().split()[0]
            pkg_size = os.path.getsize(pkg)
            built = json.loads(subprocess.run([tp, "build", folder, "-o", out, "--json"], check=True, capture_output=True).stdout)
            print(f"\n== {name}: {nfiles} files, {size / 1e6:.0f} MB; package {pkg_size / 1e6:.0f} MB; fsync before rename {built['flushSeconds']:.3f} s", flush=True)

            def clean():
                for p in (out, out + ".sha256"):
                    if os.path.exists(p):
                        os.remove(p)

            build_cmds = [
                ("trailpack build", [tp, "build", folder, "-o", out, "-q"], None),
                ("zip -r -X -n media", f"zip -r -X -q -n {MEDIA} '{out}' .", folder),
                ("bsdtar zip (deflate)", ["bsdtar", "--format", "zip", "-cf", out, "-C", folder, "."], None),
                ("bsdtar zip store", ["bsdtar", "--format", "zip", "--options", "zip:compression=store", "-cf", out, "-C", folder, "."], None),
                ("7z a -tzip -mx=1", f"7z a -tzip -mx=1 -bd -bso0 '{out}' ./*", folder),
            ]
            if zf:
                build_cmds.append(("ZIPFoundation build", [zf, "build", folder, out], None))
            verify_cmds = [
                ("trailpack verify --sha256", [tp, "verify", pkg, "--sha256", digest], None),
                ("trailpack verify --threads 1", [tp, "verify", pkg, "--sha256", digest, "--threads", "1"], None),
                ("sha256sum && unzip -tq", f"sha256sum '{pkg}' && unzip -tq '{pkg}'", None),
                ("sha256sum", ["sha256sum", pkg], None),
                ("openssl dgst -sha256", ["openssl", "dgst", "-sha256", pkg], None),
                ("bsdtar -xOf > /dev/null", f"bsdtar -xOf '{pkg}' > /dev/null", None),
                ("7z t", ["7z", "t", "-bd", "-bso0", pkg], None),
            ]
            if zf:
                verify_cmds.append(("ZIPFoundation verify", [zf, "verify", pkg], None))

            b = bench(build_cmds, args.runs, setup=clean)
            v = bench(verify_cmds, args.runs)
            cold = None
            if drop_caches():
                cold_times = []
                for _ in range(args.runs):
                    drop_caches()
                    cold_times.append(run_once([tp, "verify", pkg, "--sha256", digest])[0])
                cold = statistics.median(cold_times)
            entry = {"files": nfiles, "bytes": size, "packageBytes": pkg_size, "flushSeconds": built["flushSeconds"],
                     "build": {k: {"median": m, "rssMiB": r, "times": t} for k, (m, r, t) in b.items()},
                     "verify": {k: {"median": m, "rssMiB": r, "times": t} for k, (m, r, t) in v.items()},
                     "coldVerify": cold}
            results["sets"][name] = entry
            md += table(name, "build", b, "trailpack build", size, nfiles) + table(name, "verify", v, "trailpack verify --sha256", pkg_size, nfiles)
            if cold:
                md.append(f"Cold-cache verify ({name}): {cold:.3f} s, {cold / v['trailpack verify --sha256'][0]:.2f}× warm.\n")
            md += targets(name, b, v, nfiles, cold)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    json.dump(results, open(os.path.join(HERE, "results", f"bench-{stamp}.json"), "w"), indent=1)
    open(os.path.join(HERE, "results", f"bench-{stamp}.md"), "w").write("\n".join(md) + "\n")
    print("\n".join(md))
    print(f"results: bench/results/bench-{stamp}.json and .md")


def table(name, kind, res, ours, nbytes, nfiles):
    mine = res[ours][0]
    lines = [f"### {name}: {kind}", "", "| command | median s | MB/s | peak RSS MiB | trailpack ÷ this |", "|---|---:|---:|---:|---:|"]
    for label, (m, r, _) in res.items():
        lines.append(f"| {label} | {m:.3f} | {nbytes / 1e6 / m:.0f} | {r:.1f} | {mine / m:.2f} |")
    if name == "tiny":
        lines.append(f"\nPer entry: {ours} {mine / nfiles * 1e6:.1f} µs; "
                     + ", ".join(f"{l} {m / nfiles * 1e6:.1f} µs" for l, (m, _, _) in res.items() if l != ours))
    print("\n".join(lines), flush=True)
    return lines + [""]


def targets(name, b, v, nfiles, cold):
    """The targets of the benchmark issue, as met or missed (informative)."""
    out = []
    tv = v["trailpack verify --sha256"][0]
    tb = b["trailpack build"][0]
    def check(label, ok):
        out.append(f"- {'met' if ok else 'MISSED'}: {label}")
    if name == "medium":  # the issue sets throughput targets on the 1.08 GB set; small is dominated by process start
        check(f"verify ≤ 1.3× openssl dgst ({tv / v['openssl dgst -sha256'][0]:.2f}×)", tv <= 1.3 * v["openssl dgst -sha256"][0])
        check(f"verify ≥ 5× faster than sha256sum && unzip -tq ({v['sha256sum && unzip -tq'][0] / tv:.1f}×)", v["sha256sum && unzip -tq"][0] >= 5 * tv)
        check(f"single-threaded verify ≤ 2.3× openssl dgst ({v['trailpack verify --threads 1'][0] / v['openssl dgst -sha256'][0]:.2f}×)",
              v["trailpack verify --threads 1"][0] <= 2.3 * v["openssl dgst -sha256"][0])
        check(f"build ≤ 1.5× bsdtar store ({tb / b['bsdtar zip store'][0]:.2f}×)", tb <= 1.5 * b["bsdtar zip store"][0])
        check(f"build ≤ 0.35× zip -r -n ({tb / b['zip -r -X -n media'][0]:.2f}×)", tb <= 0.35 * b["zip -r -X -n media"][0])
        if cold:
            check(f"cold-cache verify ≤ 1.15× warm ({cold / tv:.2f}×)", cold <= 1.15 * tv)
    check(f"peak RSS ≤ 48 MiB (build {b['trailpack build'][1]:.1f}, verify {v['trailpack verify --sha256'][1]:.1f})",
          max(b["trailpack build"][1], v["trailpack verify --sha256"][1]) <= 48)
    if name == "tiny":
        check(f"tiny: verify ≤ 12 µs per entry ({tv / nfiles * 1e6:.1f})", tv / nfiles * 1e6 <= 12)
        check(f"tiny: build ≤ 25 µs per entry ({tb / nfiles * 1e6:.1f})", tb / nfiles * 1e6 <= 25)
    print("\n".join(out), flush=True)
    return out + [""]


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
