import ArgumentParser
import Foundation
import TrailPackBuilder

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create a tour folder with an example a ranger can edit.",
        discussion: """
            Without --from-gpx, the folder gets one example stop. With a GPX file from a handheld
            GPS unit, every <wpt> becomes a stop (name, coordinate and description), in file order.

            Examples:
              trailpack init ./fish-lake-tour
              trailpack init ./fish-lake-tour --from-gpx stops.gpx

            Exit codes: 0 created, 2 usage error (the folder already holds a tour, a bad GPX file), 3 I/O error.
            """)

    @Argument(help: "The folder to create.")
    var folder: String

    @Option(name: .customLong("from-gpx"), help: "A GPX file whose <wpt> points become the waypoints.")
    var gpx: String?

    func run() throws {
        let stops = try gpx.map { try TourInit.readGPX(path: $0) } ?? []
        let files = try TourInit.scaffold(folder: folder, waypoints: stops)
        CLI.out("created \(folder) with \(files.count) files:\n")
        for f in files { CLI.out("  \(f)\n") }
        CLI.out("""
            next: edit tour.json and each waypoint.json, drop photos, audio and video into the waypoint
            folders and list them under "assets", then run:
              trailpack validate \(folder)
              trailpack build \(folder)

            """)
    }
}
