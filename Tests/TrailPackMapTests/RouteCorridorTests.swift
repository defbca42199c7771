import Foundation
import Testing
import TrailPackCore
import TrailPackTestSupport

@testable import TrailPackMap

/// The offline map follows the trail (issue #49): the tiles within a corridor of the route, cross-checked
/// against a measurement of every tile of a box, and against great-circle distances; cutting a map to the
/// corridor, and judging its coverage against it.
@Suite("maps: the route's corridor", .ownThreads)
struct RouteCorridorTests {
    /// The Santiam Wagon Road's eight stops, west to east.
    static let santiamStops: [Coordinate] = [
        (44.3976, -122.7262), (44.3979, -122.481), (44.3947, -122.3587), (44.3923, -122.2445), (44.3955, -122.1404),
        (44.4057, -121.9929), (44.4245, -121.8613), (44.4056, -121.705),
    ].map { Coordinate(latitude: $0.0, longitude: $0.1) }

    /// A road through the stops that wanders a kilometre north and south between them (about 97 km).
    static let santiamRoute: [Coordinate] = {
        var line: [Coordinate] = []
        for (a, b) in zip(santiamStops, santiamStops.dropFirst()) {
            for i in 0..<40 {
                let f = Double(i) / 40
                line.append(
                    Coordinate(
                        latitude: a.latitude + (b.latitude - a.latitude) * f + 0.01 * sin(f * .pi * 3),
                        longitude: a.longitude + (b.longitude - a.longitude) * f))
            }
        }
        return line + [santiamStops.last!]
    }()

    /// A wandering line of `n` points from `start`, steps of up to `step` degrees (of latitude).
    static func wander(_ rng: inout SplitMix, from start: Coordinate, points n: Int, step: Double) -> [Coordinate] {
        func unit() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        var line = [start]
        for _ in 1..<n {
            let l = line.last!
            line.append(
                Coordinate(
                    latitude: l.latitude + (unit() - 0.5) * step,
                    longitude: l.longitude + (unit() - 0.5) * step / cos(l.latitude * .pi / 180)))
        }
        return line
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var lines: [[Coordinate]]
        var stops: [Coordinate] = []
        var width: Double
        var stopBuffer: Double? = nil
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        var rng = SplitMix(seed: 49)
        return [
            Case(
                name: "a random trail in Oregon, ±400 m",
                lines: [wander(&rng, from: Coordinate(latitude: 44.4, longitude: -122.3), points: 12, step: 0.05)],
                width: 400),
            Case(
                name: "a random trail on the equator, a stop with a wider buffer",
                lines: [wander(&rng, from: Coordinate(latitude: 0.1, longitude: 10), points: 8, step: 0.08)],
                stops: [Coordinate(latitude: 0.1, longitude: 10)], width: 250, stopBuffer: 900),
            Case(
                name: "a road in Fiji cut at the antimeridian, ±700 m",
                lines: [
                    [
                        Coordinate(latitude: -17.8, longitude: 179.93), Coordinate(latitude: -17.78, longitude: 179.97),
                        Coordinate(latitude: -17.76, longitude: 180),
                    ],
                    [Coordinate(latitude: -17.76, longitude: -180), Coordinate(latitude: -17.7, longitude: -179.95)],
                ],
                width: 700),
            Case(
                name: "a random trail on Svalbard, 80° N, ±600 m",
                lines: [wander(&rng, from: Coordinate(latitude: 80.2, longitude: 15), points: 10, step: 0.03)],
                width: 600),
            Case(
                name: "a single stop with no line, 800 m around it",
                lines: [], stops: [Coordinate(latitude: 46.5, longitude: 8.0)], width: 0, stopBuffer: 800),
            Case(
                name: "a line beyond Web Mercator's edge (85.2° N to 86° N) is taken at the edge",
                lines: [[Coordinate(latitude: 85.2, longitude: 20), Coordinate(latitude: 86, longitude: 21)]],
                width: 500),
        ]
    }()

