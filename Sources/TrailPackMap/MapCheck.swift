import Foundation
import TrailPackCore

/// What `MapCheck` judges a map against.
public struct MapCheckOptions: Sendable {
    /// Below this most-detailed zoom a map gets a `map.min-detail` warning (14: a walking tour).
    public var minDetailZoom = 14
    /// The most frame tiles checked at one zoom (8 bytes each); a larger zoom is reported as unchecked.
    public var maxFrameTilesPerZoom = 4 << 20
    /// Tiles of an unclustered map whose placement is checked (16 bytes each).
    public var maxUnclusteredTiles = 8 << 20
    public var limits = PMTilesLimits.default
    /// Whether the map must cover the frame (`map.bounds`, `map.coverage`): the base map must; an
    /// overlay (`map/overlays/`: trails, labels) may draw over part of it, and its coverage is
    /// reported zoom by zoom but is no finding.
    public var coversFrame = true
    /// The tour's route. Given one, coverage is judged against the route's corridor instead of the
    /// frame: every tile within the corridor must be present, and the map need not reach the frame's
    /// edges. The corridor's width is the one the map was cut with (its metadata's
    /// `trailpack:corridorMetres`), or ``defaultCorridorMetres``.
    public var route: Route?

    /// The corridor a map is judged against when its metadata does not say how wide it was cut.
    public static let defaultCorridorMetres = 100.0

    /// A tour's route: its lines in walking order, and its stops.
    public struct Route: Sendable {
        public var lines: [[Coordinate]]
        public var stops: [Coordinate]
        public init(lines: [[Coordinate]], stops: [Coordinate] = []) {
            self.lines = lines
            self.stops = stops
        }
    }

    public init(minDetailZoom: Int = 14, coversFrame: Bool = true, route: Route? = nil) {
        self.minDetailZoom = minDetailZoom
        self.coversFrame = coversFrame
        self.route = route
    }

    /// The corridor a map with `metadata` is judged against (nil without a route): the widths the
    /// map records, or ``defaultCorridorMetres`` (and the same around the stops).
    public func corridor(metadata: JSONValue?) -> RouteCorridor? {
        guard let route else { return nil }
        func metres(_ key: String) -> Double? {
            guard case .number(let n)? = metadata?[key], let v = n.double, v.isFinite, (0...1_000_000).contains(v)
            else { return nil }
            return v
        }
        let width = metres(MapExtract.corridorMetresKey) ?? Self.defaultCorridorMetres
        return RouteCorridor(
            lines: route.lines, stops: route.stops, halfWidth: width,
            stopBuffer: metres(MapExtract.stopBufferMetresKey) ?? width)
    }

    /// These options for the map at `path` in a package: an overlay need not cover the frame.
    public func forMap(at path: String) -> MapCheckOptions {
        var options = self
        options.coversFrame = MapInfo.role(forPath: path) == .base
        return options
    }
}

/// One zoom level of a map: its tiles, and how much of the tour's frame they cover.
public struct MapZoomReport: Sendable, Equatable {
    public var zoom: Int
    /// Tiles addressed at this zoom (a run of identical tiles counts each).
    public var tiles: Int64 = 0
    /// Bytes of tile data those tiles point to (shared content counted each time).
    public var bytes: Int64 = 0
    /// Tiles of this zoom that intersect the frame; nil without a frame or when too many to check.
    public var frameTiles: Int?
    /// How many of those the map holds.
    public var framePresent = 0
    /// Where the missing ones are, in words ("the northeast corner"; against a route's corridor,
    /// "km 41.2 along the route"); nil when none is missing.
    public var missingArea: String?
    /// One missing tile, for the message.
    public var missingExample: TileID?

    /// A zoom's report: nothing counted yet, or (for tests and tools) a frame's counts.
    public init(zoom: Int, frameTiles: Int? = nil, framePresent: Int = 0) {
        self.zoom = zoom
        self.frameTiles = frameTiles
        self.framePresent = framePresent
    }

