import ArgumentParser
import Foundation
import TrailPackBuilder
import TrailPackCore
import TrailPackFileIO
import TrailPackMap

/// `--corridor`, `--stop-buffer` and `--route` of `map estimate` and `map extract`: keep only the
/// tiles near the tour's route and its stops instead of the whole frame.
struct CorridorOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Keep only the tiles within this many metres of the tour's route (and of its stops), not the whole frame.",
            valueName: "metres"))
    var corridor: Double?

    @Option(
        name: .customLong("stop-buffer"),
        help: ArgumentHelp(
            "With --corridor: the metres kept around each stop (default: the corridor's).", valueName: "metres"))
    var stopBuffer: Double?

    @Option(
        help: ArgumentHelp(
            "With --corridor: the route, a GeoJSON LineString, MultiLineString, or Feature holding one (default: the tour's route).",
            valueName: "file"))
    var route: String?

    func validate() throws {
        if let corridor, !(corridor.isFinite && (0...50_000).contains(corridor)) {
            throw ValidationError("--corridor must be 0 to 50000 metres")
        }
        if let stopBuffer, !(stopBuffer.isFinite && (0...50_000).contains(stopBuffer)) {
            throw ValidationError("--stop-buffer must be 0 to 50000 metres")
        }
        if corridor == nil && (stopBuffer != nil || route != nil) {
            throw ValidationError("--stop-buffer and --route go with --corridor METRES")
        }
    }

    /// Whether the command needs a frame of its own: not when a corridor's route is given as a file.
    var needsFrame: Bool { corridor == nil || route == nil }

    /// The corridor (nil without --corridor): the route from --route or from the tour, the stops
    /// from the tour.
    func corridor(tour: String?) throws -> RouteCorridor? {
        guard let corridor else { return nil }
        var lines: [[Coordinate]]?
        var stops: [Coordinate] = []
        if let route { lines = try RouteFile.read(route) }
        if let tour {
            let loaded = try TourSource.load(tour)
            if let source = loaded.source {
                stops = source.waypoints.map(\.coordinate).filter { $0.latitude.isFinite && $0.longitude.isFinite }
            }
            if lines == nil { lines = routeLines(tourFolder: tour) }
        }
        guard let lines, !lines.isEmpty else {
            throw CLIError.usage(
                "--corridor needs the tour's route: give it with --route FILE (GeoJSON)\(tour.map { ", or add route.gpx or route.geojson to '\($0)'" } ?? "")"
            )
        }
        return RouteCorridor(lines: lines, stops: stops, halfWidth: corridor, stopBuffer: stopBuffer)
    }
}

// TODO(#49, route loading in TrailPackBuilder): the one place the map commands take a tour folder's
// route from. Wire it to the builder's reader of route.gpx / route.geojson (docs/FORMAT.md §3.3):
// the route's lines in walking order, cut at the antimeridian; nil when the folder has no route.
/// The route of the tour folder at `tourFolder`, as lines in walking order; nil when it has none.
func routeLines(tourFolder: String) -> [[Coordinate]]? {
    nil
}

/// A route given on the command line: GeoJSON (RFC 7946), strict JSON as the manifest is.
enum RouteFile {
    /// The largest route file read (docs/FORMAT.md §3.3).
    static let maxBytes = 16 << 20
    /// The most positions in all.
    static let maxPositions = 100_000

