import Foundation
import Hummingbird
import TrailPackCatalogModel
import TrailPackCrypto
import TrailPackFileIO

#if canImport(Glibc)
import Glibc
import TrailPackBlocking
#endif

/// Where the packages' bytes are kept: content-addressed by SHA-256 and immutable. A data folder
/// (`FolderBlobStore`, the default) or an S3-compatible object store (`S3BlobStore`, `serve --blobs
/// s3://…`), which several servers share.
///
/// An upload is verified and scanned from its local temporary file first; only then is it stored
/// (`commit`), after the catalog recorded its digest — so no stored blob is ever unknown to the
/// catalog. Nothing stored is written in place, and nothing is deleted: a damaged or unknown blob
/// is moved to the data folder's `quarantine/`.
public protocol BlobStore: Sendable {
    /// What the store is, for logs and messages: "the folder '/srv/data/blobs'", "s3://bucket at …".
    var description: String { get }
    /// Stores the verified upload at `temporary` (a file in the data folder's `tmp/`, gone afterwards).
    /// A blob already held is kept and the upload dropped — unless `replacing`: the held one was
    /// found damaged, and the upload's verified bytes take its place.
    func commit(temporary: String, sha256: SHA256Digest, size: Int64, replacing: Bool) async throws
    /// The stored blob's size, or nil when it is not there.
    func size(of sha256: SHA256Digest) async throws -> Int64?
    /// How a download of the stored blob (`size` bytes) is sent.
    func source(for sha256: SHA256Digest, size: Int64) async throws -> BlobSource
    /// A local file holding the blob's bytes, for reading in place (a review, a map tile, a scan, a
    /// signature's prehash): the folder store's own file; the object store's copy in the data
    /// folder's cache, checked against the SHA-256 when it was fetched.
    func localFile(for sha256: SHA256Digest) async throws -> String
    /// Reads the stored blob through and compares it with the catalog's size and SHA-256: nil when
    /// intact, else what is wrong ("missing", "has N bytes", "its SHA-256 is …").
    func check(sha256: SHA256Digest, size: Int64) async throws -> String?
    /// Every stored blob (for gc, scrub and the start-up check), by SHA-256.
    func list() async throws -> [(sha256: String, size: Int64)]
    /// Takes a blob out of service, keeping its bytes in the data folder's `quarantine/` with a
    /// note of why; returns where they are.
    func quarantine(sha256: String, reason: String) async throws -> String
}

/// A stored blob found not to be what the catalog says (missing, of another size, other bytes)
/// while it was being served: the download is refused and the blob taken out of service.
public struct BlobDamaged: Error, Sendable, CustomStringConvertible {
    /// What was found, for the log and the catalog's note.
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// How a download is sent.
public enum BlobSource: Sendable {
    /// A local file, sent by `sendfile` (or read in chunks under TLS).
    case file(path: String)
    /// A redirect to where the client fetches the bytes itself (a presigned URL, a CDN).
    case redirect(location: String)
    /// Bytes streamed from the store: the body for a byte range.
    case stream(@Sendable (ClosedRange<Int64>) async throws -> ResponseBody)
}

/// The names every store uses: a blob is named by its digest only.
public enum BlobNames {
    /// `blobs/ab/abcd….zip`, the one rule for a blob's place (a folder's path, an object's key).
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

    /// The digest in a stored name (`<sha256>.zip`), or nil for anything else.
    public static func digest(fileName name: String) -> SHA256Digest? {
        guard name.hasSuffix(".zip"), name.utf8.count == 68 else { return nil }
        return SHA256Digest(hex: String(name.dropLast(4)))
    }

    /// The upload's file name inside its temporary folder.
    public static let uploadFileName = "package.zip"
}

/// Packages in the data folder: `blobs/ab/abcdef….zip`. Uploads stream into `tmp/` under a unique
/// name, are flushed to disk, verified, and renamed into place; nothing under `blobs/` is ever
/// written in place. What an interrupted upload or a killed server leaves in `tmp/` is removed at
/// start (`DataFolder.removeOwnTemporaryFiles`).
public struct FolderBlobStore: BlobStore {
    public let folder: DataFolder
    /// Where blocking file work runs.
    let pool: BlockingPool

    public init(folder: DataFolder, pool: BlockingPool) throws {
        self.folder = folder
        self.pool = pool
        try FileManager.default.createDirectory(atPath: folder.root + "/blobs", withIntermediateDirectories: true)
    }

    public var description: String { "the folder '\(folder.root)/blobs'" }

    /// Where the package with this SHA-256 is kept: `blobs/ab/abcd….zip`.
    public func path(for sha256: SHA256Digest) -> String { folder.root + "/" + BlobNames.relativePath(for: sha256) }

    public func commit(temporary: String, sha256: SHA256Digest, size: Int64, replacing: Bool) async throws {
        let destination = path(for: sha256)
        try await pool.run {
            try FileManager.default.createDirectory(
                atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            if !replacing && FileManager.default.fileExists(atPath: destination) {
                unlink(temporary)
                return
            }
            // The upload was flushed when it was written (UploadSink.finish); the rename and the
            // folder's entry are flushed here, so a stored blob survives a power cut.
            do throws(FileIOError) {
                try FileOperations.rename(temporary, to: destination)
                try FileOperations.syncFolder(FileOperations.folder(of: destination))
            } catch { throw ServerError(error) }
        }
    }

    public func size(of sha256: SHA256Digest) async throws -> Int64? {
        var info = stat()
        return stat(path(for: sha256), &info) == 0 ? Int64(info.st_size) : nil
    }

    public func source(for sha256: SHA256Digest, size: Int64) async throws -> BlobSource {
        .file(path: path(for: sha256))
    }

    public func localFile(for sha256: SHA256Digest) async throws -> String { path(for: sha256) }

    public func check(sha256: SHA256Digest, size: Int64) async throws -> String? {
        let path = path(for: sha256)
        return try await pool.run {
            guard FileManager.default.fileExists(atPath: path) else { return "the stored file '\(path)' is missing" }
            do {
                let result = try FileHashing.sha256(path: path)
                if result.size != size { return "the stored file has \(result.size) bytes, the catalog says \(size)" }
                if result.digest != sha256 { return "the stored file's SHA-256 is \(result.digest.hex)" }
                return nil
            } catch {
                return "the stored file cannot be read: \(error)"
            }
        }
    }

    public func list() async throws -> [(sha256: String, size: Int64)] {
        let folder = self.folder
        return try await pool.run {
            folder.blobsOnDisk().map { sha in
                var info = stat()
                let path = "\(folder.root)/blobs/\(sha.prefix(2))/\(sha).zip"
                return (sha, stat(path, &info) == 0 ? Int64(info.st_size) : -1)
            }
        }
    }

    public func quarantine(sha256: String, reason: String) async throws -> String {
        let folder = self.folder
        return try await pool.run { try folder.quarantine(sha256: sha256, reason: reason) }
    }
}
