import Foundation
import TrailPackCore
import TrailPackFileIO

/// Scaffolds a tour folder a ranger can edit: `trailpack init`.
public enum TourInit {
    /// Creates `folder` with `tour.json` and one waypoint folder per stop. With no stops given,
    /// writes a single example stop. Refuses a folder that already holds a `tour.json`. `name` is
    /// the tour's (a GPX file's own); without one, the folder's name.
    ///
    /// A folder that does not exist yet is made under a temporary name and renamed into place, so
    /// a failure leaves nothing half-written.
    public static func scaffold(
        folder: String, stops given: [Stop] = [], route: [[RoutePosition]]? = nil, name: String? = nil
    ) throws
        -> [String]
    {
        let fm = FileManager.default
        if fm.fileExists(atPath: folder + "/" + TourSource.tourFileName) {
            throw BuildError.usage("'\(folder)' already holds a tour.json; choose a new folder")
        }
        let stops =
            given.isEmpty
            ? [
                Stop(
                    name: "Trailhead", coordinate: Coordinate(latitude: 44.4200, longitude: -122.1500),
                    description: Placeholder.exampleStopDescription, properties: [], fullText: nil,
                    folder: "01-trailhead")
            ]
            : given
        let folderName = URL(fileURLWithPath: folder).lastPathComponent
        let slug = Slug.isValid(folderName) ? folderName : "my-tour"
        let exists = fm.fileExists(atPath: folder)
        let target =
            exists
            ? folder
            : URL(fileURLWithPath: folder).deletingLastPathComponent().path
                + "/.\(folderName).init-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var written: [String] = []
        do {
            try fm.createDirectory(atPath: target + "/waypoints", withIntermediateDirectories: true)
            // No bounds: the builder encloses the stops with a margin (see templateTour).
            // The tour's name: the one its GPX file gives (`<metadata><name>`), else the folder's.
            let tour = templateTour(slug: slug, name: given.isEmpty ? nil : name ?? folderName)
            try Data(JSONWriter.bytes(tour)).write(to: URL(fileURLWithPath: target + "/tour.json"))
            written.append("tour.json")
            for stop in stops {
                let dir = "waypoints/\(stop.folder)"
                try fm.createDirectory(atPath: target + "/" + dir, withIntermediateDirectories: true)
                // The description lives in waypoint.json only; about.md is written only to keep a
                // text too long for the description field (then listed as the stop's asset).
                var members = [
                    JSONMember("name", .string(stop.name)),
                    JSONMember("coordinate", stop.coordinate.jsonValue),
                    JSONMember(
                        "description",
                        .string(stop.description.isEmpty ? Placeholder.stopDescription : stop.description)),
                ]
                if !stop.properties.isEmpty { members.append(JSONMember("properties", .object(stop.properties))) }
                if let full = stop.fullText {
                    try Data("# \(stop.name)\n\n\(full)\n".utf8).write(
                        to: URL(fileURLWithPath: target + "/" + dir + "/about.md"))
                    members.append(JSONMember("assets", .array([.string("about.md")])))
                    written.append(dir + "/about.md")
                } else {
                    members.append(JSONMember("assets", .array([])))
                }
                try Data(JSONWriter.bytes(.object(members))).write(
                    to: URL(fileURLWithPath: target + "/" + dir + "/waypoint.json"))
                written.append(dir + "/waypoint.json")
            }
            if let route {
                try Data(TourRoute.geoJSONBytes(route)).write(
                    to: URL(fileURLWithPath: target + "/" + TourRoute.geoJSONName))
                written.append(TourRoute.geoJSONName)
            }
            if !exists {
                do { try FileOperations.rename(target, to: folder) } catch {
                    throw BuildError(
                        FileIOError(
                            code: error.code, message: "cannot create '\(folder)'", path: folder,
                            systemCall: error.systemCall, cause: error))
                }
            }
        } catch {
            if !exists { try? fm.removeItem(atPath: target) }  // ours: made above under a name nobody else uses
            if let error = error as? BuildError { throw error }
            throw BuildError.io("cannot create the tour in '\(folder)': \(error.localizedDescription)")
        }
        return written
    }

    /// A stop given by name, coordinate and description (the shape `scaffold` took before GPX
    /// properties were kept; other importers may still use it).
    public struct GPXWaypoint: Sendable, Equatable {
        public var name: String
        public var coordinate: Coordinate
        public var description: String
        public init(name: String, coordinate: Coordinate, description: String) {
            self.name = name
            self.coordinate = coordinate
            self.description = description
        }
    }

