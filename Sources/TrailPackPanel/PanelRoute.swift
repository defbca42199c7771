import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TrailPackBuilder
import TrailPackCore
import TrailPackFileIO
import TrailPackServer

/// The trail itself (`docs/FORMAT.md` §3.3): the ranger's recorded track, imported onto a draft from a
/// GPX file, shown on the tour's page (the line on the map, its length, climb and elevation profile,
/// each stop's distance along it) and on the review page, replaced or removed.
///
/// The import keeps the route as the builder would make it from the recording — read by the builder's
/// own GPX reader, cut at the antimeridian, simplified (Douglas–Peucker at 5 m, the length kept within
/// 0.5 %), rounded — and writes that line as the draft's `route.geojson`, which the builder takes as
/// drawn. The recording itself is not kept: it can be 64 MiB (a phone's whole day), holds the times
/// the ranger walked, and would be read again at every save's check; the line is a few hundred KB, and
/// what the page shows is exactly what the package will hold.
extension DraftsController {
    func addRouteRoutes(guarded: RouterGroup<AppRequestContext>) {
        // The upload form (multipart, its token in the action's query), with or without the page's script.
        guarded.post("/drafts/:site/:tour/route") { request, context in
            await draftRoute(request, context, json: Self.wantsJSON(request)) {
                try await importRoute($0, $1, request: request)
            }
        }
        guarded.post("/drafts/:site/:tour/route/remove") { request, context in
            await draftRoute(request, context) { try await removeRoute($0, $1, request: request) }
        }
    }

    /// The largest GPX file the panel reads: the builder's limit, or the server's upload limit when smaller.
    var maxTrackBytes: Int64 { min(configuration.maxMediaBytes, GPXReader.maxFileBytes) }

    /// "Add the recorded track": a page's form answered with the tour's page (303), its script with JSON.
    /// A file that gives no route is said on the tour's page, beside the form, naming the file and the fix.
    func importRoute(_ visitor: Visitor, _ key: DraftStore.Key, request: Request) async throws -> Response {
        let json = Self.wantsJSON(request)
        do {
            let message = try await receiveRoute(visitor, key, request: request)
            if json {
                // The page the script opens next says it too.
                try? await sessions.flash(id: visitor.session.id, message)
                return Self.jsonMessage(
                    .created, message, extra: [JSONMember("location", .string(key.path + "?saved=1#tour-route"))])
            }
            return await redirect(visitor, to: key.path, saying: message, fragment: "#tour-route")
        } catch let error as PanelError where !json && error.code != .notFound && error.code != .forbidden {
            try? await sessions.flashProblem(id: visitor.session.id, error.message)
            return Self.redirect(key.path + "?refused=route#tour-route")
        }
    }

