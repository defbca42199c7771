import Foundation
import Logging
import ServiceLifecycle
import TrailPackBlocking
import TrailPackCatalog
import TrailPackCatalogModel
import TrailPackCatalogPostgres
import TrailPackCore
import TrailPackCrypto
import TrailPackFileIO
import TrailPackS3

/// Where the catalog and the packages are: by default both in the data folder (`catalog.sqlite`,
/// `blobs/`: one server per folder); with `catalog`, a PostgreSQL database several servers share;
/// with `blobs`, an S3-compatible bucket several servers share.
public struct StoreLocations: Sendable {
    /// `postgres://USER@HOST:PORT/DB`; nil: SQLite in the data folder.
    public var catalog: String?
    /// A file whose first line is the catalog's password (else `PGPASSWORD`).
    public var catalogPasswordFile: String?
    /// `s3://BUCKET?endpoint=…&region=…`; nil: the data folder's `blobs/`.
    public var blobs: String?
    /// An AWS shared-credentials file (`[default]`, `aws_access_key_id`, `aws_secret_access_key`);
    /// nil: `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`.
    public var blobsCredentials: String?
    /// How a download from the object store is sent: a redirect to a presigned URL, or streamed
    /// through the server (with Range support).
    public var blobDownloads: BlobDownloads = .stream
    /// The most bytes of packages kept in the data folder's cache of an object store (for reviews,
    /// map tiles and rescans, which read a package in place).
    public var blobCacheBytes: Int64 = 4 << 30

    public enum BlobDownloads: String, Sendable, CaseIterable {
        case redirect, stream
    }

    public init() {}

    /// Whether several servers can share these stores (both given).
    public var isShared: Bool { catalog != nil && blobs != nil }
}

/// The catalog and the blob store a server or an admin command works with, and the services that
/// must run meanwhile (a PostgreSQL client's connections and its LISTEN loop).
public struct OpenedStores: Sendable {
    public let folder: DataFolder
    public let catalog: any CatalogStore
    public let blobs: any BlobStore
    /// Run in the server's service group (or, for an admin command, in the background).
    public let services: [any Service]

    /// Opens the stores `locations` name (migrating the catalog), with `folder` for what stays local:
    /// uploads in progress, the SQLite catalog and the blobs when no shared store is named, the
    /// object store's cache, and `quarantine/`.
    public static func open(
        _ locations: StoreLocations, folder: DataFolder, pool: BlockingPool, maxWaiting: Int = 256, logger: Logger
    ) async throws -> OpenedStores {
        // Compared first, recorded last: a store refused (a password in the URL, a bucket that is
        // not this catalog's) leaves nothing behind in the folder.
        let unrecorded = try checkFolder(folder, locations)
        let catalog: any CatalogStore
        var services: [any Service] = []
        if let url = locations.catalog {
            let location = try PostgresLocation(url: url, passwordFile: locations.catalogPasswordFile)
            let postgres = try await PostgresCatalog.open(
                location, logger: logger, maxConnections: 20, maxWaiting: maxWaiting)
            catalog = postgres
            // Its connections run from now on (the server reads the catalog before its service
            // group starts), and stop when the group shuts down.
            services.append(RunningInBackground(Task { try await postgres.run() }))
        } else {
            catalog = try SQLiteCatalog(path: folder.catalogPath, maxWaiting: maxWaiting)
        }
        let blobs: any BlobStore
        var client: S3Client?
        if let url = locations.blobs {
            let location = try S3Location(parsing: url)
            let credentials =
                try locations.blobsCredentials.map { try S3Credentials.sharedCredentialsFile($0) }
                ?? S3Credentials.environment()
            let opened = try S3Client(location: location, credentials: credentials, pool: pool)
            client = opened
            do {
                try await Self.checkBucket(opened, catalog: catalog)
            } catch {
                try? await opened.shutdown()
                throw error
            }
            let store = S3BlobStore(
                client: opened, folder: folder, pool: pool, downloads: locations.blobDownloads,
                cacheBytes: locations.blobCacheBytes)
            blobs = store
            services.append(store)
        } else {
            blobs = try FolderBlobStore(folder: folder, pool: pool)
        }
        if let unrecorded {
            do { try record(unrecorded, in: folder) } catch {
                try? await client?.shutdown()
                throw error
            }
        }
        return OpenedStores(folder: folder, catalog: catalog, blobs: blobs, services: services)
    }

