/// A WGS 84 position in decimal degrees.
public struct Coordinate: Sendable, Equatable, Hashable {
    /// Degrees north of the equator, in [-90, 90].
    public var latitude: Double
    /// Degrees east of Greenwich, in [-180, 180].
    public var longitude: Double
    /// A position in WGS 84 degrees.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// The map area as two corners.
///
/// A box that crosses the antimeridian (180°) is written with `southwest.longitude` greater than
/// `northeast.longitude` — the convention of GeoJSON (RFC 7946 §5.2): a tour in Fiji from
/// 177° E to 178° W has `southwest.longitude = 177`, `northeast.longitude = -178`.
public struct Bounds: Sendable, Equatable, Hashable {
    /// The south-west corner.
    public var southwest: Coordinate
    /// The north-east corner.
    public var northeast: Coordinate
    /// A box from its south-west and north-east corners.
    public init(southwest: Coordinate, northeast: Coordinate) {
        self.southwest = southwest
        self.northeast = northeast
    }

    /// `south 44.39, west -122.76, north 44.44, east -121.98`, for messages.
    public var frameDescription: String {
        "south \(southwest.latitude), west \(southwest.longitude), north \(northeast.latitude), east \(northeast.longitude)"
    }

    /// The box with its edges moved outward to whole millionths of a degree (about 10 cm), so
    /// that computed bounds are written without float noise (44.440000000000005) and still hold
    /// every point they held.
    public var roundedOutward: Bounds {
        func down(_ x: Double) -> Double { (x * 1_000_000).rounded(.down) / 1_000_000 }
        func up(_ x: Double) -> Double { (x * 1_000_000).rounded(.up) / 1_000_000 }
        return Bounds(
            southwest: Coordinate(
                latitude: max(-90, down(southwest.latitude)), longitude: max(-180, down(southwest.longitude))),
            northeast: Coordinate(
                latitude: min(90, up(northeast.latitude)), longitude: min(180, up(northeast.longitude))))
    }

    /// Whether the box crosses the antimeridian.
    public var crossesAntimeridian: Bool { southwest.longitude > northeast.longitude }

    /// Whether `c` lies inside the box or on its edge.
    public func contains(_ c: Coordinate) -> Bool {
        guard c.latitude >= southwest.latitude, c.latitude <= northeast.latitude else { return false }
        if crossesAntimeridian {
            return c.longitude >= southwest.longitude || c.longitude <= northeast.longitude
        }
        return c.longitude >= southwest.longitude && c.longitude <= northeast.longitude
    }

    /// The smallest box that holds every coordinate, padded by `margin` degrees on each side.
    /// Picks the narrower of the two boxes when the points straddle the antimeridian.
    public static func enclosing(_ coordinates: [Coordinate], margin: Double = 0.01) -> Bounds? {
        guard !coordinates.isEmpty else { return nil }
        let south = max(-90, coordinates.map(\.latitude).min()! - margin)
        let north = min(90, coordinates.map(\.latitude).max()! + margin)
        let lons = coordinates.map(\.longitude).sorted()
        // The widest gap between consecutive longitudes (cyclically) is the part the box leaves out.
        var bestGap = lons.first! + 360 - lons.last!
        var west = lons.first!, east = lons.last!
        for i in 1..<lons.count where lons[i] - lons[i - 1] > bestGap {
            bestGap = lons[i] - lons[i - 1]
            west = lons[i]
            east = lons[i - 1]
        }
        func wrap(_ x: Double) -> Double { x > 180 ? x - 360 : (x < -180 ? x + 360 : x) }
        // To 1e-7 degrees (1 cm), so that 44.1574 - 0.01 reads 44.1474, not 44.147400000000005;
        // the margin (0.01°) is far larger than the rounding, so every stop stays inside.
        func tidy(_ x: Double) -> Double { (x * 1e7).rounded() / 1e7 }
        return Bounds(
            southwest: Coordinate(latitude: tidy(south), longitude: tidy(wrap(west - margin))),
            northeast: Coordinate(latitude: tidy(north), longitude: tidy(wrap(east + margin))))
    }
}