    public var frameMissing: Int { (frameTiles ?? 0) - framePresent }
    /// The share of the frame's tiles present, 0...100 to the nearest tenth; nil when not checked.
    /// Never 100 while a tile is missing, nor 0 while one is present (2 of 3000 is 0.1, not 0).
    public var coveragePercent: Double? {
        guard let f = frameTiles else { return nil }
        guard f > 0 else { return 100 }
        let tenths = (Double(framePresent) * 1000 / Double(f)).rounded()
        if framePresent < f && tenths >= 1000 { return 99.9 }
        if framePresent > 0 && tenths < 1 { return 0.1 }
        return tenths / 10
    }
}

/// Everything `MapCheck` learned about one map file.
public struct MapReport: Sendable {
    public var header: PMTilesHeader?
    public var zooms: [MapZoomReport] = []
    public var findings: [Finding] = []
    public var summary: PMTilesArchive.WalkSummary?
    /// Distinct tile contents (de-duplicated tiles count once).
    public var uniqueContents = 0
    public var metadata: JSONValue?
    /// The half width in metres of the route's corridor the coverage was judged against; nil when it
    /// was judged against the frame (the zooms' `frameTiles` then count the corridor's tiles).
    public var corridorMetres: Double?

    /// The manifest's description of the map, from its header; nil when the header was unreadable
    /// or the tile type is not one phones render.
    public func mapInfo(role: MapInfo.Role) -> MapInfo? {
        guard let h = header, let type = h.tileType.flatMap({ MapInfo.TileType(rawValue: $0.name) }) else { return nil }
        return MapInfo(role: role, tileType: type, minZoom: h.minZoom, maxZoom: h.maxZoom, bounds: h.bounds)
    }
}

