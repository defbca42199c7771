#!/usr/bin/env python3
"""Runs the Swift test run and says, when it stops moving, which tests were still running.

    scripts/test_watchdog.py [--stall SECONDS] [--limit SECONDS] -- swift test --skip-build

A test that waits forever (a child program that never exits, a pipe a grandchild holds open) used to
hold `make test` until CI's own limit killed it, and all CI kept was the tail of the output: the
flood of "started" lines from the first seconds, which names nothing. This wrapper passes every line
through as it comes and follows Swift Testing's console events (◇ started, ✔ passed, ✘ failed,
➜ skipped). When no line has come for --stall seconds, or the run has taken --limit seconds, it
prints the tests started and not ended (longest first), every thread's backtrace of the test
process (lldb, which ships with the Swift toolchain), stops the run and exits 124. These are guards
against a hang, not timings: a healthy run on this machine takes about a quarter of the limit.

Whatever happens, it ends by repeating the failed tests and its verdict, so the last lines of the
log (all a CI summary keeps) say what failed.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

# "◇ Test "name" started." / "✔ Test "name" with 12 test cases passed after 1.2 seconds." /
# "✘ Test name() failed after …" / "➜ Test "name" skipped: …". A name may itself hold "started".
STARTED = re.compile(r"^◇ Test (.*) started\.$")
ENDED = re.compile(r"^(✔|✘|➜) Test (.*?)(?: with \d+ test cases?)? (passed after|failed after|skipped)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stall", type=float, default=1200, help="seconds without a line before the run is judged stuck")
    parser.add_argument("--limit", type=float, default=2700, help="seconds the whole run may take")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run (put it after --)")
    # Line-buffered output from the test process (Swift Testing writes through C stdio), so a
    # stuck run's last lines are not lost in a buffer when it is stopped.
    if shutil.which("stdbuf"):
        command = ["stdbuf", "-oL", "-eL"] + command

    started = time.monotonic()
    state = {"last": started}
    running = {}  # name -> when each test of that name started (two suites may hold tests of one name)
    failed = []
    lock = threading.Lock()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True)

    def pump():
        for raw in iter(child.stdout.readline, b""):
            sys.stdout.buffer.write(raw)
            sys.stdout.buffer.flush()
            line = raw.decode("utf-8", "replace").rstrip("\n")
            now = time.monotonic()
            with lock:
                state["last"] = now
                # A parameterized test's cases say when they start, not when they end.
                if line.startswith("◇ Test case "):
                    continue
                m = STARTED.match(line)
                if m and m.group(1) != "run":  # "◇ Test run started."
                    running.setdefault(m.group(1), []).append(now)
                    continue
                m = ENDED.match(line)
                if m:
                    times = running.get(m.group(2))
                    if times:
                        times.pop(0)
                        if not times:
                            del running[m.group(2)]
                    if m.group(1) == "✘":
                        failed.append(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    verdict = None
    while child.poll() is None:
        time.sleep(5)
        now = time.monotonic()
        with lock:
            quiet = now - state["last"]
        if quiet >= args.stall:
            verdict = "no output for %d s" % quiet
        elif now - started >= args.limit:
            verdict = "still running after %d s" % (now - started)
        if verdict:
            report_stuck(child, verdict, running, lock)
            stop(child)
            break
    reader.join(timeout=30)
    code = child.wait()
    print("\n== test_watchdog: %s after %d s" % ("stopped: " + verdict if verdict else "exit %d" % code,
                                                  time.monotonic() - started))
    if failed:
        print("== failed tests (%d):" % len(failed))
        for line in failed:
            print("   " + line[:400])
    sys.stdout.flush()
    return 124 if verdict else code


def report_stuck(child, verdict, running, lock):
    print("\n== test_watchdog: the test run is stuck (%s); tests started and not ended:" % verdict, flush=True)
    now = time.monotonic()
    with lock:
        items = sorted((since, name) for name, times in running.items() for since in times)
    for since, name in items:
        print("   %6d s  %s" % (now - since, name[:300]))
    # The test process: the swift-testing / xctest runner `swift test` started (its child).
    lldb = shutil.which("lldb")
    for pid in descendants(child.pid):
        comm = read(f"/proc/{pid}/cmdline").replace("\0", " ")[:200]
        print("== process %d: %s" % (pid, comm), flush=True)
        if lldb and ("xctest" in comm or "PackageTests" in comm):
            try:
                out = subprocess.run([lldb, "-p", str(pid), "--batch", "-o", "thread backtrace all"],
                                     capture_output=True, text=True, timeout=180).stdout
            except (subprocess.TimeoutExpired, OSError) as error:
                out = "lldb: %s" % error
            # Only our frames and the waits they are in: a backtrace of every thread is long.
            kept = [l for l in out.splitlines()
                    if l.startswith("* thread") or l.lstrip().startswith("thread #") or "TrailPack" in l
                    or "trailpack" in l or "wait" in l or "read" in l]
            print("\n".join(kept[:800]), flush=True)


def descendants(root):
    """The processes under `root` (itself included), from /proc's parent links."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = read(f"/proc/{entry}/stat")
            # pid (comm) state ppid …: comm may hold spaces and parentheses; the last ')' ends it.
            fields = stat[stat.rfind(")") + 2:].split()
            if len(fields) > 1:
                children.setdefault(int(fields[1]), []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return sorted(out)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def stop(child):
    try:
        os.killpg(child.pid, signal.SIGTERM)
        child.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


if __name__ == "__main__":
    sys.exit(main())
