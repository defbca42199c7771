#!/usr/bin/env python3
"""Every test suite carries the `.ownThreads` trait (Tests/TrailPackTestSupport/OwnThreads.swift).

Swift concurrency's shared pool has one thread per core and does not grow when a thread blocks; a
test that waits on a child program holds one, and two such tests freeze every in-process server of
the other suites. With `--fix`, adds the trait (and the import) where it is missing.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SUITE = re.compile(r'@Suite\(\s*"((?:[^"\\]|\\.)*)"')


def main() -> int:
    fix = "--fix" in sys.argv[1:]
    missing = []
    for path in sorted((ROOT / "Tests").rglob("*.swift")):
        if "TrailPackTestSupport" in path.parts:
            continue
        text = path.read_text()
        if "@Test" in text and "@Suite" not in text:
            missing.append(f"{path.relative_to(ROOT)}: tests outside a @Suite cannot carry .ownThreads")
        for m in re.finditer(r"@Suite\b(?!\()", text):
            line = text.count("\n", 0, m.start()) + 1
            missing.append(f"{path.relative_to(ROOT)}:{line}: @Suite without a name and .ownThreads")
        edits = []
        for m in re.finditer(r"@Suite\(", text):
            named = SUITE.match(text, m.start())
            rest = text[named.end():] if named else ""
            if named and re.match(r"\s*,\s*\.ownThreads\b", rest):
                continue
            line = text.count("\n", 0, m.start()) + 1
            if not named:
                missing.append(f"{path.relative_to(ROOT)}:{line}: @Suite whose first argument is not its name")
                continue
            edits.append(named.end())
            if not fix:
                missing.append(f"{path.relative_to(ROOT)}:{line}: @Suite(\"{named.group(1)}\") lacks .ownThreads")
        if fix and edits:
            for at in reversed(edits):
                text = text[:at] + ", .ownThreads" + text[at:]
            if not re.search(r"^(@testable )?import TrailPackTestSupport$", text, re.M):
                imports = list(re.finditer(r"^(@testable )?import \w+$", text, re.M))
                at = imports[-1].end() if imports else 0
                text = text[:at] + "\nimport TrailPackTestSupport" + text[at:]
            path.write_text(text)
    for line in missing:
        print(line, file=sys.stderr)
    if missing:
        print("every suite runs its tests on threads of their own: add .ownThreads after the suite's name "
              "(python3 scripts/check_suites.py --fix)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
