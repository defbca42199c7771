import Foundation
import TrailPackCore

/// The tiles an offline map needs to follow a route: every tile whose square comes within
/// ``halfWidth`` metres of a segment of the route, or within ``stopBuffer`` metres of a stop.
///
/// The route is walked piece by piece (each segment cut into pieces of at most a kilometre and a
/// hundredth of a degree of latitude), and only the tiles near each piece are measured, so a long
/// road at zoom 16 costs what its corridor holds, not what its bounding box holds.
///
/// Distances are measured in a plane centred on the piece: x = Δlongitude × cos(φ) × R,
/// y = Δlatitude × R, with R = 6,371,008.8 m (as docs/FORMAT.md §3.3 measures a stop against the
/// route) and φ the latitude farthest from the equator that the piece, or the part of the tile
/// within reach of it, comes to. That choice never makes a distance longer than the one on the
/// ground, so a tile within the distance is never left out; a tile may be taken in that is up to
/// a few hundredths of a percent farther. A segment is the straight line between its ends in
/// longitude and latitude; longitudes wrap at the antimeridian (a route cut there comes as two
/// lines, and its tiles meet across it); latitudes beyond Web Mercator's edge (±85.0511°) are
/// taken at the edge, where the nearest tiles are.
public struct RouteCorridor: Sendable {
    /// The Earth's mean radius, in metres (the R of docs/FORMAT.md §3.3).
    public static let earthRadius = 6_371_008.8
    /// Metres of one degree of latitude.
    static let metresPerDegree = earthRadius * .pi / 180
    /// The longest piece a segment is cut into, in metres and in degrees of latitude.
    static let maxPieceMetres = 1_000.0
    static let maxPieceDegrees = 0.01

    /// One tile of the corridor.
    public struct Tile: Sendable, Equatable {
        /// The tile.
        public var id: TileID
        /// How far along the route (metres from the start, the lines counted one after the other)
        /// the route's point nearest the tile is; for a tile taken in for a stop alone, the stop's
        /// place along the route. Nil when there is no route (stops alone).
        public var alongMetres: Double?
    }

    /// The route's lines, in walking order.
    public let lines: [[Coordinate]]
    /// The stops.
    public let stops: [Coordinate]
    /// How far from the route a tile may be and still belong to the corridor, in metres.
    public let halfWidth: Double
    /// How far from a stop a tile may be and still belong to the corridor, in metres.
    public let stopBuffer: Double
    /// The route's length (the sum of its segments' great-circle lengths), in metres.
    public let lengthMetres: Double

    let pieces: [Piece]
    let stopPieces: [Piece]
    /// The widest reach in degrees of latitude, with a margin: the band a piece's tiles are taken from.
    let bandDegrees: Double

    /// A straight run of the route (or a stop: both ends the same), longitudes unwrapped so that
    /// `b` lies within 180° of `a`.
    struct Piece: Sendable {
        var aLat: Double, aLon: Double
        var bLat: Double, bLon: Double
        /// Metres along the route at `a` and at `b`.
        var along: Double, alongEnd: Double
    }

    /// The corridor of `lines` (in walking order; consecutive points of a line within 180° of
    /// longitude) and `stops`: `halfWidth` metres either side of the route, `stopBuffer` metres
    /// (by default the same) around each stop. Widths that are negative or not finite count as 0.
    public init(lines: [[Coordinate]], stops: [Coordinate] = [], halfWidth: Double, stopBuffer: Double? = nil) {
        func clean(_ v: Double) -> Double { v.isFinite ? max(0, v) : 0 }
        self.lines = lines
        self.stops = stops
        self.halfWidth = clean(halfWidth)
        self.stopBuffer = clean(stopBuffer ?? halfWidth)
        self.bandDegrees = max(self.halfWidth, self.stopBuffer) * 1.001 / Self.metresPerDegree + 1e-9
        var pieces: [Piece] = []
        var along = 0.0
        for line in lines {
            let points = line.filter { $0.latitude.isFinite && $0.longitude.isFinite }.map(Self.clamped)
            if points.count == 1 {
                let p = points[0]
                pieces.append(
                    Piece(
                        aLat: p.latitude, aLon: p.longitude, bLat: p.latitude, bLon: p.longitude, along: along,
                        alongEnd: along))
            }
            for (a, end) in zip(points, points.dropFirst()) {
                var bLon = end.longitude
                if bLon - a.longitude > 180 { bLon -= 360 } else if bLon - a.longitude < -180 { bLon += 360 }
                let length = Self.greatCircle(a.latitude, a.longitude, end.latitude, bLon)
                let n = max(
                    1, Int((length / Self.maxPieceMetres).rounded(.up)),
                    Int((abs(end.latitude - a.latitude) / Self.maxPieceDegrees).rounded(.up)))
                for i in 0..<n {
                    let f0 = Double(i) / Double(n), f1 = Double(i + 1) / Double(n)
                    pieces.append(
                        Piece(
                            aLat: a.latitude + (end.latitude - a.latitude) * f0,
                            aLon: a.longitude + (bLon - a.longitude) * f0,
                            bLat: a.latitude + (end.latitude - a.latitude) * f1,
                            bLon: a.longitude + (bLon - a.longitude) * f1,
                            along: along + length * f0, alongEnd: along + length * f1))
                }
                along += length
            }
        }
        self.pieces = pieces
        self.lengthMetres = along
        let band = bandDegrees
        self.stopPieces = stops.filter { $0.latitude.isFinite && $0.longitude.isFinite }.map(Self.clamped).map { s in
            // A stop's place along the route: the nearest point of the nearest piece.
            var best = (Double.infinity, 0.0)
            for p in pieces {
                let d = Self.distance(
                    p, south: s.latitude, north: s.latitude, west: s.longitude, east: s.longitude,
                    band: band)
                if d.metres < best.0 { best = (d.metres, p.along + (p.alongEnd - p.along) * d.t) }
            }
            return Piece(
                aLat: s.latitude, aLon: s.longitude, bLat: s.latitude, bLon: s.longitude, along: best.1,
                alongEnd: best.1)
        }
    }

