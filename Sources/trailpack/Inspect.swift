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
            Report.print(
                ok: true, findings: [],
                JSONValue.object([
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
