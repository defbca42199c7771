#!/usr/bin/env python3
"""The visitor app's files, compiled into the program: Package.swift's list and EmbeddedApp.swift's table.

    scripts/embed_app.py            writes both from the files under Sources/TrailPackVisitor/app/
    scripts/embed_app.py --check    exits 1, naming the difference, when either is out of date (make check)

`trailpack serve` serves the app at /visit/ from bytes inside the program, as the panel's pages are,
so the one file `make release` builds (or the Debian package installs as /usr/bin/trailpack) is
enough: nothing has to be found beside it at run time. SwiftPM embeds a file with
`.embedInCode(path)` and names its bytes `PackageResources.<the file's name, every other character
an underscore>`; this script keeps the list of files and the table from path to bytes in step with
the folder, so adding a file to the app is: add it, run this script.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGET = ROOT / "Sources/TrailPackVisitor"
APP = TARGET / "app"
PACKAGE = ROOT / "Package.swift"
TABLE = TARGET / "EmbeddedApp.swift"
BEGIN = "            // The app's files, compiled into the program (scripts/embed_app.py writes this list)."
END = "            // End of the app's files."


def files():
    out = []
    for path in sorted(APP.rglob("*")):
        relative = path.relative_to(APP).as_posix()
        if path.is_file() and not any(part.startswith(".") for part in relative.split("/")):
            out.append(relative)
    return out


def identifier(relative):
    # SwiftPM: the file's name with every character that is not a letter, digit or _ made an _.
    name = re.sub(r"[^A-Za-z0-9_]", "_", relative.split("/")[-1])
    return "_" + name if name[0].isdigit() else name


def package_block(names):
    lines = [BEGIN, "            resources: ["]
    lines += ['                .embedInCode("app/%s"),' % n for n in names]
    lines += ["            ],", END]
    return "\n".join(lines)


def table(names):
    rows = "\n".join('        ("%s", PackageResources.%s),' % (n, identifier(n)) for n in names)
    return """// Written by scripts/embed_app.py from the files under app/ (make check says when it is out of date).

/// The visitor app's files, compiled into the program (Package.swift embeds each one): the path
/// under `app/` each is served at below `/visit/`, and its bytes.
enum EmbeddedApp {
    static let files: [(path: String, bytes: [UInt8])] = [
%s
    ]
}
""" % rows


def main():
    check = "--check" in sys.argv[1:]
    names = files()
    clash = {}
    for n in names:
        clash.setdefault(identifier(n), []).append(n)
    twins = [v for v in clash.values() if len(v) > 1]
    if twins:
        print("embed_app: files whose embedded names collide (SwiftPM names them by file name only): %s; rename one"
              % "; ".join(" and ".join(v) for v in twins), file=sys.stderr)
        return 1
    package = PACKAGE.read_text()
    start, stop = package.find(BEGIN), package.find(END)
    if start < 0 or stop < start:
        print("embed_app: Package.swift has no block between %r and %r" % (BEGIN.strip(), END.strip()),
              file=sys.stderr)
        return 1
    new_package = package[:start] + package_block(names) + package[stop + len(END):]
    new_table = table(names)
    stale = []
    if new_package != package:
        stale.append("Package.swift's list of the visitor app's files")
    if not TABLE.exists() or TABLE.read_text() != new_table:
        stale.append(TABLE.relative_to(ROOT).as_posix())
    if check:
        if stale:
            print("embed_app: %s do(es) not match the files under %s: run python3 scripts/embed_app.py"
                  % (" and ".join(stale), APP.relative_to(ROOT)), file=sys.stderr)
            return 1
        print("embed_app: the visitor app's %d files are compiled into the program" % len(names))
        return 0
    PACKAGE.write_text(new_package)
    TABLE.write_text(new_table)
    print("embed_app: %d files; wrote %s" % (len(names), ", ".join(stale) if stale else "nothing (up to date)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
