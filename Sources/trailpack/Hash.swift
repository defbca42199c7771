import ArgumentParser
import Foundation
import TrailPackCore
import TrailPackCrypto

struct Hash: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash",
        abstract: "Print SHA-256 sums in sha256sum's format.",
        usage: "trailpack hash <file>...",
        discussion: """
            The output can be checked with 'sha256sum -c'. A '-' reads standard input.

            Examples:
              trailpack hash santiam-wagon-road-1.zip
              trailpack hash *.zip > SHA256SUMS && sha256sum -c SHA256SUMS

            Exit codes: 0 all files hashed, 2 usage error, 3 a file could not be read (the others are still printed).
            """)

    @Argument(help: "The files to hash.")
    var files: [String] = ["-"]

    @Flag(help: "Print the result as JSON on standard output (the report shape of 'trailpack --help').")
    var json = false

    func run() throws {
        var failed = false
        var results: [JSONValue] = []
        for file in files {
            do {
                let digest = file == "-" ? try hashStandardInput() : try FileHashing.sha256(path: file).digest
                if json {
                    results.append(.object(["file": .string(file), "sha256": .string(digest.hex), "error": .null]))
                } else {
                    CLI.outRaw(digest.sha256sumLine(name: file))
                }
            } catch {
                CLI.printError("\(error)")
                results.append(.object(["file": .string(file), "sha256": .null, "error": .string("\(error)")]))
                failed = true
            }
        }
        if json {
            Report.print(
                ok: !failed, findings: [], [JSONMember("files", .array(results))],
                error: failed ? ("io", "some files could not be read; see each file's error") : nil)
        }
        if failed { throw ExitCode(CLIExit.io.rawValue) }
    }

    private func hashStandardInput() throws -> SHA256Digest {
        try FileHashing.sha256(fileDescriptor: .standardInput, name: "standard input").digest
    }
}
