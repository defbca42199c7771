import Foundation
import Testing
import TrailPackArchive
import TrailPackCore
import TrailPackCrypto
import TrailPackMap
import TrailPackTestFixtures
import TrailPackTestSupport
import TrailPackVerifier

/// Maps through the commands (validate, build, verify, map extract/convert/inspect/estimate) and
/// cross-checked with protomaps' own `pmtiles` Python package. The reader, the checks and hostile
/// files are tested in TrailPackMapTests.
@Suite("maps (PMTiles): the commands and protomaps' pmtiles", .ownThreads)
struct MapToolTests {
    static let baseMap = MapFixtures.baseMap
    static let cornerMissing = MapFixtures.cornerMissing
    static let santiamFrame = MapFixtures.santiamFrame

    @Test("tile ids agree with protomaps' pmtiles package at every zoom up to 31", .needs(.python3, .pmtiles))
    func tileIDsAgainstPython() throws {
        var rng = SplitMix(seed: 7)
        var tiles: [TileID] = []
        for z in 0...31 {
            for _ in 0..<8 {
                tiles.append(TileID(z: z, x: Int(rng.next() % (1 << UInt64(z))), y: Int(rng.next() % (1 << UInt64(z)))))
            }
        }
        let input = tiles.map { "\($0.z) \($0.x) \($0.y)" }.joined(separator: "\n")
        let script =
            "import sys\nfrom pmtiles.tile import zxy_to_tileid\nfor line in sys.argv[1].splitlines():\n    z, x, y = map(int, line.split())\n    print(zxy_to_tileid(z, x, y))\n"
        let out = try Support.run("python3", ["-c", script, input])
        #expect(out.status == 0, "\(out.stderr)")
        let ids = out.stdout.split(separator: "\n").map { UInt64($0) }
        #expect(ids.count == tiles.count)
        for (t, id) in zip(tiles, ids) {
            #expect(t.id == id, "\(t)")
            if let id { #expect(TileID(id: id) == t) }
        }
    }

    @Test(
        "the corner-missing map gives a coverage finding naming the corner and the zoom, in validate, build and verify")
    func cornerMissing() throws {
        try Support.withTemporaryDirectory { dir in
            let tour = dir + "/tour"
            try Support.copyTree(Support.fixture("santiam-wagon-road"), tour)
            try FileManager.default.removeItem(atPath: tour + "/map/santiam-wagon-road.pmtiles")
            try FileManager.default.copyItem(
                atPath: Self.cornerMissing, toPath: tour + "/map/santiam-wagon-road.pmtiles")
            // With its route, the map is judged by the route's corridor: the missing corner holds part of
            // the road near Santiam Pass, named by its place along the road.
            let corridor = try Support.trailpack("validate", tour)
            #expect(corridor.status == 1)
            let said = corridor.stdout + corridor.stderr
            #expect(said.contains("within 100 m of the route") && said.contains("along the route"), "\(said)")
            // Without it, by the whole frame: the corner and the zoom.
            try FileManager.default.removeItem(atPath: tour + "/route.gpx")
            let out = try Support.trailpack("validate", tour, "--json")
            #expect(out.status == 1, "\(out.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
            let findings = try #require(json["findings"] as? [[String: Any]])
            let coverage = findings.filter { $0["code"] as? String == "map.coverage" }
            #expect(coverage.count == 2)
            for (f, zoom) in zip(coverage, [12, 13]) {
                let message = try #require(f["message"] as? String)
                #expect(message.hasPrefix("zoom \(zoom): "), "\(message)")
                #expect(message.contains("the northeast corner"), "\(message)")
                #expect(f["file"] as? String == "map/santiam-wagon-road.pmtiles")
                #expect(f["severity"] as? String == "error")
            }
            #expect(try Support.trailpack("build", tour, "-o", dir + "/x.zip", "-q").status == 1)
            #expect(!FileManager.default.fileExists(atPath: dir + "/x.zip"))
            // The same map inside a package (built before the swap) is caught by verify, read in place.
            let good = try Support.buildFixture("santiam-wagon-road", into: dir)
            let report = try Verifier.verify(path: good)
            #expect(report.isValid)
            let map = try #require(report.maps.first)
            #expect(map.report.zooms.allSatisfy { $0.coveragePercent == 100 })
            let r = try MapCheck.check(try MapFile(path: Self.cornerMissing), file: nil, frame: Self.santiamFrame)
            let z13 = try #require(r.zooms.first { $0.zoom == 13 })
            #expect(
                z13.frameMissing > 0 && z13.missingArea == "the northeast corner" && (z13.coveragePercent ?? 100) < 100)
            #expect(r.zooms.filter { $0.zoom < 12 }.allSatisfy { $0.frameMissing == 0 })
        }
    }

