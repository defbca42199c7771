import Foundation
import GRDB
import TrailPackCore

/// The server's catalog: sites, package versions, stored blobs, download confirmations and an
/// append-only audit log, in one SQLite file (GRDB, WAL mode, migrations).
///
/// Every change is one transaction, so concurrent uploads and confirmations leave one of the
/// legal outcomes. Nothing in the audit log is ever updated or deleted: triggers refuse it.
public final class Catalog: Sendable {
    let pool: DatabasePool
    let changes = CatalogChanges()

    /// Opens (creating and migrating) the catalog at `path`.
    public init(path: String) throws {
        var config = Configuration()
        config.busyMode = .timeout(10)
        pool = try DatabasePool(path: path, configuration: config)
        try Self.migrator.migrate(pool)
        pool.add(transactionObserver: changes, extent: .databaseLifetime)
    }

    /// Moves whenever a committed change alters what the public answers show (sites, released
    /// versions, manifests); answers kept as bytes are good while it stays the same. Changes made
    /// by another process are not seen (the data folder's lock keeps other writers out).
    public var publicChangeCount: UInt64 { changes.value }

    // MARK: reading

    public struct SiteSummary: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var packages: Int
    }

    /// Sites with at least one released package, by id.
    public func sites() throws -> [SiteSummary] {
        try pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT s.id, s.name, COUNT(DISTINCT p.packageID) AS n FROM site s
                    JOIN packageVersion p ON p.siteID = s.id AND p.status = 'released'
                    GROUP BY s.id ORDER BY s.id
                    """
            ).map { SiteSummary(id: $0["id"], name: $0["name"], packages: $0["n"]) }
        }
    }

    public struct PackageSummary: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var description: String
        public var park: String
        public var site: String
        public var version: String
        public var size: Int64
        public var sha256: String
        public var status: PublishStatus
    }

    static let summaryColumns = "packageID, name, description, park, siteID, version, size, sha256, status"

    static func summary(_ row: Row) throws -> PackageSummary {
        PackageSummary(
            id: row["packageID"], name: row["name"], description: row["description"], park: row["park"],
            site: row["siteID"],
            version: row["version"], size: row["size"], sha256: row["sha256"],
            status: try row.decode(forColumn: "status"))
    }

    /// One page of a site's released packages (the newest released version of each, exactly one
    /// row per package even where a catalog from before version normalisation holds both `1.0` and
    /// `1.0.0`), by id, starting after the package id `after`.
    public func packages(site: String, limit: Int, after: String?) throws -> Page {
        try pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.summaryColumns) FROM packageVersion p
                    WHERE siteID = ? AND status = 'released' AND packageID > ?
                      AND version = (SELECT q.version FROM packageVersion q WHERE q.packageID = p.packageID AND q.status = 'released'
                                     ORDER BY q.versionKey DESC, q.createdAt DESC, q.version DESC LIMIT 1)
                    ORDER BY packageID LIMIT ?
                    """, arguments: [site, after ?? "", limit + 1])
            let page = try rows.prefix(limit).map(Self.summary)
            return Page(packages: Array(page), next: rows.count > limit ? page.last?.id : nil)
        }
    }

    public func siteExists(_ id: String) throws -> Bool {
        try pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM site WHERE id = ?)", arguments: [id]) ?? false
        }
    }

    /// A version (nil `version`: the newest released one).
    public func version(
        package id: String, version given: String?, releasedOnly: Bool = true
    ) throws
        -> RegisteredVersion?
    {
        try pool.read { db in
            let row: Row?
            if let given {
                let version = try Self.storedVersion(db, package: id, given)
                row = try Row.fetchOne(
                    db,
                    sql:
                        "SELECT \(Self.summaryColumns), manifest FROM packageVersion WHERE packageID = ? AND version = ?\(releasedOnly ? " AND status = 'released'" : "")",
                    arguments: [id, version])
            } else {
                row = try Row.fetchOne(
                    db,
                    sql:
                        "SELECT \(Self.summaryColumns), manifest FROM packageVersion WHERE packageID = ? AND status = 'released' ORDER BY versionKey DESC LIMIT 1",
                    arguments: [id])
            }
            return try row.map { RegisteredVersion(summary: try Self.summary($0), manifest: $0["manifest"]) }
        }
    }

    /// The released versions of a package, newest first.
    public func versions(package id: String) throws -> [PackageSummary] {
        try pool.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT \(Self.summaryColumns) FROM packageVersion WHERE packageID = ? AND status = 'released' ORDER BY versionKey DESC",
                arguments: [id]
            ).map(Self.summary)
        }
    }

    /// Whether a blob may be downloaded: some released version holds it.
    public func isReleasedBlob(_ sha256: String) throws -> Int64? {
        try pool.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT size FROM packageVersion WHERE sha256 = ? AND status = 'released' LIMIT 1",
                arguments: [sha256])
        }
    }

    /// Every blob the catalog records (a blob on disk that is not here is an orphan: see `trailpack admin gc`).
    public func blobHashes() throws -> Set<String> {
        try pool.read { db in Set(try String.fetchAll(db, sql: "SELECT sha256 FROM blob")) }
    }

    // MARK: writing

    /// Records a blob about to be stored (before it is renamed into `blobs/`), so that no blob on
    /// disk is ever unknown to the catalog.
    public func recordBlob(sha256: String, size: Int64) throws {
        try pool.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO blob (sha256, size, storedAt) VALUES (?, ?, ?)",
                arguments: [sha256, size, Self.now()])
        }
    }

    /// What registering an upload did.
    public enum RegisterOutcome: Sendable, Equatable {
        /// A new version was added.
        case created
        /// The same bytes were already registered for this version: nothing changed.
        case unchanged
        /// This version (or one equal to it, `1.0` = `1.0.0`) is already registered with other bytes;
        /// versions are immutable.
        case conflict(existingVersion: String, existingSHA256: String)
    }

    /// Records an uploaded, verified package whose blob is already stored. One transaction.
    public func register(
        manifest: Manifest, manifestJSON: String, sha256: String, size: Int64, actor: String,
        status: PublishStatus = .released
    ) throws -> RegisterOutcome {
        try pool.write { db in
            // Versions are unique after normalisation: 1.0 and 1.0.0 are the same version.
            if let row = try Row.fetchOne(
                db, sql: "SELECT version, sha256 FROM packageVersion WHERE packageID = ? AND versionKey = ?",
                arguments: [manifest.id, Self.versionKey(manifest.version)])
            {
                let existing: String = row["sha256"], existingVersion: String = row["version"]
                if existing == sha256 && existingVersion == manifest.version { return .unchanged }
                try Self.audit(
                    db, actor: actor, action: .uploadRefused, id: manifest.id, version: manifest.version,
                    sha256: sha256,
                    detail: "version \(existingVersion) already published with SHA-256 \(existing)")
                return .conflict(existingVersion: existingVersion, existingSHA256: existing)
            }
            let now = Self.now()
            try db.execute(
                sql: "INSERT OR IGNORE INTO blob (sha256, size, storedAt) VALUES (?, ?, ?)",
                arguments: [sha256, size, now])
            // A draft never names a site in public: the name is set on release (or by an admin).
            try db.execute(
                sql: "INSERT OR IGNORE INTO site (id, name) VALUES (?, ?)", arguments: [manifest.site.id, ""])
            try db.execute(
                sql: """
                    INSERT INTO packageVersion (packageID, version, versionKey, siteID, siteName, name, park, description, sha256, size, manifest, status, uploadedBy, createdAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    manifest.id, manifest.version, Self.versionKey(manifest.version), manifest.site.id,
                    manifest.site.name, manifest.name, manifest.park,
                    manifest.description, sha256, size, manifestJSON, status, actor, now,
                ])
            if status == .released { try Self.publishSiteName(db, site: manifest.site.id, name: manifest.site.name) }
            try Self.audit(
                db, actor: actor, action: .upload, id: manifest.id, version: manifest.version, sha256: sha256,
                detail: "\(size) bytes, \(status)")
            return .created
        }
    }

    /// A released version names its site in public, unless an admin named the site.
    static func publishSiteName(_ db: Database, site: String, name: String) throws {
        try db.execute(sql: "UPDATE site SET name = ? WHERE id = ? AND adminNamed = 0", arguments: [name, site])
    }

    /// Counts a client's confirmation (unless `count` is false: a repeat, or over the client's rate);
    /// returns the expected SHA-256 (nil: no such released version).
    public func confirm(
        package id: String, version given: String, sha256: String, count: Bool = true
    ) throws
        -> Confirmation?
    {
        try pool.write { db in
            let version = try Self.storedVersion(db, package: id, given)
            guard
                let expected = try String.fetchOne(
                    db,
                    sql:
                        "SELECT sha256 FROM packageVersion WHERE packageID = ? AND version = ? AND status = 'released'",
                    arguments: [id, version])
            else { return nil }
            let match = expected == sha256.lowercased()
            guard count else { return Confirmation(expected: expected, match: match) }
            try db.execute(
                sql:
                    "UPDATE packageVersion SET \(match ? "confirmMatch = confirmMatch + 1" : "confirmMismatch = confirmMismatch + 1") WHERE packageID = ? AND version = ?",
                arguments: [id, version])
            return Confirmation(expected: expected, match: match)
        }
    }

    public struct Confirmations: Codable, Sendable, Equatable {
        public var id: String
        public var version: String
        public var match: Int
        public var mismatch: Int
    }

    public func confirmations() throws -> [Confirmations] {
        try pool.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT packageID, version, confirmMatch, confirmMismatch FROM packageVersion ORDER BY packageID, versionKey"
            ).map {
                Confirmations(
                    id: $0["packageID"], version: $0["version"], match: $0["confirmMatch"],
                    mismatch: $0["confirmMismatch"])
            }
        }
    }

    public struct AuditEntry: Codable, Sendable, Equatable {
        public var id: Int64
        public var at: String
        public var actor: String
        public var action: String
        public var packageID: String?
        public var version: String?
        public var sha256: String?
        public var detail: String
    }

    public func auditLog(after: Int64 = 0, limit: Int = 100) throws -> [AuditEntry] {
        try pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM auditLog WHERE id > ? ORDER BY id LIMIT ?", arguments: [after, limit]
            ).map {
                AuditEntry(
                    id: $0["id"], at: $0["at"], actor: $0["actor"], action: $0["action"], packageID: $0["packageID"],
                    version: $0["version"], sha256: $0["sha256"], detail: $0["detail"])
            }
        }
    }

    /// Appends to the audit log (in its own transaction).
    public func audit(
        actor: String, action: Catalog.AuditAction, id: String?, version: String?, sha256: String?, detail: String = ""
    ) throws {
        try pool.write { db in
            try Self.audit(db, actor: actor, action: action, id: id, version: version, sha256: sha256, detail: detail)
        }
    }

    static func audit(
        _ db: Database, actor: String, action: AuditAction, id: String?, version: String?, sha256: String?,
        detail: String
    ) throws {
        try db.execute(
            sql:
                "INSERT INTO auditLog (at, actor, action, packageID, version, sha256, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [now(), actor, action, id, version, sha256, detail])
    }

    /// Runs raw SQL (tests use it to show the audit log refuses changes): `@_spi(Testing) import TrailPackCatalog`.
    @_spi(Testing) public func execute(_ sql: String) throws { try pool.write { db in try db.execute(sql: sql) } }

    static func now() -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: Date())
    }

    /// The version as the catalog stores it: `version` itself when stored so, else the one stored
    /// version equal to it after normalisation (`1.0` names `1.0.0`), else `version` unchanged (then
    /// nothing matches it). Every lookup by version goes through here, so an alias works on every route.
    static func storedVersion(_ db: Database, package id: String, _ version: String) throws -> String {
        if try Bool.fetchOne(
            db, sql: "SELECT EXISTS(SELECT 1 FROM packageVersion WHERE packageID = ? AND version = ?)",
            arguments: [id, version]) == true
        {
            return version
        }
        guard PackageVersion(version) != nil else { return version }
        return try String.fetchOne(
            db,
            sql: "SELECT version FROM packageVersion WHERE packageID = ? AND versionKey = ? ORDER BY version LIMIT 1",
            arguments: [id, versionKey(version)]) ?? version
    }

    /// The version as the catalog stores it (see `storedVersion`), or nil when no version of
    /// `package` equals it.
    public func storedVersion(package id: String, version: String) throws -> String? {
        try pool.read { db in
            let stored = try Self.storedVersion(db, package: id, version)
            return try Bool.fetchOne(
                db, sql: "SELECT EXISTS(SELECT 1 FROM packageVersion WHERE packageID = ? AND version = ?)",
                arguments: [id, stored]) == true ? stored : nil
        }
    }

    /// A text key that sorts versions numerically: `1.10` → `000000001.000000010.000000000.000000000`.
    static func versionKey(_ version: String) -> String {
        let parts = PackageVersion(version)?.components ?? []
        let padded = parts + Array(repeating: 0, count: max(0, 4 - parts.count))
        return padded.map { String(repeating: "0", count: max(0, 9 - String($0).count)) + String($0) }.joined(
            separator: ".")
    }
}
