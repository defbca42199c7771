#!/usr/bin/env python3
"""The README stays a front door, and everything it shows stays true.

Fails, naming the file and the line, when:
- README.md is longer than 250 lines;
- it does not open with exactly two commands, `make demo` and `make test` (its first code block,
  before any section);
- a relative link of README.md or docs/*.md points to a file that does not exist, or to an
  #anchor that no heading of the target has (GitHub's anchors: the heading's text in lower case,
  punctuation dropped, spaces as hyphens, "-1", "-2"… for repeats);
- a command line of a ```sh block of README.md is not run by a test. A command counts as run when it
  is `make TARGET…` for targets the Makefile has; or a line, as written (trailing comments and
  spacing aside), of a `<!-- walkthrough -->` block of the docs ReadmeWalkthroughTests hands to
  scripts/readme-walkthrough.sh; or a `$ ` command of the rangers' guide, which RangersGuideTests
  runs as written (docs/RANGERS.md);
- a file of docs/ has walkthrough blocks that no test runs;
- the performance headline is not what the results docs/PERFORMANCE.md names make
  (`bench/readme.py --check`).

Usage: check_readme.py [REPOSITORY_ROOT]
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MAX_LINES = 250
OPENING = ["make demo", "make test"]
WALKTHROUGH_TEST = "Tests/TrailPackIntegrationTests/ReadmeWalkthroughTests.swift"
GUIDE_TEST = "Tests/TrailPackIntegrationTests/RangersGuideTests.swift"
SHELL_FENCES = {"sh", "bash", "shell", "console"}

problems = []


def problem(path, line, message):
    problems.append(f"{os.path.relpath(path, ROOT)}:{line}: {message}")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def fenced_blocks(text):
    """(language, first line number of the body, body lines) of each fenced code block."""
    blocks, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.match(r"^(`{3,}|~{3,})\s*([\w+-]*)", lines[i])
        if m:
            fence, language, body, start = m.group(1), m.group(2), [], i + 2
            i += 1
            while i < len(lines) and not lines[i].startswith(fence):
                body.append(lines[i])
                i += 1
            blocks.append((language, start, body))
        i += 1
    return blocks


def prose(text):
    """The text with fenced code blocks and inline code blanked (line numbers and lengths kept)."""
    out, fence = [], None
    for line in text.split("\n"):
        m = re.match(r"^(`{3,}|~{3,})", line)
        if fence is None and m:
            fence = m.group(1)
            out.append("")
        elif fence is not None:
            if line.startswith(fence):
                fence = None
            out.append("")
        else:
            out.append(re.sub(r"(`+)(.+?)\1", lambda c: " " * len(c.group(0)), line))
    return "\n".join(out)


def slug(heading):
    """GitHub's anchor for a heading's Markdown text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path):
    seen, found = {}, set()
    for line in prose(read(path)).split("\n"):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        for a in re.finditer(r"""<a\s+(?:id|name)=["']([^"']+)["']""", line):
            found.add(a.group(1))
    return found


def check_links(path):
    text = prose(read(path))
    for m in re.finditer(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|^\[[^\]]+\]:\s*(\S+)", text, re.M):
        target = m.group(1) or m.group(2)
        line = text.count("\n", 0, m.start()) + 1
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
            continue
        file_part, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        if not os.path.exists(dest):
            problem(path, line, f"the link to '{target}' points to {os.path.relpath(dest, ROOT)}, which does not exist")
            continue
        if anchor and dest.endswith(".md") and anchor not in anchors(dest):
            problem(path, line, f"the link to '{target}': {os.path.relpath(dest, ROOT)} has no heading with the anchor #{anchor}")


def command_lines(body, console=False):
    """(offset in the block, command) for each command of a shell block: continuation lines joined,
    comments and spacing dropped; in a console block only the `$ ` lines."""
    out, pending, start = [], "", None
    for i, raw in enumerate(body):
        if console:
            if not raw.startswith("$ "):
                continue
            raw = raw[2:]
        if start is None:
            start = i
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        command = normalise(pending + raw)
        pending = ""
        if command:
            out.append((start, command))
        start = None
    return out


def normalise(line):
    """A shell line without its comment, its spacing made single."""
    quote, cut = None, len(line)
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            cut = i
            break
    return " ".join(line[:cut].split())


def walkthrough_docs():
    test = os.path.join(ROOT, WALKTHROUGH_TEST)
    docs = re.findall(r'Support\.root \+ "/(docs/[^"]+\.md)"', read(test)) if os.path.exists(test) else []
    if not docs:
        problem(test, 1, "names no docs/*.md for scripts/readme-walkthrough.sh; the README's commands cannot be run")
    return docs


