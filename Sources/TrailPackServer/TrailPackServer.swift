import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import ServiceLifecycle
import TrailPackBlocking
import TrailPackCatalog
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackVerifier

/// Builds the router and the application.
public struct TrailPackServer: Sendable {
    public let configuration: ServerConfiguration
    /// The catalog: SQLite in the data folder, or a shared PostgreSQL (`--catalog`).
    public let catalog: any CatalogStore
    /// Where the packages' bytes are: the data folder, or an object store (`--blobs`).
    public let store: any BlobStore
    /// The data folder, locked for as long as this server lives.
    public let folder: DataFolder
    public let logger: Logger
    /// Open connections per client address (`ServerLimits.maxConnectionsPerAddress`).
    public let connections: ConnectionCounter
    /// Malware scans, at most `scanConcurrency` at once; the same bytes are scanned once.
    let scans: ScanQueue
    /// The one pool for work that blocks a thread — file writes and fsyncs, renames, hashing,
    /// password hashes, reading a package's entries: bounded, with a queue that refuses at once when
    /// full (503, `Retry-After`), so blocking work never holds the threads that answer `/healthz`
    /// and the downloads. (The catalog's calls wait on their store's own connections, not here.)
    public let pool: BlockingPool
    /// The threads that only wait for child processes (the contained verifier, the malware
    /// scanner): minutes each at worst and no work of their own, so kept apart from `pool`, whose
    /// threads a few slow scans would otherwise hold.
    public let childPool: BlockingPool
    /// The versions being uploaded now (a second upload of one is refused before it is stored).
    public let versionClaims = VersionClaims()
    /// The public catalog answers kept as bytes until the catalog changes.
    let publicAnswers = PublicAnswerCache()
    /// The `Server` header of every response.
    static let serverName = "trailpack"
    /// What must run while the server runs (a shared catalog's connections and its LISTEN loop).
    let storeServices: [any Service]
    /// The review loop's notices by mail, when `configuration.mail` is set.
    public var mail: ReviewMail? {
        configuration.mail.map { ReviewMail(settings: $0, catalog: catalog, pool: pool, logger: logger) }
    }

    /// Opens the data folder (creating and marking a new or empty one, taking its lock, migrating
    /// the catalog) and removes what interrupted uploads left in `tmp/` — nothing else.
    ///
    /// Blobs are never deleted here: blobs without a catalog, or unknown to it (an older catalog
    /// restored next to newer blobs), refuse the start with the fix (`trailpack admin gc`).
    public init(
        configuration: ServerConfiguration, logger: Logger = Logger(label: "trailpack.server")
    ) async throws {
        self.configuration = configuration
        self.logger = logger
        connections = ConnectionCounter(
            limit: configuration.limits.maxConnectionsPerAddress, exempt: configuration.trustedProxies.addresses)
        pool = BlockingPool(
            name: "trailpack-blocking", threads: configuration.blockingThreads, queueLimit: configuration.blockingQueue,
            queueTimeout: configuration.blockingQueueTimeout)
        childPool = BlockingPool(
            name: "trailpack-child", threads: 4 + max(1, configuration.scanConcurrency), queueLimit: 256,
            queueTimeout: .seconds(3600))
        scans = ScanQueue(concurrency: configuration.scanConcurrency, pool: childPool)
        folder = try DataFolder(path: configuration.dataDirectory, create: true, access: .exclusive)
        let removed = folder.removeOwnTemporaryFiles()
        for path in removed {
            logger.notice("removed what an interrupted upload left", metadata: ["path": "\(path)"])
        }
        logger.info(
            "start-up cleanup done",
            metadata: ["removed": "\(removed.count)", "folder": "\(configuration.dataDirectory)/tmp"])
        let data = folder.root
        let shared = configuration.stores
        let blobs = shared.blobs == nil ? folder.blobsOnDisk() : []
        if shared.catalog == nil && !folder.catalogExists && !blobs.isEmpty {
            throw ServerError.dataFolder(
                "'\(data)/blobs' holds \(blobs.count) packages but there is no '\(data)/catalog.sqlite'; nothing was changed. Put back the catalog that belongs to these blobs (from your backup), or move the blobs out of service with 'trailpack admin gc --data \(data)' and start with an empty catalog"
            )
        }
        let stores = try await OpenedStores.open(
            shared, folder: folder, pool: pool, maxWaiting: configuration.catalogWaiting, logger: logger)
        catalog = stores.catalog
        store = stores.blobs
        storeServices = stores.services
        // Only a folder's blobs are checked against the catalog at start: an object store's are
        // many servers' and gc's to look after (`trailpack admin gc --blobs …`).
        let known = blobs.isEmpty ? [] : try await catalog.blobHashes()
        let orphans = blobs.filter { !known.contains($0) }
        if !orphans.isEmpty {
            throw ServerError.dataFolder(
                "\(orphans.count) packages in '\(data)/blobs' are not in the catalog (an older catalog next to newer blobs?); nothing was changed. Put back the newer catalog, or list them with 'trailpack admin gc --dry-run --data \(data)' and move them to '\(data)/quarantine' with 'trailpack admin gc --data \(data)'"
            )
        }
        if configuration.adminTokenHash != nil { try await catalog.ensureUser(name: "admin", role: .admin) }
    }

