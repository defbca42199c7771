import Foundation
import Testing
import TrailPackBuilder
import TrailPackTestSupport

@testable import TrailPackCore
@testable import TrailPackMap

/// Offline maps: tile ids, the PMTiles reader against hostile files, the checks against a tour.
/// The map commands, and the cross-checks with protomaps' own `pmtiles` Python package, are in
/// TrailPackIntegrationTests' MapToolTests.
@Suite("maps (PMTiles)", .ownThreads)
struct MapTests {
    static let baseMap = MapFixtures.baseMap
    static let santiamFrame = MapFixtures.santiamFrame

    // MARK: tile ids

    @Test("tile ids match the specification's values, both ways")
    func tileIDs() throws {
        let known: [(Int, Int, Int, UInt64)] = [
            (0, 0, 0, 0), (1, 0, 0, 1), (1, 0, 1, 2), (1, 1, 1, 3), (1, 1, 0, 4), (2, 0, 0, 5),
            (12, 3423, 1763, 19_078_479),
        ]
        for (z, x, y, id) in known {
            #expect(TileID(z: z, x: x, y: y).id == id, "\(z)/\(x)/\(y)")
            #expect(TileID(id: id) == TileID(z: z, x: x, y: y))
        }
        // Every tile of zooms 0-7 round-trips, and ids are dense and ordered by zoom.
        var seen = Set<UInt64>()
        for z in 0...7 {
            for x in 0..<(1 << z) {
                for y in 0..<(1 << z) {
                    let id = try #require(TileID(z: z, x: x, y: y).id)
                    #expect(id >= TileID.firstID(zoom: z) && id < TileID.firstID(zoom: z + 1))
                    #expect(TileID(id: id) == TileID(z: z, x: x, y: y))
                    seen.insert(id)
                }
            }
        }
        #expect(seen.count == Int(TileID.firstID(zoom: 8)))
        #expect(TileID(z: 3, x: 8, y: 0).id == nil)
        #expect(TileID(z: 32, x: 0, y: 0).id == nil)
        #expect(TileID(id: TileID.idLimit) == nil)
        #expect(
            TileID(id: TileID.idLimit - 1)
                == TileID(z: 31, x: TileID(id: TileID.idLimit - 1)!.x, y: TileID(id: TileID.idLimit - 1)!.y))
    }

    // MARK: the sample maps

    @Test("the sample base map is valid and covers the Santiam frame at every zoom from 8 to 13")
    func sampleMapCovers() throws {
        let report = try MapCheck.check(try MapFile(path: Self.baseMap), file: "base", frame: Self.santiamFrame)
        #expect(report.findings.codes == [.mapMinDetail], "\(report.findings)")
        #expect(report.header?.tileType == .png)
        #expect(report.zooms.map(\.zoom) == Array(8...13))
        for z in report.zooms {
            #expect(z.frameTiles == TileMath.range(Self.santiamFrame, zoom: z.zoom).count)
            #expect(z.framePresent == z.frameTiles && z.coveragePercent == 100)
        }
        #expect(
            try MapCheck.check(
                try MapFile(path: Self.baseMap), file: nil, frame: Self.santiamFrame,
                options: MapCheckOptions(minDetailZoom: 13)
            ).findings.isEmpty)
    }

    @Test("two base maps are refused; a map in map/overlays/ is an overlay")
    func roles() throws {
        try Support.withTemporaryDirectory { dir in
            let tour = dir + "/tour"
            try Support.copyTree(Support.fixture("santiam-wagon-road"), tour)
            try FileManager.default.createDirectory(atPath: tour + "/map/overlays", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.baseMap, toPath: tour + "/map/overlays/relief.pmtiles")
            let planned = try TourBuilder.plan(tour, map: MapCheckOptions(minDetailZoom: 13)), plan = planned.plan,
                findings = planned.findings
            #expect(findings.isEmpty, "\(findings)")
            // The PMTiles maps (the route, map/route.geojson, is a map asset of another kind).
            #expect(
                try #require(plan).manifest.mapAssets.filter { MapInfo.isPMTiles($0.path) }.map { $0.map?.role } == [
                    .overlay, .base,
                ])
            try FileManager.default.copyItem(atPath: Self.baseMap, toPath: tour + "/map/second.pmtiles")
            #expect(try TourBuilder.plan(tour).findings.codes.contains(.mapBaseMultiple))
        }
    }

    // MARK: hostile files

    /// A small valid archive with leaf directories: 3000 tiles, some repeated.
    static func sampleArchive(tiles: Int = 3000, leafEvery: Int? = 256) throws -> [UInt8] {
        var entries: [PMTilesEntry] = []
        var data: [UInt8] = []
        var offsets: [Int: (UInt64, UInt32)] = [:]
        for i in 0..<tiles {
            let content = i % 7 == 3 ? 3 : i
            if let known = offsets[content] {
                entries.append(PMTilesEntry(tileID: UInt64(100 + i), offset: known.0, length: known.1, runLength: 1))
            } else {
                let bytes =
                    Array("tile \(content) ".utf8) + [UInt8](repeating: UInt8(truncatingIfNeeded: content), count: 8)
                offsets[content] = (UInt64(data.count), UInt32(bytes.count))
                entries.append(
                    PMTilesEntry(
                        tileID: UInt64(100 + i), offset: UInt64(data.count), length: UInt32(bytes.count), runLength: 1))
                data += bytes
            }
        }
        return try forge(entries: entries, tileData: data, leafEvery: leafEvery)
    }

    /// Assembles an archive from entries, with leaves of `leafEvery` entries (or none).
    static func forge(
        entries: [PMTilesEntry], tileData: [UInt8], leafEvery: Int?, clustered: Bool = true, gzip: Bool = true,
        rootOverride: [UInt8]? = nil, leavesOverride: [UInt8]? = nil, counts: (UInt64, UInt64)? = nil
    ) throws -> [UInt8] {
        func pack(_ e: [PMTilesEntry]) throws -> [UInt8] {
            gzip ? try Gzip.compress(PMTilesDirectory.encode(e)) : PMTilesDirectory.encode(e)
        }
        var root: [UInt8], leaves: [UInt8] = []
        if let n = leafEvery {
            var pointers: [PMTilesEntry] = []
            for start in stride(from: 0, to: entries.count, by: n) {
                let chunk = try pack(Array(entries[start..<min(start + n, entries.count)]))
                pointers.append(
                    PMTilesEntry(
                        tileID: entries[start].tileID, offset: UInt64(leaves.count), length: UInt32(chunk.count),
                        runLength: 0))
                leaves += chunk
            }
            root = try pack(pointers)
        } else {
            root = try pack(entries)
        }
        root = rootOverride ?? root
        leaves = leavesOverride ?? leaves
        let meta =
            try pack([]).isEmpty
            ? [] : (gzip ? try Gzip.compress(Array("{\"name\":\"forged\"}".utf8)) : Array("{\"name\":\"forged\"}".utf8))
        var h = PMTilesHeader()
        h.rootOffset = 127; h.rootLength = UInt64(root.count)
        h.metadataOffset = 127 + h.rootLength; h.metadataLength = UInt64(meta.count)
        h.leafOffset = h.metadataOffset + h.metadataLength; h.leafLength = UInt64(leaves.count)
        h.tileDataOffset = h.leafOffset + h.leafLength; h.tileDataLength = UInt64(tileData.count)
        h.addressedTiles = counts?.0 ?? UInt64(entries.reduce(0) { $0 + Int($1.runLength) })
        h.tileEntries = counts?.1 ?? UInt64(entries.count)
        h.clustered = clustered
        h.internalCompression = gzip ? .gzip : .none
        h.tileCompression = .none
        h.tileTypeByte = PMTilesHeader.TileType.mvt.rawValue
        let first = TileID(id: entries.first?.tileID ?? 0)!,
            last = TileID(id: entries.last.map { $0.tileID + UInt64($0.runLength) - 1 } ?? 0)!
        h.minZoom = first.z; h.maxZoom = last.z
        h.minLonE7 = -1_800_000_000; h.maxLonE7 = 1_800_000_000; h.minLatE7 = -850_000_000; h.maxLatE7 = 850_000_000
        return h.bytes + root + meta + leaves + tileData
    }

    static func check(_ bytes: [UInt8]) throws -> MapReport {
        try MapCheck.check(MapBytes(bytes), file: "hostile.pmtiles", frame: nil)
    }

    @Test("the forged sample archive is valid, so each hostile case below breaks one thing only")
    func forgedIsValid() throws {
        for leaves in [nil, 256] as [Int?] {
            let bytes = try Self.sampleArchive(leafEvery: leaves)
            let report = try Self.check(bytes)
            #expect(report.findings.isEmpty, "\(report.findings)")
            #expect(report.summary?.addressedTiles == 3000)
            #expect(report.uniqueContents == 3000 - 3000 / 7 + 1 - (3000 % 7 > 3 ? 1 : 0))
            let archive = try PMTilesArchive(source: MapBytes(bytes))
            #expect(
                try archive.tile(TileID(id: 100 + 11)!) == Array("tile 11 ".utf8) + [UInt8](repeating: 11, count: 8))
            #expect(
                try archive.tile(TileID(id: 100 + 10)!) == Array("tile 3 ".utf8) + [UInt8](repeating: 3, count: 8),
                "a shared tile")
            #expect(try archive.tile(TileID(id: 99)!) == nil)
        }
    }

    @Test("hostile PMTiles are refused with the right finding, never a crash", arguments: HostileCase.allCases)
    func hostile(_ c: HostileCase) throws {
        let bytes = try c.bytes()
        let report = try Self.check(bytes)
        #expect(report.findings.codes.contains(c.expected), "\(c): \(report.findings)")
        #expect(report.findings.allSatisfy { $0.file == "hostile.pmtiles" && !$0.message.isEmpty })
    }

    enum HostileCase: String, CaseIterable, CustomStringConvertible {
        case notPMTiles, version2, rootBeyondFile, tileDataBeyondFile, sectionsOverlap, rootPast16KiB, brotli
        case tileOutsideSection, overlappingTiles, overlappingTilesUnclustered, hugeEntryCount, hugeHeaderCounts
        case leafLoop, leafListedTwice, unsortedEntries, truncatedVarint, gzipBomb, trailingBytes, emptyTile,
            zoomOutsideHeader
        var description: String { rawValue }

        var expected: FindingCode {
            switch self {
            case .notPMTiles, .version2, .rootBeyondFile, .tileDataBeyondFile, .sectionsOverlap, .rootPast16KiB,
                .zoomOutsideHeader:
                .mapHeader
            case .brotli: .mapCompression
            case .tileOutsideSection, .overlappingTiles, .overlappingTilesUnclustered, .emptyTile: .mapTileData
            case .hugeEntryCount, .hugeHeaderCounts, .leafLoop, .leafListedTwice, .unsortedEntries, .truncatedVarint,
                .gzipBomb, .trailingBytes:
                .mapDirectory
            }
        }

        func bytes() throws -> [UInt8] {
            let valid = try MapTests.sampleArchive()
            func header(_ b: [UInt8]) throws -> PMTilesHeader {
                try PMTilesHeader.parse(Array(b.prefix(127)), fileSize: UInt64(b.count))
            }
            func withHeader(_ b: [UInt8], _ change: (inout PMTilesHeader) -> Void) throws -> [UInt8] {
                var h = try header(b)
                change(&h)
                return h.bytes + b[127...]
            }
            let e = { (id: UInt64, off: UInt64, len: UInt32, run: UInt32) in
                PMTilesEntry(tileID: id, offset: off, length: len, runLength: run)
            }
            let data = [UInt8](repeating: 7, count: 100)
            switch self {
            case .notPMTiles: return Array("SQLite format 3\u{0}".utf8) + [UInt8](repeating: 0, count: 200)
            case .version2: var b = valid; b[7] = 2; return b
            case .rootBeyondFile: return try withHeader(valid) { $0.rootLength = UInt64.max - 100 }
            case .tileDataBeyondFile: return try withHeader(valid) { $0.tileDataLength += 1 }
            case .sectionsOverlap: return try withHeader(valid) { $0.metadataOffset = $0.rootOffset }
            case .rootPast16KiB:
                return try withHeader(valid) {
                    $0.rootOffset = 20_000; $0.rootLength = 10
                }
            case .brotli: return try withHeader(valid) { $0.tileCompression = .brotli }
            case .tileOutsideSection:
                return try MapTests.forge(entries: [e(5, 90, 20, 1)], tileData: data, leafEvery: nil)
            case .overlappingTiles:
                return try MapTests.forge(
                    entries: [e(5, 0, 50, 1), e(6, 50, 50, 1), e(7, 25, 50, 1)], tileData: data, leafEvery: nil)
            case .overlappingTilesUnclustered:
                return try MapTests.forge(
                    entries: [e(5, 50, 50, 1), e(6, 0, 30, 1), e(7, 20, 20, 1)], tileData: data, leafEvery: nil,
                    clustered: false)
            case .hugeEntryCount:
                // 2^40 entries claimed by a few bytes.
                let raw: [UInt8] = [0x80, 0x80, 0x80, 0x80, 0x80, 0x20] + [UInt8](repeating: 1, count: 16)
                return try MapTests.forge(
                    entries: [e(5, 0, 10, 1)], tileData: data, leafEvery: nil, rootOverride: try Gzip.compress(raw))
            case .hugeHeaderCounts:
                return try MapTests.forge(
                    entries: [e(5, 0, 10, 1)], tileData: data, leafEvery: nil, counts: (1 << 60, 1 << 60))
            case .leafLoop:
                // A leaf whose only entry points back at itself.
                let leaf = try Gzip.compress(PMTilesDirectory.encode([e(5, 0, 0, 0)]))
                let fixed = try Gzip.compress(PMTilesDirectory.encode([e(5, 0, UInt32(leaf.count), 0)]))
                precondition(fixed.count == leaf.count)
                return try MapTests.forge(
                    entries: [e(5, 0, 10, 1)], tileData: data, leafEvery: nil,
                    rootOverride: try Gzip.compress(PMTilesDirectory.encode([e(5, 0, UInt32(fixed.count), 0)])),
                    leavesOverride: fixed)
            case .leafListedTwice:
                let leaf = try Gzip.compress(PMTilesDirectory.encode([e(5, 0, 10, 1), e(6, 10, 10, 1)]))
                let root = try Gzip.compress(
                    PMTilesDirectory.encode([e(5, 0, UInt32(leaf.count), 0), e(9, 0, UInt32(leaf.count), 0)]))
                return try MapTests.forge(
                    entries: [e(5, 0, 10, 1)], tileData: data, leafEvery: nil, rootOverride: root, leavesOverride: leaf)
            case .unsortedEntries:
                // Encoded by hand: ids 9 then 5 (a delta that wraps is refused as beyond zoom 31).
                var raw: [UInt8] = [2, 9]
                raw += [0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]  // 2^64 - 4
                raw += [1, 1, 10, 10, 1, 0]
                return try MapTests.forge(
                    entries: [e(5, 0, 10, 1)], tileData: data, leafEvery: nil, rootOverride: try Gzip.compress(raw))
            case .truncatedVarint:
                return try MapTests.forge(
                    entries: [e(5, 0, 10, 1)], tileData: data, leafEvery: nil,
                    rootOverride: try Gzip.compress([1, 5, 1, 10, 0x80]))
            case .gzipBomb:
                // A 40 KB leaf that inflates to 40 MB (the cap is 32 MiB).
                let bomb = try Gzip.compress([UInt8](repeating: 0, count: 40 << 20))
                return try MapTests.forge(
                    entries: [e(5, 0, 10, 1)], tileData: data, leafEvery: nil,
                    rootOverride: try Gzip.compress(PMTilesDirectory.encode([e(5, 0, UInt32(bomb.count), 0)])),
                    leavesOverride: bomb)
            case .trailingBytes:
                return try MapTests.forge(
                    entries: [e(5, 0, 10, 1)], tileData: data, leafEvery: nil,
                    rootOverride: try Gzip.compress(PMTilesDirectory.encode([e(5, 0, 10, 1)]) + [0, 0]))
            case .emptyTile: return try MapTests.forge(entries: [e(5, 0, 0, 1)], tileData: data, leafEvery: nil)
            case .zoomOutsideHeader:
                return try withHeader(
                    try MapTests.forge(
                        entries: [e(5, 0, 10, 1), e(TileID(z: 6, x: 1, y: 1).id!, 10, 10, 1)], tileData: data,
                        leafEvery: nil)
                ) { $0.maxZoom = 2 }
            }
        }
    }

    @Test("truncation at every length is refused, never a crash")
    func truncation() throws {
        let bytes = try Self.sampleArchive(tiles: 300, leafEvery: 64)
        for n in 0..<bytes.count {
            let report = try Self.check(Array(bytes.prefix(n)))
            #expect(report.findings.hasErrors, "accepted a file cut at \(n) of \(bytes.count)")
        }
    }

    @Test(
        "structure-aware fuzzing: header fields and directory entries at boundary values, thousands of inputs, no trap")
    func fuzz() throws {
        var rng = SplitMix(seed: 2026)
        let base = try Self.sampleArchive(tiles: 600, leafEvery: 100)
        let h = try PMTilesHeader.parse(Array(base.prefix(127)), fileSize: UInt64(base.count))
        let size = UInt64(base.count)
        func boundary(_ around: UInt64) -> UInt64 {
            let picks: [UInt64] = [
                0, 1, 126, 127, 128, around &- 1, around, around &+ 1, size &- 1, size, size &+ 1, 16_383, 16_384,
                UInt64(UInt32.max), UInt64(UInt32.max) + 1, 1 << 62, UInt64(Int64.max), UInt64.max,
                rng.next() % (size + 10),
            ]
            return picks[Int(rng.next() % UInt64(picks.count))]
        }
        let rootEntries = try PMTilesDirectory.decode(
            try Gzip.decompress(
                Array(base[Int(h.rootOffset)..<Int(h.rootOffset + h.rootLength)]), limit: 1 << 20, what: "root",
                code: .mapDirectory), maxEntries: 1000, what: "root")
        var rejected = 0, inputs = 0
        for round in 0..<3000 {
            var bytes = base
            var header = h
            var root = rootEntries
            switch round % 4 {
            case 0:  // one header number
                switch rng.next() % 11 {
                case 0: header.rootOffset = boundary(h.rootOffset)
                case 1: header.rootLength = boundary(h.rootLength)
                case 2: header.metadataOffset = boundary(h.metadataOffset)
                case 3: header.metadataLength = boundary(h.metadataLength)
                case 4: header.leafOffset = boundary(h.leafOffset)
                case 5: header.leafLength = boundary(h.leafLength)
                case 6: header.tileDataOffset = boundary(h.tileDataOffset)
                case 7: header.tileDataLength = boundary(h.tileDataLength)
                case 8: header.addressedTiles = boundary(h.addressedTiles)
                case 9: header.tileEntries = boundary(h.tileEntries)
                default: header.tileContents = boundary(h.tileContents)
                }
                bytes = header.bytes + base[127...]
            case 1:  // one byte of the flags, zooms, bounds and center
                bytes[96 + Int(rng.next() % 31)] = [0, 1, 2, 5, 0x7F, 0x80, 0xFF][Int(rng.next() % 7)]
            case 2:  // one root entry field, re-encoded (the root may change length: the header follows)
                let i = Int(rng.next() % UInt64(root.count))
                switch rng.next() % 4 {
                case 0: root[i].tileID = boundary(root[i].tileID) % TileID.idLimit
                case 1: root[i].offset = boundary(root[i].offset)
                case 2: root[i].length = UInt32(truncatingIfNeeded: boundary(UInt64(root[i].length)))
                default: root[i].runLength = [0, 1, 2, UInt32.max][Int(rng.next() % 4)]
                }
                root.sort { $0.tileID < $1.tileID }
                let encoded = try Gzip.compress(PMTilesDirectory.encode(root))
                let shift = Int64(encoded.count) - Int64(h.rootLength)
                header.rootLength = UInt64(encoded.count)
                for k in [\PMTilesHeader.metadataOffset, \.leafOffset, \.tileDataOffset] {
                    header[keyPath: k] = UInt64(Int64(header[keyPath: k]) + shift)
                }
                bytes = header.bytes + encoded + base[Int(h.rootOffset + h.rootLength)...]
            default:  // a few random bytes anywhere in the directories and metadata
                for _ in 0..<(1 + Int(rng.next() % 4)) {
                    let at = 127 + Int(rng.next() % (h.tileDataOffset - 127))
                    bytes[at] = UInt8(truncatingIfNeeded: rng.next())
                }
            }
            let report = try Self.check(bytes)
            inputs += 1
            if report.findings.hasErrors { rejected += 1 }
            // Whatever passes must also read tile by tile.
            if !report.findings.hasErrors, let archive = try? PMTilesArchive(source: MapBytes(bytes)) {
                _ = try? archive.walk { e throws(MapError) in _ = try archive.tileBytes(e) }
            }
        }
        #expect(inputs == 3000)
        #expect(rejected > 1000, "most mutations must be caught (\(rejected) of \(inputs))")
    }

    // MARK: commands and the Python cross-checks
}