def walkthrough_commands(docs):
    commands = set()
    for doc in docs:
        path = os.path.join(ROOT, doc)
        if not os.path.exists(path):
            problem(os.path.join(ROOT, WALKTHROUGH_TEST), 1, f"hands {doc} to the walkthrough, which does not exist")
            continue
        lines = read(path).split("\n")
        for i, line in enumerate(lines):
            if line == "<!-- walkthrough -->":
                j = i + 1
                while j < len(lines) and lines[j] != "```sh":
                    j += 1
                k = j + 1
                while k < len(lines) and lines[k] != "```":
                    k += 1
                commands.update(c for _, c in command_lines(lines[j + 1:k]))
    return commands


def guide_commands():
    test = os.path.join(ROOT, GUIDE_TEST)
    m = re.search(r'static let guide = Support\.root \+ "/([^"]+\.md)"', read(test)) if os.path.exists(test) else None
    if not m:
        return set()
    commands = set()
    for language, _, body in fenced_blocks(read(os.path.join(ROOT, m.group(1)))):
        if language == "console":
            commands.update(c for _, c in command_lines(body, console=True))
    return commands


def make_targets():
    targets = set()
    for line in read(os.path.join(ROOT, "Makefile")).split("\n"):
        m = re.match(r"^([\w.-]+(?:\s+[\w.-]+)*)\s*:(?!=)", line)
        if m and not line.startswith((".", "\t")):
            targets.update(m.group(1).split())
    return targets


def is_make_target(command, targets):
    words = command.split()
    if not words or words[0] != "make":
        return False
    names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    return bool(names) and all(n in targets for n in names)


def main():
    readme = os.path.join(ROOT, "README.md")
    text = read(readme)
    lines = text.split("\n")
    count = len(lines) - (1 if text.endswith("\n") else 0)
    if count > MAX_LINES:
        problem(readme, MAX_LINES + 1, f"the README has {count} lines, over {MAX_LINES}: move the detail to a page under docs/")

    blocks = fenced_blocks(text)
    first_section = next((i + 1 for i, line in enumerate(lines) if line.startswith("## ")), len(lines))
    if not blocks or blocks[0][1] > first_section:
        problem(readme, 1, f"the README does not open with {' and '.join(OPENING)}: no code block before its first section")
    else:
        language, start, body = blocks[0]
        opening = [c for _, c in command_lines(body)]
        if language != "sh" or opening != OPENING:
            problem(readme, start - 1, f"the README's first code block must be ```sh with exactly two commands, "
                                       f"{' and '.join(OPENING)}; it has {opening}")

    for path in [readme] + sorted(os.path.join(ROOT, "docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md")):
        check_links(path)

    docs = walkthrough_docs()
    for f in sorted(os.listdir(os.path.join(ROOT, "docs"))):
        path = os.path.join(ROOT, "docs", f)
        if f.endswith(".md") and f"docs/{f}" not in docs and "<!-- walkthrough -->" in read(path).split("\n"):
            line = read(path).split("\n").index("<!-- walkthrough -->") + 1
            problem(path, line, f"a walkthrough block that no test runs ({WALKTHROUGH_TEST} hands {', '.join(docs) or 'nothing'} "
                                "to scripts/readme-walkthrough.sh)")
    run = walkthrough_commands(docs) | guide_commands()
    targets = make_targets()
    shown = 0
    for language, start, body in blocks:
        if language not in SHELL_FENCES:
            continue
        for offset, command in command_lines(body, console=language == "console"):
            shown += 1
            if not (is_make_target(command, targets) or command in run):
                problem(readme, start + offset, f"'{command}' is run by no test: show a Makefile target, a line of the "
                                                f"walkthrough ({', '.join(docs)}) or of the rangers' guide, as written there")

    headline = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "readme.py"), "--check"], capture_output=True, text=True)
    if headline.returncode != 0:
        marker = next((i + 1 for i, line in enumerate(lines) if line.startswith("<!-- bench:headline:begin")), 1)
        problem(readme, marker, (headline.stderr or headline.stdout).strip())

    if problems:
        print("\n".join(problems), file=sys.stderr)
        print("the README is the front door: short, every link found, every command it shows run by a test "
              "(scripts/check_readme.py says how)", file=sys.stderr)
        return 1
    print(f"README: {count} lines, opens with {' and '.join(OPENING)}, {shown} commands all run by tests; "
          "every link of README.md and docs/*.md found")
    return 0


if __name__ == "__main__":
    sys.exit(main())
