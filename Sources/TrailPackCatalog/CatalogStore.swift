import TrailPackCore

/// What the server asks of its catalog, asynchronously: the GRDB/SQLite `Catalog` is one
/// implementation (`GRDBCatalogStore`); a PostgreSQL one, for several server instances behind a
/// load balancer, is one more type conforming to this protocol.
public protocol CatalogStore: Sendable {
    /// Moves whenever a committed change alters the public answers (sites, released versions,
    /// manifests): what the server keeps of them is good while it stays the same. Read without waiting.
    var publicChangeCount: UInt64 { get }
    func uploadRefusal(user: Catalog.User, package id: String, site: String) async throws -> String?
    func unreleased(
        sha256: String?, package id: String?, version: String?
    ) async throws -> [(summary: Catalog.PackageSummary, uploadedBy: String)]
    func markDamaged(sha256: String, reason: String, actor: String) async throws -> [String]
    func restoreDamaged(sha256: String, actor: String, detail: String) async throws -> [String]
    func authenticate(token: String) async throws -> Catalog.User?
    func apply(
        _ transition: Catalog.Transition, package id: String, version: String, by user: Catalog.User, required: Int,
        signature: String?, reason: String?
    ) async throws -> Catalog.TransitionOutcome
    func setScan(package id: String, version: String, status: Catalog.ScanStatus, detail: String) async throws
    func recordRescan(
        package id: String, version: String, status: Catalog.ScanStatus, detail: String, actor: String) async throws
    func state(package id: String, version: String) async throws -> Catalog.VersionState?
    func approvalSignatures(package id: String, version: String) async throws -> [(reviewer: String, signature: String)]
    func sites() async throws -> [Catalog.SiteSummary]
    func packages(site: String, limit: Int, after: String?) async throws -> Catalog.Page
    func siteExists(_ id: String) async throws -> Bool
    /// One page of a site's packages, or nil when there is no such site (one call for the list route).
    func sitePage(site: String, limit: Int, after: String?) async throws -> Catalog.Page?
    func version(package id: String, version: String?, releasedOnly: Bool) async throws -> Catalog.RegisteredVersion?
    func versions(package id: String) async throws -> [Catalog.PackageSummary]
    func isReleasedBlob(_ sha256: String) async throws -> Int64?
    func recordBlob(sha256: String, size: Int64) async throws
    func register(
        manifest: Manifest, manifestJSON: String, sha256: String, size: Int64, actor: String,
        status: Catalog.PublishStatus
    ) async throws -> Catalog.RegisterOutcome
    func confirm(package id: String, version: String, sha256: String, count: Bool) async throws -> Catalog.Confirmation?
    func confirmations() async throws -> [Catalog.Confirmations]
    func auditLog(after: Int64, limit: Int) async throws -> [Catalog.AuditEntry]
    func audit(
        actor: String, action: Catalog.AuditAction, id: String?, version: String?, sha256: String?, detail: String)
        async throws
}

/// The catalog in SQLite through GRDB, for the server: every call runs on one of `pool`'s threads,
/// which may block (SQLite waits up to 10 s for a lock), never on Swift's cooperative pool, so a
/// locked catalog slows the requests that need it and nothing else; when the pool's queue is full
/// a call fails at once with `CatalogError.busy`.
public struct GRDBCatalogStore: CatalogStore {
    public let catalog: Catalog
    public let pool: BlockingPool

    public init(_ catalog: Catalog, pool: BlockingPool) {
        self.catalog = catalog
        self.pool = pool
    }

    public var publicChangeCount: UInt64 { catalog.publicChangeCount }