    /// `scaffold(folder:stops:)` for plain stops: names made unique and folder names made valid
    /// as for a GPX file.
    public static func scaffold(folder: String, waypoints: [GPXWaypoint]) throws -> [String] {
        let points = waypoints.enumerated().map { i, w in
            GPXReader.Point(coordinate: w.coordinate, name: w.name, description: w.description, line: i + 1, column: 1)
        }
        return try scaffold(folder: folder, stops: stopsFromGPX(points, source: folder).stops)
    }

    /// The stops of a GPX file, ready for `scaffold`, and notes for the ranger about what was
    /// changed to make them a valid tour (duplicate names, over-long text).
    ///
    /// `<desc>` becomes the description, as plain text when it is HTML (tags gone, paragraphs and
    /// line breaks kept, `&eacute;` an é). A `<cmt>` that differs from it is the GPS unit's own note
    /// (Garmin units write both; geocaches put their code there): the property `comment`, never
    /// part of what visitors read. `<ele>` becomes the property `elevationMeters`, `<time>` `time`,
    /// `<sym>` `symbol`, `<type>` `type`.
    ///
    /// The file's tracks (or, with none, its routes, unless their points are the stops) become the
    /// tour's route (`docs/FORMAT.md` §3.3): simplified at `tolerance` metres (keeping the length
    /// within 0.5 %), and the stops are numbered in their order along it.
    public static func readGPX(
        path: String, stops: GPXReader.Stops = .waypoints, tolerance: Double = TourRoute.defaultTolerance
    ) throws -> GPXStops {
        let doc: GPXReader.Document
        do { doc = try GPXReader.read(path: path, stops: stops, lines: true) } catch {
            throw BuildError.usage(error.description)
        }
        if doc.points.isEmpty {
            throw BuildError.usage("'\(path)': " + emptyReason(doc, stops: stops))
        }
        var read = stopsFromGPX(doc.points, source: path)
        read.name = doc.name.map { cleanText(HTMLText.plain($0)) }.flatMap { $0.isEmpty ? nil : String($0.prefix(200)) }
        var recorded = doc.recordedRoute
        if stops == .route { recorded = doc.trackLines.contains(where: { !$0.isEmpty }) ? recorded : [] }
        guard !recorded.isEmpty else { return read }
        let file = URL(fileURLWithPath: path).lastPathComponent
        let cut = RouteMath.cutAtAntimeridian(recorded)
        if let problem = RouteFile.geometryProblem(cut, maxPositions: .max) {
            read.notes.append("the track in '\(file)' was not made the route: \(problem)")
            return read
        }
        let simplified = RouteMath.simplified(cut, tolerance: tolerance)
        let route = RouteMath.rounded(simplified.lines)
        if let problem = RouteFile.geometryProblem(route) {
            read.notes.append("the track in '\(file)' was not made the route: \(problem)")
            return read
        }
        read.route = route
        let recordedCount = cut.reduce(0) { $0 + $1.count }, kept = route.reduce(0) { $0 + $1.count }
        let km = String(format: "%.1f", RouteMath.length(route) / 1000)
        read.notes.append(
            "the track in '\(file)' is the tour's route (route.geojson): \(km) km, \(recordedCount) recorded points kept as \(kept)"
                + (simplified.tolerance > 0
                    ? " (within \(RouteMath.tenth(simplified.tolerance)) m of the recording)" : ""))
        read.stops = orderedAlong(route, read.stops)
        if read.stops.map(\.folder) != stopsFromGPX(doc.points, source: path).stops.map(\.folder) {
            read.notes.append("the stops are numbered in their order along the track, not in the file's order")
        }
        return read
    }

