import Foundation
import Logging
import ServiceLifecycle
import TrailPackCatalog
import TrailPackCatalogModel
import TrailPackCatalogPostgres
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
        if let url = locations.blobs {
            let location = try S3Location(parsing: url)
            let credentials =
                try locations.blobsCredentials.map { try S3Credentials.sharedCredentialsFile($0) }
                ?? S3Credentials.environment()
            let client = try S3Client(location: location, credentials: credentials)
            do {
                _ = try await client.createBucketIfMissing()
            } catch {
                try? await client.shutdown()
                throw error
            }
            let store = S3BlobStore(
                client: client, folder: folder, pool: pool, downloads: locations.blobDownloads,
                cacheBytes: locations.blobCacheBytes)
            blobs = store
            services.append(store)
        } else {
            blobs = try FolderBlobStore(folder: folder, pool: pool)
        }
        return OpenedStores(folder: folder, catalog: catalog, blobs: blobs, services: services)
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
