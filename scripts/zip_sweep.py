#!/usr/bin/env python3
"""Header-field sweep: one field of one entry (or of the end record) changed at a time, read by
Info-ZIP's unzip, Python's zipfile, bsdtar (libarchive) and `trailpack verify`, to find where the
readers disagree (docs/FORMAT.md section 1: a package verify accepts reads the same in every tool).

usage: zip_sweep.py TRAILPACK_BINARY BASE_PACKAGE [--json]

Each reader extracts the whole archive; it "reads" the mutant when it exits 0 and every file it
wrote has the base package's bytes (and no file is missing). The table lists, per mutant, each
reader's verdict: ok (read the same), warn (read the same, exit status 1 with a warning), skip
(exit 0 or 1 but a file missing or different), fail (refused) — and ours: valid or the finding codes.
A row marked "<-" is a disagreement left open: ours accepts what a peer does not read the same.
"""
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib


def crc(b):
    return zlib.crc32(b) & 0xFFFFFFFF


def raw_deflate(b):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(b) + c.flush()


class Entry:
    def __init__(self, name, data, method):
        self.name, self.data, self.method = name.encode(), data, method
        self.fields = {}  # overrides: (where, field) -> value
        self.local_extra = b""
        self.central_extra = b""
        self.comment = b""


def write(entries, eocd=None, archive_comment=b""):
    """A ZIP like the builder's, without data descriptors, each field overridable."""
    eocd = eocd or {}
    out, central = bytearray(), bytearray()
    for e in entries:
        f = e.fields
        body = raw_deflate(e.data) if e.method == 8 else e.data
        offset = len(out)
        flags = 0x0800 if any(b >= 0x80 for b in e.name) else 0
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, f.get(("l", "needed"), 20), f.get(("l", "flags"), flags),
                           f.get(("l", "method"), e.method), f.get(("l", "time"), 0), f.get(("l", "date"), 0x21),
                           crc(e.data), len(body), len(e.data), len(e.name), len(e.local_extra))
        out += e.name + e.local_extra + body
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, f.get(("c", "madeBy"), 0x0314),
                               f.get(("c", "needed"), 20), f.get(("c", "flags"), flags), f.get(("c", "method"), e.method),
                               f.get(("c", "time"), 0), f.get(("c", "date"), 0x21), crc(e.data), len(body), len(e.data),
                               len(e.name), len(e.central_extra), len(e.comment), f.get(("c", "disk"), 0),
                               f.get(("c", "internal"), 0), f.get(("c", "external"), 0o100644 << 16), offset)
        central += e.name + e.central_extra + e.comment
    cd = len(out)
    out += central
    n = len(entries)
    out += struct.pack("<IHHHHIIH", 0x06054B50, eocd.get("disk", 0), eocd.get("cdDisk", 0), eocd.get("diskEntries", n),
                       eocd.get("entries", n), len(central), cd, len(archive_comment)) + archive_comment
    return bytes(out)


def mutants(base):
    z = zipfile.ZipFile(base)
    files = [(i.filename, z.read(i.filename), i.compress_type) for i in z.infolist()]

    def fresh():
        return [Entry(n, d, m) for n, d, m in files]

    target = len(files) - 1  # the last entry: an asset
    yield "base (re-emitted)", "", fresh(), {}, b""
    for value in (0x0A, 0x14, 0x2D, 0x2E, 0x3D, 0x3E, 0x3F, 0x40, 0xFF, 0xFFFF):
        for where in ("c", "l"):
            es = fresh()
            es[target].fields[(where, "needed")] = value
            yield "%s version needed" % ("central" if where == "c" else "local"), hex(value), es, {}, b""
    for value in (0x0014, 0x003F, 0x00FF, 0x0A14, 0x1314, 0xFF14):
        es = fresh()
        es[target].fields[("c", "madeBy")] = value
        yield "central version made by", hex(value), es, {}, b""
    for bit in (1, 2, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15):
        for where in ("c", "l", "both"):
            es = fresh()
            flags = (1 << bit) | (0x0800 if any(b >= 0x80 for b in es[target].name) else 0)
            for w in (("c", "l") if where == "both" else (where,)):
                es[target].fields[(w, "flags")] = flags
            yield "%s flag bit %d" % ({"c": "central", "l": "local", "both": "both"}[where], bit), hex(1 << bit), es, {}, b""
    for value in (1, 9, 12, 14, 93, 99):
        es = fresh()
        es[target].fields[("c", "method")] = value
        es[target].fields[("l", "method")] = value
        yield "method (both headers)", str(value), es, {}, b""
    for (time, date), label in [((0, 0), "0/0"), ((0xFFFF, 0xFFFF), "ffff/ffff"), ((0xBFFF, 0x21), "hour 23 min 63 s 62"),
                                ((0, 0x1A0), "month 13"), ((0, 0x20), "day 0"), ((0xC800, 0x21), "hour 25")]:
        for where in ("c", "l"):
            es = fresh()
            es[target].fields[(where, "time")] = time
            es[target].fields[(where, "date")] = date
            yield "%s DOS time/date" % ("central" if where == "c" else "local"), label, es, {}, b""
    for value in (1, 0xFFFF):
        es = fresh()
        es[target].fields[("c", "internal")] = value
        yield "central internal attributes", hex(value), es, {}, b""
    for value, label in [(0x10, "DOS folder bit on a file"), (0x01, "DOS read-only"), (0o104755 << 16, "unix setuid"),
                         (0o100000 << 16, "unix mode 0"), (0xFFFFFFFF, "all ones")]:
        es = fresh()
        es[target].fields[("c", "external")] = value
        yield "central external attributes", label, es, {}, b""
    for made_by, value, label in [(0x0014, 0x10, "DOS host, folder bit on a file")]:
        es = fresh()
        es[target].fields[("c", "madeBy")] = made_by
        es[target].fields[("c", "external")] = value
        yield "central external attributes", label, es, {}, b""
    for value in (1, 0xFFFF):
        es = fresh()
        es[target].fields[("c", "disk")] = value
        yield "central disk number start", hex(value), es, {}, b""
    for comment, label in [(b"a comment", "9 bytes"), (b"\xff\xfe", "not UTF-8")]:
        es = fresh()
        es[target].comment = comment
        yield "central file comment", label, es, {}, b""
    extras = [
        (struct.pack("<HH", 0xCAFE, 4) + b"abcd", "unknown id 0xcafe"),
        (struct.pack("<HH", 0x5455, 5) + b"\x01" + struct.pack("<I", 0), "extended time 0x5455"),
        (struct.pack("<HH", 0x5455, 1) + b"\x01", "extended time, short"),
        (struct.pack("<HH", 0x7875, 11) + b"\x01\x04" + struct.pack("<I", 0) + b"\x04" + struct.pack("<I", 0), "unix uid/gid 0x7875"),
        (struct.pack("<HH", 0x000A, 32) + bytes(32), "NTFS times 0x000a"),
        (struct.pack("<HH", 0x0001, 8) + struct.pack("<Q", 0), "ZIP64 field not needed"),
        (struct.pack("<HH", 0xCAFE, 40) + b"ab", "length past the end"),
        (b"\x01", "1 stray byte"),
        (struct.pack("<HH", 0x6375, 5) + b"\x01" + struct.pack("<I", 0), "Unicode comment 0x6375"),
    ]
    for extra, label in extras:
        for where in ("c", "l"):
            es = fresh()
            if where == "c":
                es[target].central_extra = extra
            else:
                es[target].local_extra = extra
            yield "%s extra field" % ("central" if where == "c" else "local"), label, es, {}, b""
    for key, value in [("disk", 1), ("cdDisk", 1), ("diskEntries", len(files) - 1), ("entries", len(files) + 1),
                       ("disk", 0xFFFF), ("entries", 0xFFFF)]:
        yield "end record " + key, str(value), fresh(), {key: value}, b""
    yield "archive comment", "7 bytes", fresh(), {}, b"comment"
    yield "archive comment", "not UTF-8", fresh(), {}, b"\xff\xfe"