/// Checks one PMTiles map: its structure (every directory walked, every tile placed), its tile
/// type, and — given the tour's map frame — its bounds, its detail and its coverage zoom by zoom.
public enum MapCheck {
    /// Checks the map held by `source`. Findings name `file`. Throws only when the source cannot
    /// be read (input/output); everything wrong with the bytes is a finding.
    public static func check(
        _ source: any MapSource, file: String?, frame: Bounds?, options: MapCheckOptions = MapCheckOptions()
    ) throws(MapError) -> MapReport {
        var report = MapReport()
        func add(_ e: MapError) throws(MapError) {
            guard e.code != .io else { throw e }
            report.findings.append(e.finding(file: file))
        }
        let archive: PMTilesArchive
        do { archive = try PMTilesArchive(source: source, limits: options.limits) } catch {
            try add(error)
            // Report what the header says even when the directories are broken.
            if let head = try? source.bytes(
                at: 0, count: min(127, UInt64(max(0, source.size))), what: "the header", code: .mapHeader),
                let h = try? PMTilesHeader.parse(head, fileSize: UInt64(source.size))
            {
                report.header = h
            }
            return report
        }
        let h = archive.header
        report.header = h
        if let type = h.tileType, MapInfo.TileType(rawValue: type.name) != nil {
        } else {
            let name = h.tileType?.displayName ?? "unknown (type byte \(h.tileTypeByte))"
            report.findings.append(
                Finding(
                    .mapTileType, file: file,
                    "the tile type is \(name); phones render mvt, png, jpeg and webp tiles: rewrite the map in one of those"
                ))
        }
        do { report.metadata = try archive.metadata() } catch { try add(error) }
        let corridor = options.corridor(metadata: report.metadata)
        report.corridorMetres = corridor?.halfWidth
        if corridor == nil, let frame, options.coversFrame {
            checkFrame(h, frame: frame, file: file, options: options, into: &report.findings)
        } else if frame != nil || corridor != nil {
            checkDetail(h, file: file, options: options, into: &report.findings)
        }

        // One walk: per-zoom counts, tile placement, coverage of the frame.
        var zooms: [Int: MapZoomReport] = [:]
        var spans = ContentSpans(clustered: h.clustered, cap: options.maxUnclusteredTiles)
        var coverage =
            corridor.map {
                CoverageTracker(corridor: $0, zooms: h.minZoom...h.maxZoom, cap: options.maxFrameTilesPerZoom)
            }
            ?? frame.map {
                CoverageTracker(frame: $0, zooms: h.minZoom...h.maxZoom, cap: options.maxFrameTilesPerZoom)
            }
        var first: PMTilesEntry?
        var walked = false
        do {
            report.summary = try archive.walk { (e: PMTilesEntry) throws(MapError) in
                if first == nil { first = e }
                try spans.add(offset: e.offset, length: e.length, tile: e.tileID)
                var id = e.tileID
                let end = e.tileID + UInt64(e.runLength)
                while id < end {
                    let z = TileID.zoom(ofID: id)!
                    let stop = min(end, TileID.firstID(zoom: z + 1))
                    zooms[z, default: MapZoomReport(zoom: z)].tiles += Int64(stop - id)
                    zooms[z, default: MapZoomReport(zoom: z)].bytes += Int64(stop - id) * Int64(e.length)
                    id = stop
                }
                coverage?.consume(e.tileID, end)
            }
            try spans.finish()
            report.uniqueContents = spans.unique
            walked = true
        } catch { try add(error) }

        if walked {
            let outside = zooms.keys.filter { $0 < h.minZoom || $0 > h.maxZoom }.sorted()
            if !outside.isEmpty {
                report.findings.append(
                    Finding(
                        .mapHeader, file: file,
                        "the map has tiles at zoom \(outside.map(String.init).joined(separator: ", ")), outside the zoom range \(h.minZoom)–\(h.maxZoom) its header gives"
                    ))
            }
            if let first { checkFirstTile(archive, first, file: file, into: &report.findings) }
        }
        if walked, var coverage {
            coverage.finish()
            for z in coverage.results.keys { zooms[z, default: MapZoomReport(zoom: z)].merge(coverage.results[z]!) }
        }
        report.zooms = (h.minZoom...h.maxZoom).map { zooms[$0] ?? MapZoomReport(zoom: $0) }
        report.zooms += zooms.values.filter { $0.zoom < h.minZoom || $0.zoom > h.maxZoom }.sorted { $0.zoom < $1.zoom }
        if walked, let corridor, options.coversFrame {
            let width = "\(format(corridor.halfWidth)) m"
            for z in report.zooms where z.frameTiles != nil && z.frameMissing > 0 {
                let example = z.missingExample.map { "; for example tile \($0)" } ?? ""
                report.findings.append(
                    Finding(
                        .mapCoverage, file: file,
                        "zoom \(z.zoom): \(z.frameMissing) tile\(z.frameMissing == 1 ? "" : "s") within \(width) of the route \(z.frameMissing == 1 ? "is" : "are") missing, around \(z.missingArea ?? "the route") (\(z.framePresent) of \(z.frameTiles!) present, \(format(z.coveragePercent!))%)\(example). Cut the map again with 'trailpack map extract --corridor \(format(corridor.halfWidth))' from a source that covers the route"
                    ))
            }
        } else if walked, frame != nil, options.coversFrame {
            for z in report.zooms where z.frameTiles != nil && z.frameMissing > 0 {
                let example = z.missingExample.map { "; for example tile \($0)" } ?? ""
                report.findings.append(
                    Finding(
                        .mapCoverage, file: file,
                        "zoom \(z.zoom): \(z.framePresent) of \(z.frameTiles!) tiles inside the tour's map frame are present (\(format(z.coveragePercent!))%); the \(z.frameMissing) missing lie in \(z.missingArea ?? "the frame")\(example). Cut the map again from a source that covers the frame, or shrink the tour's bounds"
                    ))
            }
        }
        return report
    }

    /// The map's bounds against the frame, and its most detailed zoom against the minimum.
    static func checkFrame(
        _ h: PMTilesHeader, frame: Bounds, file: String?, options: MapCheckOptions, into findings: inout [Finding]
    ) {
        let tolerance = 2e-7
        let mb = h.bounds
        let lonOK =
            frame.crossesAntimeridian
            ? mb.southwest.longitude <= -180 + tolerance && mb.northeast.longitude >= 180 - tolerance
            : mb.southwest.longitude <= frame.southwest.longitude + tolerance
                && mb.northeast.longitude >= frame.northeast.longitude - tolerance
        let latOK =
            mb.southwest.latitude <= frame.southwest.latitude + tolerance
            && mb.northeast.latitude >= frame.northeast.latitude - tolerance
        if !(lonOK && latOK) {
            var sides: [String] = []
            if mb.northeast.latitude < frame.northeast.latitude - tolerance { sides.append("north") }
            if mb.southwest.latitude > frame.southwest.latitude + tolerance { sides.append("south") }
            if !lonOK && (frame.crossesAntimeridian || mb.northeast.longitude < frame.northeast.longitude - tolerance) {
                sides.append("east")
            }
            if !lonOK && (frame.crossesAntimeridian || mb.southwest.longitude > frame.southwest.longitude + tolerance) {
                sides.append("west")
            }
            findings.append(
                Finding(
                    .mapBounds, file: file,
                    "the map covers \(describe(mb)), which does not contain the tour's map frame \(describe(frame)) (it falls short on the \(sides.joined(separator: ", ")) side\(sides.count == 1 ? "" : "s")); cut the map again with 'trailpack map extract --tour' or shrink the tour's bounds"
                ))
        }
        checkDetail(h, file: file, options: options, into: &findings)
    }