    /// Takes a damaged blob out of service: logged, moved to `quarantine/`, its versions marked
    /// damaged (no longer listed or served), audited.
    public func takeOutOfService(sha256: String, reason: String) async {
        logger.error(
            "a stored package is damaged; taking it out of service",
            metadata: ["sha256": "\(sha256)", "reason": "\(TerminalText.escaped(reason))"])
        var detail = reason
        do {
            let moved = try await store.quarantine(sha256: sha256, reason: reason)
            detail += "; moved to \(moved)"
        } catch {
            detail += "; not moved: \(error)"
        }
        do { _ = try await catalog.markDamaged(sha256: sha256, reason: detail, actor: "server") } catch {
            logger.error(
                "cannot mark a damaged package in the catalog", metadata: ["sha256": "\(sha256)", "error": "\(error)"])
        }
    }

    /// A blob shrank while it was being sent (the connection is closed already): the server's own
    /// fault, logged as such, and the blob is taken out of service.
    func shortBlobWhileSending(path: String, reason: String) {
        let name = (path as NSString).lastPathComponent
        guard name.hasSuffix(".zip"), let digest = SHA256Digest(hex: String(name.dropLast(4))) else {
            logger.error("a file being sent shrank", metadata: ["path": "\(path)", "reason": "\(reason)"])
            return
        }
        logger.error(
            "a stored package shrank while it was being sent; the download was cut off (the server's fault, not the client's)",
            metadata: ["sha256": "\(digest.hex)", "reason": "\(reason)"])
        Task { await takeOutOfService(sha256: digest.hex, reason: reason) }
    }

