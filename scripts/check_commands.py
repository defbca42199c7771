#!/usr/bin/env python3
"""Every command of the `trailpack` program names itself (`CommandConfiguration(commandName: ...)`).

ArgumentParser builds the whole command tree at every start, and for a command without a
`commandName` it makes one from the type's name with `String(describing:)`: a dynamic cast per
type, each a scan of every protocol conformance in the program (48 commands, a binary that
links the server: 2 % of a whole `trailpack verify` of 20,000 entries, before anything is read).
Fails naming the file, the line and the type.

Usage: check_commands.py [PACKAGE_ROOT]
"""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
COMMAND = re.compile(r"struct (\w+)\s*:\s*(?:Async)?ParsableCommand\b")
missing = []
for path in sorted(glob.glob(os.path.join(root, "Sources", "trailpack", "*.swift"))):
    text = open(path, encoding="utf-8").read()
    for m in COMMAND.finditer(text):
        # The command's own configuration: the first one after its declaration, up to its closing parenthesis.
        start = text.find("CommandConfiguration(", m.end())
        depth, i = 0, start + len("CommandConfiguration")
        while start >= 0 and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        call = text[start:i] if start >= 0 else ""
        if "commandName:" not in call:
            line = text.count("\n", 0, m.start()) + 1
            missing.append(f"{os.path.relpath(path, root)}:{line}: {m.group(1)} has no commandName in its CommandConfiguration")
if missing:
    print("\n".join(missing))
    print("add commandName: \"...\" (the name users type) to each; see this script's docstring for why")
    sys.exit(1)
print(f"commands: every command of the trailpack program names itself")