    /// The map's most detailed zoom against the minimum (a warning).
    static func checkDetail(_ h: PMTilesHeader, file: String?, options: MapCheckOptions, into findings: inout [Finding])
    {
        if h.maxZoom < options.minDetailZoom {
            findings.append(
                Finding(
                    .mapMinDetail, file: file,
                    "the map's most detailed zoom is \(h.maxZoom), below \(options.minDetailZoom); visitors on foot will see a blurry map. Cut it again with --zoom up to \(options.minDetailZoom) (or lower the minimum with --min-map-zoom for a driving tour)"
                ))
        }
    }

    /// The first tile's bytes must look like the declared type (and be gzip when tiles are gzip).
    static func checkFirstTile(
        _ archive: PMTilesArchive, _ e: PMTilesEntry, file: String?, into findings: inout [Finding]
    ) {
        guard let bytes = try? archive.tileBytes(e), let type = archive.header.tileType else { return }
        let t = TileID(id: e.tileID).map(\.description) ?? "\(e.tileID)"
        if archive.header.tileCompression == .gzip {
            if !bytes.starts(with: [0x1F, 0x8B]) {
                findings.append(
                    Finding(
                        .mapTileType, file: file,
                        "the header says the tiles are gzip-compressed, but tile \(t) is not gzip data"))
            }
            return
        }
        let ok: Bool
        switch type {
        case .png: ok = bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case .jpeg: ok = bytes.starts(with: [0xFF, 0xD8, 0xFF])
        case .webp:
            ok =
                bytes.count >= 12 && bytes.starts(with: Array("RIFF".utf8))
                && Array(bytes[8..<12]) == Array("WEBP".utf8)
        default: ok = true
        }
        if !ok {
            findings.append(
                Finding(
                    .mapTileType, file: file,
                    "the header says the tiles are \(type.name), but tile \(t) is not a \(type.name) image"))
        }
    }

    /// A percentage for people: "100", "91.6".
    public static func format(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(format: "%.1f", v) }

    /// "44.3–44.5° N, 122.8–121.6° W"
    static func describe(_ b: Bounds) -> String {
        func lat(_ v: Double) -> String { String(format: "%.4g° %@", abs(v), v >= 0 ? "N" : "S") }
        func lon(_ v: Double) -> String { String(format: "%.4g° %@", abs(v), v >= 0 ? "E" : "W") }
        return
            "\(lat(b.southwest.latitude)) to \(lat(b.northeast.latitude)), \(lon(b.southwest.longitude)) to \(lon(b.northeast.longitude))"
    }
}

extension MapZoomReport {
    mutating func merge(_ c: MapZoomReport) {
        frameTiles = c.frameTiles
        framePresent = c.framePresent
        missingArea = c.missingArea
        missingExample = c.missingExample
    }
}

/// Tile contents must not partly overlap: a tile either has bytes of its own or shares exactly
/// the bytes of another (de-duplication). For a clustered map this is checked as the walk goes,
/// keeping only the sorted starts of the contents (12 bytes each); otherwise the spans are
/// collected (up to a cap) and sorted at the end.
struct ContentSpans {
    let clustered: Bool
    let cap: Int
    var starts: [UInt64] = []
    var lengths: [UInt32] = []
    var end: UInt64 = 0
    var loose: [(UInt64, UInt32, UInt64)] = []
    var unique = 0

