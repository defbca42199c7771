import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import TrailPackCore

/// Scaffolds a tour folder a ranger can edit: `trailpack init`.
public enum TourInit {
    /// A stop read from a GPX `<wpt>`.
    public struct GPXWaypoint: Sendable, Equatable {
        public var name: String
        public var coordinate: Coordinate
        public var description: String
    }

    /// Creates `folder` with `tour.json` and one waypoint folder per stop. With no stops given,
    /// writes a single example stop. Refuses a folder that already holds a `tour.json`.
    public static func scaffold(folder: String, waypoints gpx: [GPXWaypoint] = []) throws -> [String] {
        let fm = FileManager.default
        if fm.fileExists(atPath: folder + "/" + TourSource.tourFileName) {
            throw BuildError.usage("'\(folder)' already holds a tour.json; choose a new folder")
        }
        let stops = gpx.isEmpty
            ? [GPXWaypoint(name: "Trailhead", coordinate: Coordinate(latitude: 44.4200, longitude: -122.1500),
                           description: Placeholder.exampleStopDescription)]
            : gpx
        let folderName = URL(fileURLWithPath: folder).lastPathComponent
        let slug = ManifestValidator.isSlug(folderName, maxLength: 64) ? folderName : "my-tour"
        var written: [String] = []
        do {
            try fm.createDirectory(atPath: folder + "/waypoints", withIntermediateDirectories: true)
            let tour = templateTour(slug: slug, name: gpx.isEmpty ? nil : folderName)
            try Data(JSONWriter.bytes(tour)).write(to: URL(fileURLWithPath: folder + "/tour.json"))
            written.append("tour.json")
            let width = max(2, String(stops.count).count)
            for (i, stop) in stops.enumerated() {
                let number = String(repeating: "0", count: width - String(i + 1).count) + String(i + 1)
                var stopSlug = Loader.slugify(stop.name)
                if stopSlug.isEmpty { stopSlug = "stop" }
                let dir = "waypoints/\(number)-\(stopSlug)"
                try fm.createDirectory(atPath: folder + "/" + dir, withIntermediateDirectories: true)
                // The description lives in waypoint.json only (no about.md copy of it to drift apart).
                let waypoint: JSONValue = .object([
                    "name": .string(stop.name),
                    "coordinate": stop.coordinate.jsonValue,
                    "description": .string(stop.description.isEmpty ? Placeholder.stopDescription : stop.description),
                    "assets": .array([]),
                ])
                try Data(JSONWriter.bytes(waypoint)).write(to: URL(fileURLWithPath: folder + "/" + dir + "/waypoint.json"))
                written.append(dir + "/waypoint.json")
            }
        } catch let error as BuildError {
            throw error
        } catch {
            throw BuildError.io("cannot create the tour in '\(folder)': \(error.localizedDescription)")
        }
        return written
    }

    /// The `<wpt>` points of a GPX 1.0 or 1.1 file, in document order.
    public static func readGPX(path: String) throws -> [GPXWaypoint] {
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(path, limit: 64 << 20) } catch { throw BuildError.io("\(error)") }
        let parser = XMLParser(data: Data(bytes))
        // A GPX file has no business declaring entities: refuse them (no XXE, no billion laughs).
        parser.shouldResolveExternalEntities = false
        let delegate = GPXDelegate()
        parser.delegate = delegate
        guard parser.parse() else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "unknown error"
            throw BuildError.usage("'\(path)' is not a readable GPX file (line \(parser.lineNumber)): \(reason)")
        }
        if let problem = delegate.problem { throw BuildError.usage("'\(path)': \(problem)") }
        if delegate.points.isEmpty {
            throw BuildError.usage("'\(path)' has no <wpt> waypoints; mark the stops as waypoints on the GPS unit (a track alone is not enough)")
        }
        return delegate.points
    }
}

private final class GPXDelegate: NSObject, XMLParserDelegate {
    var points: [TourInit.GPXWaypoint] = []
    var problem: String?
    private var current: (lat: Double, lon: Double, name: String, desc: String)?
    private var text = ""
    private var inWaypoint = false

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        text = ""
        if name == "wpt" {
            guard let lat = attributes["lat"].flatMap(Double.init), let lon = attributes["lon"].flatMap(Double.init),
                  (-90...90).contains(lat), (-180...180).contains(lon) else {
                problem = problem ?? "a <wpt> at line \(parser.lineNumber) has no valid lat and lon attributes"
                return
            }
            current = (lat, lon, "", "")
            inWaypoint = true
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard inWaypoint else { return }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch name {
        case "name": current?.name = value
        case "desc", "cmt": if current?.desc.isEmpty == true { current?.desc = value }
        case "wpt":
            if let c = current {
                let name = c.name.isEmpty ? "Stop \(points.count + 1)" : c.name
                points.append(TourInit.GPXWaypoint(name: name, coordinate: Coordinate(latitude: c.lat, longitude: c.lon), description: c.desc))
            }
            current = nil
            inWaypoint = false
        default: break
        }
        text = ""
    }
}
