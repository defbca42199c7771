import ArgumentParser
import Foundation
import TrailPackBuilder
import TrailPackCore
import TrailPackVerifier

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the tour, waypoints and assets in a package.",
        usage: "trailpack inspect <package> [--json | --geojson]",
        discussion: """
            The ZIP structure and the manifest are checked first (not every asset's bytes: use \
            'trailpack verify' for that). --geojson writes a FeatureCollection that opens in QGIS or \
            geojson.io: the waypoints as points with their properties, the bounds as a polygon.

            Examples:
              trailpack inspect santiam.zip
              trailpack inspect santiam.zip --geojson > santiam.geojson

            Exit codes: 0 shown, 1 the package is not valid, 2 usage error, 3 the file cannot be read.
            """)

    @Argument(help: "The package (.zip).")
    var package: String

    @Flag(help: "Print the manifest and totals as JSON.")
    var json = false

    @Flag(help: "Print a GeoJSON FeatureCollection.")
    var geojson = false

    func validate() throws {
        if json && geojson { throw ValidationError("give --json or --geojson, not both") }
    }

    func run() throws {
        let reader = try CLI.openPackage(package)
        let m = reader.manifest
        let total = m.allAssets.reduce(Int64(0)) { $0 + $1.size }
        if geojson {
            CLI.printJSON(GeoJSON.featureCollection(m))
        } else if json {
            Report.print(ok: true, findings: [], JSONValue.object([
                "manifest": m.jsonValue,
                "totals": .object([
                    "waypoints": .number(JSONNumber(Int64(m.waypoints.count))),
                    "assets": .number(JSONNumber(Int64(m.allAssets.count))),
                    "assetBytes": .number(JSONNumber(total)),
                ]),
            ]).members)
        } else {
            // Every text from the package is escaped: names cannot reach the terminal as control codes.
            let e = TerminalText.escaped
            var out = """
                \(e(m.name))
                  id        \(m.id)
                  version   \(m.version)
                  park      \(e(m.park))
                  site      \(e(m.site.name)) (\(m.site.id))
                  map       \(e(m.mapName)), bounds \(m.bounds.southwest.latitude),\(m.bounds.southwest.longitude) to \(m.bounds.northeast.latitude),\(m.bounds.northeast.longitude)\(m.bounds.crossesAntimeridian ? " (crosses the antimeridian)" : "")

                """
            for w in m.waypoints.sorted(by: { $0.order < $1.order }) {
                out += "  \(w.order). \(e(w.name))  (\(w.coordinate.latitude), \(w.coordinate.longitude))\n"
                for p in w.properties { out += "       \(e(p.key)): \(e(p.value.displayText))\n" }
                for a in w.assets { out += "       \(e(a.path))  \(a.kind.rawValue)  \(Format.bytes(a.size))\n" }
            }
            for a in m.mapAssets { out += "  map: \(e(a.path))  \(Format.bytes(a.size))\n" }
            out += "  total: \(m.waypoints.count) waypoints, \(m.allAssets.count) assets, \(Format.bytes(total))\n"
            CLI.out(out)
        }
    }
}

/// GeoJSON (RFC 7946) for a manifest.
enum GeoJSON {
    static func featureCollection(_ m: Manifest) -> JSONValue {
        var features: [JSONValue] = [boundsFeature(m)]
        for w in m.waypoints.sorted(by: { $0.order < $1.order }) {
            var props: [JSONMember] = [
                JSONMember("name", .string(w.name)),
                JSONMember("order", .number(JSONNumber(Int64(w.order)))),
                JSONMember("description", .string(w.description)),
                JSONMember("assets", .number(JSONNumber(Int64(w.assets.count)))),
            ]
            for p in w.properties where !props.contains(where: { $0.key == p.key }) { props.append(p) }
            features.append(.object([
                "type": .string("Feature"),
                "geometry": .object(["type": .string("Point"), "coordinates": position(w.coordinate.longitude, w.coordinate.latitude)]),
                "properties": .object(props),
            ]))
        }
        return .object([
            "type": .string("FeatureCollection"),
            "features": .array(features),
        ])
    }

    static func position(_ lon: Double, _ lat: Double) -> JSONValue { .array([.number(JSONNumber(lon)), .number(JSONNumber(lat))]) }

    static func ring(west: Double, south: Double, east: Double, north: Double) -> JSONValue {
        .array([.array([position(west, south), position(east, south), position(east, north), position(west, north), position(west, south)])])
    }

    /// The bounds as a Polygon, or a MultiPolygon split at the antimeridian (RFC 7946 §3.1.9).
    static func boundsFeature(_ m: Manifest) -> JSONValue {
        let b = m.bounds
        let geometry: JSONValue = b.crossesAntimeridian
            ? .object(["type": .string("MultiPolygon"), "coordinates": .array([
                ring(west: b.southwest.longitude, south: b.southwest.latitude, east: 180, north: b.northeast.latitude),
                ring(west: -180, south: b.southwest.latitude, east: b.northeast.longitude, north: b.northeast.latitude)])])
            : .object(["type": .string("Polygon"), "coordinates": ring(west: b.southwest.longitude, south: b.southwest.latitude, east: b.northeast.longitude, north: b.northeast.latitude)])
        return .object([
            "type": .string("Feature"),
            "geometry": geometry,
            "properties": .object(["name": .string(m.mapName), "role": .string("bounds"), "package": .string(m.id), "version": .string(m.version)]),
        ])
    }
}
