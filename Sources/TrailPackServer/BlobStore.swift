import Foundation
import TrailPackCrypto
import TrailPackFileIO

#if canImport(Glibc)
import Glibc
#endif

/// Packages on disk, content-addressed by SHA-256 and immutable: `blobs/ab/abcdef….zip`.
///
/// Uploads stream into `tmp/` under a unique name, are flushed to disk, verified, and renamed
/// into place; nothing under `blobs/` is ever written in place. What an interrupted upload or a
/// killed server leaves in `tmp/` is removed at start (`DataFolder.removeOwnTemporaryFiles`); a
/// blob is recorded in the catalog before it is renamed into place, so no blob is unknown to it.
public struct BlobStore: Sendable {
    public let root: String

    public init(root: String) throws {
        self.root = root
        for dir in [root, root + "/blobs", root + "/tmp"] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
    }

    /// Where the package with this SHA-256 is kept: `blobs/ab/abcd….zip`. Only a digest has a path:
    /// text from a request or the catalog is checked (`digest(_:)`) before it names a file.
    public func path(for sha256: SHA256Digest) -> String { root + "/" + Self.relativePath(for: sha256) }

    /// `blobs/ab/abcd….zip`, the one rule for a blob's place in the data folder.
    public static func relativePath(for sha256: SHA256Digest) -> String {
        let hex = sha256.hex
        return "blobs/\(hex.prefix(2))/\(hex).zip"
    }

    /// The digest a catalog row names; a malformed one (a catalog edited by hand) is a 500 naming it.
    public static func digest(_ hex: String) throws -> SHA256Digest {
        guard hex.utf8.count == 64, let digest = SHA256Digest(hex: hex) else {
            throw ServerError.internal("the catalog names a package by a malformed SHA-256 '\(ServerError.short(hex))'")
        }
        return digest
    }

    /// The upload's file name inside its temporary folder.
    public static let uploadFileName = "package.zip"

    /// A new temporary folder for one upload, `tmp/upload-<UUID>` (the contained verifier's working folder).
    public func temporaryFolder() throws -> String {
        let path = "\(root)/tmp/upload-\(UUID().uuidString)"
        guard mkdir(path, 0o700) == 0 else {
            throw ServerError(
                FileIOError.system("mkdir", .last, "cannot make an upload folder in '\(root)/tmp'", path: path))
        }
        return path
    }

    /// Moves a verified upload into place (atomically; a blob already held is kept, the upload
    /// dropped — unless `replacing`: the held one was found damaged, and the upload's verified bytes
    /// take its place).
    public func commit(temporary: String, sha256: SHA256Digest, replacing: Bool = false) throws {
        let destination = path(for: sha256)
        try FileManager.default.createDirectory(
            atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if !replacing && FileManager.default.fileExists(atPath: destination) {
            unlink(temporary)
            return
        }
        // The upload was flushed when it was written (UploadSink.finish); the rename and the
        // folder's entry are flushed here, so a stored blob survives a power cut.
        do {
            try FileIO.rename(temporary, to: destination)
            try FileIO.syncFolder(FileIO.folder(of: destination))
        } catch { throw ServerError(error) }
    }
}
