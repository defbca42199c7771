import TrailPackCore

/// Cuts the tiles of a frame (or of a route's corridor) out of a larger PMTiles archive into a
/// `PMTilesWriter`, streaming: the source's directories are walked once in tile-id order, each wanted
/// tile's bytes read once and written once; memory holds one zoom's tile ids and the output's directory.
public enum MapExtract {
    /// The metadata key under which a map cut to a route's corridor records the corridor's half
    /// width in metres; ``MapCheck`` judges the map's coverage against a corridor that wide.
    public static let corridorMetresKey = "trailpack:corridorMetres"
    /// The metadata key of the buffer around the stops, in metres, of a map cut to a corridor.
    public static let stopBufferMetresKey = "trailpack:stopBufferMetres"

    /// What `extract` cut, and the archive it wrote.
    public struct Extraction: Sendable {
        /// Tiles written.
        public var tiles: Int64 = 0
        /// Tiles of the frame the source does not have.
        public var missing: Int64 = 0
        /// Bytes of tile data read from the source.
        public var bytesRead: Int64 = 0
        /// What the writer wrote.
        public var summary: PMTilesWriter.Summary
    }

    /// The sorted tile ids of `frame` (or of a corridor) at each zoom of `zooms`, one zoom at a time.
    public struct FrameCursor {
        let frame: Bounds
        let corridor: RouteCorridor?
        let zooms: ClosedRange<Int>
        var z: Int
        var ids: [UInt64] = []
        var k = 0
        public private(set) var passed: Int64 = 0

        public init(frame: Bounds, zooms: ClosedRange<Int>) {
            self.frame = frame
            self.corridor = nil
            self.zooms = zooms
            self.z = zooms.lowerBound
            load()
        }

        /// The tiles of `corridor` instead of a frame's.
        public init(corridor: RouteCorridor, zooms: ClosedRange<Int>) {
            self.frame = Bounds(
                southwest: Coordinate(latitude: 0, longitude: 0), northeast: Coordinate(latitude: 0, longitude: 0))
            self.corridor = corridor
            self.zooms = zooms
            self.z = zooms.lowerBound
            load()
        }

        mutating func load() {
            k = 0
            guard z <= zooms.upperBound else { ids = []; return }
            if let corridor {
                ids = corridor.tileIDs(zoom: z)
                return
            }
            let r = TileMath.range(frame, zoom: z)
            var list: [UInt64] = []
            list.reserveCapacity(r.count)
            let zoom = z
            r.forEach { x, y in list.append(TileID(z: zoom, x: x, y: y).id!) }
            ids = list.sorted()
        }

        /// The frame's ids in `a ..< b`, in order (calls come with increasing, disjoint ranges).
        public mutating func take(_ a: UInt64, _ b: UInt64) -> [UInt64] {
            var out: [UInt64] = []
            while z <= zooms.upperBound {
                while k < ids.count && ids[k] < a { k += 1; passed += 1 }
                while k < ids.count && ids[k] < b { out.append(ids[k]); k += 1 }
                if k < ids.count { return out }
                if b <= TileID.firstID(zoom: z + 1) { return out }
                z += 1
                load()
            }
            return out
        }

        /// How many frame tiles there are in all the zooms.
        public static func count(frame: Bounds, zooms: ClosedRange<Int>) -> Int64 {
            zooms.reduce(Int64(0)) { $0 + Int64(TileMath.range(frame, zoom: $1).count) }
        }
    }