    init(clustered: Bool, cap: Int) {
        self.clustered = clustered
        self.cap = cap
    }

    mutating func add(offset: UInt64, length: UInt32, tile: UInt64) throws(MapError) {
        let stop = offset + UInt64(length)
        guard clustered else {
            guard loose.count < cap else {
                throw MapError(
                    .mapTileData,
                    "the map is not clustered and has more than \(cap) tiles to check; rewrite it clustered with 'trailpack map extract'"
                )
            }
            loose.append((offset, length, tile))
            return
        }
        if offset >= end {
            starts.append(offset)
            lengths.append(length)
            end = stop
            unique += 1
            return
        }
        // A back-reference: it must be exactly an earlier content.
        var lo = 0, hi = starts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if starts[mid] < offset { lo = mid + 1 } else { hi = mid }
        }
        if lo < starts.count, starts[lo] == offset, lengths[lo] == length { return }
        throw MapError(
            .mapTileData,
            "tile \(TileID(id: tile).map(\.description) ?? "?") (\(length) bytes at \(offset)) partly overlaps another tile's data (or the map says it is clustered and is not)"
        )
    }

    mutating func finish() throws(MapError) {
        guard !clustered else { return }
        loose.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var prev: (UInt64, UInt32)?
        var maxEnd: UInt64 = 0
        for (offset, length, tile) in loose {
            if let p = prev, p.0 == offset, p.1 == length { continue }
            if offset < maxEnd {
                throw MapError(
                    .mapTileData,
                    "tile \(TileID(id: tile).map(\.description) ?? "?") (\(length) bytes at \(offset)) partly overlaps another tile's data"
                )
            }
            prev = (offset, length)
            maxEnd = offset + UInt64(length)
            unique += 1
        }
        loose = []
    }
}

/// Counts, zoom by zoom, the frame's (or a route corridor's) tiles the map holds, merging the walk's
/// (sorted) runs with the frame's (sorted) tile ids; one zoom's ids in memory at a time.
struct CoverageTracker {
    let frame: Bounds
    let corridor: RouteCorridor?
    let zooms: ClosedRange<Int>
    let cap: Int
    var z: Int
    var range: TileMath.Range?
    var ids: [UInt64] = []
    /// For a corridor: each id's place along the route (metres), and those of the missing tiles.
    var along: [Double?] = []
    var missingAlong: [Double] = []
    var missingNearStops = false
    var k = 0
    var current = MapZoomReport(zoom: 0)
    var cells = [[Int]](repeating: [0, 0, 0], count: 3)
    var results: [Int: MapZoomReport] = [:]
    var done = false

    init(frame: Bounds, zooms: ClosedRange<Int>, cap: Int) {
        self.frame = frame
        self.corridor = nil
        self.zooms = zooms
        self.cap = cap
        self.z = zooms.lowerBound
        load()
    }

    init(corridor: RouteCorridor, zooms: ClosedRange<Int>, cap: Int) {
        self.frame = Bounds(
            southwest: Coordinate(latitude: 0, longitude: 0), northeast: Coordinate(latitude: 0, longitude: 0))
        self.corridor = corridor
        self.zooms = zooms
        self.cap = cap
        self.z = zooms.lowerBound
        load()
    }

    mutating func load() {
        guard z <= zooms.upperBound else { done = true; return }
        if let corridor {
            current = MapZoomReport(zoom: z)
            k = 0
            range = nil
            missingAlong = []
            missingNearStops = false
            let tiles = corridor.tiles(zoom: z)
            guard tiles.count <= cap else { ids = []; along = []; return }
            ids = tiles.map { $0.id.id! }
            along = tiles.map(\.alongMetres)
            current.frameTiles = ids.count
            return
        }
        let r = TileMath.range(frame, zoom: z)
        current = MapZoomReport(zoom: z)
        cells = [[Int]](repeating: [0, 0, 0], count: 3)
        k = 0
        if r.count > cap {
            range = nil
            ids = []
            return
        }
        range = r
        var list: [UInt64] = []
        list.reserveCapacity(r.count)
        r.forEach { x, y in list.append(TileID(z: z, x: x, y: y).id!) }
        ids = list.sorted()
        current.frameTiles = ids.count
    }

