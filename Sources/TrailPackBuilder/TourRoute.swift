import Foundation
import TrailPackCore
import TrailPackFileIO

/// A tour folder's route (`docs/FORMAT.md` §3.3): `route.gpx` (a recording, simplified) or
/// `route.geojson` (a drawn line, taken as it is) beside `tour.json`, made into the package's
/// `map/route.geojson`.
public enum TourRoute {
    /// The recording's file name in a tour folder.
    public static let gpxName = "route.gpx"
    /// The drawn line's file name in a tour folder.
    public static let geoJSONName = "route.geojson"
    /// The default Douglas–Peucker tolerance for a recording, in metres.
    public static let defaultTolerance = 5.0

    /// A route as a tour folder gives it.
    public struct Source: Sendable {
        /// The file it came from, relative to the tour folder (`route.gpx`).
        public var file: String
        /// The lines, as read.
        public var lines: [[RoutePosition]]
        /// Whether it is a recording (GPX), which is simplified, rather than a drawn line.
        public var recorded: Bool

        /// A route read from `file`.
        public init(file: String, lines: [[RoutePosition]], recorded: Bool) {
            self.file = file
            self.lines = lines
            self.recorded = recorded
        }
    }

    /// A stage as `tour.json` lists it: its stops by folder name or slug.
    public struct StageSource: Sendable, Equatable {
        public var name: String
        public var from: String
        public var to: String
        public init(name: String, from: String, to: String) {
            self.name = name
            self.from = from
            self.to = to
        }
    }

    /// The route of the tour folder at `root`: nil with no route file; findings for a route that
    /// cannot be read (`route.file`, naming the file and the place).
    public static func load(folder root: String) -> (source: Source?, findings: [Finding]) {
        let gpx = FileSystem.lstatInfo(root + "/" + gpxName).kind != .missing
        let json = FileSystem.lstatInfo(root + "/" + geoJSONName).kind != .missing
        var findings: [Finding] = []
        if FileSystem.lstatInfo(root + "/" + Route.entryName).kind != .missing {
            findings.append(
                Finding(
                    .routeFile, file: Route.entryName,
                    "map/route.geojson is the name the package gives the route; put the route beside tour.json as route.geojson (or route.gpx) instead"
                ))
        }
        if gpx && json {
            findings.append(
                Finding(
                    .routeFile, file: gpxName,
                    "the tour folder holds both route.gpx and route.geojson; keep one (the route of a tour is one line)"
                ))
            return (nil, findings)
        }
        guard gpx || json else { return (nil, findings) }
        let file = gpx ? gpxName : geoJSONName
        let path = root + "/" + file
        guard FileSystem.statInfo(path).kind == .file, FileSystem.lstatInfo(path).kind == .file else {
            findings.append(
                Finding(
                    .routeFile, file: file,
                    "\(file) is not a regular file (a folder or a link); give the route as a file"))
            return (nil, findings)
        }
        let read = read(path: path, named: file)
        return (read.source, findings + read.findings)
    }

    /// A route file anywhere (`--route FILE`): GPX (a recording) by its `.gpx` extension, else GeoJSON.
    public static func read(file path: String) -> (source: Source?, findings: [Finding]) {
        read(path: path, named: path)
    }

    /// The route in the file at `path`, said to be `name` in findings: GPX (a recording) by its
    /// `.gpx` extension, else GeoJSON.
    static func read(path: String, named name: String) -> (source: Source?, findings: [Finding]) {
        do {
            if path.lowercased().hasSuffix(".gpx") {
                let doc = try GPXReader.read(path: path, maxPoints: ManifestValidator.maxWaypoints, lines: true)
                let lines = doc.recordedRoute
                guard !lines.isEmpty else {
                    return (
                        nil,
                        [
                            Finding(
                                .routeFile, file: name,
                                "\(name) holds no track (<trk>) or route (<rte>) with points; export the recorded track from the GPS or the mapping program"
                            )
                        ]
                    )
                }
                return (Source(file: name, lines: lines, recorded: true), [])
            }
            let (lines, findings) = lines(geoJSON: try readBounded(path, limit: Route.maxFileBytes * 4), file: name)
            return (lines.map { Source(file: name, lines: $0, recorded: false) }, findings)
        } catch {
            return (nil, [Finding(.routeFile, file: name, error.description)])
        }
    }

    static func readBounded(_ path: String, limit: Int) throws(BuildError) -> [UInt8] {
        do { return try FileOperations.readAll(path, limit: limit) } catch { throw BuildError(error) }
    }

