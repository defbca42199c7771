import Foundation
import TrailPackBlocking
import TrailPackCrypto

/// The content-package download server: catalog, verified uploads, resumable verified downloads.
public struct ServerConfiguration: Sendable {
    /// The data folder: `catalog.sqlite`, `blobs/`, `tmp/`.
    public var dataDirectory: String
    public var host: String
    public var port: Int
    /// SHA-256 of the admin token (the token itself is never kept); nil: uploads are disabled.
    public var adminTokenHash: SHA256Digest?
    /// The largest upload accepted, in bytes.
    public var maxUploadBytes: Int64
    /// When set, downloads answer with a redirect to `<base>/<sha256>.zip` (a CDN or object store).
    public var downloadBaseURL: String?
    /// How many distinct reviewers must approve a version before its publisher may release it.
    /// 0: an upload by a publisher is released at once (a single-operator server).
    public var approvals: Int
    /// How uploads are scanned for malware.
    public var scanner: MalwareScanner.Engine
    /// Verifies uploads in a limited child process (`trailpack serve` sets it); nil: in this process.
    public var containedVerifier: ContainedVerifier?
    /// With it, the server speaks HTTPS only (HTTP/1.1 and HTTP/2 by ALPN) with this certificate
    /// chain and key, and sends downloads through buffers instead of `sendfile`; nil: plain HTTP/1.1.
    public var tls: ServerTLS?
    /// Time limits and the per-address connection cap.
    public var limits = ServerLimits()
    /// How many malware scans run at once (each is a clamscan process: CPU and memory bound).
    public var scanConcurrency = 1
    /// Confirmations counted per client address and minute (more are answered, not counted).
    public var confirmationsPerMinute = 30
    /// Threads of the one pool for blocking work (`BlockingPool`: writes, fsyncs, hashing, password hashes).
    public var blockingThreads = 8
    /// Jobs that may wait for one of those threads; more are answered 503 with `Retry-After` at once.
    public var blockingQueue = 128
    /// How long a job may wait for a thread before it is answered 503.
    public var blockingQueueTimeout: Duration = .seconds(10)
    /// Catalog calls that may wait for the catalog at once; more are answered 503 with `Retry-After`.
    public var catalogWaiting = 256

    /// Where the catalog and the packages are (default: both in the data folder).
    public var stores = StoreLocations()
    /// The proxies (by IP address) whose `X-Forwarded-For` is believed: for a request from one of
    /// them, the client is the rightmost address of that header that is not itself a trusted proxy.
    /// Empty (the default): the header is ignored, and the client is the connection's peer.
    public var trustedProxies: TrustedProxies = TrustedProxies()
    /// The review loop's notices by mail (`--smtp`); nil: in the panel only.
    public var mail: ReviewMail.Settings?

    public static let defaultApprovals = 2

    public init(
        dataDirectory: String, host: String = "127.0.0.1", port: Int = 8080, adminToken: String? = nil,
        maxUploadBytes: Int64 = 16 << 30, downloadBaseURL: String? = nil,
        approvals: Int = ServerConfiguration.defaultApprovals,
        scanner: MalwareScanner.Engine = .clamscan(database: nil)
    ) {
        self.approvals = approvals
        self.scanner = scanner
        self.dataDirectory = dataDirectory
        self.host = host
        self.port = port
        self.adminTokenHash = adminToken.map { SHA256.hash(Array($0.utf8)) }
        self.maxUploadBytes = maxUploadBytes
        self.downloadBaseURL = downloadBaseURL
    }
}
