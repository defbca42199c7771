import Foundation
import Testing
import TrailPackBuilder
import TrailPackCore
import TrailPackMap
import TrailPackTestSupport

/// What the map reports say (issue #28): percentages rounded, MLT named, overlays not held to the frame.
@Suite("maps: coverage percentages, tile type names, base and overlay", .ownThreads)
struct MapReportTests {
    static let rounding: [(Int, Int, Double)] = [
        (3, 2, 66.7),  // truncated, this was 66.6
        (3, 1, 33.3),
        (8, 7, 87.5),
        (3000, 2999, 99.9),  // rounded it would be 100: a missing tile never shows as 100
        (3000, 1, 0.1),  // rounded it would be 0: a present tile never shows as 0
        (3000, 0, 0),
        (3000, 3000, 100),
        (0, 0, 100),
        (1000, 2, 0.2),
    ]

    @Test(
        "coverage percentages are rounded to the nearest tenth, never 100 with a tile missing or 0 with one present",
        arguments: rounding)
    func percent(frame: Int, present: Int, expected: Double) {
        let z = MapZoomReport(zoom: 10, frameTiles: frame, framePresent: present)
        #expect(z.coveragePercent == expected, "\(present) of \(frame): \(z.coveragePercent ?? -1)")
    }

    @Test("PMTiles tile type 6 is MLT, the MapLibre Tile, named so in the header and in the finding")
    func mlt() throws {
        var h = PMTilesHeader()
        h.tileTypeByte = 6
        #expect(h.tileType == .mlt && h.tileType?.name == "mlt" && h.tileType?.displayName == "MLT (MapLibre Tile)")
        var bytes = try Support.read(MapFixtures.baseMap)
        bytes[99] = 6  // the header's tile type
        let report = try MapCheck.check(MapBytes(bytes), file: "mlt.pmtiles", frame: nil)
        let finding = try #require(report.findings.first { $0.code == .mapTileType })
        #expect(finding.message.contains("MLT (MapLibre Tile)") && !finding.message.contains("type 6"), "\(finding)")
        var unknown = bytes
        unknown[99] = 42
        let other = try MapCheck.check(MapBytes(unknown), file: "x.pmtiles", frame: nil)
        #expect(other.findings.contains { $0.code == .mapTileType && $0.message.contains("type byte 42") })
    }

    @Test("an overlay that covers part of the frame is no finding; the same file as the base map is")
    func overlayCoverage() throws {
        let source = try MapFile(path: MapFixtures.cornerMissing)
        let base = try MapCheck.check(
            source, file: "map/x.pmtiles", frame: MapFixtures.santiamFrame,
            options: MapCheckOptions(minDetailZoom: 0).forMap(at: "map/x.pmtiles"))
        #expect(base.findings.codes.contains(.mapCoverage), "\(base.findings)")
        let overlay = try MapCheck.check(
            source, file: "map/overlays/trails.pmtiles", frame: MapFixtures.santiamFrame,
            options: MapCheckOptions(minDetailZoom: 0).forMap(at: "map/overlays/trails.pmtiles"))
        #expect(!overlay.findings.hasErrors, "\(overlay.findings)")
        #expect(overlay.zooms.contains { $0.frameMissing > 0 }, "the overlay's coverage is still reported")
    }

    @Test("a tour whose overlay draws trails for half the frame builds; a base map that does not cover it does not")
    func sparseOverlayBuilds() throws {
        try Support.withTemporaryDirectory { dir in
            let tour = dir + "/tour"
            try Support.copyTree(Support.fixture("santiam-wagon-road"), tour)
            try FileManager.default.createDirectory(atPath: tour + "/map/overlays", withIntermediateDirectories: true)
            // A map cut to the western half of the frame: its bounds and its tiles cover half.
            let half = dir + "/half.pmtiles"
            let frame = MapFixtures.santiamFrame
            let west = Bounds(
                southwest: frame.southwest,
                northeast: Coordinate(
                    latitude: frame.northeast.latitude,
                    longitude: (frame.southwest.longitude + frame.northeast.longitude) / 2))
            let archive = try PMTilesArchive(source: try MapFile(path: MapFixtures.baseMap))
            let writer = try PMTilesWriter(outputPath: half)
            _ = try MapExtract.extract(from: archive, frame: west, zooms: 8...13, to: writer) { _ in }
            try FileManager.default.copyItem(atPath: half, toPath: tour + "/map/overlays/trails.pmtiles")
            let planned = try TourBuilder.plan(tour, map: MapCheckOptions(minDetailZoom: 13))
            #expect(!planned.findings.hasErrors, "\(planned.findings)")
            #expect(try #require(planned.plan).manifest.mapAssets.contains { $0.map?.role == .overlay })
            // The same half map as the base map: refused.
            try FileManager.default.removeItem(atPath: tour + "/map/santiam-wagon-road.pmtiles")
            try FileManager.default.moveItem(
                atPath: tour + "/map/overlays/trails.pmtiles", toPath: tour + "/map/santiam-wagon-road.pmtiles")
            let codes = try TourBuilder.plan(tour, map: MapCheckOptions(minDetailZoom: 13)).findings.codes
            #expect(codes.contains(.mapCoverage) || codes.contains(.mapBounds), "\(codes)")
        }
    }
}
