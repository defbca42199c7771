import ArgumentParser
import Foundation
import TrailPackArchive
import TrailPackCore
import TrailPackVerifier

struct Extract: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Verify a package, then unpack it safely.",
        usage: "trailpack extract <package> <folder> [--force]",
        discussion: """
            The package is verified first; nothing is written if it is not valid. Files are written into \
            a temporary folder beside the target and renamed into place at the end, so the target \
            either appears complete or not at all. No path can lead outside the target, and no links \
            are created.

            Examples:
              trailpack extract santiam.zip ./santiam
              trailpack extract santiam.zip ./santiam --force

            Exit codes: 0 extracted, 1 the package is not valid, 2 usage error (the folder exists), 3 I/O error.
            """)

    @Argument(help: "The package (.zip).")
    var package: String

    @Argument(help: "The folder to create.")
    var directory: String

    @Flag(help: "Replace the folder if it already exists.")
    var force = false

    @Flag(help: "Print the result as JSON on standard output (the report shape of 'trailpack --help').")
    var json = false

    func run() throws {
        do {
            let extraction = try PackageExtractor.extract(path: package, to: directory, replace: force)
            let report = extraction.report, count = extraction.files
            if json {
                Report.print(
                    ok: true, findings: report.findings,
                    [
                        JSONMember("directory", .string(directory)),
                        JSONMember("files", .number(JSONNumber(Int64(count)))),
                        JSONMember("sha256", .string(report.sha256.hex)),
                    ])
            } else {
                CLI.out("extracted \(count) files to \(directory) (package sha256 \(report.sha256.hex))\n")
            }
        } catch let error as PackageError where error.code == .invalid {
            CLI.printFindings(error.findings, to: .standardError)
            Report.pendingFindings = error.findings
            throw error
        }
    }
}
