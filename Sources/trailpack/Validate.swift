import ArgumentParser
import Foundation
import TrailPackBuilder
import TrailPackCore
import TrailPackFileIO
import TrailPackMap

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "List every problem in a tour folder or manifest.",
        usage: "trailpack validate <folder or manifest.json> [--json] [budget options]",
        discussion: """
            A folder is checked as 'trailpack build' would read it (every asset is opened and hashed); \
            a file is checked as a manifest.json of format version 1.

            Examples:
              trailpack validate ./santiam-wagon-road
              trailpack validate manifest.json --json

            Exit codes: 0 valid (warnings allowed), 1 problems found, 2 usage error, 3 I/O error.
            """)

    @Argument(help: "A tour folder, or a manifest.json file.")
    var path: String

    @Option(
        name: .customLong("min-map-zoom"),
        help: "Warn when the map's most detailed zoom is below this (14 suits walking).")
    var minMapZoom: Int = 14

    @Flag(help: "Print the findings as JSON.")
    var json = false

    @OptionGroup(title: "Phones' budget")
    var budget: BudgetOptions

    func run() throws {
        var findings: [Finding]
        let what: String
        var manifest: Manifest?
        var route: Route?
        if CLI.isDirectory(path) {
            let progress = !json && BuildProgress.stderrIsTerminal ? BuildProgress() : nil
            let outcome = try TourBuilder.plan(
                path, progress: progress, budget: budget.budget, map: MapCheckOptions(minDetailZoom: minMapZoom))
            findings = outcome.findings
            if case .ready(let plan) = outcome {
                manifest = plan.manifest
                route = plan.generated.first { $0.path == Route.entryName }.flatMap { RouteFile.read($0.bytes).route }
            }
            what = "tour folder '\(path)'"
        } else {
            guard FileManager.default.fileExists(atPath: path) else {
                throw CLIError.io(
                    "'\(path)' does not exist; give the tour folder (the one that holds tour.json), or a manifest.json")
            }
            // A spreadsheet or a GPS file is where a tour starts, not a tour: say how to make one from it.
            let ext = PathText.fileExtension(path).lowercased()
            if ["csv", "tsv", "gpx"].contains(ext) {
                let option = ext == "gpx" ? "--from-gpx" : "--from-csv"
                throw CLIError.usage(
                    "'\(path)' is a \(option == "--from-gpx" ? "GPS file" : "spreadsheet"), not a tour: make a tour folder from it with 'trailpack init TOUR-FOLDER \(option) \(path)', then validate the folder"
                )
            }
            let limit = JSONLimits.manifest.maxBytes
            // One byte past the limit: the reader then reports json.too-large as a finding.
            let bytes = try FileOperations.readPrefix(path, maxBytes: limit + 1)
            if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
                throw CLIError.usage("'\(path)' is a ZIP package; check it with 'trailpack verify \(path)'")
            }
            findings = ManifestReader.read(bytes).findings.map {
                $0.inFile(URL(fileURLWithPath: path).lastPathComponent)
            }
            what = "manifest '\(path)'"
        }
        if json {
            Report.print(
                ok: !findings.hasErrors, findings: findings,
                [JSONMember("valid", .bool(!findings.hasErrors)), JSONMember("path", .string(path))]
                    + (manifest.map { [JSONMember("languages", .array(Inspect.languagesJSON($0)))] } ?? []))
        } else {
            CLI.printFindings(findings)
            if findings.hasErrors {
                CLI.out("\(what) is not valid: \(CLI.counts(findings))\n")
            } else {
                CLI.outOK("\(what) is valid (\(CLI.counts(findings)))\n")
                // What a phone needs for each language (the package holds them all).
                if let manifest { CLI.out(Inspect.languageLines(manifest)) }
                // The route, and what the offline map costs a phone cut to the frame or to the route.
                if let manifest, let route {
                    CLI.out(
                        Inspect.routeLines(route, manifest: manifest)
                            + CorridorEstimate.mapCost(manifest, route: route, folder: path))
                }
            }
        }
        if findings.hasErrors { throw ExitCode(CLIExit.invalid.rawValue) }
    }
}
