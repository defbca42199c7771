import Foundation
import TrailPackCore
import TrailPackFileIO

/// Reads the points of a GPX 1.0 or 1.1 file, streaming, losing nothing it keeps and
/// guessing at nothing it refuses.
///
/// - Elements count only where the GPX schema puts them, in the namespace of the root `<gpx>`
///   (any prefix, or none): a `<name>` or `<wpt>` inside `<extensions>` or inside another
///   namespace's element is never taken for the waypoint's own.
/// - `<name>`, `<desc>`, `<cmt>`, `<ele>`, `<time>`, `<sym>`, `<type>` of each `<wpt>` (or `<rtept>`)
///   are kept, text and CDATA alike, with character references resolved.
/// - `lat` and `lon` are decimal degrees (`xsd:decimal`: surrounding whitespace allowed; no hex,
///   no exponent, no `nan`), in range.
/// - Everything else the XML tokenizer refuses (DTDs, undefined entities, malformed or cut-short
///   files, anything after `</gpx>`) comes back as a `GPXReader.Error` with line and column.
public enum GPXReader {
    /// Which points become stops.
    public enum Stops: String, Sendable, CaseIterable {
        /// `<wpt>`, the points marked on a GPS unit.
        case waypoints
        /// `<rtept>` of every `<rte>`, in file order.
        case route
    }

    /// One `<wpt>` or `<rtept>`.
    public struct Point: Sendable, Equatable {
        public var coordinate: Coordinate
        /// The text of `<name>`, trimmed; nil when the point has none.
        public var name: String?
        public var description: String?
        public var comment: String?
        /// `<ele>` in metres, as a JSON number literal (exactly as written, normalized to JSON).
        public var elevation: JSONNumber?
        public var time: String?
        public var symbol: String?
        public var type: String?
        /// Where the point's start tag is.
        public var line: Int
        public var column: Int
    }

    /// What a file holds.
    public struct Document: Sendable {
        /// The `version` attribute of `<gpx>` (`1.0`, `1.1`), if given.
        public var version: String?
        public var creator: String?
        /// The file's own name for what it records: `<metadata><name>` (GPX 1.1) or `<gpx><name>`
        /// (GPX 1.0), trimmed; nil when none is given. A track's `<name>` is not taken: GPS units
        /// name tracks "ACTIVE LOG 001".
        public var name: String?
        /// The points asked for: waypoints or route points.
        public var points: [Point]
        public var waypointCount = 0
        public var routeCount = 0
        public var routePointCount = 0
        public var trackCount = 0
        public var trackPointCount = 0
        /// With `lines: true`: each `<trkseg>` of every `<trk>`, in file order, as a line of positions.
        public var trackLines: [[RoutePosition]] = []
        /// With `lines: true`: each `<rte>`'s `<rtept>` positions, in file order.
        public var routeLines: [[RoutePosition]] = []

        /// The route the file records (`docs/FORMAT.md` §3.3): its tracks, or its routes when it has
        /// no track; elevations only when every position has one. Segments of fewer than two
        /// points are kept, for the route's checks to report.
        public var recordedRoute: [[RoutePosition]] {
            let lines = trackLines.contains(where: { !$0.isEmpty }) ? trackLines : routeLines
            let kept = lines.filter { !$0.isEmpty }
            guard kept.contains(where: { $0.contains { $0.elevation == nil } }) else { return kept }
            return kept.map { $0.map { RoutePosition(longitude: $0.longitude, latitude: $0.latitude) } }
        }
    }

    /// The most track and route points read from one file (a 64 MiB file holds about a million).
    public static let maxLinePoints = 2_000_000

    /// The largest GPX file read (the documented limit).
    public static let maxFileBytes: Int64 = 64 << 20

    /// Reads the file at `path`. A FIFO, a device or a folder is refused before anything blocks.
    public static func read(
        path: String, stops: Stops = .waypoints, maxPoints: Int = ManifestValidator.maxWaypoints, lines: Bool = false
    ) throws(BuildError) -> Document {
        let file: RegularFile
        do { file = try FileOperations.openRegularFile(path) } catch {
            if error.code == .notRegularFile {
                throw .malformed(path, "is not a regular file (a folder, a pipe or a device); give a .gpx file")
            }
            throw BuildError(error)
        }
        defer { try? file.descriptor.close() }
        guard file.status.size <= maxFileBytes else {
            throw .malformed(
                path,
                "is \(file.status.size) bytes; the limit for a GPX file is 64 MiB (\(maxFileBytes) bytes): split it or leave out the tracks"
            )
        }
        var tokenizer = XMLTokenizer(fileDescriptor: file.descriptor, name: path, limit: maxFileBytes)
        return try read(&tokenizer, file: path, stops: stops, maxPoints: maxPoints, lines: lines)
    }

    /// Reads a GPX document held in memory; `name` is used in messages.
    public static func read(
        bytes: [UInt8], name: String, stops: Stops = .waypoints, maxPoints: Int = ManifestValidator.maxWaypoints,
        lines: Bool = false
    ) throws(BuildError) -> Document {
        var tokenizer = XMLTokenizer(bytes: bytes)
        return try read(&tokenizer, file: name, stops: stops, maxPoints: maxPoints, lines: lines)
    }