    private func receiveRoute(_ visitor: Visitor, _ key: DraftStore.Key, request: Request) async throws -> String {
        guard let boundary = Self.multipartBoundary(request.headers[.contentType]) else {
            throw PanelError(
                status: .unsupportedMediaType,
                message:
                    "the form must be sent as multipart/form-data with a boundary; reload the page and choose the file again"
            )
        }
        guard drafts.exists(key) else { throw PanelError.notFound }
        let temp = try dataFolder.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: temp) }  // ours: made just above
        let receiver = MultipartFiles(folder: temp, limit: maxTrackBytes, pool: pool)
        do { try await Self.receive(request, boundary: boundary, into: receiver) } catch let error as PanelError
            where error.code == .tooLarge
        {
            throw PanelError(
                code: .tooLarge,
                message:
                    "'\(receiver.currentName ?? "the file")' is larger than \(Self.size(maxTrackBytes)), the most the panel reads for a track: export only this tour's track from the GPS or mapping program (not the whole day's or year's recordings), then add it again"
            )
        }
        guard let file = receiver.files.first else {
            throw PanelError(
                message: "no file was chosen: choose the GPX file of the recorded track, then press 'Add the track'")
        }
        let given = file.name.value
        let route = try await blocking { try Self.readTrack(file.temp, given: given) }
        let bytes = Self.routeFileBytes(route.lines, importedFrom: given)
        let room = try await quotaRoom(site: key.site)
        if Int64(bytes.count) > room {
            throw Self.overQuota("The route from '\(given)'", unpacked: Int64(bytes.count), room: room, site: key.site)
        }
        let aside = try await drafts.setRoute(key, bytes: bytes, by: visitor.saver)
        logger.info(
            "panel: route imported",
            metadata: ["by": "\(visitor.user.name)", "draft": "\(key.path)", "positions": "\(route.positionCount)"])
        var message =
            "The route from '\(TerminalText.escaped(given))' was added: \(Self.lengthWords(route.lengthMetres))"
        if let up = route.ascentMetres, let down = route.descentMetres {
            message += ", \(Self.climbWords(up: up, down: down))"
        }
        message +=
            ". The recording's \(Self.grouped(route.recordedPositions)) points were simplified to \(Self.grouped(route.positionCount)) (within 5 m of the track)."
        if !aside.isEmpty { message += " The route it replaces is kept aside on the server." }
        if route.droppedLines > 0 {
            message +=
                " \(route.droppedLines == 1 ? "A part of the track with a single point was" : "\(route.droppedLines) parts of the track with a single point each were") left out."
        }
        return message
    }

    /// "Remove the route": the form says yes (its confirm button); the file is moved aside, never deleted.
    func removeRoute(_ visitor: Visitor, _ key: DraftStore.Key, request: Request) async throws -> Response {
        let form = try await PanelForm.read(request)
        guard form["confirm"] == "yes" else {
            throw PanelError(message: "the route was not removed: press 'Yes, remove the route' to confirm")
        }
        let aside = try await drafts.removeRoute(key, by: visitor.saver)
        guard !aside.isEmpty else {
            return await redirect(
                visitor, to: key.path, saying: "The tour has no route to remove.", fragment: "#tour-route")
        }
        logger.info("panel: route removed", metadata: ["by": "\(visitor.user.name)", "draft": "\(key.path)"])
        return await redirect(
            visitor, to: key.path,
            saying:
                "The route was removed from the tour. A copy is kept aside on the server (drafts-removed/\(key.site)/\(key.tour)/\(aside.joined(separator: ", "))): an administrator can put it back.",
            fragment: "#tour-route")
    }

    // MARK: reading a track

    /// A recorded track made into the route the package will hold.
    struct ImportedTrack: Sendable {
        var lines: [[RoutePosition]]
        var lengthMetres: Double
        var ascentMetres: Double?
        var descentMetres: Double?
        var recordedPositions: Int
        var positionCount: Int
        /// Segments of a single point (a GPS fix between pauses), left out.
        var droppedLines: Int
    }

    /// Reads the GPX file at `path` (the ranger calls it `given`) with the builder's reader and makes its
    /// tracks (or routes) into a route as the builder would: cut at the antimeridian, simplified at
    /// `TourRoute.defaultTolerance`, rounded. Every refusal names the file and what to do, never a path
    /// of the server.
    static func readTrack(_ path: String, given: String) throws(PanelError) -> ImportedTrack {
        let shown = TerminalText.escaped(given)
        let isGPX = PathText.fileExtension(given).lowercased() == "gpx"
        let document: GPXReader.Document
        do {
            document = try GPXReader.read(path: path, maxPoints: ManifestValidator.maxWaypoints, lines: true)
        } catch {
            // The reader names the file first ("'PATH' line 28, column 7: …"): the message names it already.
            var problem = withoutServerPaths(error.description, upload: path, given: given, roots: [])
            for prefix in ["'\(given)' ", "\(given): ", "\(given) "] where problem.hasPrefix(prefix) {
                problem = String(problem.dropFirst(prefix.count))
                break
            }
            throw PanelError(
                status: .unprocessableContent,
                message: isGPX
                    ? "'\(shown)' could not be read as a GPX track: \(problem). Export the track again from the GPS or the mapping program (as GPX), then add it again"
                    : "'\(shown)' is not a GPX file (\(problem)). Export the recorded track from the GPS or the mapping program as GPX (a .gpx file), then add it"
            )
        }
        var lines = document.recordedRoute
        guard !lines.isEmpty else {
            let only = document.waypointCount > 0 ? " (it holds \(grouped(document.waypointCount)) waypoints only)" : ""
            throw PanelError(
                status: .unprocessableContent,
                message:
                    "'\(shown)' holds no recorded track: no <trk> or <rte> with points\(only). Export the track you walked (not only the waypoints) from the GPS or the mapping program, then add it again"
            )
        }
        let recorded = lines.reduce(0) { $0 + $1.count }
        let kept = lines.filter { $0.count >= 2 }
        let dropped = lines.count - kept.count
        guard !kept.isEmpty else {
            throw PanelError(
                status: .unprocessableContent,
                message:
                    "'\(shown)' holds a track of \(recorded == 1 ? "a single point" : "\(recorded) points, each in a part of its own"): a route needs a line of at least two points. Check that the GPS was recording the track while you walked, and export the whole track"
            )
        }
        lines = kept
        let made = TourRoute.make(TourRoute.Source(file: given, lines: lines, recorded: true), stops: [], stages: [])
        guard let route = made.route else {
            let problem = made.findings.first?.message ?? "it gives no line"
            throw PanelError(
                status: .unprocessableContent,
                message:
                    "'\(shown)' gives no route: \(problem). Export the track again from the GPS or the mapping program, then add it again"
            )
        }
        return ImportedTrack(
            lines: route.lines, lengthMetres: route.summary.lengthMetres, ascentMetres: route.summary.ascentMetres,
            descentMetres: route.summary.descentMetres, recordedPositions: recorded, positionCount: route.positionCount,
            droppedLines: dropped)
    }

    /// The draft's `route.geojson`: one GeoJSON Feature holding the line (a `MultiLineString` for a track
    /// in parts), which the builder takes as drawn; `importedFrom` names the file it came from.
    static func routeFileBytes(_ lines: [[RoutePosition]], importedFrom given: String) -> [UInt8] {
        let geometry = RouteFile.geometryValue(Route(lines: lines, summary: RouteSummary(lengthMetres: 0, stops: [])))
        return JSONWriter.bytes(
            .object([
                JSONMember("type", .string("Feature")),
                JSONMember("properties", .object([JSONMember("importedFrom", .string(given))])),
                JSONMember("geometry", geometry),
            ]))
    }

    // MARK: showing a route

    /// The draft's route as the package will have it (made by the builder's own rules from the
    /// folder's route file, with the draft's stops and stages), and the name of the GPX file it was
    /// imported from; nil without a route, or with one the builder cannot make (its findings say why).
    /// Reads files: call it off the event loop.
    static func draftRoute(folder: String, draft: TourDraft) -> (route: Route, importedFrom: String?)? {
        guard let source = TourRoute.load(folder: folder).source else { return nil }
        let manifest = draft.manifestForCounting()
        let waypoints = manifest.waypoints.enumerated().filter { draft.stops[$0.offset].coordinate != nil }.map(
            \.element)
        guard let route = TourRoute.make(source, stops: waypoints, stages: stages(of: draft)).route else { return nil }
        var importedFrom: String?
        if source.file == TourRoute.geoJSONName,
            let bytes = try? FileOperations.readAll(
                folder + "/" + TourRoute.geoJSONName, limit: Route.maxFileBytes * 4),
            let document = try? JSONParser.parse(bytes),
            case .object(let members) = document.value,
            case .object(let properties)? = members.first(where: { $0.key == "properties" })?.value,
            case .string(let name)? = properties.first(where: { $0.key == "importedFrom" })?.value
        {
            importedFrom = name
        }
        return (route, importedFrom)
    }

    /// The stages `tour.json` lists (`"stages": [{"name", "from", "to"}]`), kept by the draft as it found them.
    static func stages(of draft: TourDraft) -> [TourRoute.StageSource] {
        guard case .array(let items)? = draft.extra.first(where: { $0.key == "stages" })?.value else { return [] }
        return items.compactMap { item in
            guard case .object(let members) = item else { return nil }
            func text(_ key: String) -> String? {
                if case .string(let s)? = members.first(where: { $0.key == key })?.value { return s }
                return nil
            }
            guard let name = text("name"), let from = text("from"), let to = text("to") else { return nil }
            return TourRoute.StageSource(name: name, from: from, to: to)
        }
    }

}

