import Foundation
import Testing
import TrailPackArchive
import TrailPackCore
import TrailPackCrypto
import TrailPackTestSupport
import TrailPackVerifier

/// The verifier against the ZIP reader alone: this target depends on TrailPackVerifier only, so it
/// cannot import the writer or the builder (SwiftPM refuses to compile such an import). The
/// packages come from the `trailpack` program, run as a separate process.
@Suite("verifier, with the reader module alone", .ownThreads)
struct ReaderOnlyVerifierTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static var binary: String {
        ProcessInfo.processInfo.environment["TRAILPACK_BIN"] ?? root + "/.build/debug/trailpack"
    }

    /// Builds fixture `name` with the trailpack program into `dir`; returns the package's path
    /// and the SHA-256 from the `.sha256` file written beside it.
    static func build(_ name: String, into dir: String) throws -> (path: String, sha256: String) {
        let output = dir + "/" + name + ".zip"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["build", root + "/fixtures/" + name, "-o", output, "--quiet"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "trailpack build \(name): \(message)")
        let line = try String(contentsOfFile: output + ".sha256", encoding: .utf8)
        return (output, String(line.prefix(64)))
    }

    static func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
        let path = NSTemporaryDirectory() + "trailpack-reader-only-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    @Test(
        "a package built by the program verifies, with its SHA-256, and every asset streams with its declared size",
        arguments: ["santiam-wagon-road", "colorado-fourteeners", "family-hikes"])
    func validPackage(name: String) throws {
        try Self.withTemporaryDirectory { dir in
            let (path, hex) = try Self.build(name, into: dir)
            let expected = try #require(SHA256Digest(hex: hex), "the .sha256 file holds '\(hex)'")
            let report = try Verifier.verify(path: path, options: .init(expectedSHA256: expected))
            #expect(report.isValid, "\(report.findings)")
            #expect(report.sha256Matches == true)
            let manifest = try #require(report.manifest)
            let reader = try PackageReader(path: path)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
            defer { buffer.deallocate() }
            for asset in manifest.allAssets {
                let stream = try reader.openAsset(asset.path)
                var size: Int64 = 0
                while case let n = try stream.read(into: buffer), n > 0 { size += Int64(n) }
                #expect(size == asset.size, "\(asset.path)")
            }
        }
    }

    @Test("one flipped byte: the whole-file hash disagrees; inside a stored asset, the asset's own check fails too")
    func flippedByte() throws {
        try Self.withTemporaryDirectory { dir in
            let (path, hex) = try Self.build("santiam-wagon-road", into: dir)
            let directory = try ZipDirectory.read(FileSource(path: path))
            let stored = try #require(
                directory.entries.filter { $0.method == 0 && $0.uncompressedSize > 16 && $0.name != Manifest.entryName }
                    .first)
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            bytes[Int(try #require(stored.dataOffset)) + Int(stored.uncompressedSize) / 2] ^= 0x20
            let report = try Verifier.verify(
                source: MemorySource(bytes), options: .init(expectedSHA256: SHA256Digest(hex: hex)))
            #expect(!report.isValid)
            let codes = Set(report.findings.map(\.code))
            #expect(codes.contains(.packageSHA256Mismatch), "\(codes)")
            #expect(
                report.findings.contains { $0.file == stored.name },
                "no finding names '\(stored.name)': \(report.findings)")
        }
    }

    @Test("a truncated package is reported, not a crash, at every cut", arguments: [0, 1, 21, 22, 100, 4096])
    func truncated(keep: Int) throws {
        try Self.withTemporaryDirectory { dir in
            let (path, _) = try Self.build("family-hikes", into: dir)
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let cut = Array(bytes.prefix(min(keep, bytes.count - 1)))
            let report = try Verifier.verify(source: MemorySource(cut))
            #expect(!report.isValid)
            #expect(report.findings.hasErrors)
            #expect(throws: PackageError.self) { try PackageReader(source: MemorySource(cut)) }
        }
    }
}