    // MARK: the walk

    private enum Role: Equatable {
        case root, waypoint, route, routePoint, track, trackSegment, trackPoint, metadata
        case field(Field)
        /// The name of the document (in `<metadata>`, or the root in GPX 1.0).
        case documentName
        /// Inside a field: its text still counts.
        case fieldChild
        /// Not GPX, or GPX we do not keep (`metadata`, `extensions`, `link`...): skipped with all it holds.
        case skipped
    }

    private enum Field: String, CaseIterable {
        case name, desc, cmt, ele, time, sym, type
    }

    /// Whether the text inside an element of `role` is kept.
    private static func collects(_ role: Role) -> Bool {
        switch role {
        case .field, .fieldChild, .documentName: true
        default: false
        }
    }

    private static func read(
        _ xml: inout XMLTokenizer, file: String, stops: Stops, maxPoints: Int, lines collectLines: Bool
    ) throws(BuildError) -> Document {
        var doc = Document(points: [])
        // The line being read (a <trkseg> or an <rte>) and the position of its current point.
        var line: [RoutePosition] = []
        var linePosition: RoutePosition?
        var linePoints = 0
        var roles: [Role] = []
        var gpxNamespace: String?
        var point: Point?
        var fields: [Field: String] = [:]
        var fieldText = ""
        func fail(_ position: XMLTokenizer.Position, _ reason: String) -> BuildError {
            .malformed(file, line: position.line, column: position.column, reason)
        }
        do {
            while let event = try xml.next() {
                switch event {
                case .start(let e):
                    guard let parent = roles.last else {
                        guard e.localName == "gpx" else {
                            throw fail(
                                e.position,
                                "the file's root element is <\(e.qualifiedName)>, not <gpx>: this is not a GPX file")
                        }
                        gpxNamespace = e.namespace
                        doc.version = e.attribute("version")
                        doc.creator = e.attribute("creator")
                        roles.append(.root)
                        continue
                    }
                    let isGPX = e.namespace == gpxNamespace
                    let role: Role
                    switch (parent, isGPX ? e.localName : "") {
                    case (.root, "wpt"):
                        role = .waypoint
                        doc.waypointCount += 1
                        if stops == .waypoints { point = try startPoint(e, fail) }
                    case (.root, "rte"):
                        role = .route
                        doc.routeCount += 1
                        line = []
                    case (.route, "rtept"):
                        role = .routePoint
                        doc.routePointCount += 1
                        if stops == .route { point = try startPoint(e, fail) }
                        if collectLines { linePosition = try startPosition(e, fail, &linePoints) }
                    case (.root, "trk"):
                        role = .track
                        doc.trackCount += 1
                    case (.root, "metadata"):
                        role = .metadata
                    case (.metadata, "name"), (.root, "name"):
                        role = .documentName
                        fieldText = ""
                    case (.track, "trkseg"):
                        role = .trackSegment
                        line = []
                    case (.trackSegment, "trkpt"):
                        role = collectLines ? .trackPoint : .skipped
                        doc.trackPointCount += 1
                        if collectLines { linePosition = try startPosition(e, fail, &linePoints) }
                    case (.trackPoint, "ele"):
                        if fields[.ele] != nil {
                            throw fail(
                                e.position, "a second <\(e.qualifiedName)> in the same point; a GPX point has one")
                        }
                        role = .field(.ele)
                        fieldText = ""
                    case (.waypoint, let name), (.routePoint, let name):
                        if point != nil || linePosition != nil, let field = Field(rawValue: name) {
                            if fields[field] != nil {
                                throw fail(
                                    e.position, "a second <\(e.qualifiedName)> in the same point; a GPX point has one")
                            }
                            role = .field(field)
                            fieldText = ""
                        } else {
                            role = .skipped
                        }
                    case (.field, _), (.fieldChild, _), (.documentName, _):
                        role = .fieldChild
                    default:
                        role = .skipped
                    }
                    roles.append(role)
                    xml.collectText = Self.collects(role)
                case .text(let s):
                    if fieldText.utf8.count + s.utf8.count > XMLTokenizer.maxTextBytes {
                        throw fail(xml.position, "a text longer than 1 MiB")
                    }
                    fieldText += s
                case .end(_, let position):
                    let role = roles.removeLast()
                    switch role {
                    case .field(let field):
                        let value = fieldText.trimmingCharacters(in: .whitespacesAndNewlines)
                        if field == .ele, !value.isEmpty, decimalLiteral(value) == nil {
                            throw fail(
                                position,
                                "<ele>\(value.prefix(40))</ele> is not a decimal number of metres (such as 1234.5)")
                        }
                        fields[field] = value
                        fieldText = ""
                    case .trackPoint,
                        .routePoint where linePosition != nil:
                        if var p = linePosition {
                            p.elevation = fields[.ele].flatMap(decimalLiteral).flatMap(Double.init)
                            line.append(p)
                        }
                        linePosition = nil
                        if role == .trackPoint { fields = [:] }
                    case .trackSegment:
                        if collectLines { doc.trackLines.append(line) }
                        line = []
                    case .documentName:
                        let value = fieldText.trimmingCharacters(in: .whitespacesAndNewlines)
                        if !value.isEmpty, doc.name == nil { doc.name = value }
                        fieldText = ""
                    case .route:
                        if collectLines { doc.routeLines.append(line) }
                        line = []
                    default:
                        break
                    }
                    switch role {
                    case .waypoint, .routePoint:
                        if var p = point {
                            func text(_ f: Field) -> String? { fields[f].flatMap { $0.isEmpty ? nil : $0 } }
                            p.name = text(.name)
                            p.description = text(.desc)
                            p.comment = text(.cmt)
                            p.elevation = text(.ele).flatMap(decimalLiteral).map { JSONNumber(literal: $0) }
                            p.time = text(.time)
                            p.symbol = text(.sym)
                            p.type = text(.type)
                            if doc.points.count == maxPoints {
                                throw fail(
                                    position, "more than \(maxPoints) points; a tour holds at most \(maxPoints) stops")
                            }
                            doc.points.append(p)
                        }
                        point = nil
                        fields = [:]
                    default:
                        break
                    }
                    xml.collectText = roles.last.map(Self.collects) ?? false
                }
            }
        } catch let failure as XMLTokenizer.Failure {
            throw fail(failure.position, failure.reason)
        } catch let error as BuildError {
            throw error
        } catch {
            throw .malformed(file, "\(error)")
        }
        return doc
    }