    @Test(
        "the builder stores the map, writes its header facts in the manifest, and verify --json reports coverage per zoom"
    )
    func packagedMap() throws {
        try Support.withTemporaryDirectory { dir in
            let path = try Support.buildFixture("santiam-wagon-road", into: dir)
            let directory = try ZipDirectory.read(try FileSource(path: path))
            let entry = try #require(directory.entries.first { $0.name == "map/santiam-wagon-road.pmtiles" })
            #expect(entry.method == 0, "maps must be stored")
            let reader = try PackageReader(path: path)
            let asset = try #require(reader.manifest.mapAssets.first { MapInfo.isPMTiles($0.path) })
            #expect(
                asset.map == MapInfo(role: .base, tileType: .png, minZoom: 8, maxZoom: 13, bounds: Self.santiamFrame))
            let out = try Support.trailpack("verify", path, "--json", "--min-map-zoom", "13")
            #expect(out.status == 0, "\(out.stdout)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
            #expect((json["findings"] as? [Any])?.isEmpty == true)
            let maps = try #require(json["maps"] as? [[String: Any]])
            let zooms = try #require(maps.first?["zooms"] as? [[String: Any]])
            #expect(zooms.compactMap { $0["zoom"] as? Int } == Array(8...13))
            #expect(
                zooms.allSatisfy { ($0["coveragePercent"] as? Double) == 100 && ($0["frameTiles"] as? Int ?? 0) > 0 })
            // A package without a map gets the warning, and stays valid.
            let plain = try Verifier.verify(path: try Support.buildFixture("family-hikes", into: dir))
            #expect(plain.isValid && plain.findings.codes == [.mapNone])
        }
    }

    @Test(
        "a deflated map in a package is refused (map.stored); a manifest that misdescribes the map gets map.mismatch",
        .needs(.python3))
    func deflatedAndMismatched() throws {
        try Support.withTemporaryDirectory { dir in
            let path = try Support.buildFixture("santiam-wagon-road", into: dir)
            let python = """
                import sys, zipfile, json
                src = zipfile.ZipFile(sys.argv[1])
                with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as out:
                    for i in src.infolist(): out.writestr(i.filename, src.read(i.filename))
                with zipfile.ZipFile(sys.argv[3], "w", zipfile.ZIP_STORED) as out:
                    for i in src.infolist():
                        data = src.read(i.filename)
                        if i.filename == "manifest.json":
                            m = json.loads(data)
                            next(a for a in m["mapAssets"] if a["path"].endswith(".pmtiles"))["map"]["maxZoom"] = 16
                            data = (json.dumps(m, indent=2, ensure_ascii=False) + "\\n").encode()
                        out.writestr(i.filename, data)
                """
            let run = try Support.run("python3", ["-c", python, path, dir + "/deflated.zip", dir + "/mismatch.zip"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                try Verifier.verify(path: dir + "/deflated.zip").findings.filter { $0.severity == .error }.codes == [
                    .mapStored
                ])
            #expect(
                try Verifier.verify(path: dir + "/mismatch.zip").findings.filter { $0.severity == .error }.codes == [
                    .mapMismatch
                ])
        }
    }

    /// `{"z/x/y": sha256}` for every tile of a PMTiles file, read by protomaps' Python reader.
    static func pythonTiles(_ path: String) throws -> [String: String] {
        let script = """
            import sys, json, hashlib
            from pmtiles.reader import Reader, MmapSource, all_tiles
            with open(sys.argv[1], "rb") as f:
                r = Reader(MmapSource(f))
                out = {"%d/%d/%d" % zxy: hashlib.sha256(data).hexdigest() for zxy, data in all_tiles(r.get_bytes)}
            print(json.dumps(out))
            """
        let out = try Support.run("python3", ["-c", script, path])
        #expect(out.status == 0, "\(out.stderr)")
        return try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: String] ?? [:]
    }

    /// The same, read by trailpack's reader (tile by tile through `tile(_:)`, not the walk).
    static func trailpackTiles(_ path: String, ids: [String]) throws -> [String: String] {
        let archive = try PMTilesArchive(source: try MapFile(path: path))
        var out: [String: String] = [:]
        for key in ids {
            let p = key.split(separator: "/").map { Int($0)! }
            if let data = try archive.tile(TileID(z: p[0], x: p[1], y: p[2])) { out[key] = SHA256.hash(data).hex }
        }
        return out
    }

    @Test(
        "map extract writes what Python's pmtiles reads tile for tile: exactly the frame's tiles, each equal to the source's",
        .needs(.python3, .pmtiles))
    func extractAgainstPython() throws {
        try Support.withTemporaryDirectory { dir in
            let out = try Support.trailpack(
                "map", "extract", Self.baseMap, "-o", dir + "/cut.pmtiles", "--bounds=-122.3,44.35,-122.0,44.45",
                "--zoom", "9-13", "--json")
            #expect(out.status == 0, "\(out.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
            let source = try Self.pythonTiles(Self.baseMap)
            let cut = try Self.pythonTiles(dir + "/cut.pmtiles")
            let frame = Bounds(
                southwest: Coordinate(latitude: 44.35, longitude: -122.3),
                northeast: Coordinate(latitude: 44.45, longitude: -122.0))
            var expected = Set<String>()
            for z in 9...13 { TileMath.range(frame, zoom: z).forEach { x, y in expected.insert("\(z)/\(x)/\(y)") } }
            #expect(Set(cut.keys) == expected)
            #expect(json["written"] as? Int == expected.count)
            for (k, v) in cut { #expect(source[k] == v, "\(k)") }
            #expect(try Self.trailpackTiles(dir + "/cut.pmtiles", ids: Array(cut.keys)) == cut)
            // Nothing is left beside the output.
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["cut.pmtiles"])
        }
    }

    @Test(
        "trailpack reads, tile for tile, a PMTiles file Python's writer makes (with leaf directories and duplicates)",
        .needs(.python3, .pmtiles))
    func readsPythonWriter() throws {
        try Support.withTemporaryDirectory { dir in
            let script = """
                import sys
                from pmtiles.writer import Writer
                from pmtiles.tile import zxy_to_tileid, TileType, Compression
                with open(sys.argv[1], "wb") as f:
                    w = Writer(f)
                    ids = []
                    for z in range(0, 9):
                        for x in range(0, min(1 << z, 90)):
                            for y in range(0, min(1 << z, 60)):
                                ids.append((zxy_to_tileid(z, x, y), z, x, y))
                    for tid, z, x, y in sorted(ids):
                        key = (x * 7 + y) % 1500 if z > 6 and (x + y) % 5 == 0 else tid
                        w.write_tile(tid, b"tile %d " % key + b"." * ((key * 7919) % 97))
                    w.finalize({"tile_type": TileType.MVT, "tile_compression": Compression.NONE, "min_lon_e7": -1800000000, "min_lat_e7": -850000000,
                                "max_lon_e7": 1800000000, "max_lat_e7": 850000000, "center_zoom": 0, "center_lon_e7": 0, "center_lat_e7": 0}, {"name": "python"})
                """
            let run = try Support.run("python3", ["-c", script, dir + "/py.pmtiles"])
            #expect(run.status == 0, "\(run.stderr)")
            let python = try Self.pythonTiles(dir + "/py.pmtiles")
            #expect(python.count > 10_000)
            let report = try MapCheck.check(try MapFile(path: dir + "/py.pmtiles"), file: nil, frame: nil)
            #expect(report.findings.isEmpty, "\(report.findings)")
            #expect((report.summary?.leafDirectories ?? 0) > 0, "the sample must exercise leaf directories")
            #expect(report.summary?.addressedTiles == Int64(python.count))
            #expect(try Self.trailpackTiles(dir + "/py.pmtiles", ids: Array(python.keys)) == python)
        }
    }

    @Test(
        "an MBTiles written by Python's sqlite3 converts to a PMTiles whose tiles match (rows flipped), read by Python's pmtiles",
        .needs(.python3, .pmtiles))
    func convertMBTiles() throws {
        try Support.withTemporaryDirectory { dir in
            let script = """
                import sys, sqlite3, json, hashlib
                db = sqlite3.connect(sys.argv[1])
                db.execute("CREATE TABLE metadata (name text, value text)")
                db.execute("CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob)")
                db.executemany("INSERT INTO metadata VALUES (?, ?)", [("name", "forest"), ("format", "png"), ("bounds", "-122.5,44.2,-121.5,44.6"),
                               ("center", "-122,44.4,10"), ("minzoom", "6"), ("maxzoom", "12"), ("json", json.dumps({"attribution": "USFS"}))])
                expected = {}
                png = b"\\x89PNG\\r\\n\\x1a\\n"
                n = 0
                for z in range(6, 13):
                    for x in range(min(1 << z, 80)):
                        for y in range(min(1 << z, 80)):
                            data = png + (b"same" if (x + y) % 9 == 0 else b"tile %d %d %d " % (z, x, y) + b"." * ((x * 31 + y * 17) % 89))
                            db.execute("INSERT INTO tiles VALUES (?, ?, ?, ?)", (z, x, (1 << z) - 1 - y, data))
                            expected["%d/%d/%d" % (z, x, y)] = hashlib.sha256(data).hexdigest()
                db.commit()
                print(json.dumps(expected))
                """
            let run = try Support.run("python3", ["-c", script, dir + "/forest.mbtiles"])
            #expect(run.status == 0, "\(run.stderr)")
            let expected = try #require(
                try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: String])
            let out = try Support.trailpack(
                "map", "convert", dir + "/forest.mbtiles", dir + "/forest.pmtiles", "--json")
            #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
            let tiles = try #require(json["tiles"] as? [String: Any])
            #expect(tiles["addressed"] as? Int == expected.count)
            #expect((tiles["leafDirectories"] as? Int ?? 0) > 0, "a convert this size needs leaf directories")
            #expect(try Self.pythonTiles(dir + "/forest.pmtiles") == expected)
            let header = try #require(json["header"] as? [String: Any])
            #expect(
                header["tileType"] as? String == "png" && header["minZoom"] as? Int == 6
                    && header["maxZoom"] as? Int == 12)
            // Extract from the MBTiles directly.
            let cut = try Support.trailpack(
                "map", "extract", dir + "/forest.mbtiles", "-o", dir + "/cut.pmtiles", "--bounds=-180,84,-170,85",
                "--zoom", "6-8")
            #expect(cut.status == 0, "\(cut.stdout)\(cut.stderr)")
            let got = try Self.pythonTiles(dir + "/cut.pmtiles")
            #expect(!got.isEmpty)
            for (k, v) in got { #expect(expected[k] == v, "\(k)") }
            // Not an MBTiles: a clear usage error.
            try Support.write(Array("hello".utf8), to: dir + "/x.mbtiles")
            let bad = try Support.trailpack("map", "convert", dir + "/x.mbtiles", dir + "/x.pmtiles")
            #expect(bad.status == 2 && bad.stderr.contains("neither PMTiles nor MBTiles"))
        }
    }

    @Test("map inspect and map estimate report per-zoom counts; estimate counts what extract would cut")
    func inspectAndEstimate() throws {
        let inspect = try Support.trailpack(
            "map", "inspect", Self.baseMap, "--tour", Support.fixture("santiam-wagon-road"), "--json")
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
        let zooms = try #require(json["zooms"] as? [[String: Any]])
        #expect(zooms.count == 6 && zooms.allSatisfy { ($0["coveragePercent"] as? Double) == 100 })
        let estimate = try Support.trailpack(
            "map", "estimate", "--tour", Support.fixture("santiam-wagon-road"), "--zoom", "8-13", "--source",
            Self.baseMap, "--json")
        #expect(estimate.status == 0, "\(estimate.stderr)")
        let e = try #require(try JSONSerialization.jsonObject(with: Data(estimate.stdout.utf8)) as? [String: Any])
        #expect(e["tiles"] as? Int == zooms.compactMap { $0["frameTiles"] as? Int }.reduce(0, +))
        let bytes = try #require(e["bytes"] as? Int)
        let actual = try #require(zooms.compactMap { $0["bytes"] as? Int }.reduce(0, +) as Int?)
        #expect(abs(bytes - actual) <= 6, "the estimate from the map itself is its own byte count")
        let garbage = try Support.trailpack("map", "inspect", Support.fixture("santiam-wagon-road/tour.json"))
        #expect(
            garbage.status == 1 && (garbage.stdout + garbage.stderr).contains("map.header"),
            "\(garbage.stdout) \(garbage.stderr)")
    }

    @Test("map inspect names PMTiles tile type 6 MLT (MapLibre Tile), in its text and its finding")
    func mltNamed() throws {
        try Support.withTemporaryDirectory { dir in
            var bytes = try Support.read(Self.baseMap)
            bytes[99] = 6  // the header's tile type
            try Support.write(bytes, to: dir + "/mlt.pmtiles")
            let out = try Support.trailpack("map", "inspect", dir + "/mlt.pmtiles")
            #expect(out.status == 1, "\(out.stderr)")
            let text = out.stdout + out.stderr
            #expect(text.contains("tiles     MLT (MapLibre Tile), zoom 8"), "\(text)")
            #expect(text.contains("the tile type is MLT (MapLibre Tile)") && !text.contains("type 6"), "\(text)")
        }
    }

    @Test(
        "map inspect and map extract with --json print one document even when they exit 1 for the map's findings"
    )
    func oneDocumentOnFindings() throws {
        try Support.withTemporaryDirectory { dir in
            let tour = Support.fixture("santiam-wagon-road")
            for arguments in [
                ["map", "inspect", Self.cornerMissing, "--tour", tour, "--json"],
                ["map", "extract", Self.cornerMissing, "-o", dir + "/cut.pmtiles", "--tour", tour, "--json"],
            ] {
                let out = try Support.trailpack(arguments)
                #expect(out.status == 1, "\(arguments): \(out.stderr)")
                // One JSON document: JSONSerialization refuses a second one after the first.
                let json = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any]
                let findings = json?["findings"] as? [[String: Any]] ?? []
                #expect(findings.contains { $0["code"] as? String == "map.coverage" }, "\(arguments): \(out.stdout)")
            }
        }
    }

    @Test(
        "a damaged MBTiles is a map.header finding and exit 1, in SQLite's words without its statement; not an input/output failure",
        .needs(.python3))
    func damagedMBTiles() throws {
        try Support.withTemporaryDirectory { dir in
            let script = """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                db.execute("CREATE TABLE metadata (name text, value text)")
                db.execute("CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob)")
                for i in range(400):
                    db.execute("INSERT INTO tiles VALUES (?, ?, ?, ?)", (10, i, 3, b"\\x89PNG\\r\\n\\x1a\\n" + bytes(300)))
                db.commit()
                db.close()
                data = bytearray(open(sys.argv[1], "rb").read())
                for p in range(4096, len(data), 4096):
                    data[p:p + 64] = b"\\xa5" * 64
                open(sys.argv[1], "wb").write(data)
                """
            let made = try Support.run("python3", ["-c", script, dir + "/damaged.mbtiles"])
            #expect(made.status == 0, "\(made.stderr)")
            let out = try Support.trailpack("map", "convert", dir + "/damaged.mbtiles", dir + "/x.pmtiles", "--json")
            #expect(out.status == 1, "\(out.stdout) \(out.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
            let findings = json["findings"] as? [[String: Any]] ?? []
            let finding = try #require(findings.first { $0["code"] as? String == "map.header" }, "\(out.stdout)")
            #expect((finding["message"] as? String)?.contains("damaged") == true, "\(finding)")
            #expect(!(out.stdout + out.stderr).contains("SELECT"), "SQL in the output: \(out.stdout) \(out.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/x.pmtiles"), "nothing is written")
        }
    }
}
