#!/usr/bin/env bash
# Runs the docs' walkthrough — the ```sh blocks that follow a `<!-- walkthrough -->` line, in order,
# of each Markdown file given in turn (ReadmeWalkthroughTests gives docs/OPERATORS.md), as one
# script — in a fresh folder against a real `trailpack serve`, so the docs cannot go stale. The README
# shows some of these lines; scripts/check_readme.py makes sure every command it shows is one of them
# (or a Makefile target, or a command of the rangers' guide). The server the walkthrough starts is
# stopped (by its PID) however the script ends.
#
# Usage: readme-walkthrough.sh DOC.md [DOC.md…] TRAILPACK_BINARY TOUR.zip [CLAMAV_DB]
set -euo pipefail
usage="usage: $0 DOC.md [DOC.md…] TRAILPACK_BINARY TOUR.zip [CLAMAV_DB]"
docs=()
while [ $# -gt 0 ] && [[ $1 == *.md ]]; do docs+=("$(realpath "$1")"); shift; done
[ ${#docs[@]} -gt 0 ] && [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
bin=$(realpath "$1"); tour=$(realpath "$2")
clamav_db=${3:-/var/lib/clamav}
[ -d "$clamav_db" ] && clamav_db=$(realpath "$clamav_db")
work=$(mktemp -d "${TMPDIR:-/tmp}/trailpack-walkthrough.XXXXXX")
script="$work/walkthrough.sh"
{
  echo 'trap '\''if [ -n "${SERVER:-}" ]; then kill "$SERVER" 2>/dev/null || true; fi'\'' EXIT'
  for doc in "${docs[@]}"; do
    awk '/^<!-- walkthrough -->$/ { want = 1; next }
         want && /^```sh$/ { inblock = 1; next }
         inblock && /^```$/ { inblock = 0; want = 0; next }
         inblock { print }' "$doc"
  done
} > "$script"
blocks=$(cat "${docs[@]}" | grep -c '^<!-- walkthrough -->$' || true)
[ "$blocks" -gt 0 ] || { echo "no walkthrough blocks in ${docs[*]}" >&2; exit 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "running $blocks walkthrough blocks from ${docs[*]} in $work (port $port)"
status=0
(cd "$work" && PATH="$(dirname "$bin"):$PATH" DATA="$work/data" PORT="$port" TOUR="$tour" CLAMAV_DB="$clamav_db" bash -euo pipefail "$script") || status=$?
if [ $status -eq 0 ]; then rm -rf "$work"; echo "walkthrough passed"; else echo "walkthrough failed (exit $status); its folder is kept: $work" >&2; fi
exit $status