    /// The position of a `<trkpt>` or `<rtept>` of a line, its degrees checked as a stop's are.
    private static func startPosition(
        _ e: XMLTokenizer.Element, _ fail: (XMLTokenizer.Position, String) -> BuildError, _ count: inout Int
    ) throws(BuildError) -> RoutePosition {
        count += 1
        guard count <= maxLinePoints else {
            throw fail(
                e.position,
                "more than \(maxLinePoints) track points; split the recording, or simplify it in the mapping program")
        }
        let c = try startPoint(e, fail).coordinate
        return RoutePosition(longitude: c.longitude, latitude: c.latitude)
    }

    private static func startPoint(
        _ e: XMLTokenizer.Element, _ fail: (XMLTokenizer.Position, String) -> BuildError
    ) throws(BuildError) -> Point {
        func degrees(_ name: String, _ range: ClosedRange<Double>) throws(BuildError) -> Double {
            guard let raw = e.attribute(name) else {
                throw fail(
                    e.position,
                    "<\(e.qualifiedName)> has no \(name) attribute; every point needs lat and lon in decimal degrees")
            }
            guard let literal = decimalLiteral(raw), let value = Double(literal), value.isFinite else {
                throw fail(
                    e.position,
                    "\(name)=\"\(raw.prefix(40))\" in <\(e.qualifiedName)> is not a decimal number of degrees (such as 44.4057)"
                )
            }
            guard range.contains(value) else {
                throw fail(
                    e.position,
                    "\(name)=\"\(raw.prefix(40))\" in <\(e.qualifiedName)> is outside \(Int(range.lowerBound)) to \(Int(range.upperBound)) degrees"
                )
            }
            return value
        }
        let lat = try degrees("lat", -90...90)
        let lon = try degrees("lon", -180...180)
        return Point(
            coordinate: Coordinate(latitude: lat, longitude: lon), line: e.position.line, column: e.position.column)
    }

    /// An `xsd:decimal` (`-12.50`, `+.5`, ` 44 `) as a JSON number literal (`-12.50`, `0.5`, `44`);
    /// nil for anything else (hex, exponents, `NaN`, `∞`, empty).
    static func decimalLiteral(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        var start = 0, end = bytes.count
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        while start < end && isSpace(bytes[start]) { start += 1 }
        while end > start && isSpace(bytes[end - 1]) { end -= 1 }
        guard end - start <= 64 else { return nil }
        var i = start
        var negative = false
        if i < end && (bytes[i] == 0x2B || bytes[i] == 0x2D) { negative = bytes[i] == 0x2D; i += 1 }
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        var integer: [UInt8] = []
        while i < end && isDigit(bytes[i]) { integer.append(bytes[i]); i += 1 }
        var fraction: [UInt8] = []
        if i < end && bytes[i] == 0x2E {
            i += 1
            while i < end && isDigit(bytes[i]) { fraction.append(bytes[i]); i += 1 }
        }
        guard i == end, !(integer.isEmpty && fraction.isEmpty) else { return nil }
        while integer.count > 1 && integer.first == 0x30 { integer.removeFirst() }
        if integer.isEmpty { integer = [0x30] }
        var out = negative ? "-" : ""
        out += String(decoding: integer, as: UTF8.self)
        if !fraction.isEmpty { out += "." + String(decoding: fraction, as: UTF8.self) }
        return out
    }
}