    /// Every tile of a box around the route measured against every piece: what the corridor must equal.
    static func everyTileMeasured(_ c: RouteCorridor, zoom z: Int) -> Set<TileID> {
        let points = (c.pieces + c.stopPieces).flatMap {
            [
                Coordinate(latitude: $0.aLat, longitude: RouteCorridor.wrap($0.aLon)),
                Coordinate(latitude: $0.bLat, longitude: RouteCorridor.wrap($0.bLon)),
            ]
        }
        let box = TileMath.buffered(
            Bounds.enclosing(points, margin: 0)!, metres: 3 * max(c.halfWidth, c.stopBuffer) + 1000)
        var out = Set<TileID>()
        TileMath.range(box, zoom: z).forEach { x, y in
            let s = TileMath.latitude(y: y + 1, z: z), n = TileMath.latitude(y: y, z: z)
            let w = TileMath.longitude(x: x, z: z), e = TileMath.longitude(x: x + 1, z: z)
            for (pieces, r) in [(c.pieces, c.halfWidth), (c.stopPieces, c.stopBuffer)] {
                let near = pieces.contains {
                    RouteCorridor.distance($0, south: s, north: n, west: w, east: e, band: c.bandDegrees).metres
                        <= r + r * 1e-4 + 0.01
                }
                if near {
                    out.insert(TileID(z: z, x: x, y: y))
                    break
                }
            }
        }
        return out
    }

    @Test("the corridor is exactly the tiles of a box measured one by one", arguments: cases)
    func matchesEveryTileMeasured(_ c: Case) {
        let corridor = RouteCorridor(lines: c.lines, stops: c.stops, halfWidth: c.width, stopBuffer: c.stopBuffer)
        for z in [4, 6, 9, 11, 13, 14] {
            let tiles = corridor.tiles(zoom: z)
            #expect(!tiles.isEmpty, "zoom \(z)")
            #expect(Set(tiles.map(\.id)) == Self.everyTileMeasured(corridor, zoom: z), "zoom \(z)")
            #expect(Set(tiles.map(\.id)).count == tiles.count, "zoom \(z): a tile listed twice")
            let ids = tiles.map { $0.id.id! }
            #expect(ids == ids.sorted(), "zoom \(z): not sorted by tile id")
            #expect(corridor.tileIDs(zoom: z) == ids)
        }
    }

    /// The route (and stops) sampled every twentieth of the width, each sample with its radius.
    static func samples(_ c: Case) -> [(lat: Double, lon: Double, radius: Double)] {
        var out: [(Double, Double, Double)] = []
        for line in c.lines {
            for (a, b) in zip(line, line.dropFirst()) {
                var bLon = b.longitude
                if bLon - a.longitude > 180 { bLon -= 360 } else if bLon - a.longitude < -180 { bLon += 360 }
                let n = max(1, Int(RouteCorridor.greatCircle(a.latitude, a.longitude, b.latitude, bLon) / 20))
                for i in 0...n {
                    let f = Double(i) / Double(n)
                    out.append(
                        (
                            min(a.latitude + (b.latitude - a.latitude) * f, TileMath.maxLatitude),
                            a.longitude + (bLon - a.longitude) * f, c.width
                        ))
                }
            }
        }
        for s in c.stops { out.append((s.latitude, s.longitude, c.stopBuffer ?? c.width)) }
        return out
    }

