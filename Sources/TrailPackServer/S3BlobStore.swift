import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle
import Synchronization
import TrailPackCatalogModel
import TrailPackCrypto
import TrailPackFileIO
import TrailPackS3

#if canImport(Glibc)
import Glibc
import TrailPackBlocking
#endif

/// Packages in an S3-compatible bucket (`serve --blobs s3://BUCKET?endpoint=…`), under the same keys
/// as a data folder's files (`blobs/ab/<sha256>.zip`), which several servers share.
///
/// An upload is sent once verified and scanned, with its known SHA-256 (the store checks the bytes)
/// and `If-None-Match: *` (a stored blob is never overwritten). Downloads are redirects to a
/// presigned URL, or streamed through the server with ranges. What reads a package in place (a
/// review, a map tile, a rescan) reads a copy in the data folder's `cache/`, fetched once, checked
/// against the SHA-256 as it arrives, and dropped oldest first past `cacheBytes`.
public final class S3BlobStore: BlobStore, Service {
    let client: S3Client
    let folder: DataFolder
    let pool: BlockingPool
    let downloads: StoreLocations.BlobDownloads
    let cacheBytes: Int64
    /// How long a presigned download URL stays good.
    static let presignedLifetime: Duration = .seconds(3600)
    /// The objects whose bytes this server has hashed to their name, by SHA-256: the ETag the
    /// bucket gave with those bytes. A download is streamed only while the bucket answers with the
    /// proven ETag; any other is proven first (see ``source(for:size:)``).
    private let proven = Mutex<[String: String]>([:])

    public init(
        client: S3Client, folder: DataFolder, pool: BlockingPool, downloads: StoreLocations.BlobDownloads,
        cacheBytes: Int64
    ) {
        self.client = client
        self.folder = folder
        self.pool = pool
        self.downloads = downloads
        self.cacheBytes = cacheBytes
    }

    public var description: String { client.location.description }

