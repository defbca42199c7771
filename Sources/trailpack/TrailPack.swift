import ArgumentParser
import Foundation
import TrailPackArchive
import TrailPackBuilder
import TrailPackCore
import TrailPackVisitor

/// The `trailpack` command: nothing but parsing, calling the libraries, printing.
struct TrailPack: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "trailpack",
        abstract: "Offline content packages for self-guided trail tours.",
        discussion: """
            A ranger builds a package from a tour folder; servers and phones verify what they receive.

              trailpack init ./my-tour            start a tour folder (or --from-csv s.csv)
              trailpack validate ./my-tour        list every problem in it
              trailpack build ./my-tour           write <id>-<version>.zip and .sha256
              trailpack verify tour.zip           check a received package
              trailpack inspect tour.zip          show what is inside
              trailpack sign tour.zip             sign it (after trailpack keygen)
              trailpack serve --data ./data       serve packages to the apps

            Colour on a terminal: --color auto|always|never, before or after the command; NO_COLOR=1 turns it off.

            Exit codes (all commands):
              0  success: the input is valid
              1  the input has problems (each is listed with a code from docs/FORMAT.md)
              2  usage error: a wrong option or argument, or the wrong kind of input
              3  input/output error: a file cannot be read or written
            """,
        version: version,
        subcommands: [
            Init.self, Validate.self, Build.self, Verify.self, Inspect.self, Diff.self, Cat.self, Extract.self,
            MapCommand.self, Hash.self, Keygen.self, Sign.self, Serve.self, Admin.self, Fetch.self, VerifyUpload.self,
        ]
    )
}

extension TrailPack {
    /// `trailpack --version`: the version, the package format, and what is compiled in.
    static var versionText: String {
        let app = VisitorController.compiledIn
        return """
            trailpack \(version)
            package format: formatVersion \(Manifest.currentFormatVersion) (docs/FORMAT.md)
            compiled in: the visitor app served at /visit/ (\(app.files) files, \(Format.bytes(Int64(app.bytes))), \
            SHA-256 \(app.digest)…) and the panel's pages, script and style sheet
            read at run time from Debian's packages: Leaflet and Bootstrap (/usr/share/javascript, or --web-assets), \
            tweetnacl (/usr/share/nodejs/tweetnacl, when installed)
            """
    }
}

@main
enum Main {
    static func main() async {
        ProcessPolicy.keepLargeBuffersOutOfTheHeap()
        // `--version` says what the one file holds, for an operator checking an installed program.
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
            print(TrailPack.versionText)
            return
        }
        do {
            var command = try Suggestions.parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            Report.exit(for: error)
        }
    }
}