    /// Copies the tiles of `frame` at `zooms` from `archive` to `writer`, then finishes it with a
    /// header for the frame. `progress` is called with the number of tiles written so far.
    ///
    /// Given a `corridor`, only the corridor's tiles are copied, the header's bounds are the
    /// corridor's box, and the metadata records the corridor's widths (``corridorMetresKey``,
    /// ``stopBufferMetresKey``) so that the map's coverage is later judged against the same corridor.
    public static func extract(
        from archive: PMTilesArchive, frame: Bounds, corridor: RouteCorridor? = nil, zooms: ClosedRange<Int>,
        to writer: PMTilesWriter, progress: ((Int64) -> Void)? = nil
    ) throws(MapError) -> Extraction {
        let lo = max(zooms.lowerBound, archive.header.minZoom), hi = min(zooms.upperBound, archive.header.maxZoom)
        guard lo <= hi else {
            throw MapError.io(
                "the source has zooms \(archive.header.minZoom)–\(archive.header.maxZoom), none of \(zooms.lowerBound)–\(zooms.upperBound); choose --zoom within its range"
            )
        }
        var cursor =
            corridor.map { FrameCursor(corridor: $0, zooms: lo...hi) } ?? FrameCursor(frame: frame, zooms: lo...hi)
        var tiles: Int64 = 0, bytesRead: Int64 = 0
        _ = try archive.walk { (e: PMTilesEntry) throws(MapError) in
            let wanted = cursor.take(e.tileID, e.tileID + UInt64(e.runLength))
            guard !wanted.isEmpty else { return }
            let data = try archive.tileBytes(e)
            bytesRead += Int64(data.count)
            for id in wanted {
                try writer.add(id: id, data: data)
                tiles += 1
            }
            progress?(tiles)
        }
        let wanted = corridor?.count(zooms: lo...hi) ?? FrameCursor.count(frame: frame, zooms: lo...hi)
        let missing = wanted - tiles
        var h = PMTilesHeader()
        h.tileTypeByte = archive.header.tileTypeByte
        h.tileCompression = archive.header.tileCompression
        setBounds(&h, frame: corridor?.bounds ?? frame, within: archive.header.bounds)
        h.centerZoom = lo
        var metadata: JSONValue = .object([])
        if let m = try? archive.metadata() { metadata = m }
        if let corridor { metadata = recordCorridor(corridor, in: metadata) }
        let summary = try writer.finish(header: h, metadata: metadata)
        return Extraction(tiles: tiles, missing: missing, bytesRead: bytesRead, summary: summary)
    }

    /// `metadata` (an object; anything else is replaced) with the corridor's widths set.
    public static func recordCorridor(_ corridor: RouteCorridor, in metadata: JSONValue) -> JSONValue {
        var members: [JSONMember] = []
        if case .object(let existing) = metadata { members = existing }
        members.removeAll { $0.key == corridorMetresKey || $0.key == stopBufferMetresKey }
        members.append(JSONMember(corridorMetresKey, .number(JSONNumber(corridor.halfWidth))))
        members.append(JSONMember(stopBufferMetresKey, .number(JSONNumber(corridor.stopBuffer))))
        return .object(members)
    }

    /// Sets a header's bounds to `frame` (clipped to `within`, the whole width for a frame that
    /// crosses the antimeridian) and its center to the middle.
    public static func setBounds(_ h: inout PMTilesHeader, frame: Bounds, within: Bounds? = nil) {
        func e7(_ v: Double) -> Int32 { Int32((v * 1e7).rounded()) }
        var west = frame.crossesAntimeridian ? -180 : frame.southwest.longitude
        var east = frame.crossesAntimeridian ? 180 : frame.northeast.longitude
        var south = frame.southwest.latitude, north = frame.northeast.latitude
        if let w = within {
            west = max(west, w.southwest.longitude); east = min(east, w.northeast.longitude)
            south = max(south, w.southwest.latitude); north = min(north, w.northeast.latitude)
            if west > east || south > north {
                west = frame.southwest.longitude; east = frame.northeast.longitude; south = frame.southwest.latitude;
                north = frame.northeast.latitude
            }
        }
        h.minLonE7 = e7(west); h.maxLonE7 = e7(east); h.minLatE7 = e7(south); h.maxLatE7 = e7(north)
        h.centerLonE7 = e7((west + east) / 2); h.centerLatE7 = e7((south + north) / 2)
    }
}