def extracted(folder):
    got = {}
    for root, _, names in os.walk(folder):
        for n in names:
            p = os.path.join(root, n)
            got[os.path.relpath(p, folder)] = open(p, "rb").read()
    return got


def judge(status, got, expected, warn_status=(1,)):
    if status not in (0,) + tuple(warn_status):
        return "fail"
    if got != expected:
        return "skip"
    return "ok" if status == 0 else "warn"


def run_readers(binary, path, expected, tmp):
    verdicts = {}
    if shutil.which("unzip"):
        d = tempfile.mkdtemp(dir=tmp)
        r = subprocess.run(["unzip", "-qq", "-o", path, "-d", d], capture_output=True)
        verdicts["unzip"] = judge(r.returncode, extracted(d), expected)
    try:
        got = {}
        with zipfile.ZipFile(path) as z:
            for i in z.infolist():
                if not i.is_dir():
                    got[i.filename] = z.read(i)
        verdicts["python"] = "ok" if got == expected else "skip"
    except Exception as exc:  # every refusal counts, whatever its type
        verdicts["python"] = "fail"
    if shutil.which("bsdtar"):
        d = tempfile.mkdtemp(dir=tmp)
        r = subprocess.run(["bsdtar", "-xf", path, "-C", d], capture_output=True)
        verdicts["bsdtar"] = judge(r.returncode, extracted(d), expected, warn_status=())
    r = subprocess.run([binary, "verify", path, "--json"], capture_output=True, text=True)
    try:
        report = json.loads(r.stdout)
        codes = sorted({f["code"] for f in report.get("findings", []) if f.get("severity") == "error"})
    except ValueError:
        codes = ["(no report, exit %d)" % r.returncode]
    verdicts["ours"] = "valid" if r.returncode == 0 else ",".join(codes) or "exit %d" % r.returncode
    return verdicts


def main():
    binary, base = sys.argv[1], sys.argv[2]
    as_json = "--json" in sys.argv[3:]
    with zipfile.ZipFile(base) as z:
        expected = {i.filename: z.read(i) for i in z.infolist() if not i.is_dir()}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for field, value, entries, eocd, comment in mutants(base):
            path = os.path.join(tmp, "mutant.zip")
            open(path, "wb").write(write(entries, eocd, comment))
            v = run_readers(binary, path, expected, tmp)
            peers = [v.get(t) for t in ("unzip", "python", "bsdtar") if t in v]
            agree = all(p in ("ok", "warn") for p in peers)
            rows.append({"field": field, "value": value, **v,
                         "disagree": v["ours"] == "valid" and not agree})
    if as_json:
        print(json.dumps(rows, indent=1))
    else:
        print("| field | value | unzip | python | bsdtar | ours |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            print("| %s | %s | %s | %s | %s | %s |%s" % (r["field"], r["value"], r.get("unzip", "-"), r["python"],
                                                       r.get("bsdtar", "-"), r["ours"], "  <-" if r["disagree"] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