    /// The stops in their order along `route` (each at its nearest pass), renumbered.
    static func orderedAlong(_ route: [[RoutePosition]], _ stops: [Stop]) -> [Stop] {
        let located = stops.map { stop in
            RouteMath.locate([(slug: stop.folder, coordinate: stop.coordinate)], on: route)[0].distanceMetres
        }
        let order = stops.indices.sorted { located[$0] != located[$1] ? located[$0] < located[$1] : $0 < $1 }
        let width = max(2, String(stops.count).count)
        return order.enumerated().map { i, index in
            var stop = stops[index]
            let rest = stop.folder.drop(while: { $0.isNumber })
            stop.folder = String(repeating: "0", count: width - String(i + 1).count) + String(i + 1) + rest
            return stop
        }
    }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// How a file of tracks alone still serves a tour, in the command line's words (the control
    /// panel says it in its own).
    public static let trackOnlyRouteAdvice =
        "or start the tour another way (trailpack init TOUR-FOLDER, or --from-csv with a spreadsheet of the stops) and copy this file into the tour folder as route.gpx: it becomes the tour's route"

    /// Why a file gave no stops, and what to do.
    static func emptyReason(_ doc: GPXReader.Document, stops: GPXReader.Stops) -> String {
        switch stops {
        case .waypoints:
            if doc.routePointCount > 0 {
                return
                    "has no marked stops (waypoints, <wpt>) but \(doc.routeCount == 1 ? "a planned route" : "\(doc.routeCount) planned routes") with \(count(doc.routePointCount, "point")) (<rtept>); to make each route point a stop, run init again with --stops-from route"
            }
            if doc.trackPointCount > 0 {
                return
                    "has no marked stops (waypoints), only \(doc.trackCount == 1 ? "a recorded track" : "\(doc.trackCount) recorded tracks") (\(count(doc.trackPointCount, "point"))): a track is the path walked, not the stops. "
                    + "Mark each stop as a waypoint on the GPS unit or in the mapping program, export again and start from that file; "
                    + trackOnlyRouteAdvice
            }
            return
                "has no marked stops (waypoints, <wpt>); mark the stops as waypoints on the GPS unit or in the mapping program and export again"
        case .route:
            if doc.waypointCount > 0 {
                return
                    "has no route points (<rtept>) but \(count(doc.waypointCount, "waypoint")) (<wpt>); run init again without --stops-from route"
            }
            return
                "has no route (<rte> with <rtept> points); plan a route in the mapping program and export again, or leave out --stops-from route to use <wpt> waypoints"
        }
    }

    /// One stop as `init` writes it.
    public struct Stop: Sendable, Equatable {
        public var name: String
        public var coordinate: Coordinate
        public var description: String
        public var properties: [JSONMember]
        /// The full text for `about.md` when it is longer than the description may be.
        public var fullText: String?
        /// The folder under `waypoints/`: `03-fish-lake`.
        public var folder: String
    }

    /// The stops made of a GPX file's points, and what was changed to make them a valid tour.
    public struct GPXStops: Sendable {
        /// The stops, ready for `scaffold`.
        public var stops: [Stop]
        /// Notes for the ranger: duplicate names made unique, over-long text cut.
        public var notes: [String]
        /// The route the file's track gives (simplified, rounded), when it has one.
        public var route: [[RoutePosition]]? = nil
        /// The file's own name for what it records (``GPXReader/Document/name``), one line.
        public var name: String? = nil

        /// Stops and notes.
        public init(stops: [Stop], notes: [String]) {
            self.stops = stops
            self.notes = notes
        }
    }

