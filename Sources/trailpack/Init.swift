import ArgumentParser
import Foundation
import TrailPackBuilder
import TrailPackCore

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create a tour folder with an example a ranger can edit.",
        discussion: """
            Without --from-gpx, the folder gets one example stop. With a GPX file (1.0 or 1.1) from a \
            handheld GPS unit or a mapping program, every <wpt> becomes a stop, in file order: its \
            <name>, its coordinate, and as description its <desc> followed by its <cmt> (a comment \
            that differs from the description becomes a second paragraph); <ele> (metres), <time>, \
            <sym> and <type> become the properties elevationMeters, time, symbol and type. With \
            --stops-from route, the <rtept> points of the file's routes become the stops instead. \
            Stops with the same name are told apart with (2), (3)... and a note says so.

            Examples:
              trailpack init ./fish-lake-tour
              trailpack init ./fish-lake-tour --from-gpx stops.gpx

            Exit codes: 0 created, 2 usage error (the folder already holds a tour, a bad GPX file), 3 I/O error.
            """)

    @Argument(help: "The folder to create.")
    var folder: String

    @Option(name: .customLong("from-gpx"), help: "A GPX file whose <wpt> points become the waypoints.")
    var gpx: String?

    @Option(name: .customLong("stops-from"), help: "With --from-gpx: which points become stops, waypoints (<wpt>) or route (<rtept>).")
    var stopsFrom: GPXReader.Stops?

    func validate() throws {
        if stopsFrom != nil && gpx == nil { throw ValidationError("--stops-from needs --from-gpx FILE") }
    }

    func run() throws {
        let (stops, notes) = try gpx.map { try TourInit.readGPX(path: $0, stops: stopsFrom ?? .waypoints) } ?? ([], [])
        let files = try TourInit.scaffold(folder: folder, stops: stops)
        for note in notes { CLI.note("note: " + TerminalText.escaped(note)) }
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

extension GPXReader.Stops: ExpressibleByArgument {}
