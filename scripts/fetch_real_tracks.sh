#!/usr/bin/env bash
# Real recorded GPX tracks for the route tests, held out of the repository: the test files that ship in
# gpxpy's source distribution on PyPI (Apache License 2.0, (c) Tomo Krajina and gpxpy's contributors; see
# LICENSE.txt and NOTICE.txt beside them in the cache). Downloaded with pip at test time, pinned and checked
# by SHA-256, and unpacked into a cache folder; nothing of it is committed.
#
#   scripts/fetch_real_tracks.sh [CACHE]      (default out/real-tracks)
#
# Prints the folder holding the .gpx files (CACHE/gpxpy-1.6.2/test_files) and exits 0; exits 1 when pip
# cannot get the file (no network: the tests that need it skip; pip waits 30 s, once, not its default minutes). The real recordings among them:
#   korita-zbevnica.gpx          GPSBabel, 4 tracks, 871 points, ele and time, 2 waypoints
#   Mojstrovka.gpx               GPSBabel, 1 track, 184 points, ele and time (a mountain in the Julian Alps)
#   around-visnjan-with-car.gpx  eTrex 20x, 1 track, 104 points, by car
#   cerknicko-jezero.gpx         GPSBabel, 8 tracks (one segment each), 296 points, 7 waypoints; and its
#                                variants -without-elevations, -with-elevations-zero, -no-creator, and
#                                cerknicko-without-times.gpx
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=1.6.2
SHA256=a72c484b97ec42b80834353b029cc8ee1b79f0ffca1179b2210bb3baf26c01ae
CACHE=${1:-out/real-tracks}
DIR="$CACHE/gpxpy-$VERSION"
SDIST="$CACHE/gpxpy-$VERSION.tar.gz"
if [ ! -f "$DIR/test_files/korita-zbevnica.gpx" ]; then
  mkdir -p "$CACHE"
  if [ ! -f "$SDIST" ]; then
    python3 -m pip download -q --timeout 30 --retries 1 --no-binary :all: --no-deps "gpxpy==$VERSION" -d "$CACHE" >&2 ||
      { echo "fetch_real_tracks: pip could not download gpxpy $VERSION" >&2; exit 1; }
  fi
  echo "$SHA256  $SDIST" | sha256sum -c --quiet - >&2 ||
    { echo "fetch_real_tracks: $SDIST is not the gpxpy $VERSION we know" >&2; rm -f "$SDIST"; exit 1; }
  rm -rf "$DIR"
  tar -xzf "$SDIST" -C "$CACHE" "gpxpy-$VERSION/test_files" "gpxpy-$VERSION/LICENSE.txt" "gpxpy-$VERSION/NOTICE.txt"
fi
echo "$DIR/test_files"
