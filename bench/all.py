#!/usr/bin/env python3
"""`make bench`, `make bench-large` and `make bench-quick`: every bench script of one run, in order,
each step timed.

The default run measures every row of the issue's targets (the 20,000-file, 100,000-entry, small and
1.08 GB sets against the peers, the server, several servers, the panel at 10,000 drafts, updates by
part, the visitor app's install of 100 MB, the route corridor) and is meant to take under 30 minutes
on this kind of machine. The long rows that no target needs — the 4.7 GB set (memory flat past
4 GiB, ZIP64), bsdtar's and 7z's deflate of the 1.08 GB set, the PMTiles extract from a 1 GB map,
a 1 GiB panel upload, the visitor app's 500 MB install — are `make bench-large` (its run.py results are bench/results/large-*.json, so the README,
made from the newest bench-*.json, keeps the default run's figures).

A step that fails is reported and the next one runs; the exit status says whether any failed. The
steps' times go to bench/results/steps-PROFILE-STAMP.json and are printed as a table at the end.

Usage: all.py [default|large|quick]
"""
import json, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's, with python3-selenium (the visitor app's bench drives Chromium)

PROFILES = {
    "default": [
        ["run.py", "--sets", "tiny,entries100k,small,medium", "--runs", "3"],
        ["readme.py"],
        ["server.py", "--set", "medium"],
        ["several.py"],
        ["readme.py", "--several"],
        ["panel.py", "--drafts", "10000", "--upload-mb", "256"],
        ["update.py", "--sets", "small,medium"],
        ["visitor.py", "--mb", "100"],
        ["corridor.py"],
    ],
    "large": [
        ["run.py", "--sets", "medium,large,map", "--runs", "3", "--prefix", "large", "--all-peers"],
        ["panel.py", "--drafts", "10000", "--upload-mb", "1024"],
        ["visitor.py", "--mb", "500", "--out", os.path.join(HERE, "results", "visitor-large.json")],
    ],
    "quick": [
        ["run.py", "--sets", "tiny,entries100k,small", "--runs", "3", "--prefix", "quick"],
        ["server.py", "--set", "small"],
        ["several.py", "--mb", "64", "--others", "150", "--releases", "10"],
        ["panel.py", "--drafts", "200", "--upload-mb", "128"],
        ["corridor.py"],
        ["update.py", "--sets", "small"],
        ["visitor.py", "--mb", "100", "--out", os.path.join(HERE, "results", "visitor-quick.json")],
    ],
}


def main():
    profile = sys.argv[1] if len(sys.argv) > 1 else "default"
    if profile not in PROFILES:
        sys.exit(f"all.py: no profile '{profile}'; choose one of {', '.join(PROFILES)}")
    steps, began = [], time.monotonic()
    for argv in PROFILES[profile]:
        python = SYSTEM_PYTHON if argv[0] == "visitor.py" else sys.executable
        command = [python, os.path.join(HERE, argv[0]), *argv[1:]]
        name = " ".join(os.path.basename(a) if a.startswith(HERE) else a for a in argv)
        print(f"\n== bench step: {name}", flush=True)
        t0 = time.monotonic()
        code = subprocess.run(command).returncode
        seconds = time.monotonic() - t0
        steps.append({"step": name, "seconds": round(seconds, 1), "exit": code})
        print(f"== bench step: {name}: {seconds / 60:.1f} min" + ("" if code == 0 else f", FAILED (exit {code})"),
              flush=True)
    total = time.monotonic() - began
    stamp = time.strftime("%Y%m%d-%H%M%S")
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    path = os.path.join(HERE, "results", f"steps-{profile}-{stamp}.json")
    with open(path, "w") as f:
        json.dump({"profile": profile, "seconds": round(total, 1), "steps": steps}, f, indent=1)
    print(f"\n`make bench{'' if profile == 'default' else '-' + profile}`: {total / 60:.1f} min ({path})")
    for s in steps:
        print(f"  {s['seconds'] / 60:5.1f} min  {s['step']}" + ("" if s["exit"] == 0 else f"  FAILED (exit {s['exit']})"))
    return 1 if any(s["exit"] for s in steps) else 0


if __name__ == "__main__":
    sys.exit(main())
