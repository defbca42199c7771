import ArgumentParser
import Foundation
import SystemPackage
import TrailPackFileIO
import TrailPackVerifier

#if canImport(Glibc)
import Glibc
#endif

struct Cat: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cat",
        abstract: "Stream one checked asset to standard output.",
        usage: "trailpack cat <package> <asset>",
        discussion: """
            Nothing else is unpacked. The asset's SHA-256, size and CRC-32 are checked while it streams; \
            if they do not match, the command fails at the end (the bytes already written must then be \
            thrown away).

            Examples:
              trailpack cat santiam.zip waypoints/house-rock/birdsong.wav > bird.wav
              trailpack cat santiam.zip waypoints/fish-lake/about.md

            Exit codes: 0 the asset was streamed and matched, 1 it did not match or the package is not valid, \
            2 usage error (no such asset), 3 a file cannot be read or written.
            """)

    @Argument(help: "The package (.zip).")
    var package: String

    @Argument(help: "The asset's path in the package, as 'trailpack inspect' lists it.")
    var asset: String

    func run() throws {
        let reader = try CLI.openPackage(package)
        let stream: AssetStream
        stream = try reader.openAsset(asset)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let n: Int
            do { n = try stream.read(into: buffer) } catch {
                guard error.code == .io else { throw CLIError(code: .invalid, message: "\(error); discard the output") }
                throw error
            }
            if n == 0 { break }
            try FileDescriptor.standardOutput.writeAll(
                UnsafeRawBufferPointer(rebasing: buffer[0..<n]), path: "standard output")
        }
    }
}

extension CLI {
    /// Opens a package for reading single assets, turning failures into the documented exit codes.
    static func openPackage(_ path: String) throws -> PackageReader {
        do {
            return try PackageReader(path: path)
        } catch {
            switch error.code {
            case .invalid:
                printFindings(error.findings, to: .standardError)
                Report.pendingFindings = error.findings
                throw CLIError(
                    code: .invalid,
                    message:
                        "'\(path)' is not a valid package (\(counts(error.findings))); run 'trailpack verify \(path)' for the full report"
                )
            case .io:
                // A tour folder given where a package is expected: say what to run instead.
                if CLI.isDirectory(path) {
                    throw CLIError.io(
                        "'\(path)' is a folder, not a package; check a tour folder with 'trailpack validate \(path)', or build it with 'trailpack build \(path)'"
                    )
                }
                throw error
            default: throw error
            }
        }
    }
}
