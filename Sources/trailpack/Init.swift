import ArgumentParser
import Foundation
import TrailPackBuilder
import TrailPackCore

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Start a tour folder (example, spreadsheet or GPX).",
        usage: """
            trailpack init <folder> [--from-gpx <file> | --from-csv <file>]
            trailpack init <folder> --from-csv <file> [--language <tag>]
            trailpack init --csv-template <file>
            """,
        discussion: """
            Without --from-gpx or --from-csv, the folder gets one example stop. With a GPX file (1.0 or 1.1) \
            from a handheld GPS unit or a mapping program, every <wpt> becomes a stop, in file order: its \
            <name>, its coordinate, and as description its <desc> (as plain text when a mapping program \
            wrote HTML); <cmt> (the unit's own note, such as a geocache code), <ele> (metres), <time>, \
            <sym> and <type> become the properties comment, elevationMeters, time, symbol and type. With \
            --stops-from route, \
            the <rtept> points of the file's routes become the stops instead. Stops with the same name are \
            told apart with (2), (3)... and a note says so. The file's recorded track (<trk>; or its \
            <rte> when it has no track and the stops are waypoints) becomes the tour's route, route.geojson: \
            simplified to within --simplify metres (5 by default) while its length stays within 0.5 % of the \
            recording, and the stops are numbered in their order along it.

            With a spreadsheet saved as CSV (comma, semicolon or tab; Excel's and LibreOffice's exports), \
            every row becomes a stop. Columns are found by their header: name (or stop, title), latitude \
            (lat), longitude (lon, lng) or one coordinates column, description, order, photo, audio, video; \
            any other column becomes a property of the stop. Coordinates may be decimal degrees (44.4200, \
            or 44,4200) or degrees, minutes and seconds (44°25'12"N). The files named under photo, audio \
            and video are looked up in --media (default: the spreadsheet's folder) and copied into the stop \
            folders. Every problem is listed with its row and column, and nothing is written until all rows \
            are good. --csv-template writes a spreadsheet to start from.

            A tour in several languages: columns such as name_es, description_es, "Description (es)" or \
            audio_es give a stop's texts and recordings in that language (a BCP 47 tag: es, es-419, zh-Hant). \
            The plain columns are in the default language, --language (English, en, when the sheet has \
            language columns and no --language is given); tour.json then lists the languages, the default \
            first, and each stop's name and description are written per language ({"en": ..., "es": ...}).

            Examples:
              trailpack init ./fish-lake-tour
              trailpack init ./fish-lake-tour --from-gpx stops.gpx
              trailpack init --csv-template stops.csv
              trailpack init ./fish-lake-tour --from-csv stops.csv --media photos
              trailpack init ./ruta-del-lago --from-csv paradas.csv --language es

            Exit codes: 0 created, 1 the spreadsheet has problems (nothing written), 2 usage error \
            (the folder already holds a tour, a bad GPX file), 3 I/O error.
            """)

    @Argument(help: "The folder to create.")
    var folder: String?

    @Option(name: .customLong("from-gpx"), help: "A GPX file whose <wpt> points become the waypoints.")
    var gpx: String?

    @Option(
        name: .customLong("stops-from"),
        help: "With --from-gpx: which points become stops, waypoints (<wpt>) or route (<rtept>).")
    var stopsFrom: GPXReader.Stops?

    @Option(
        help: ArgumentHelp(
            "With --from-gpx: how far (in metres) the tour's route may stray from the recorded track when it is simplified (halved until the length stays within 0.5 %).",
            valueName: "metres"))
    var simplify: Double = TourRoute.defaultTolerance

    @Option(name: .customLong("from-csv"), help: "A spreadsheet (CSV) with one row per stop.")
    var csv: String?

    @Option(help: "The folder holding the photos, audio and video the spreadsheet names.")
    var media: String?

    @Option(
        help: ArgumentHelp(
            "With --from-csv: the language of the spreadsheet's plain columns (name, description), a BCP 47 tag.",
            valueName: "tag"))
    var language: String?

    @Option(name: .customLong("csv-template"), help: "Write a spreadsheet (CSV) to fill in, and stop.")
    var csvTemplate: String?

    @Flag(help: "Print the result as JSON on standard output (the report shape of 'trailpack --help').")
    var json = false

    func validate() throws {
        if csvTemplate == nil, folder == nil {
            throw ValidationError("give the folder to create, such as 'trailpack init ./my-tour'")
        }
        if gpx != nil, csv != nil { throw ValidationError("give either --from-gpx or --from-csv, not both") }
        if media != nil, csv == nil { throw ValidationError("--media goes with --from-csv") }
        if let language {
            guard csv != nil else { throw ValidationError("--language goes with --from-csv") }
            guard LanguageTag.isWellFormed(language.replacingOccurrences(of: "_", with: "-")) else {
                throw ValidationError(
                    "--language '\(language)' is not a language tag; "
                        + "give one such as en, es, es-419 or zh-Hant (BCP 47)")
            }
        }
        if stopsFrom != nil, gpx == nil { throw ValidationError("--stops-from needs --from-gpx FILE") }
        if !(simplify.isFinite && (0...1_000).contains(simplify)) {
            throw ValidationError("--simplify must be 0 to 1000 metres")
        }
    }

    func run() throws {
        if let csvTemplate {
            try writeTemplate(csvTemplate)
            guard folder != nil else { return }
        }
        guard let folder else { return }
        if let csv {
            try fromCSV(csv, folder: folder)
            return
        }
        if let gpx, Self.looksLikeXML(gpx) == false {
            throw CLIError.usage(
                "'\(gpx)' is not a GPX file (it does not start with '<'); for a spreadsheet use --from-csv \(gpx)")
        }
        let read =
            try gpx.map { try TourInit.readGPX(path: $0, stops: stopsFrom ?? .waypoints, tolerance: simplify) }
            ?? TourInit.GPXStops(stops: [], notes: [])
        let files = try TourInit.scaffold(folder: folder, stops: read.stops, route: read.route, name: read.name)
        for note in read.notes { CLI.note("note: " + TerminalText.escaped(note)) }
        report(folder: folder, files: files)
    }

    /// Whether the file's first non-blank character (after a byte-order mark) is '<'; nil when it
    /// cannot be read (the reader that follows reports that).
    static func looksLikeXML(_ path: String) -> Bool? {
        guard let handle = FileHandle(forReadingAtPath: path), let head = try? handle.read(upToCount: 512) else {
            return nil
        }
        try? handle.close()
        var bytes = Array(head)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return nil }
        return first == UInt8(ascii: "<")
    }

    private func writeTemplate(_ path: String) throws {
        if FileManager.default.fileExists(atPath: path) {
            throw CLIError.usage("'\(path)' already exists; give a new file name for the template")
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(CSVImport.template)) else {
            throw CLIError.io("cannot write '\(path)'; check that its folder exists and can be written")
        }
        if json && folder == nil {
            Report.print(ok: true, findings: [], [JSONMember("files", .array([.string(path)]))])
        }
        CLI.note(
            """
            wrote \(path): open it in a spreadsheet, write one row per stop, save it as CSV, then run:
              trailpack init ./my-tour --from-csv \(path) --media <folder with the photos>
            """)
    }

    private func fromCSV(_ csv: String, folder: String) throws {
        guard FileManager.default.fileExists(atPath: csv) else { throw CLIError.io("'\(csv)' does not exist") }
        if Self.looksLikeXML(csv) == true {
            throw CLIError.usage("'\(csv)' is an XML file, not a spreadsheet; for a GPX file use --from-gpx \(csv)")
        }
        let sheet = try CSVImport.read(csvPath: csv, mediaFolder: media, language: language)
        let findings = sheet.findings
        guard let stops = sheet.stops else {
            CLI.printFindings(findings, to: .standardError)
            Report.pendingFindings = findings
            CLI.printError("the spreadsheet has \(CLI.counts(findings)); nothing was written")
            throw ExitCode(CLIExit.invalid.rawValue)
        }
        if !findings.isEmpty { CLI.printFindings(findings, to: .standardError) }
        let files = try CSVImport.writeTour(folder: folder, stops: stops, languages: sheet.languages)
        for note in sheet.notes { CLI.note("note: " + TerminalText.escaped(note)) }
        report(folder: folder, files: files, findings: findings, languages: sheet.languages)
    }

    private func report(folder: String, files: [String], findings: [Finding] = [], languages: [String] = []) {
        if json {
            Report.print(
                ok: true, findings: findings,
                [JSONMember("folder", .string(folder)), JSONMember("files", .array(files.map { .string($0) }))])
            return
        }
        CLI.out("created \(folder) with \(files.count) files:\n")
        for f in files { CLI.out("  \(f)\n") }
        if let first = languages.first {
            let others = languages.dropFirst().map { ", " + LanguageTag.describe($0) }.joined()
            CLI.out("languages: \(LanguageTag.describe(first)) (the default)\(others)\n")
        }
        let media =
            csv != nil
            ? "the stops' files are copied into their folders and listed under \"assets\""
            : "drop photos, audio and video into the waypoint folders and list them under \"assets\""
        let perLanguage =
            languages.count > 1
            ? " Write the tour's name, park and description in each language, as "
                + "\"name\": {\"\(languages[0])\": \"...\", \"\(languages[1])\": \"...\"}."
            : ""
        CLI.out(
            """
            next: edit tour.json (id, name, park, site, description) and each waypoint.json; \
            \(media).\(perLanguage) Then run:
              trailpack validate \(folder)
              trailpack build \(folder)

            """)
    }
}

extension GPXReader.Stops: ExpressibleByArgument {}