    /// Runs `body` on one of the blocking pool's threads, which may block (a rename, an fsync, a
    /// password hash), never on the cooperative pool that answers every other request.
    /// Throws `CatalogError.busy` when the pool's queue is full.
    public func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.run(body)
    }

    /// The application, ready to run: the router, and HTTP/1 with the connection guard that
    /// enforces `configuration.limits` — or, with `configuration.tls`, HTTPS: HTTP/1.1 or HTTP/2 by
    /// ALPN (Hummingbird's HTTP/2 upgrade channel), the same guard after the HTTP codec, a TLS guard
    /// for what is the connection's (see `ConnectionGuard`), and downloads through buffers (a file
    /// sent by `sendfile` would bypass the encryption).
    public func buildApplication(
        logger: Logger, addRoutes: @escaping (Router<AppRequestContext>) -> Void = { _ in },
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let limits = configuration.limits, counter = connections, maxBody = configuration.maxUploadBytes
        let server: HTTPServerBuilder
        if let tls = configuration.tls {
            // Per HTTP/1.1 connection or HTTP/2 stream; the TLS guard counts the connections.
            let streams = HTTP1Channel.Configuration(additionalChannelHandlers: [
                ConnectionGuard(limits: limits, counter: nil, maxBodyBytes: maxBody, zeroCopy: false, logger: logger)
            ])
            // An HTTP/2 connection with no stream open is sent a GOAWAY after the keep-alive limit;
            // streams still open when it closes (or at shutdown) get the shutdown limit.
            let http2 = HTTP2UpgradeChannel.Configuration(
                idleTimeout: Duration(limits.keepAliveTimeout), gracefulCloseTimeout: limits.shutdownTimeout,
                streamConfiguration: streams)
            server = HTTPServerBuilder { responder in
                try GuardedHTTPSChannel(
                    upgrade: HTTP2UpgradeChannel(
                        tlsConfiguration: tls.configuration, configuration: http2, responder: responder),
                    limits: limits, counter: counter, logger: logger)
            }
        } else {
            let answers = publicAnswers, catalog = catalog
            server = .http1(
                configuration: .init(additionalChannelHandlers: [
                    ConnectionGuard(
                        limits: limits, counter: counter, maxBodyBytes: maxBody, zeroCopy: true, logger: logger,
                        onShortFile: { [self] path, reason in shortBlobWhileSending(path: path, reason: reason) }),
                    PublicAnswerHandler(
                        answers: answers, changeCount: { catalog.publicChangeCount }, serverName: Self.serverName,
                        logger: logger),
                ]))
        }
        return Application(
            router: buildRouter(zeroCopyDownloads: configuration.tls == nil, addRoutes: addRoutes),
            server: server,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: Self.serverName),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// Runs until SIGTERM or SIGINT; then stops accepting, lets requests in flight finish for at
    /// most `limits.shutdownTimeout`, and cancels what is left (a scan in flight is killed with its
    /// process group).
    public func run(
        logger: Logger, addRoutes: @escaping (Router<AppRequestContext>) -> Void = { _ in },
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws {
        var group = ServiceGroupConfiguration(
            services: storeServices + [
                buildApplication(logger: logger, addRoutes: addRoutes, onListening: onListening)
            ],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = configuration.limits.shutdownTimeout
        group.maximumCancellationDuration = .seconds(5)
        // Whatever way the server stops, no scanner or verifier it started outlives it.
        defer { ChildRun.killAll() }
        try await ServiceGroup(configuration: group).run()
    }

    /// The router: middleware outermost first, then one controller per concern. With
    /// `zeroCopyDownloads`, blobs are sent by `sendfile` (the application's channel has the
    /// handler for it); without, through buffers (router tests, which have no socket).
    /// `addRoutes` adds another controller's routes (the Web Control Panel) after the API's.
    public func buildRouter(
        zeroCopyDownloads: Bool = false, addRoutes: (Router<AppRequestContext>) -> Void = { _ in }
    ) -> Router<AppRequestContext> {
        // HEAD on every GET route without one of its own (the Web Control Panel's pages and files);
        // the API's routes register their own (`Routes.get`): a download's HEAD never sends a file.
        let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
        let table = RouteTable()
        if !configuration.trustedProxies.isEmpty {
            router.add(middleware: ForwardedForMiddleware(trusted: configuration.trustedProxies))
        }
        router.add(middleware: AccessLogMiddleware(logger: logger))
        router.add(middleware: ErrorResponseMiddleware(routes: table, logger: logger))
        router.add(middleware: BearerAuthMiddleware(catalog: catalog, adminTokenHash: configuration.adminTokenHash))
        let routes = Routes(router: router, table: table)
        routes.get("/healthz") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        CatalogController(catalog: catalog, answers: publicAnswers, blobs: store, pool: pool).addRoutes(to: routes)
        DownloadController(
            catalog: catalog, blobs: store, downloadBaseURL: configuration.downloadBaseURL,
            takeOutOfService: { [self] sha, reason in await takeOutOfService(sha256: sha, reason: reason) },
            zeroCopy: zeroCopyDownloads
        ).addRoutes(to: routes)
        ConfirmationController(catalog: catalog, perMinute: configuration.confirmationsPerMinute).addRoutes(
            to: routes)
        PublishingController(server: self).addRoutes(to: routes.group("/v1/admin", middleware: RequireUserMiddleware()))
        addRoutes(router)
        return router
    }
}

extension Response {
    /// A Codable body as JSON, written by the house JSON writer (members in the order the type
    /// encodes them, two-space indentation: the same text as every other JSON trailpack writes).
    static func json(
        _ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]
    ) throws -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(
            status: status, headers: fields,
            body: .init(byteBuffer: ByteBuffer(bytes: JSONWriter.bytes(try JSONValueEncoder().encode(value)))))
    }

}