    @Test(
        "on the sphere: a tile with a point within the distance of the route is in; one in is within it (20 m sampling)",
        arguments: cases)
    func greatCircle(_ c: Case) {
        let corridor = RouteCorridor(lines: c.lines, stops: c.stops, halfWidth: c.width, stopBuffer: c.stopBuffer)
        let wide = RouteCorridor(
            lines: c.lines, stops: c.stops, halfWidth: c.width * 2 + 2000,
            stopBuffer: (c.stopBuffer ?? c.width) * 2 + 2000)
        let samples = Self.samples(c)
        for z in [9, 12, 14] {
            let inside = Set(corridor.tiles(zoom: z).map(\.id))
            for t in wide.tiles(zoom: z).map(\.id) {
                let s = TileMath.latitude(y: t.y + 1, z: z), n = TileMath.latitude(y: t.y, z: z)
                let w = TileMath.longitude(x: t.x, z: z), e = TileMath.longitude(x: t.x + 1, z: z)
                // The tile's point nearest each sample (clamped in degrees): a point of the tile, so
                // a sample within its radius of it puts the tile in the corridor.
                var excess = Double.infinity
                for q in samples {
                    let shift = ((q.lon - (w + e) / 2) / 360).rounded() * 360
                    let lat = min(max(q.lat, s), n), lon = min(max(q.lon, w + shift), e + shift)
                    excess = min(excess, RouteCorridor.greatCircle(q.lat, q.lon, lat, lon) - q.radius)
                }
                if excess <= 0 { #expect(inside.contains(t), "zoom \(z): tile \(t) is within reach and left out") }
                if inside.contains(t) {
                    #expect(excess <= 15, "zoom \(z): tile \(t) is \(excess) m beyond reach and taken in")
                }
            }
        }
    }

    @Test("a wider corridor holds every tile of a narrower one; a wider stop buffer adds tiles around the stops")
    func monotonic() {
        let stops = Self.santiamStops
        var previous: Set<TileID> = []
        for width in [0.0, 50, 200, 500, 1_000, 3_000] {
            let tiles = Set(
                RouteCorridor(lines: [Self.santiamRoute], stops: stops, halfWidth: width).tiles(zoom: 15).map(\.id))
            #expect(previous.isSubset(of: tiles), "±\(width) m lost tiles of the narrower corridor")
            #expect(tiles.count > previous.count, "±\(width) m")
            previous = tiles
        }
        let narrow = RouteCorridor(lines: [Self.santiamRoute], stops: stops, halfWidth: 100, stopBuffer: 100)
        let wide = RouteCorridor(lines: [Self.santiamRoute], stops: stops, halfWidth: 100, stopBuffer: 2_000)
        let routeOnly = RouteCorridor(lines: [Self.santiamRoute], halfWidth: 100)
        let n = Set(narrow.tiles(zoom: 15).map(\.id)), w = Set(wide.tiles(zoom: 15).map(\.id))
        #expect(n.isSubset(of: w) && w.count > n.count)
        #expect(Set(routeOnly.tiles(zoom: 15).map(\.id)).isSubset(of: n))
        // A tile taken in for a stop alone is named by the stop's place along the route.
        let routeTiles = Set(routeOnly.tiles(zoom: 15).map(\.id))
        let stopTiles = wide.tiles(zoom: 15).filter { !routeTiles.contains($0.id) }
        #expect(!stopTiles.isEmpty && stopTiles.allSatisfy { $0.alongMetres != nil })
    }

    @Test("each tile is named by how far along the route its nearest point is; the lines count one after the other")
    func alongTheRoute() throws {
        // Two lines along the equator, 0.5° each (about 55.6 km), the second beginning where the first ends.
        let a = [Coordinate(latitude: 0, longitude: 10), Coordinate(latitude: 0, longitude: 10.5)]
        let b = [Coordinate(latitude: 0, longitude: 10.5), Coordinate(latitude: 0, longitude: 11)]
        let corridor = RouteCorridor(lines: [a, b], halfWidth: 100)
        #expect(abs(corridor.lengthMetres - 2 * RouteCorridor.greatCircle(0, 10, 0, 10.5)) < 1e-6)
        for tile in corridor.tiles(zoom: 14) {
            let west = TileMath.longitude(x: tile.id.x, z: 14), east = TileMath.longitude(x: tile.id.x + 1, z: 14)
            let along = try #require(tile.alongMetres)
            // The tile's nearest point of the route is where the route enters it (or the start).
            let expected = RouteCorridor.greatCircle(0, 10, 0, max(10, west))
            #expect(abs(along - expected) < 1, "\(tile.id): \(along) m, expected \(expected) m")
            #expect(west <= 11 && east >= 10)
        }
        // Stops alone: nothing to measure along.
        let stopsOnly = RouteCorridor(lines: [], stops: [Coordinate(latitude: 0, longitude: 10)], halfWidth: 100)
        #expect(stopsOnly.tiles(zoom: 14).allSatisfy { $0.alongMetres == nil })
    }

    @Test("Santiam, z10–16, ±500 m: at most 10 % of the bounding box's tiles")
    func santiamEstimate() {
        let corridor = RouteCorridor(lines: [Self.santiamRoute], stops: Self.santiamStops, halfWidth: 500)
        let frame = MapFixtures.santiamFrame
        let box = (10...16).reduce(0) { $0 + TileMath.range(frame, zoom: $1).count }
        let inside = corridor.count(zooms: 10...16)
        #expect(box == 15_498)
        #expect(Double(inside) <= 0.10 * Double(box), "\(inside) of \(box) tiles")
        #expect(inside > 0)
        // Every corridor tile lies in the frame's tiles (the route is well inside the frame).
        for z in 10...16 {
            let r = TileMath.range(frame, zoom: z)
            #expect(
                corridor.tiles(zoom: z).allSatisfy { t in
                    r.rows.contains(t.id.y) && r.columns.contains { $0.contains(t.id.x) }
                })
        }
    }

