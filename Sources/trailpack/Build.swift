import ArgumentParser
import Foundation
import TrailPackBuilder
import TrailPackCore
import TrailPackCrypto
import TrailPackMap
import TrailPackVerifier

struct Build: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Package a tour folder as a ZIP and its .sha256.",
        usage: "trailpack build <folder> [-o <file.zip>] [--json] [--quiet] [--force]",
        discussion: """
            Every problem in the folder is reported before anything is written. The package is written \
            under a temporary name and renamed at the end, so the output path holds the previous \
            package or the complete new one, never a partial file. The same folder always gives the \
            same bytes; SOURCE_DATE_EPOCH sets the time stamped on the entries (default 1980-01-01).

            A package of the same id and version with other bytes is not replaced (servers and phones \
            refuse it): raise "version" in tour.json, or pass --force. Files larger than the phones' \
            budget are warnings.

            Examples:
              trailpack build ./santiam-wagon-road
              trailpack build ./santiam-wagon-road -o dist/santiam.zip --json

            Exit codes: 0 built, 1 the tour has problems (nothing written), 2 usage error (or the same \
            version with other bytes, without --force), 3 I/O error.
            """)

    @Argument(help: "The tour folder (the one holding tour.json).")
    var folder: String

    @Option(name: .shortAndLong, help: "The package to write (default: <id>-<version>.zip in the current folder).")
    var output: String?

    @Option(
        name: .customLong("min-map-zoom"),
        help: "Warn when the map's most detailed zoom is below this (14 suits walking).")
    var minMapZoom: Int = 14

    @Flag(help: "Print the result as JSON on standard output.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @Flag(help: "Replace a package of the same id and version even when its bytes differ.")
    var force = false

    @OptionGroup(title: "Phones' budget")
    var budget: BudgetOptions

    func run() throws {
        let started = Date()
        let timestamp = try TourBuilder.timestamp()
        let progress = !quiet && !json && BuildProgress.stderrIsTerminal ? BuildProgress() : nil
        let plan: TourBuilder.Plan
        switch try TourBuilder.plan(
            folder, progress: progress, budget: budget.budget, map: MapCheckOptions(minDetailZoom: minMapZoom))
        {
        case .ready(let ready):
            plan = ready
        case .findingsOnly(let findings):
            if json {
                Report.print(ok: false, findings: findings, [JSONMember("built", .bool(false))])
            } else {
                CLI.printFindings(findings, to: .standardError)
                CLI.printError("the tour has \(CLI.counts(findings)); nothing was written")
            }
            throw ExitCode(CLIExit.invalid.rawValue)
        }
        let findings = plan.findings
        if !quiet && !json && !findings.isEmpty { CLI.printFindings(findings, to: .standardError) }
        let path = output ?? TourBuilder.defaultFileName(for: plan.outline)
        // What the report says of the manifest, taken before the write consumes the plan (and lets
        // the manifest go), from its outline: the stops' assets are not made for it.
        let (id, version, name) = (plan.outline.id, plan.outline.version, plan.outline.name)
        let languagesJSON = json ? Inspect.languagesJSON(plan.outline, bytes: plan.phoneBytes(for:)) : []
        let languageLines =
            json || quiet ? "" : Inspect.languageLines(plan.outline, labelWidth: 11, bytes: plan.phoneBytes(for:))
        ProcessPolicy.removeTemporaryFilesOnInterrupt()
        ProcessPolicy.releaseFreeMemory()
        // Nothing reads the package right after: its pages are let go as they reach the disk, so a
        // 1 GB build neither pushes the rest of the page cache out nor lands on fresh pages (on a
        // VM whose host takes back free memory, fresh pages made durable builds slow at random).
        let result = try TourBuilder.write(
            consume plan, to: path, timestamp: timestamp, progress: progress, pagesWritten: .letGo
        ) { newSHA256 in
            if !force {
                try Self.refuseSilentReplacement(path: path, id: id, version: version, newSHA256: newSHA256)
            }
        }
        let seconds = Date().timeIntervalSince(started)
        if json {
            Report.print(
                ok: true, findings: findings,
                JSONValue.object([
                    "built": .bool(true),
                    "package": .string(result.packagePath),
                    "checksumFile": .string(result.checksumPath),
                    "sha256": .string(result.sha256.hex),
                    "id": .string(id),
                    "version": .string(version),
                    "waypoints": .number(JSONNumber(Int64(result.waypointCount))),
                    "assets": .number(JSONNumber(Int64(result.assetCount))),
                    "assetBytes": .number(JSONNumber(result.assetBytes)),
                    "packageBytes": .number(JSONNumber(result.packageBytes)),
                    "seconds": .number(JSONNumber((seconds * 1000).rounded() / 1000)),
                    "flushSeconds": .number(JSONNumber((result.flushSeconds * 1000).rounded() / 1000)),
                    "languages": .array(languagesJSON),
                ]).members)
        } else if !quiet {
            CLI.outRaw(Output.paint("built", .ok, fd: 1) + " ")
            CLI.out(
                """
                \(result.packagePath)
                  tour       \(name) (\(id) version \(version))
                  waypoints  \(result.waypointCount)
                  assets     \(result.assetCount), \(Format.bytes(result.assetBytes))
                \(languageLines)  package    \(Format.bytes(result.packageBytes)) (\(result.packageBytes) bytes)
                  sha256     \(result.sha256.hex)
                  checksum   \(result.checksumPath)
                  time       \(String(format: "%.2f", seconds)) s (of which \(String(format: "%.2f", result.flushSeconds)) s flushing to disk)

                """)
        }
    }

    /// A package already at `path` with the same id and version but other bytes: servers and
    /// phones that hold that version refuse the new bytes, so say so instead of replacing it.
    static func refuseSilentReplacement(path: String, id: String, version: String, newSHA256: SHA256Digest) throws {
        // The manifest's id and version first, read alone (opening the old package held its whole
        // directory and manifest beside the builder's own: 116 MiB where the build took 84, at
        // 100,000 files): another id or version (a ranger's usual `-o tour.zip`) needs no hash of
        // the old package, which may be gigabytes. Only a package that is about to be refused is
        // opened whole: one that does not open as a valid package is no version anyone holds, and
        // is replaced.
        guard let old = PackageReader.identity(path: path), old.id == id, old.version == version,
            let oldHash = try? FileHashing.sha256(path: path), oldHash.digest != newSHA256,
            let opened = try? PackageReader(path: path), opened.manifest.id == id, opened.manifest.version == version
        else { return }
        throw CLIError.usage(
            """
            '\(path)' already holds \(id) version \(version) with other contents; servers and phones \
            that have version \(version) refuse different bytes under the same version. Raise "version" in \
            tour.json (to \(Self.nextVersion(version))), or pass --force to replace the package anyway; nothing was written
            """)
    }

    /// `1.0.0` → `1.0.1`; `3` → `4`.
    static func nextVersion(_ version: String) -> String {
        var parts = version.split(separator: ".").map(String.init)
        if let last = parts.last, let n = Int(last) { parts[parts.count - 1] = String(n + 1) }
        return parts.joined(separator: ".")
    }
}