    private func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.run(body)
    }

    public func uploadRefusal(user: Catalog.User, package id: String, site: String) async throws -> String? {
        let catalog = self.catalog
        return try await offload { try catalog.uploadRefusal(user: user, package: id, site: site) }
    }

    public func unreleased(
        sha256: String?, package id: String?, version: String?
    ) async throws -> [(summary: Catalog.PackageSummary, uploadedBy: String)] {
        let catalog = self.catalog
        return try await offload { try catalog.unreleased(sha256: sha256, package: id, version: version) }
    }

    public func markDamaged(sha256: String, reason: String, actor: String) async throws -> [String] {
        let catalog = self.catalog
        return try await offload { try catalog.markDamaged(sha256: sha256, reason: reason, actor: actor) }
    }

    public func restoreDamaged(sha256: String, actor: String, detail: String) async throws -> [String] {
        let catalog = self.catalog
        return try await offload { try catalog.restoreDamaged(sha256: sha256, actor: actor, detail: detail) }
    }

    public func authenticate(token: String) async throws -> Catalog.User? {
        let catalog = self.catalog
        return try await offload { try catalog.authenticate(token: token) }
    }

    public func apply(
        _ transition: Catalog.Transition, package id: String, version: String, by user: Catalog.User, required: Int,
        signature: String?, reason: String?
    ) async throws -> Catalog.TransitionOutcome {
        let catalog = self.catalog
        return try await offload {
            try catalog.apply(
                transition, package: id, version: version, by: user, required: required, signature: signature,
                reason: reason)
        }
    }

    public func setScan(package id: String, version: String, status: Catalog.ScanStatus, detail: String) async throws {
        let catalog = self.catalog
        return try await offload { try catalog.setScan(package: id, version: version, status: status, detail: detail) }
    }

    public func recordRescan(
        package id: String, version: String, status: Catalog.ScanStatus, detail: String, actor: String
    ) async throws {
        let catalog = self.catalog
        return try await offload {
            try catalog.recordRescan(package: id, version: version, status: status, detail: detail, actor: actor)
        }
    }

    public func state(package id: String, version: String) async throws -> Catalog.VersionState? {
        let catalog = self.catalog
        return try await offload { try catalog.state(package: id, version: version) }
    }

    public func approvalSignatures(
        package id: String, version: String
    ) async throws -> [(reviewer: String, signature: String)] {
        let catalog = self.catalog
        return try await offload { try catalog.approvalSignatures(package: id, version: version) }
    }

    public func sites() async throws -> [Catalog.SiteSummary] {
        let catalog = self.catalog
        return try await offload { try catalog.sites() }
    }

    public func packages(site: String, limit: Int, after: String?) async throws -> Catalog.Page {
        let catalog = self.catalog
        return try await offload { try catalog.packages(site: site, limit: limit, after: after) }
    }

    public func sitePage(site: String, limit: Int, after: String?) async throws -> Catalog.Page? {
        let catalog = self.catalog
        return try await offload {
            guard try catalog.siteExists(site) else { return nil }
            return try catalog.packages(site: site, limit: limit, after: after)
        }
    }

    public func siteExists(_ id: String) async throws -> Bool {
        let catalog = self.catalog
        return try await offload { try catalog.siteExists(id) }
    }

    public func version(
        package id: String, version: String?, releasedOnly: Bool
    ) async throws -> Catalog.RegisteredVersion? {
        let catalog = self.catalog
        return try await offload { try catalog.version(package: id, version: version, releasedOnly: releasedOnly) }
    }

    public func versions(package id: String) async throws -> [Catalog.PackageSummary] {
        let catalog = self.catalog
        return try await offload { try catalog.versions(package: id) }
    }

    public func isReleasedBlob(_ sha256: String) async throws -> Int64? {
        let catalog = self.catalog
        return try await offload { try catalog.isReleasedBlob(sha256) }
    }

    public func recordBlob(sha256: String, size: Int64) async throws {
        let catalog = self.catalog
        return try await offload { try catalog.recordBlob(sha256: sha256, size: size) }
    }

    public func register(
        manifest: Manifest, manifestJSON: String, sha256: String, size: Int64, actor: String,
        status: Catalog.PublishStatus
    ) async throws -> Catalog.RegisterOutcome {
        let catalog = self.catalog
        return try await offload {
            try catalog.register(
                manifest: manifest, manifestJSON: manifestJSON, sha256: sha256, size: size, actor: actor, status: status
            )
        }
    }

    public func confirm(
        package id: String, version: String, sha256: String, count: Bool
    ) async throws -> Catalog.Confirmation? {
        let catalog = self.catalog
        return try await offload { try catalog.confirm(package: id, version: version, sha256: sha256, count: count) }
    }

    public func confirmations() async throws -> [Catalog.Confirmations] {
        let catalog = self.catalog
        return try await offload { try catalog.confirmations() }
    }

    public func auditLog(after: Int64, limit: Int) async throws -> [Catalog.AuditEntry] {
        let catalog = self.catalog
        return try await offload { try catalog.auditLog(after: after, limit: limit) }
    }

    public func audit(
        actor: String, action: Catalog.AuditAction, id: String?, version: String?, sha256: String?, detail: String
    ) async throws {
        let catalog = self.catalog
        return try await offload {
            try catalog.audit(actor: actor, action: action, id: id, version: version, sha256: sha256, detail: detail)
        }
    }
}

extension CatalogStore {
    /// A transition without a reason (start, approve, push).
    public func apply(
        _ transition: Catalog.Transition, package id: String, version: String, by user: Catalog.User, required: Int,
        signature: String?
    ) async throws -> Catalog.TransitionOutcome {
        try await apply(
            transition, package: id, version: version, by: user, required: required, signature: signature, reason: nil)
    }
}