extension PanelRoom {
    /// "1,571 m up and 843 m down (5,154 ft up, 2,766 ft down)".
    static func climbWords(up: Double, down: Double) -> String {
        "\(grouped(up)) m up and \(grouped(down)) m down (\(grouped(up / 0.3048)) ft up, \(grouped(down / 0.3048)) ft down)"
    }

    /// "96.4 km (59.9 mi)".
    static func lengthWords(_ metres: Double) -> String {
        "\(String(format: "%.1f", metres / 1000)) km (\(String(format: "%.1f", metres / 1609.344)) mi)"
    }

    /// A whole number with thousands separated by commas: "1,452".
    static func grouped(_ value: Double) -> String { grouped(Int(value.rounded())) }

    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (value < 0 ? "-" : "") + out
    }

    /// The elevation profile: the route's elevations against the distance along it, drawn as an SVG
    /// path in a 600 × 100 box (at most two points per column: the lowest and the highest, so no
    /// peak is lost), with its words for those who do not see it. Nil without elevations.
    static func profile(_ route: Route) -> ProfileView? {
        guard route.hasElevations, route.summary.lengthMetres > 0 else { return nil }
        let (width, height, margin) = (600.0, 100.0, 6.0)
        let along = RouteMath.distances(route.lines).flatMap { $0 }
        let heights = route.lines.flatMap { $0.map { $0.elevation ?? 0 } }
        guard let low = heights.min(), let high = heights.max(), let total = along.last, total > 0 else { return nil }
        let span = high - low
        func x(_ d: Double) -> Double { d / total * width }
        func y(_ e: Double) -> Double {
            span > 0 ? height - margin - (e - low) / span * (height - 2 * margin) : height / 2
        }
        // Column by column: each column's lowest and highest, in the order they come.
        var points: [(Double, Double)] = []
        var column = -1
        var first = 0
        func flush(_ range: Range<Int>) {
            guard !range.isEmpty else { return }
            let lowest = range.min { heights[$0] < heights[$1] }!, highest = range.max { heights[$0] < heights[$1] }!
            for i in [lowest, highest].sorted() where points.last.map({ $0 != (x(along[i]), y(heights[i])) }) ?? true {
                points.append((x(along[i]), y(heights[i])))
            }
        }
        for i in along.indices {
            let c = min(Int(x(along[i])), Int(width) - 1)
            if c != column {
                flush(first..<i)
                column = c
                first = i
            }
        }
        flush(first..<along.count)
        func number(_ v: Double) -> String { String(format: "%.1f", v) }
        let line = points.enumerated().map {
            "\($0.offset == 0 ? "M" : "L")\(number($0.element.0)) \(number($0.element.1))"
        }
        .joined(separator: " ")
        let area = line + " L\(number(width)) \(number(height)) L0 \(number(height)) Z"
        let highIndex = heights.indices.max { heights[$0] < heights[$1] }!
        let lowIndex = heights.indices.min { heights[$0] < heights[$1] }!
        func km(_ i: Int) -> String { "km \(String(format: "%.1f", along[i] / 1000))" }
        let start = heights.first!, end = heights.last!
        var words = "Elevation along the route: it starts at \(grouped(start)) m"
        if highIndex != 0 && highIndex != heights.count - 1 {
            words += ", climbs to \(grouped(high)) m at \(km(highIndex)) (the highest point)"
        }
        if lowIndex != 0 && lowIndex != heights.count - 1 {
            words += ", comes down to \(grouped(low)) m at \(km(lowIndex)) (the lowest point)"
        }
        words += " and ends at \(grouped(end)) m, \(km(heights.count - 1))."
        let summary = "climbs from \(grouped(low)) m to \(grouped(high)) m"
        return ProfileView(
            line: line, area: area, words: words, summary: summary, highest: "\(grouped(high)) m",
            lowest: "\(grouped(low)) m", end: km(heights.count - 1))
    }

    /// The lines for the page's map: `[[[lat, lon], …], …]` with 6 decimals (10 cm), at most
    /// `maxMapPositions` positions (a longer route is drawn simplified further: the page stays small).
    static func mapLines(_ route: Route) -> String {
        var lines = route.lines
        var tolerance = 2.0
        while lines.reduce(0, { $0 + $1.count }) > maxMapPositions && tolerance < 10_000 {
            lines = RouteMath.simplified(route.lines, tolerance: tolerance, maxLoss: 1).lines
            tolerance *= 2
        }
        func six(_ v: Double) -> String { String(format: "%.6f", v) }
        return "["
            + lines.map { line in
                "[" + line.map { "[\(six($0.latitude)),\(six($0.longitude))]" }.joined(separator: ",") + "]"
            }.joined(separator: ",") + "]"
    }

    /// "350 m" below a kilometre, "1.2 km" from there.
    static func shortDistance(_ metres: Double) -> String {
        metres < 999.5 ? "\(Int(metres.rounded())) m" : "\(String(format: "%.1f", metres / 1000)) km"
    }
}

