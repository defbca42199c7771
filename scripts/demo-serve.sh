#!/usr/bin/env bash
# The last step of `make demo`: serve the sample packages on loopback and show the curl lines an
# app (or a person) uses. On a terminal (or with KEEP_SERVING=1, for a demo run in the background) it
# keeps serving until stopped; otherwise it stops after showing.
set -euo pipefail
BIN=${1:-.build/debug/trailpack}
OUT=${2:-out}
DATA="$OUT/server-data"
rm -rf "$DATA"
mkdir -p "$DATA"
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$OUT/admin.token"
# A one-signature ClamAV database (the EICAR test string): the public ones cannot be fetched offline.
mkdir -p "$OUT/clamav-db"
printf 'Trailpack.Test.EICAR:0:*:%s\n' "$(printf '%s' 'X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*' | od -An -tx1 | tr -d ' \n')" > "$OUT/clamav-db/demo.ndb"
# Demo accounts for the web control panel, made before the server starts: a ranger (publisher of the
# Sweet Home district) and a reviewer, each with a fresh random password (printed below).
TP_ADMIN=("$BIN" admin --data "$DATA" --create)
"${TP_ADMIN[@]}" site add willamette-sweet-home "Sweet Home Ranger District" > /dev/null
# The site's region map: the panel draws it under a new tour (roads and rivers, not a bare grid).
"${TP_ADMIN[@]}" site map willamette-sweet-home fixtures/santiam-wagon-road/map/santiam-wagon-road.pmtiles > /dev/null
for account in ranger:publisher reviewer:reviewer; do
  name=${account%%:*}
  "${TP_ADMIN[@]}" user add "$name" --role "${account#*:}" > /dev/null
  # Groups of five letters and digits are easy to type; 12 random bytes are plenty for a loopback demo.
  head -c 12 /dev/urandom | base32 | tr -d '=' | tr 'A-Z' 'a-z' | sed 's/\(.....\)/\1-/g; s/-$//' > "$OUT/$name.password"
  "${TP_ADMIN[@]}" user password "$name" --password-file "$OUT/$name.password" > /dev/null
done
"${TP_ADMIN[@]}" grant ranger willamette-sweet-home > /dev/null
# The sample tour as a draft of the ranger's site, to open and change in the panel at once (a copy:
# the panel's drafts are tour folders under the data folder; the fixture stays as it is).
mkdir -p "$DATA/drafts/willamette-sweet-home"
cp -R fixtures/santiam-wagon-road "$DATA/drafts/willamette-sweet-home/santiam-wagon-road"
# --approvals 0: a single-operator demo; a real server keeps the default of 2 reviewers.
"$BIN" serve --data "$DATA" --port 0 --admin-token-file "$OUT/admin.token" --approvals 0 --clamav-db "$OUT/clamav-db" > "$OUT/serve.out" 2> "$OUT/serve.log" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "listening on" "$OUT/serve.out" 2>/dev/null && break; sleep 0.1; done
BASE=$(grep -o 'http://[0-9.]*:[0-9]*' "$OUT/serve.out")
echo "== 6. serve the packages: $(cat "$OUT/serve.out")"
echo "   the visitor app:       $BASE/visit/  (what visitors open on their phones: find a tour, download it, take it offline;"
echo "                                       phones need https: see 'Serving over HTTPS' in docs/OPERATORS.md)"
echo "   the web control panel: $BASE/  (sign in as ranger / $(cat "$OUT/ranger.password") to change the sample tour or make one,"
echo "                                       or as reviewer / $(cat "$OUT/reviewer.password"); passwords in $OUT/*.password)"
for tour in santiam-wagon-road colorado-fourteeners family-hikes; do
  "$BIN" build "fixtures/$tour" -o "$OUT/$tour.zip" -q
  curl -s -o /dev/null -w "uploaded $tour: HTTP %{http_code}\n" -H "Authorization: Bearer $(cat "$OUT/admin.token")" --data-binary "@$OUT/$tour.zip" "$BASE/v1/admin/packages"
done
SHA=$(cut -c1-64 "$OUT/santiam-wagon-road.zip.sha256")
cat <<LINES

Paste these to try the API (the server is at $BASE):
  curl -s $BASE/v1/sites
  curl -s $BASE/v1/sites/willamette-sweet-home/packages
  curl -s $BASE/v1/packages/gov.usda.fs.willamette.santiam-wagon-road/manifest
  # the signal drops after 10 KB, then the download resumes where it stopped (only if the bytes are the same):
  curl -s -r 0-9999 -o part.zip $BASE/v1/blobs/$SHA.zip
  curl -s -C - -H 'If-Range: "$SHA"' -o part.zip $BASE/v1/blobs/$SHA.zip
  # tell the server what arrived:
  curl -s -X POST -d '{"sha256": "'\$(sha256sum part.zip | cut -c1-64)'"}' $BASE/v1/packages/gov.usda.fs.willamette.santiam-wagon-road/versions/1.0.0/confirm

LINES
echo "== the first one, run now:"
curl -s "$BASE/v1/sites"
echo "== 7. a phone's download: list, fetch (resumable, checked, installed atomically), confirm"
"$BIN" fetch --list "$BASE"
# The demo's own library of an earlier run: this run's download is a download, not "already installed".
rm -rf "$OUT/library"
"$BIN" fetch "$BASE" gov.usda.fs.willamette.santiam-wagon-road --into "$OUT/library"
if [ -t 0 ]; then
  echo "serving at $BASE — press Ctrl-C to stop"
  wait $SERVER
elif [ "${KEEP_SERVING:-0}" = 1 ]; then
  echo "serving at $BASE until stopped (KEEP_SERVING=1): kill $SERVER"
  # Stopped by that kill: the demo's end, not its failure.
  wait $SERVER || true
else
  echo "(not a terminal: stopping the server; run 'make demo' in a terminal to keep it running, or"
  echo " 'make demo KEEP_SERVING=1' to keep it running in the background)"
fi