    /// The lines of the GeoJSON file at `path`: a LineString, a MultiLineString, a Feature holding
    /// one, or a FeatureCollection holding one such Feature.
    static func read(_ path: String) throws -> [[Coordinate]] {
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError.io("'\(path)' does not exist") }
        let bytes: [UInt8]
        do { bytes = try FileOperations.readPrefix(path, maxBytes: maxBytes + 1) } catch {
            throw CLIError.io("cannot read '\(path)': \(error)")
        }
        guard bytes.count <= maxBytes else {
            throw CLIError.usage("the route '\(path)' is larger than 16 MiB; simplify it")
        }
        let document: JSONDocument
        do {
            document = try JSONParser.parse(
                bytes,
                limits: JSONLimits(maxBytes: maxBytes, maxDepth: 16, maxNumberLength: 40, maxStringBytes: 1 << 20))
        } catch { throw CLIError.usage("the route '\(path)' is not JSON: \(error)") }
        if let duplicate = document.duplicateKeys.first {
            throw CLIError.usage(
                "the route '\(path)' has the key '\(duplicate.key)' twice (line \(duplicate.line)); keep one")
        }
        do { return try lines(document.value) } catch let message as RouteFileProblem {
            throw CLIError.usage("the route '\(path)': \(message.text)")
        }
    }

    struct RouteFileProblem: Error { var text: String }

    /// The lines of a parsed GeoJSON value.
    static func lines(_ value: JSONValue) throws(RouteFileProblem) -> [[Coordinate]] {
        guard case .string(let type)? = value["type"] else {
            throw RouteFileProblem(text: "it is not GeoJSON: it has no \"type\"")
        }
        switch type {
        case "FeatureCollection":
            guard case .array(let features)? = value["features"] else {
                throw RouteFileProblem(text: "its FeatureCollection has no \"features\" list")
            }
            let lines = try features.map { (f: JSONValue) throws(RouteFileProblem) in try Self.lines(f) }
            guard lines.count == 1 else {
                throw RouteFileProblem(
                    text: "its FeatureCollection holds \(lines.count) features; the route is one line Feature")
            }
            return lines[0]
        case "Feature":
            guard let geometry = value["geometry"], geometry != .null else {
                throw RouteFileProblem(text: "its Feature has no geometry")
            }
            return try lines(geometry)
        case "LineString":
            return [try line(value["coordinates"])]
        case "MultiLineString":
            guard case .array(let parts)? = value["coordinates"], !parts.isEmpty else {
                throw RouteFileProblem(text: "its MultiLineString has no lines")
            }
            let lines = try parts.map { (p: JSONValue) throws(RouteFileProblem) in try line(p) }
            guard lines.reduce(0, { $0 + $1.count }) <= maxPositions else {
                throw RouteFileProblem(text: "it has more than \(maxPositions) positions; simplify it")
            }
            return lines
        default:
            throw RouteFileProblem(
                text: "it is a \(type); the route is a LineString, a MultiLineString or a Feature holding one")
        }
    }

    /// One line: at least two [longitude, latitude(, elevation)] positions, in range, consecutive
    /// ones within 180° of longitude.
    static func line(_ value: JSONValue?) throws(RouteFileProblem) -> [Coordinate] {
        guard case .array(let positions)? = value, positions.count >= 2 else {
            throw RouteFileProblem(text: "a line has fewer than 2 positions")
        }
        guard positions.count <= maxPositions else {
            throw RouteFileProblem(text: "it has more than \(maxPositions) positions; simplify it")
        }
        var out: [Coordinate] = []
        out.reserveCapacity(positions.count)
        for (i, p) in positions.enumerated() {
            guard case .array(let numbers) = p, (2...3).contains(numbers.count),
                case .number(let lonText) = numbers[0], case .number(let latText) = numbers[1],
                let lon = lonText.double, let lat = latText.double, lon.isFinite, lat.isFinite,
                (-180...180).contains(lon), (-90...90).contains(lat)
            else {
                throw RouteFileProblem(
                    text:
                        "position \(i + 1) of a line is not [longitude, latitude] with longitude in [-180, 180] and latitude in [-90, 90]"
                )
            }
            if let last = out.last, abs(lon - last.longitude) > 180 {
                throw RouteFileProblem(
                    text:
                        "positions \(i) and \(i + 1) of a line are more than 180° of longitude apart; cut the line at the antimeridian into two (RFC 7946 §3.1.9)"
                )
            }
            out.append(Coordinate(latitude: lat, longitude: lon))
        }
        return out
    }
}

/// How `map estimate` prints a corridor against its frame.
enum CorridorEstimate {
    /// "±500 m" for people.
    static func width(_ metres: Double) -> String { "±\(MapCheck.format(metres)) m" }

    /// 15498 → "15,498".
    static func grouped(_ n: Int64) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }
}
