/// One position of a route: WGS 84 degrees and, when the track has them, metres of elevation.
public struct RoutePosition: Sendable, Equatable {
    /// Degrees east of Greenwich, in [-180, 180].
    public var longitude: Double
    /// Degrees north of the equator, in [-90, 90].
    public var latitude: Double
    /// Metres, as the GPS gave it; nil when the route has no elevations.
    public var elevation: Double?

    /// A position; `elevation` nil when there is none.
    public init(longitude: Double, latitude: Double, elevation: Double? = nil) {
        self.longitude = longitude
        self.latitude = latitude
        self.elevation = elevation
    }

    /// The position as a coordinate (without its elevation).
    public var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }
}

/// A tour's route: the line a visitor walks, in walking order (`docs/FORMAT.md` §3.3), and what
/// is computed from it.
///
/// In a package it is the file `map/route.geojson`; a tour folder gives it as `route.gpx` or
/// `route.geojson`.
public struct Route: Sendable, Equatable {
    /// The package path of the route (`docs/FORMAT.md` §3.3): a map asset, which readers of
    /// format 1.1 ignore.
    public static let entryName = "map/route.geojson"
    /// The largest route file, in bytes.
    public static let maxFileBytes = 16 << 20
    /// The most positions a route may hold, over all its lines.
    public static let maxPositions = 100_000
    /// The elevations a route may give, in metres.
    public static let elevationRange: ClosedRange<Double> = -1_000...10_000
    /// How near another pass must come to a stop, beyond the nearest, to count as passing it.
    public static let passSlackMetres = 20.0

    /// The lines, in walking order; each has at least two positions.
    public var lines: [[RoutePosition]]
    /// What the route says of itself: its length, climbs and the stops' places along it.
    public var summary: RouteSummary
    /// The parts the tour is walked in, in order; empty when the tour has none.
    public var stages: [RouteStage]

    /// A route of these lines, summary and stages.
    public init(lines: [[RoutePosition]], summary: RouteSummary, stages: [RouteStage] = []) {
        self.lines = lines
        self.summary = summary
        self.stages = stages
    }

    /// Whether every position has an elevation.
    public var hasElevations: Bool {
        lines.allSatisfy { $0.allSatisfy { $0.elevation != nil } }
    }

    /// How many positions the lines hold.
    public var positionCount: Int { lines.reduce(0) { $0 + $1.count } }
}

/// The numbers a route states about itself (each one computed from its positions, never typed).
public struct RouteSummary: Sendable, Equatable {
    /// The geodesic length of the lines, gaps between them left out, in metres.
    public var lengthMetres: Double
    /// The sum of the rises between consecutive positions; nil without elevations.
    public var ascentMetres: Double?
    /// The sum of the falls between consecutive positions; nil without elevations.
    public var descentMetres: Double?
    /// One per waypoint, in the order of the waypoints' `order`.
    public var stops: [RouteStop]

    /// A summary with these numbers.
    public init(lengthMetres: Double, ascentMetres: Double? = nil, descentMetres: Double? = nil, stops: [RouteStop]) {
        self.lengthMetres = lengthMetres
        self.ascentMetres = ascentMetres
        self.descentMetres = descentMetres
        self.stops = stops
    }
}

/// Where a stop is on the route.
public struct RouteStop: Sendable, Equatable {
    /// The waypoint's slug.
    public var slug: String
    /// How far along the route the stop's point is, in metres.
    public var distanceMetres: Double
    /// How far the stop is from the route, in metres.
    public var offsetMetres: Double

    /// A stop at this distance along the route and this far from it.
    public init(slug: String, distanceMetres: Double, offsetMetres: Double) {
        self.slug = slug
        self.distanceMetres = distanceMetres
        self.offsetMetres = offsetMetres
    }
}

/// A part of a tour walked in one go: a day, a section.
public struct RouteStage: Sendable, Equatable {
    /// The stage's name for visitors.
    public var name: String
    /// The slug of its first stop.
    public var from: String
    /// The slug of its last stop.
    public var to: String
    /// Its last stop's distance along the route minus its first's, in metres.
    public var lengthMetres: Double

    /// A stage from one stop to another.
    public init(name: String, from: String, to: String, lengthMetres: Double = 0) {
        self.name = name
        self.from = from
        self.to = to
        self.lengthMetres = lengthMetres
    }
}