    /// Turns GPX points into stops that pass `validate`: names on one line, unique (ignoring case),
    /// within the limits; folder names that are slugs, unique, never a Windows device name.
    public static func stopsFromGPX(_ points: [GPXReader.Point], source: String) -> GPXStops {
        var notes: [String] = []
        var stops: [Stop] = []
        var slugs = Set<String>()
        let width = max(2, String(points.count).count)
        func at(_ p: GPXReader.Point) -> String {
            "the point at line \(p.line) of '\(URL(fileURLWithPath: source).lastPathComponent)'"
        }
        // Names as the GPS unit wrote them, on one line and within the limit. They keep priority:
        // a renamed duplicate never takes a name another stop already has in the file.
        var names: [String] = []
        for p in points {
            var name = oneLine(p.name ?? "")
            if name != oneLine(p.name ?? "", dropControls: false) {
                notes.append("\(at(p)): control characters in the name became spaces")
            }
            if name.count > ManifestValidator.maxNameLength {
                name = String(name.prefix(ManifestValidator.maxNameLength - 1)) + "…"
                notes.append(
                    "\(at(p)): the name is longer than \(ManifestValidator.maxNameLength) characters and was shortened to '\(name)'"
                )
            }
            names.append(name)
        }
        var taken = Set(names.filter { !$0.isEmpty }.map(ArchivePath.foldingKey))
        var owners: [String: Int] = [:]
        for (i, p) in points.enumerated() {
            var name = names[i]
            func unique(_ base: String) -> String {
                var n = 2
                var candidate: String
                repeat {
                    let suffix = " (\(n))"
                    candidate = String(base.prefix(ManifestValidator.maxNameLength - suffix.count)) + suffix
                    n += 1
                } while taken.contains(ArchivePath.foldingKey(candidate))
                taken.insert(ArchivePath.foldingKey(candidate))
                return candidate
            }
            if name.isEmpty {
                name = "Stop \(i + 1)"
                if taken.contains(ArchivePath.foldingKey(name)) {
                    name = unique(name)
                } else {
                    taken.insert(ArchivePath.foldingKey(name))
                }
                notes.append("\(at(p)): the point has no <name>; it is called '\(name)'")
            } else if let first = owners[ArchivePath.foldingKey(name)] {
                let candidate = unique(name)
                notes.append(
                    "\(at(p)): the name '\(name)' is already used by stop \(first + 1); this stop is now '\(candidate)' (names must differ, also ignoring case; rename it in its waypoint.json)"
                )
                name = candidate
            }
            owners[ArchivePath.foldingKey(name)] = i
            // What visitors read: the description, as plain text when a mapping program wrote HTML.
            var description = cleanText(HTMLText.plain(p.description ?? ""))
            // The comment is the GPS unit's own note (a geocache code, "PARK HERE"): kept as a
            // detail of the stop (unless it repeats the name or the description), never added to
            // what visitors read.
            let comment = p.comment.map { cleanText(HTMLText.plain($0)) }.flatMap {
                $0.isEmpty || $0 == description || $0 == name ? nil : $0
            }
            var fullText: String?
            if description.count > ManifestValidator.maxDescriptionLength {
                fullText = description
                description = String(description.prefix(ManifestValidator.maxDescriptionLength - 1)) + "…"
                notes.append(
                    "\(at(p)): the description is longer than \(ManifestValidator.maxDescriptionLength) characters; waypoint.json holds the start, about.md the whole text"
                )
            }

            var properties: [JSONMember] = []
            if let e = p.elevation { properties.append(JSONMember("elevationMeters", .number(e))) }
            for (key, value) in [("comment", comment), ("time", p.time), ("symbol", p.symbol), ("type", p.type)] {
                guard var value else { continue }
                if value.count > 1000 {
                    value = String(value.prefix(999)) + "…"
                    let element = ["symbol": "sym", "comment": "cmt"][key] ?? key
                    notes.append("\(at(p)): <\(element)> is longer than 1000 characters and was shortened")
                }
                properties.append(JSONMember(key, .string(value)))
            }

            let slug = Slug.unique(for: name, number: i + 1, taken: slugs)
            slugs.insert(slug)
            let number = String(repeating: "0", count: width - String(i + 1).count) + String(i + 1)
            stops.append(
                Stop(
                    name: name, coordinate: p.coordinate, description: description, properties: properties,
                    fullText: fullText, folder: "\(number)-\(slug)"))
        }
        return GPXStops(stops: stops, notes: notes)
    }

    /// Whitespace runs (line breaks included) as one space, controls as spaces, trimmed.
    static func oneLine(_ s: String, dropControls: Bool = true) -> String {
        var out = String.UnicodeScalarView()
        var space = false
        for u in s.unicodeScalars {
            let blank = u.properties.isWhitespace || (dropControls && isControl(u))
            if blank { space = true; continue }
            if space && !out.isEmpty { out.append(" ") }
            space = false
            out.append(u)
        }
        return String(out)
    }

    static func isControl(_ u: Unicode.Scalar) -> Bool { u.value < 0x20 || (0x7F...0x9F).contains(u.value) }

    /// Line breaks as `\n`, controls other than line break and tab as spaces, trimmed.
    static func cleanText(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        var lastCR = false
        for u in s.unicodeScalars {
            defer { lastCR = u == "\r" }
            if u == "\n" && lastCR { continue }
            if u == "\r" || u == "\u{85}" || u == "\u{2028}" || u == "\u{2029}" { out.append("\n"); continue }
            out.append(u != "\t" && u != "\n" && isControl(u) ? " " : u)
        }
        return String(out).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