    mutating func missing(_ id: UInt64) {
        if corridor != nil {
            if current.missingExample == nil { current.missingExample = TileID(id: id) }
            if let metres = along[k] { missingAlong.append(metres) } else { missingNearStops = true }
            return
        }
        guard let r = range, let t = TileID(id: id) else { return }
        if current.missingExample == nil { current.missingExample = t }
        func third(_ offset: Int, _ size: Int) -> Int {
            let f = (Double(offset) + 0.5) / Double(size)
            return f < 1.0 / 3 ? 0 : (f > 2.0 / 3 ? 2 : 1)
        }
        cells[third(t.y - r.rows.lowerBound, r.height)][third(r.columnOffset(t.x), r.width)] += 1
    }

    mutating func closeZoom() {
        while k < ids.count { missing(ids[k]); k += 1 }
        if current.frameTiles != nil, current.frameMissing > 0 {
            current.missingArea =
                corridor == nil
                ? Self.name(cells, all: current.framePresent == 0)
                : Self.places(along: missingAlong, nearStops: missingNearStops)
        }
        results[z] = current
        z += 1
        load()
    }

    /// Feeds the run of tile ids `a ..< b` (runs arrive in increasing order).
    mutating func consume(_ a: UInt64, _ b: UInt64) {
        var a = a
        while !done {
            let zoomEnd = TileID.firstID(zoom: z + 1)
            if a >= zoomEnd { closeZoom(); continue }
            while k < ids.count && ids[k] < a { missing(ids[k]); k += 1 }
            while k < ids.count && ids[k] < b { current.framePresent += 1; k += 1 }
            if b > zoomEnd {
                closeZoom()
                a = zoomEnd
                continue
            }
            return
        }
    }

    mutating func finish() { while !done { closeZoom() } }

    /// Where along the route the missing tiles of a corridor are: "km 41.2 along the route",
    /// "km 3.1 and km 40.8–41.6 along the route"; places more than 2 km apart are named apart, the
    /// first three of them.
    static func places(along metres: [Double], nearStops: Bool) -> String {
        guard !metres.isEmpty else { return "the stops" }
        var runs: [(Double, Double)] = []
        for m in metres.sorted() {
            if let last = runs.last, m - last.1 <= 2_000 { runs[runs.count - 1].1 = m } else { runs.append((m, m)) }
        }
        func km(_ v: Double) -> String { String(format: "%.1f", v / 1000) }
        var names = runs.prefix(3).map { a, b in km(a) == km(b) ? "km \(km(a))" : "km \(km(a))–\(km(b))" }
        if runs.count > 3 { names.append("\(runs.count - 3) more place\(runs.count == 4 ? "" : "s")") }
        let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names.last!
        return list + " along the route" + (nearStops ? " and near the stops" : "")
    }

    /// The part of the frame the missing tiles fall in, from a 3 × 3 grid (row 0 north, column 0 west).
    static func name(_ cells: [[Int]], all: Bool) -> String {
        if all { return "the whole frame (the zoom has none of its tiles)" }
        var hit: [(Int, Int)] = []
        for r in 0..<3 { for c in 0..<3 where cells[r][c] > 0 { hit.append((r, c)) } }
        let names = [
            ["the northwest corner", "the north edge", "the northeast corner"],
            ["the west edge", "the middle", "the east edge"],
            ["the southwest corner", "the south edge", "the southeast corner"],
        ]
        if hit.count == 1 { return names[hit[0].0][hit[0].1] }
        let rows = Set(hit.map(\.0)), cols = Set(hit.map(\.1))
        if rows == [0] { return "the north side" }
        if rows == [2] { return "the south side" }
        if cols == [0] { return "the west side" }
        if cols == [2] { return "the east side" }
        if rows.isSubset(of: [0, 1]) && cols.isSubset(of: [1, 2]) { return "the northeast part" }
        if rows.isSubset(of: [0, 1]) && cols.isSubset(of: [0, 1]) { return "the northwest part" }
        if rows.isSubset(of: [1, 2]) && cols.isSubset(of: [1, 2]) { return "the southeast part" }
        if rows.isSubset(of: [1, 2]) && cols.isSubset(of: [0, 1]) { return "the southwest part" }
        return "several parts of the frame"
    }
}