extension PanelRoom {
    /// The most positions a page's map is given for a route.
    static var maxMapPositions: Int { 5_000 }
}

extension PanelRoom {
    /// What a page shows of a route: its numbers in words, the profile, the stages, and the line for the map.
    static func routeView(_ route: Route, importedFrom: String?, stopNames: [String: String]) -> RouteView {
        let s = route.summary
        let climb = s.ascentMetres.flatMap { up in s.descentMetres.map { climbWords(up: up, down: $0) } }
        let stages = route.stages.map { stage in
            RouteView.Stage(
                name: stage.name, from: stopNames[stage.from] ?? stage.from, to: stopNames[stage.to] ?? stage.to,
                length: lengthWords(stage.lengthMetres))
        }
        return RouteView(
            length: lengthWords(s.lengthMetres), climb: climb, points: grouped(route.positionCount),
            parts: route.lines.count, inParts: route.lines.count > 1, importedFrom: importedFrom,
            profile: profile(route), stages: stages, hasStages: !stages.isEmpty, mapLines: mapLines(route))
    }

    /// A stop's place on the route, for a list of stops: "km 14.0 along the route (mile 8.7)", and how
    /// far from it a stop more than 200 m away is.
    static func alongWords(_ stop: RouteStop?) -> String? {
        guard let stop else { return nil }
        var text =
            "km \(String(format: "%.1f", stop.distanceMetres / 1000)) along the route (mile \(String(format: "%.1f", stop.distanceMetres / 1609.344)))"
        if stop.offsetMetres > 200 { text += ", \(shortDistance(stop.offsetMetres)) from it" }
        return text
    }
}
