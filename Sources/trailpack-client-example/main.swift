// What an app does, as a program that links only the TrailPackClient product (and so no ZIP
// writer, no libarchive): fetch a package from a trailpack server into a library folder, verify
// the installed file again, and read one asset from it as a checked stream.
//
//   trailpack-client-example SERVER-URL PACKAGE-ID LIBRARY-DIR ASSET-PATH
//
// Prints one JSON object on standard output. Exit codes: 0 the asset was read and every check
// passed, 1 a check failed or the server refused, 2 usage error, 3 input/output error.
import Foundation
import TrailPackClient

func fail(_ message: String, _ code: Int32) -> Never {
    FileHandle.standardError.write(Data("trailpack-client-example: \(message)\n".utf8))
    exit(code)
}

let arguments = CommandLine.arguments
guard arguments.count == 5, let server = URL(string: arguments[1]), server.scheme != nil else {
    fail("usage: trailpack-client-example SERVER-URL PACKAGE-ID LIBRARY-DIR ASSET-PATH", 2)
}
let (packageID, libraryFolder, assetPath) = (arguments[2], arguments[3], arguments[4])

// 1. Fetch: download (resumable), length and SHA-256 against the catalog, full verify, install.
let fetcher = PackageFetcher(client: CatalogClient(server: server), library: PackageLibrary(folder: libraryFolder))
let outcome: PackageFetcher.Outcome
do {
    outcome = try await fetcher.fetch(id: packageID)
} catch {
    fail("\(error)", error.code == .io ? 3 : 1)
}
let path = fetcher.library.path(of: outcome.installed)

// 2. Verify the installed file again, as an app does before it opens a package it stored earlier.
let report: VerificationReport
do {
    report = try Verifier.verify(
        path: path, options: .init(expectedSHA256: SHA256Digest(hex: outcome.installed.sha256)))
} catch {
    fail("cannot read '\(path)': \(error)", 3)
}
guard report.isValid else {
    fail("'\(path)' failed verification: \(report.findings.first.map(\.description) ?? "?")", 1)
}

// 3. Read one asset as a checked stream: size, CRC-32 and SHA-256 against the manifest.
func readAsset(_ assetPath: String, in path: String) throws -> (size: Int64, sha256: SHA256Digest) {
    let reader = try PackageReader(path: path)
    let stream = try reader.openAsset(assetPath)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    defer { buffer.deallocate() }
    var size: Int64 = 0
    var sha = SHA256()
    while case let n = try stream.read(into: buffer), n > 0 {
        sha.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        size += Int64(n)
    }
    return (size, sha.finalize())
}
let read: (size: Int64, sha256: SHA256Digest)
do {
    read = try readAsset(assetPath, in: path)
} catch {
    fail("\(error)", 1)
}

let result: [String: Any] = [
    "id": outcome.installed.id, "version": outcome.installed.version, "sha256": outcome.installed.sha256,
    "asset": ["path": assetPath, "size": read.size, "sha256": read.sha256.hex],
]
let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
FileHandle.standardOutput.write(json + Data("\n".utf8))