    @Test("a map cut to the corridor holds exactly the corridor's tiles, and records its width")
    func extract() throws {
        try Support.withTemporaryDirectory { dir in
            let corridor = RouteCorridor(lines: [Self.santiamRoute], stops: Self.santiamStops, halfWidth: 500)
            let archive = try PMTilesArchive(source: try MapFile(path: MapFixtures.baseMap))
            let out = dir + "/corridor.pmtiles"
            let result = try MapExtract.extract(
                from: archive, frame: MapFixtures.santiamFrame, corridor: corridor, zooms: 8...13,
                to: try PMTilesWriter(outputPath: out))
            #expect(result.missing == 0)
            let cut = try PMTilesArchive(source: try MapFile(path: out))
            var ids: [UInt64] = []
            _ = try cut.walk { e in for id in e.tileID..<(e.tileID + UInt64(e.runLength)) { ids.append(id) } }
            let expected = (8...13).flatMap { corridor.tileIDs(zoom: $0) }
            #expect(ids == expected)
            #expect(result.tiles == Int64(expected.count))
            let metadata = try cut.metadata()
            #expect(metadata[MapExtract.corridorMetresKey] == .number(JSONNumber(500.0)))
            // Against the route, the cut map is whole; against the frame, it is not.
            let route = MapCheckOptions.Route(lines: [Self.santiamRoute], stops: Self.santiamStops)
            let judged = try MapCheck.check(
                try MapFile(path: out), file: "c", frame: MapFixtures.santiamFrame,
                options: MapCheckOptions(minDetailZoom: 13, route: route))
            #expect(!judged.findings.hasErrors, "\(judged.findings)")
            #expect(judged.corridorMetres == 500)
            #expect(judged.zooms.allSatisfy { $0.frameTiles == $0.framePresent && $0.frameTiles != nil })
            let framed = try MapCheck.check(
                try MapFile(path: out), file: "c", frame: MapFixtures.santiamFrame,
                options: MapCheckOptions(minDetailZoom: 13))
            #expect(framed.findings.codes.contains(.mapCoverage))
        }
    }

    @Test("a tile missing from the corridor is an error naming its zoom and how far along the route it is")
    func missingTileNamesKilometre() throws {
        try Support.withTemporaryDirectory { dir in
            let route = MapCheckOptions.Route(lines: [Self.santiamRoute], stops: Self.santiamStops)
            // The map records no width: it is judged against 100 m.
            let corridor = RouteCorridor(lines: route.lines, stops: route.stops, halfWidth: 100)
            let tiles = corridor.tiles(zoom: 15)
            let dropped = try #require(tiles.first { ($0.alongMetres ?? 0) > 40_000 })
            let writer = try PMTilesWriter(outputPath: dir + "/m.pmtiles")
            for t in tiles where t.id != dropped.id {
                try writer.add(id: t.id.id!, data: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            }
            var h = PMTilesHeader()
            h.tileTypeByte = PMTilesHeader.TileType.png.rawValue
            h.minZoom = 15
            h.maxZoom = 15
            MapExtract.setBounds(&h, frame: corridor.bounds!)
            _ = try writer.finish(header: h, metadata: .object([]))
            let report = try MapCheck.check(
                try MapFile(path: dir + "/m.pmtiles"), file: "m", frame: MapFixtures.santiamFrame,
                options: MapCheckOptions(minDetailZoom: 0, route: route))
            #expect(report.corridorMetres == 100)
            let finding = try #require(report.findings.first { $0.code == .mapCoverage })
            let km = String(format: "km %.1f along the route", dropped.alongMetres! / 1000)
            #expect(
                finding.message.contains("zoom 15: 1 tile within 100 m of the route is missing, around \(km)"),
                "\(finding)")
            #expect(finding.message.contains("tile \(dropped.id)"), "\(finding)")
            #expect(report.findings.filter { $0.severity == .error }.count == 1, "\(report.findings)")
        }
    }

    @Test("missing places are grouped: tiles less than 2 km apart are one place, the first three named")
    func places() {
        #expect(CoverageTracker.places(along: [41_230], nearStops: false) == "km 41.2 along the route")
        #expect(
            CoverageTracker.places(along: [3_100, 41_200, 41_900], nearStops: false)
                == "km 3.1 and km 41.2–41.9 along the route")
        #expect(
            CoverageTracker.places(along: [0, 5_000, 10_000, 15_000, 20_000], nearStops: true)
                == "km 0.0, km 5.0, km 10.0 and 2 more places along the route and near the stops")
        #expect(CoverageTracker.places(along: [], nearStops: true) == "the stops")
    }
}
