import ArgumentParser
import Foundation
import TrailPackArchive
import TrailPackBuilder
import TrailPackCore

/// The `trailpack` command: nothing but parsing, calling the libraries, printing.
struct TrailPack: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "trailpack",
        abstract: "Build, check and read offline content packages for self-guided trail tours.",
        discussion: """
            A ranger builds a package from a tour folder; servers and phones verify what they receive.

              trailpack init ./my-tour            start a tour folder (--from-gpx f.gpx)
              trailpack validate ./my-tour        list every problem in it
              trailpack build ./my-tour           write <id>-<version>.zip and .sha256
              trailpack verify tour.zip           check a received package
              trailpack inspect tour.zip          show what is inside
              trailpack sign tour.zip             sign it (after trailpack keygen)
              trailpack serve --data ./data       serve packages to the apps

            Exit codes (all commands):
              0  success: the input is valid
              1  the input has problems (each is listed with a code from docs/FORMAT.md)
              2  usage error: a wrong option or argument, or the wrong kind of input
              3  input/output error: a file cannot be read or written
            """,
        version: version,
        subcommands: [Init.self, Validate.self, Build.self, Verify.self, Inspect.self, Cat.self, Extract.self, Hash.self, Keygen.self, Sign.self, Serve.self, Admin.self, Fetch.self]
    )
}

@main
enum Main {
    static func main() async {
        ProcessPolicy.keepLargeBuffersOutOfTheHeap()
        do {
            var command = try TrailPack.parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ExitCode {
            exit(error.rawValue)
        } catch let error as BuildError {
            CLI.fail(error)
        } catch let error as CLIError {
            CLI.printError(error.message)
            exit(error.code.rawValue)
        } catch {
            let code = TrailPack.exitCode(for: error)
            if code == .success { TrailPack.exit(withError: error) }
            if code == .validationFailure {
                CLI.printError(TrailPack.message(for: error) + "\nSee 'trailpack --help'.")
                exit(CLIExit.usage.rawValue)
            }
            CLI.printError("\(error)")
            exit(CLIExit.io.rawValue)
        }
    }
}
