#!/usr/bin/env bash
# Runs README.md's operator walkthrough — the ```sh blocks that follow a `<!-- walkthrough -->` line,
# in order, as one script — in a fresh folder against a real `trailpack serve`, so the README cannot
# go stale. The server the walkthrough starts is stopped (by its PID) however the script ends.
#
# Usage: readme-walkthrough.sh README.md TRAILPACK_BINARY TOUR.zip [CLAMAV_DB]
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 README.md TRAILPACK_BINARY TOUR.zip [CLAMAV_DB]" >&2; exit 2; }
readme=$(realpath "$1"); bin=$(realpath "$2"); tour=$(realpath "$3")
clamav_db=${4:-/var/lib/clamav}
[ -d "$clamav_db" ] && clamav_db=$(realpath "$clamav_db")
work=$(mktemp -d "${TMPDIR:-/tmp}/trailpack-walkthrough.XXXXXX")
script="$work/walkthrough.sh"
{
  echo 'trap '\''if [ -n "${SERVER:-}" ]; then kill "$SERVER" 2>/dev/null || true; fi'\'' EXIT'
  awk '/^<!-- walkthrough -->$/ { want = 1; next }
       want && /^```sh$/ { inblock = 1; next }
       inblock && /^```$/ { inblock = 0; want = 0; next }
       inblock { print }' "$readme"
} > "$script"
blocks=$(grep -c '^<!-- walkthrough -->$' "$readme")
[ "$blocks" -gt 0 ] || { echo "no walkthrough blocks in $readme" >&2; exit 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "running $blocks walkthrough blocks from $readme in $work (port $port)"
status=0
(cd "$work" && PATH="$(dirname "$bin"):$PATH" DATA="$work/data" PORT="$port" TOUR="$tour" CLAMAV_DB="$clamav_db" bash -euo pipefail "$script") || status=$?
if [ $status -eq 0 ]; then rm -rf "$work"; echo "walkthrough passed"; else echo "walkthrough failed (exit $status); its folder is kept: $work" >&2; fi
exit $status