    /// A data folder remembers which catalog and which package store it was used with
    /// (`stores.json`): a command that leaves out `--catalog` on a folder used with a shared
    /// catalog would otherwise open a new, empty SQLite catalog there and answer from it. Returns
    /// what to record once both stores are accepted (nil: the folder records these already).
    static func checkFolder(_ folder: DataFolder, _ locations: StoreLocations) throws -> JSONValue? {
        let path = folder.root + "/" + storesFileName
        let now = JSONValue.object([
            JSONMember("catalog", .string(locations.catalog ?? "catalog.sqlite in this folder")),
            JSONMember("blobs", .string(locations.blobs ?? "blobs/ in this folder")),
        ])
        func options(_ value: JSONValue) -> String {
            func text(_ name: String) -> String {
                if case .string(let text)? = value[name] { return text }
                return "?"
            }
            let catalog = text("catalog"), blobs = text("blobs")
            return (catalog.hasPrefix("postgres") ? "--catalog \(catalog)" : "no --catalog")
                + (blobs.hasPrefix("s3://") ? " --blobs '\(blobs)'" : " and no --blobs")
        }
        if let bytes = try? FileOperations.readAll(path, limit: 64 << 10) {
            guard let kept = try? JSONParser.parse(bytes).value else {
                throw ServerError.dataFolder("'\(path)' is not the JSON trailpack wrote; fix it or move it away")
            }
            guard kept == now else {
                throw ServerError.dataFolder(
                    "the data folder '\(folder.root)' was used with \(options(kept)) (its stores.json); give the same options, or another --data for these. If the catalog or the bucket moved, write the new address into '\(path)'"
                )
            }
            return nil
        }
        if locations.catalog != nil, folder.catalogExists {
            throw ServerError.dataFolder(
                "the data folder '\(folder.root)' holds a SQLite catalog (catalog.sqlite) of its own; a shared --catalog needs a data folder of its own (--data)"
            )
        }
        return now
    }

    /// Writes `stores.json` (readable by all, as the folder's other files: it holds addresses,
    /// never a password, which a catalog URL may not carry and the bucket's URL has no place for).
    static func record(_ stores: JSONValue, in folder: DataFolder) throws {
        let path = folder.root + "/" + storesFileName
        do { try AtomicFile.write(JSONWriter.bytes(stores), to: path) } catch {
            throw ServerError.dataFolder("cannot write '\(path)': \(error)")
        }
    }

    static let storesFileName = "stores.json"

    /// The bucket is made only for a catalog that records no package yet (a first start); a catalog
    /// with packages needs the bucket that holds them: a missing bucket, or one without the
    /// catalog's newest package, is a mistyped `--blobs`, refused before anything is stored in it
    /// or any package is taken for damaged.
    static func checkBucket(_ client: S3Client, catalog: any CatalogStore) async throws {
        let held = try await catalog.storedBlobs(inService: true)
        guard try await client.bucketExists() else {
            guard held.isEmpty else {
                throw ServerError.dataFolder(
                    "the bucket '\(client.location.bucket)' at \(client.location.endpoint) does not exist, but the catalog records \(held.count) stored package\(held.count == 1 ? "" : "s"); is --blobs the bucket they are in? Nothing was made or changed"
                )
            }
            _ = try await client.createBucketIfMissing()
            return
        }
        if let sample = held.last, let digest = SHA256Digest(hex: sample.sha256),
            try await client.head(key: S3BlobStore.key(digest)) == nil
        {
            throw ServerError.dataFolder(
                "the bucket '\(client.location.bucket)' at \(client.location.endpoint) does not hold the package \(sample.sha256) the catalog records (of \(held.count)); is --blobs the bucket this catalog's packages are in? Nothing was changed"
            )
        }
    }
}

/// A service already running in a task: at the service group's shutdown (or its cancellation) the
/// task is cancelled and awaited.
final class RunningInBackground: Service {
    let task: Task<Void, any Error>

    init(_ task: Task<Void, any Error>) { self.task = task }

    func run() async throws {
        try? await gracefulShutdown()
        task.cancel()
        _ = await task.result
    }
}