    /// The lines of a GeoJSON document: a LineString or MultiLineString, bare or as a Feature, or a
    /// FeatureCollection holding one such Feature (points beside it are ignored).
    public static func lines(geoJSON bytes: [UInt8], file: String) -> ([[RoutePosition]]?, [Finding]) {
        let document: JSONDocument
        do {
            document = try JSONParser.parse(
                bytes, limits: JSONLimits(maxBytes: Route.maxFileBytes * 4, maxDepth: 32, maxNumberLength: 40))
        } catch {
            return (nil, [Finding(.routeFile, file: file, "\(file) is not valid JSON: \(error)")])
        }
        func fail(_ message: String) -> ([[RoutePosition]]?, [Finding]) {
            (nil, [Finding(.routeFile, file: file, message)])
        }
        func member(_ v: JSONValue, _ key: String) -> JSONValue? {
            if case .object(let m) = v { return m.first(where: { $0.key == key })?.value }
            return nil
        }
        func geometry(_ v: JSONValue) -> JSONValue? {
            switch member(v, "type") {
            case .string("LineString")?, .string("MultiLineString")?: v
            case .string("Feature")?: member(v, "geometry").flatMap(geometry)
            case .string("FeatureCollection")?:
                {
                    guard case .array(let features)? = member(v, "features") else { return nil }
                    let lines = features.compactMap { member($0, "geometry").flatMap(geometry) }
                    return lines.count == 1 ? lines[0] : nil
                }()
            default: nil
            }
        }
        guard let g = geometry(document.value) else {
            return fail(
                "\(file) holds no line: give one LineString or MultiLineString (bare, as a Feature, or as the only line of a FeatureCollection)"
            )
        }
        var findings: [Finding] = []
        let path = JSONPath.root.member("coordinates")
        var lines: [[RoutePosition]] = []
        switch (member(g, "type"), member(g, "coordinates")) {
        case (.string("LineString")?, .array(let items)?):
            guard let line = RouteFile.readLine(items, path, &findings) else { break }
            lines = [line]
        case (.string("MultiLineString")?, .array(let items)?):
            for item in items {
                guard case .array(let positions) = item, let line = RouteFile.readLine(positions, path, &findings)
                else {
                    return (
                        nil,
                        findings.isEmpty ? fail("\(file): a line of the MultiLineString is not a list").1 : findings
                    )
                }
                lines.append(line)
            }
        default:
            return fail("\(file): the line's \"coordinates\" must be a list of positions")
        }
        guard findings.isEmpty else {
            return (
                nil,
                findings.map {
                    var f = $0; f.file = file; return f
                }
            )
        }
        // Mixed elevations: drop them all, as for GPX.
        if lines.contains(where: { $0.contains { $0.elevation == nil } }) {
            lines = lines.map { $0.map { RoutePosition(longitude: $0.longitude, latitude: $0.latitude) } }
        }
        return (lines, [])
    }

    /// A route as `route.geojson` in a tour folder: one GeoJSON Feature holding the line.
    public static func geoJSONBytes(_ lines: [[RoutePosition]]) -> [UInt8] {
        let route = Route(lines: lines, summary: RouteSummary(lengthMetres: 0, stops: []))
        return JSONWriter.bytes(
            .object([
                "type": .string("Feature"), "geometry": RouteFile.geometryValue(route), "properties": .object([]),
            ]), pretty: false) + [0x0A]
    }

    /// The package's route: the lines cut at the antimeridian, a recording simplified (at
    /// `tolerance` metres, keeping the length within 0.5 %), positions rounded, and its numbers
    /// computed for these stops (in the order of their `order`) and stages. Nil, with a
    /// `route.geometry` or `route.stages` finding, when the lines or stages are no route.
    public static func make(
        _ source: Source, stops: [Waypoint], stages: [StageSource], tolerance: Double = defaultTolerance
    ) -> (route: Route?, findings: [Finding]) {
        var lines = RouteMath.cutAtAntimeridian(source.lines.filter { !$0.isEmpty })
        // A recording's segment of one point (the GPS lost and found its fix) is no line of the route;
        // a recording of nothing else is reported below.
        if source.recorded, lines.contains(where: { $0.count > 1 }) { lines = lines.filter { $0.count > 1 } }
        // A recording may hold more positions than a route: it is simplified first.
        if let problem = RouteFile.geometryProblem(lines, maxPositions: .max) {
            return (nil, [Finding(.routeGeometry, file: source.file, problem)])
        }
        if source.recorded {
            lines = RouteMath.simplified(lines, tolerance: tolerance).lines
        }
        lines = RouteMath.rounded(lines)
        if let problem = RouteFile.geometryProblem(lines) {
            return (nil, [Finding(.routeGeometry, file: source.file, problem)])
        }
        let ordered = RouteChecks.stops(of: stops)
        let summary = RouteMath.summarize(lines, stops: ordered.map { ($0.slug, $0.coordinate) })
        var findings: [Finding] = []
        var routeStages: [RouteStage] = []
        for (i, stage) in stages.enumerated() {
            func slug(_ name: String) -> String? {
                if ordered.contains(where: { $0.slug == name }) { return name }
                // A folder name: `04-house-rock` → `house-rock`.
                let (_, folderSlug) = Loader.parseFolderName(name)
                return ordered.contains(where: { $0.slug == folderSlug }) ? folderSlug : nil
            }
            guard let from = slug(stage.from), let to = slug(stage.to) else {
                let unknown = slug(stage.from) == nil ? stage.from : stage.to
                findings.append(
                    Finding(
                        .routeStages, file: TourSource.tourFileName, path: JSONPath.root.member("stages").element(i),
                        "stage \(i + 1) ('\(stage.name)') names the stop '\(unknown)', which is not a stop folder of this tour; write a folder name under waypoints/, such as '\(ordered.first.map { String($0.order).count < 2 ? "0\($0.order)-\($0.slug)" : "\($0.order)-\($0.slug)" } ?? "01-trailhead")'"
                    ))
                continue
            }
            let distance = { (s: String) in summary.stops.first(where: { $0.slug == s })?.distanceMetres ?? 0 }
            routeStages.append(
                RouteStage(
                    name: stage.name, from: from, to: to, lengthMetres: RouteMath.tenth(distance(to) - distance(from))))
        }
        let rounded = RouteSummary(
            lengthMetres: RouteMath.tenth(summary.lengthMetres),
            ascentMetres: summary.ascentMetres.map(RouteMath.tenth),
            descentMetres: summary.descentMetres.map(RouteMath.tenth),
            stops: summary.stops.map {
                RouteStop(
                    slug: $0.slug, distanceMetres: RouteMath.tenth($0.distanceMetres),
                    offsetMetres: RouteMath.tenth($0.offsetMetres))
            })
        return (Route(lines: lines, summary: rounded, stages: routeStages), findings)
    }
}
