import TrailPackCatalogModel
import TrailPackCore

/// The usual arguments of the catalog's calls, for the server, the panel and `trailpack admin`.
extension CatalogStore {
    /// Versions waiting for reviewers, the most recently uploaded first.
    public func reviewQueue(statuses: [Catalog.PublishStatus] = [.pending]) async throws -> [Catalog.VersionRecord] {
        try await reviewQueue(statuses: statuses, limit: 200)
    }

    /// A package's audit trail (its last 1,000 entries).
    public func auditLog(package id: String) async throws -> [Catalog.AuditEntry] {
        try await auditLog(package: id, limit: 1000)
    }

    /// Appends to the audit log without a detail.
    public func audit(
        actor: String, action: Catalog.AuditAction, id: String?, version: String?, sha256: String?
    ) async throws {
        try await audit(actor: actor, action: action, id: id, version: version, sha256: sha256, detail: "")
    }

    /// Every blob the catalog records.
    public func storedBlobs() async throws -> [(sha256: String, size: Int64)] {
        try await storedBlobs(inService: false)
    }

    /// Adds a user without a public key.
    public func addUser(name: String, role: Catalog.Role) async throws {
        try await addUser(name: name, role: role, publicKey: nil)
    }
}