    static func clamped(_ c: Coordinate) -> Coordinate {
        Coordinate(latitude: min(max(c.latitude, -TileMath.maxLatitude), TileMath.maxLatitude), longitude: c.longitude)
    }

    /// The great-circle distance in metres (haversine, on the sphere of radius ``earthRadius``).
    public static func greatCircle(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = Double.pi / 180
        let dLat = (lat2 - lat1) * r, dLon = (lon2 - lon1) * r
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * r) * cos(lat2 * r) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }

    // MARK: the tiles

    /// The corridor's tiles at zoom `z`, sorted by tile id.
    public func tiles(zoom z: Int) -> [Tile] {
        guard (0...TileID.maxZoom).contains(z) else { return [] }
        // Key: x << 32 | y. Value: the distance found so far and the place along the route.
        var found: [Int: (metres: Double, along: Double)] = [:]
        for p in pieces {
            visit(p, radius: halfWidth, zoom: z) { key, metres, t in
                let along = p.along + (p.alongEnd - p.along) * t
                if let old = found[key], old.metres < metres || (old.metres == metres && old.along <= along) { return }
                found[key] = (metres, along)
            }
        }
        var fromStops: [Int: Double] = [:]
        for s in stopPieces {
            visit(s, radius: stopBuffer, zoom: z) { key, _, _ in
                if found[key] == nil && fromStops[key] == nil { fromStops[key] = s.along }
            }
        }
        let hasRoute = !pieces.isEmpty
        var out: [(UInt64, Tile)] = []
        out.reserveCapacity(found.count + fromStops.count)
        func add(_ key: Int, _ along: Double?) {
            let t = TileID(z: z, x: key >> 32, y: key & 0xFFFF_FFFF)
            out.append((t.id!, Tile(id: t, alongMetres: along)))
        }
        for (key, v) in found { add(key, v.along) }
        for (key, along) in fromStops { add(key, hasRoute ? along : nil) }
        out.sort { $0.0 < $1.0 }
        return out.map(\.1)
    }

    /// The corridor's tile ids at zoom `z`, sorted.
    public func tileIDs(zoom z: Int) -> [UInt64] { tiles(zoom: z).map { $0.id.id! } }

    /// How many tiles the corridor holds at zoom `z`.
    public func count(zoom z: Int) -> Int { tiles(zoom: z).count }

    /// How many tiles the corridor holds at all of `zooms`.
    public func count(zooms: ClosedRange<Int>) -> Int64 { zooms.reduce(Int64(0)) { $0 + Int64(count(zoom: $1)) } }

    /// The smallest box holding the route and the stops, grown by the corridor's widths (nil
    /// with neither): the bounds of a map cut to the corridor.
    public var bounds: Bounds? {
        let points = (pieces + stopPieces).flatMap {
            [Coordinate(latitude: $0.aLat, longitude: $0.aLon), Coordinate(latitude: $0.bLat, longitude: $0.bLon)]
        }.map { Coordinate(latitude: $0.latitude, longitude: Self.wrap($0.longitude)) }
        guard let box = Bounds.enclosing(points, margin: 0) else { return nil }
        return TileMath.buffered(box, metres: max(halfWidth, stopBuffer))
    }

    static func wrap(_ lon: Double) -> Double {
        var v = lon.truncatingRemainder(dividingBy: 360)
        if v > 180 { v -= 360 } else if v < -180 { v += 360 }
        return v
    }

    /// Calls `body` with every tile of zoom `z` within `radius` of `p`: its key, its distance and
    /// the fraction along `p` of the piece's nearest point. Only the tiles of `p`'s box grown by
    /// the radius (and one tile more on every side) are measured.
    func visit(_ p: Piece, radius: Double, zoom z: Int, _ body: (Int, Double, Double) -> Void) {
        let n = 1 << z
        let south = min(p.aLat, p.bLat) - bandDegrees, north = max(p.aLat, p.bLat) + bandDegrees
        let reach = min(TileMath.maxLatitude, max(abs(south), abs(north)))
        let dLon = radius * 1.001 / (Self.metresPerDegree * cos(reach * .pi / 180)) + 1e-9
        let west = min(p.aLon, p.bLon) - dLon, east = max(p.aLon, p.bLon) + dLon
        var x0 = Int((TileMath.xFraction(west) * Double(n)).rounded(.down)) - 1
        var x1 = Int((TileMath.xFraction(east) * Double(n)).rounded(.down)) + 1
        if x1 - x0 + 1 >= n { x0 = 0; x1 = n - 1 }
        let y0 = max(0, Int((TileMath.yFraction(north) * Double(n)).rounded(.down)) - 1)
        let y1 = min(n - 1, Int((TileMath.yFraction(south) * Double(n)).rounded(.down)) + 1)
        guard y0 <= y1 else { return }
        let slack = radius * 1e-4 + 0.01
        for xi in x0...x1 {
            let x = ((xi % n) + n) % n
            let w = TileMath.longitude(x: x, z: z), e = TileMath.longitude(x: x + 1, z: z)
            for y in y0...y1 {
                let d = Self.distance(
                    p, south: TileMath.latitude(y: y + 1, z: z), north: TileMath.latitude(y: y, z: z), west: w, east: e,
                    band: bandDegrees)
                if d.metres <= radius + slack { body(x << 32 | y, d.metres, d.t) }
            }
        }
    }

    /// The distance in metres from piece `p` to the box `south…north`, `west…east` (degrees,
    /// `west ≤ east`), and the fraction along `p` of the piece's point nearest the box, measured in
    /// the plane described on the type. `band` (degrees) is how far beyond the piece's latitudes a
    /// nearer point could lie.
    static func distance(
        _ p: Piece, south: Double, north: Double, west: Double, east: Double, band: Double
    ) -> (metres: Double, t: Double) {
        let lo = min(p.aLat, p.bLat), hi = max(p.aLat, p.bLat)
        let s = max(south, lo - band), nn = min(north, hi + band)
        var phi = max(abs(p.aLat), abs(p.bLat))
        if s <= nn { phi = max(phi, abs(s), abs(nn)) }
        phi = min(phi, TileMath.maxLatitude)
        let ky = metresPerDegree, kx = metresPerDegree * cos(phi * .pi / 180)
        // The box's copy (±360°) nearest the piece.
        let mid = (p.aLon + p.bLon) / 2
        let shift = ((mid - (west + east) / 2) / 360).rounded() * 360
        let x0 = (west + shift - p.aLon) * kx, x1 = (east + shift - p.aLon) * kx
        let y0 = (south - p.aLat) * ky, y1 = (north - p.aLat) * ky
        let bx = (p.bLon - p.aLon) * kx, by = (p.bLat - p.aLat) * ky
        return segmentToBox(bx, by, x0, x1, y0, y1)
    }

    /// The distance from the segment (0,0)–(bx,by) to the box [x0,x1] × [y0,y1], and the segment's
    /// fraction at its nearest point (where it enters the box, when it crosses it).
    static func segmentToBox(
        _ bx: Double, _ by: Double, _ x0: Double, _ x1: Double, _ y0: Double, _ y1: Double
    ) -> (metres: Double, t: Double) {
        // Liang–Barsky: the part of the segment inside the box.
        var t0 = 0.0, t1 = 1.0
        var inside = true
        for (p, q) in [(-bx, -x0), (bx, x1), (-by, -y0), (by, y1)] {
            if p == 0 {
                if q < 0 { inside = false; break }
            } else {
                let r = q / p
                if p < 0 { t0 = max(t0, r) } else { t1 = min(t1, r) }
                if t0 > t1 { inside = false; break }
            }
        }
        if inside { return (0, t0) }
        func toBox(_ x: Double, _ y: Double) -> Double {
            let dx = max(x0 - x, 0, x - x1), dy = max(y0 - y, 0, y - y1)
            return (dx * dx + dy * dy).squareRoot()
        }
        var best = (toBox(0, 0), 0.0)
        let end = toBox(bx, by)
        if end < best.0 { best = (end, 1) }
        let len2 = bx * bx + by * by
        if len2 > 0 {
            for (cx, cy) in [(x0, y0), (x0, y1), (x1, y0), (x1, y1)] {
                let t = min(1, max(0, (cx * bx + cy * by) / len2))
                let dx = cx - t * bx, dy = cy - t * by
                let d = (dx * dx + dy * dy).squareRoot()
                if d < best.0 { best = (d, t) }
            }
        }
        return best
    }
}
