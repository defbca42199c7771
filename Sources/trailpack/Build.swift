import ArgumentParser
import Foundation
import TrailPackBuilder
import TrailPackCore

struct Build: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Package a tour folder into a deterministic ZIP and its .sha256 file.",
        discussion: """
            Every problem in the folder is reported before anything is written. The package is written
            under a temporary name and renamed at the end, so the output path holds the previous
            package or the complete new one, never a partial file. The same folder always gives the
            same bytes; SOURCE_DATE_EPOCH sets the time stamped on the entries (default 1980-01-01).

            Examples:
              trailpack build ./santiam-wagon-road
              trailpack build ./santiam-wagon-road -o dist/santiam.zip --json

            Exit codes: 0 built, 1 the tour has problems (nothing written), 2 usage error, 3 I/O error.
            """)

    @Argument(help: "The tour folder (the one holding tour.json).")
    var folder: String

    @Option(name: .shortAndLong, help: "The package to write (default: <id>-<version>.zip in the current folder).")
    var output: String?

    @Flag(help: "Print the result as JSON on standard output.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func run() throws {
        let started = Date()
        let timestamp = try TourBuilder.timestamp()
        let progress = !quiet && !json && BuildProgress.stderrIsTerminal ? BuildProgress() : nil
        let (plan, findings) = try TourBuilder.plan(folder, progress: progress)
        guard let plan else {
            if json {
                CLI.printJSON(.object(["built": .bool(false), "findings": .array(findings.map(\.jsonValue))]))
            } else {
                CLI.printFindings(findings, to: .standardError)
                CLI.printError("the tour has \(CLI.counts(findings)); nothing was written")
            }
            throw ExitCode(CLIExit.invalid.rawValue)
        }
        if !quiet && !json && !findings.isEmpty { CLI.printFindings(findings, to: .standardError) }
        let path = output ?? TourBuilder.defaultFileName(for: plan.manifest)
        ProcessPolicy.removeTemporaryFilesOnInterrupt()
        let result = try TourBuilder.write(plan, to: path, timestamp: timestamp, progress: progress)
        let seconds = Date().timeIntervalSince(started)
        if json {
            CLI.printJSON(.object([
                "built": .bool(true),
                "package": .string(result.packagePath),
                "checksumFile": .string(result.checksumPath),
                "sha256": .string(result.sha256.hex),
                "id": .string(plan.manifest.id),
                "version": .string(plan.manifest.version),
                "waypoints": .number(JSONNumber(Int64(result.waypointCount))),
                "assets": .number(JSONNumber(Int64(result.assetCount))),
                "assetBytes": .number(JSONNumber(result.assetBytes)),
                "packageBytes": .number(JSONNumber(result.packageBytes)),
                "seconds": .number(JSONNumber((seconds * 1000).rounded() / 1000)),
                "flushSeconds": .number(JSONNumber((result.flushSeconds * 1000).rounded() / 1000)),
                "findings": .array(findings.map(\.jsonValue)),
            ]))
        } else if !quiet {
            let m = plan.manifest
            CLI.out("""
                built \(result.packagePath)
                  tour       \(m.name) (\(m.id) version \(m.version))
                  waypoints  \(result.waypointCount)
                  assets     \(result.assetCount), \(Format.bytes(result.assetBytes))
                  package    \(Format.bytes(result.packageBytes)) (\(result.packageBytes) bytes)
                  sha256     \(result.sha256.hex)
                  checksum   \(result.checksumPath)
                  time       \(String(format: "%.2f", seconds)) s (of which \(String(format: "%.2f", result.flushSeconds)) s flushing to disk)

                """)
        }
    }
}
