import ArgumentParser
import Foundation
import TrailPackCore
import TrailPackCrypto
import TrailPackDiff
import TrailPackVerifier

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what changed between two versions of a package.",
        usage: "trailpack diff <old package> <new package> [--json]",
        discussion: """
            For the reviewer who approves a new version: stops added, removed, renamed, reordered and \
            moved (with the distance), descriptions (words removed [-like this-] and added {+like this+}), \
            properties, photos and other files (by SHA-256, with sizes), the map frame, the offline map, \
            and the package's size. Both packages' structure and manifest are checked first; a stop keeps \
            its identity by its folder name, then its name, then its place (within 25 m), then a shared file.

            Examples:
              trailpack diff santiam-1.0.0.zip santiam-1.1.0.zip
              trailpack diff old.zip new.zip --json | jq '.diff.stops'

            Exit codes: 0 compared (the output says whether anything changed), 1 a package is not valid, \
            2 usage error, 3 a file cannot be read.
            """)

    @Argument(help: "The older package (.zip): the released version.")
    var old: String

    @Argument(help: "The newer package (.zip): the version to review.")
    var new: String

    @Flag(help: "Print the differences as JSON (docs/DIFF.md describes the fields).")
    var json = false

    func run() throws {
        let oldReader = try CLI.openPackage(old), newReader = try CLI.openPackage(new)
        let routes: (Route?, Route?)
        do { routes = (try oldReader.route(), try newReader.route()) } catch {
            CLI.printFindings(error.findings, to: .standardError)
            throw CLIError(code: .invalid, message: "a package's route is damaged; run 'trailpack verify' on both")
        }
        let diff = PackageDiff(
            old: oldReader.manifest, new: newReader.manifest,
            oldPackage: try Self.identity(old), newPackage: try Self.identity(new), oldRoute: routes.0,
            newRoute: routes.1)
        if json {
            Report.print(
                ok: true, findings: [],
                [
                    JSONMember("old", .string(old)), JSONMember("new", .string(new)),
                    JSONMember("changed", .bool(diff.hasChanges)),
                    JSONMember("diff", try DiffText.jsonValue(diff)),
                ])
        } else {
            print(DiffText.render(diff), terminator: "")
        }
    }

    /// The file's SHA-256 and size, for the header (a whole-file hash: both files are read once).
    static func identity(_ path: String) throws -> (sha256: String, size: Int64) {
        do {
            let result = try FileHashing.sha256(path: path)
            return (result.digest.hex, result.size)
        } catch {
            throw CLIError.io("\(error)")
        }
    }
}