    /// Keeps the HTTP client until the server stops (its service group's graceful shutdown, or a
    /// cancellation), then closes its connections.
    public func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
    }

    static func key(_ sha256: SHA256Digest) -> String { BlobNames.relativePath(for: sha256) }

    /// Whether `error` says the object store could not be reached or did not answer in time: the
    /// request is answered 503 with `Retry-After` (try again), not 500; the log names the store.
    public static func isUnavailable(_ error: any Error) -> Bool {
        guard let error = error as? S3Error else { return false }
        return error.code == .unreachable || error.code == .timeout || (error.status ?? 0) >= 500
    }

    var cacheRoot: String { folder.root + "/cache" }

    func cachePath(_ sha256: SHA256Digest) -> String { cacheRoot + "/" + Self.key(sha256) }

    public func commit(temporary: String, sha256: SHA256Digest, size: Int64, replacing: Bool) async throws {
        defer { unlink(temporary) }
        let key = Self.key(sha256)
        if replacing {
            // The held object was found damaged; its bytes were kept in quarantine/ when it was taken
            // out of service, so the verified upload may take its place.
            try await client.delete(key: key)
            try? FileManager.default.removeItem(atPath: cachePath(sha256))
        }
        _ = try await client.put(
            key: key, file: temporary, sha256: sha256.hex, size: size, contentType: "application/zip")
        // What the bucket now holds is proven at the first download (its ETag is not known here).
        _ = proven.withLock { $0.removeValue(forKey: sha256.hex) }
    }

    public func size(of sha256: SHA256Digest) async throws -> Int64? {
        try await client.head(key: Self.key(sha256))?.size
    }

    public func source(for sha256: SHA256Digest, size: Int64) async throws -> BlobSource {
        let key = Self.key(sha256)
        switch downloads {
        case .redirect:
            return .redirect(
                location: try client.presignedGET(
                    key: key, expires: Self.presignedLifetime,
                    responseContentDisposition: "attachment; filename=\"\(sha256.hex).zip\""))
        case .stream:
            return .stream { range in try await self.provenBody(sha256, size: size, range: range) }
        }
    }

    /// The bytes of `range`, streamed from the bucket only under an ETag whose object this server
    /// hashed to `sha256`. The bucket is trusted with nothing: an object missing, of another size,
    /// or swapped for other bytes (of the same length, by anyone who can write to the bucket) is
    /// ``BlobDamaged`` before a byte or a header is sent. The first download of an object (per
    /// server, and again whenever its ETag changes) reads it whole first, hashing it; later ones
    /// cost nothing more. A bucket that lies about ETags is beyond this check: `admin scrub` reads
    /// every object, and the client library and the visitor app check the SHA-256 of what they get.
    func provenBody(_ sha256: SHA256Digest, size: Int64, range: ClosedRange<Int64>) async throws -> ResponseBody {
        let key = Self.key(sha256)
        var response = try await rangeOrDamage(key, size: size, range: range)
        if response.eTag == nil || proven.withLock({ $0[sha256.hex] }) != response.eTag {
            // Not proven (or no longer): dropping the body closes that connection; the object is
            // read whole and hashed, then the range asked again under the ETag just proven.
            let eTag = try await prove(sha256, size: size)
            response = try await rangeOrDamage(key, size: size, range: range)
            guard response.eTag == eTag else {
                throw S3Error(
                    code: .timeout, message: "the object \(key) changed while it was being checked; try again")
            }
        }
        return ResponseBody(asyncSequence: response.body)
    }

    /// The object at `key` (or its `range`); ``BlobDamaged`` when the bucket has none.
    private func getOrDamage(_ key: String, range: ClosedRange<Int64>?) async throws -> S3GetResponse {
        do {
            return try await client.get(key: key, range: range)
        } catch {
            if error.code == .notFound { throw BlobDamaged("the object \(key) is missing from \(client.location)") }
            throw error
        }
    }

    /// `range` of the object at `key`, which must exist with `size` bytes.
    private func rangeOrDamage(_ key: String, size: Int64, range: ClosedRange<Int64>) async throws -> S3GetResponse {
        let response = try await getOrDamage(key, range: range)
        // The whole object's size: after the '/' of Content-Range, or the length of a whole answer.
        let total =
            response.contentRange.flatMap { $0.split(separator: "/").last.flatMap { Int64($0) } }
            ?? (response.status == 200 ? response.contentLength : nil)
        if let total, total != size {
            throw BlobDamaged("the stored object has \(total) bytes, the catalog says \(size)")
        }
        guard response.contentLength == Int64(range.count) else {
            throw BlobDamaged(
                "the object store answered \(response.contentLength.map(String.init) ?? "no length") bytes for the \(range.count) asked of \(key)"
            )
        }
        return response
    }

    /// Reads the object named `sha256` whole, hashing it: its ETag when the bytes are those, else
    /// ``BlobDamaged``.
    private func prove(_ sha256: SHA256Digest, size: Int64) async throws -> String? {
        let key = Self.key(sha256)
        let response = try await getOrDamage(key, range: nil)
        var hasher = SHA256()
        var count: Int64 = 0
        for try await chunk in response.body {
            count += Int64(chunk.readableBytes)
            if count > size { throw BlobDamaged("the stored object has more than the \(size) bytes the catalog says") }
            chunk.withUnsafeReadableBytes { hasher.update($0) }
        }
        guard count == size else { throw BlobDamaged("the stored object has \(count) bytes, the catalog says \(size)") }
        let found = hasher.finalize()
        guard found == sha256 else {
            throw BlobDamaged("the stored object's bytes hash to \(found.hex), not to its name")
        }
        if let eTag = response.eTag { proven.withLock { $0[sha256.hex] = eTag } }
        return response.eTag
    }

    public func localFile(for sha256: SHA256Digest) async throws -> String {
        let path = cachePath(sha256)
        if FileManager.default.fileExists(atPath: path) {
            // Touched: the cache drops the least recently used first.
            utime(path, nil)
            return path
        }
        let temporary = try await fetch(sha256)
        let cacheRoot = self.cacheRoot, limit = cacheBytes
        try await pool.run {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            do throws(FileIOError) { try FileOperations.rename(temporary, to: path) } catch {
                unlink(temporary)
                throw ServerError(error)
            }
            Self.trim(cacheRoot, to: limit, keeping: path)
        }
        return path
    }

    /// Downloads the object into `tmp/` and checks it against its name: the path of a file holding
    /// exactly those bytes. A copy that differs is removed and reported as damage.
    func fetch(_ sha256: SHA256Digest) async throws -> String {
        let temporary = "\(folder.root)/tmp/upload-\(UUID().uuidString).part"
        do {
            _ = try await client.download(key: Self.key(sha256), to: temporary)
            let found = try await pool.run { try FileHashing.sha256(path: temporary).digest }
            guard found == sha256 else {
                throw ServerError.internal(
                    "the package with SHA-256 \(sha256.hex) in \(client.location) is damaged: its bytes hash to \(found.hex)"
                )
            }
            return temporary
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Removes the least recently used copies until the cache holds at most `limit` bytes (never `keeping`).
    static func trim(_ root: String, to limit: Int64, keeping: String) {
        var files: [(path: String, size: Int64, used: Int)] = []
        for prefix in (try? FileManager.default.contentsOfDirectory(atPath: root + "/blobs")) ?? [] {
            let folder = root + "/blobs/" + prefix
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            where BlobNames.digest(fileName: name) != nil {
                var info = stat()
                let path = folder + "/" + name
                guard lstat(path, &info) == 0 else { continue }
                files.append((path, Int64(info.st_size), info.st_mtim.tv_sec))
            }
        }
        var total = files.reduce(0) { $0 + $1.size }
        // Only copies of what the bucket holds, made by this server: removing one loses nothing.
        for file in files.sorted(by: { $0.used < $1.used }) where total > limit && file.path != keeping {
            if unlink(file.path) == 0 { total -= file.size }
        }
    }

    public func check(sha256: SHA256Digest, size: Int64) async throws -> String? {
        guard let info = try await client.head(key: Self.key(sha256)) else {
            return "the object \(Self.key(sha256)) is missing from \(client.location)"
        }
        guard info.size == size else { return "the stored object has \(info.size) bytes, the catalog says \(size)" }
        let response = try await client.get(key: Self.key(sha256))
        var hasher = SHA256()
        var count: Int64 = 0
        for try await chunk in response.body {
            chunk.withUnsafeReadableBytes { hasher.update($0) }
            count += Int64(chunk.readableBytes)
        }
        if count != size { return "the stored object gave \(count) bytes, the catalog says \(size)" }
        let found = hasher.finalize()
        return found == sha256 ? nil : "the stored object's SHA-256 is \(found.hex)"
    }

    public func list() async throws -> [(sha256: String, size: Int64)] {
        var out: [(sha256: String, size: Int64)] = []
        for try await object in client.listAll(prefix: "blobs/") {
            let name = String(object.key.split(separator: "/").last ?? "")
            guard let digest = BlobNames.digest(fileName: name), object.key == Self.key(digest) else { continue }
            out.append((digest.hex, object.size))
        }
        return out
    }

    public func quarantine(sha256: String, reason: String) async throws -> String {
        guard let digest = SHA256Digest(hex: sha256) else {
            throw ServerError.internal("not a SHA-256: '\(ServerError.short(sha256))'")
        }
        let key = Self.key(digest)
        // The bytes as they are (damaged or not) are kept in quarantine/ before the object goes.
        let temporary = "\(folder.root)/tmp/upload-\(UUID().uuidString).part"
        let kept: String
        do {
            _ = try await client.download(key: key, to: temporary)
            let folder = self.folder
            kept = try await pool.run { try folder.quarantine(file: temporary, sha256: sha256, reason: reason) }
        } catch {
            unlink(temporary)
            throw ServerError.internal(
                "cannot keep \(key) in quarantine before taking it out of \(client.location): \(error)")
        }
        try await client.delete(key: key)
        try? FileManager.default.removeItem(atPath: cachePath(digest))
        return kept
    }
}
