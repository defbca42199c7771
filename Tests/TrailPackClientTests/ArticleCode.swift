// swift-format-ignore-file
// (The DocC articles show this code verbatim and ArticleTests checks it, so it keeps their layout.)
// The code of the DocC articles in Sources/TrailPackClient/TrailPackClient.docc/, verbatim:
// ArticleTests checks that every ```swift block of those articles appears in this file, and runs
// it. Edit the code here and in the article together.

import Foundation
import TrailPackClient

/// Downloads a package into the app's library: resumable, checked, installed atomically.
func downloadPackage(id: String, from server: URL, into folder: String) async throws -> InstalledPackage {
    let fetcher = PackageFetcher(client: CatalogClient(server: server), library: PackageLibrary(folder: folder))
    do {
        let outcome = try await fetcher.fetch(id: id) { stage in
            if case .downloading(let progress) = stage {
                print("received \(progress.received) of \(progress.total) bytes")
            }
        }
        return outcome.installed
    } catch let error as ClientError where error.code == .damaged {
        // The download was deleted; nothing was installed. The design says: try again.
        return try await fetcher.fetch(id: id).installed
    }
}

/// Why a package stored on the device may not be opened.
enum PackageCheckError: Error {
    /// The expected hash is not 64 hexadecimal digits: never treat that as "no hash".
    case malformedHash(String)
    /// The package failed verification: these findings, each with a stable code.
    case failed([Finding])
}

/// Checks a package file the app holds before opening it: every byte, against the hash it
/// was downloaded with.
func checkPackage(at path: String, expectedSHA256 hex: String) throws -> Manifest {
    guard let expected = SHA256Digest(hex: hex) else { throw PackageCheckError.malformedHash(hex) }
    let report = try Verifier.verify(path: path, options: .init(expectedSHA256: expected))
    guard report.isValid, let manifest = report.manifest else {
        throw PackageCheckError.failed(report.findings.filter { $0.severity == .error })
    }
    return manifest
}

/// Streams one asset to a player, a chunk at a time. The bytes are checked as they pass (size,
/// CRC-32, SHA-256 against the manifest); they count as trusted only once `read` returns 0.
func play(_ assetPath: String, from packagePath: String, to player: (UnsafeRawBufferPointer) -> Void) throws -> Asset {
    let reader = try PackageReader(path: packagePath)
    let stream = try reader.openAsset(assetPath)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    defer { buffer.deallocate() }
    while true {
        let count = try stream.read(into: buffer)
        if count == 0 { return stream.asset }
        player(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }
}

/// What a player does when the end of the stream shows the asset was altered.
func playOrExplain(_ assetPath: String, from packagePath: String, to player: (UnsafeRawBufferPointer) -> Void) -> String {
    do {
        let asset = try play(assetPath, from: packagePath, to: player)
        return "played \(asset.path)"
    } catch let error as PackageError where error.code == .assetMismatch {
        // Stop playback and discard what was shown; download the package again.
        return "\(error.path ?? assetPath) is damaged (\(error.findings.first?.code.rawValue ?? "?")); download the package again"
    } catch {
        return "cannot play \(assetPath): \(error)"
    }
}
