import Foundation
import GRDB
import Synchronization
import TrailPackCatalogModel
import TrailPackCore

/// The catalog in one SQLite file (GRDB, WAL mode, migrations): sites, package versions, stored
/// blobs, download confirmations, the panel's sessions and an append-only audit log — the store of
/// one server per data folder (`trailpack serve --data DIR`).
///
/// Every call runs through GRDB's asynchronous API, on GRDB's own threads (a write waits up to
/// 10 s for SQLite's lock there, never on Swift's cooperative pool); at most `maxWaiting` calls wait
/// at once, and a call beyond that, or one SQLite kept locked past its wait, fails at once with
/// ``CatalogError/busy(_:)`` (the server answers 503 with `Retry-After`). Every change is one
/// transaction, so concurrent uploads and confirmations leave one of the legal outcomes. Nothing in
/// the audit log is ever updated or deleted: triggers refuse it.
public final class SQLiteCatalog: CatalogStore {
    public typealias User = Catalog.User
    public typealias Role = Catalog.Role
    public typealias PublishStatus = Catalog.PublishStatus
    public typealias ScanStatus = Catalog.ScanStatus
    public typealias AuditAction = Catalog.AuditAction
    public typealias Transition = Catalog.Transition
    public typealias TransitionOutcome = Catalog.TransitionOutcome
    public typealias SiteSummary = Catalog.SiteSummary
    public typealias PackageSummary = Catalog.PackageSummary
    public typealias Page = Catalog.Page
    public typealias RegisteredVersion = Catalog.RegisteredVersion
    public typealias RegisterOutcome = Catalog.RegisterOutcome
    public typealias Confirmation = Catalog.Confirmation
    public typealias Confirmations = Catalog.Confirmations
    public typealias AuditEntry = Catalog.AuditEntry
    public typealias IssuedToken = Catalog.IssuedToken
    public typealias SignInRecord = Catalog.SignInRecord
    public typealias VersionRecord = Catalog.VersionRecord
    public typealias Approval = Catalog.Approval
    public typealias VersionState = Catalog.VersionState
    public typealias TokenInfo = Catalog.TokenInfo

    let pool: DatabasePool
    let changes = CatalogChanges()
    /// Commits seen by ``watchOtherProcesses(_:)`` (an admin command run beside the server).
    private let otherChanges = Atomic<UInt64>(0)
    private let watcher = Mutex<Task<Void, Never>?>(nil)
    /// Calls waiting for or using a connection now, and how many may.
    private let waiting = Atomic<Int>(0)
    public let maxWaiting: Int

    /// Opens (creating and migrating) the catalog at `path`; at most `maxWaiting` calls wait at once.
    public init(path: String, maxWaiting: Int = 256) throws {
        var config = Configuration()
        config.busyMode = .timeout(10)
        pool = try DatabasePool(path: path, configuration: config)
        self.maxWaiting = max(1, maxWaiting)
        try Self.migrator.migrate(pool)
        pool.add(transactionObserver: changes, extent: .databaseLifetime)
        var watching = Configuration()
        watching.readonly = true
        watching.busyMode = .timeout(1)
        let queue = try DatabaseQueue(path: path, configuration: watching)
        // Looks at `PRAGMA data_version` on a connection of its own four times a second: it changes
        // when any other connection (this process's writer, or another process) committed. A cheap
        // read off the request path; the public answers' hot path only loads a counter.
        let task = Task { [weak self] in
            var last: Int?
            while !Task.isCancelled {
                let version = try? await queue.read { try Int.fetchOne($0, sql: "PRAGMA data_version") }
                guard let self else { return }
                if let version {
                    if let last, version != last { self.otherChanges.wrappingAdd(1, ordering: .releasing) }
                    last = version
                }
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        watcher.withLock { $0 = task }
    }

    deinit { watcher.withLock { $0?.cancel() } }

    /// Moves whenever a committed change alters what the public answers show (sites, released
    /// versions, manifests); answers kept as bytes are good while it stays the same. It also moves
    /// within a quarter of a second of any commit by another process (`trailpack admin site
    /// rename` while the server runs), seen by SQLite's `data_version`.
    public var publicChangeCount: UInt64 { changes.value &+ otherChanges.load(ordering: .acquiring) }

    /// Reads in one snapshot, on one of GRDB's reader connections.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await admitted { try await self.pool.read(body) }
    }

    /// Writes in one transaction, on GRDB's writer connection.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        // GRDB runs `body` on its own thread: who is acting is carried over to it.
        let actor = Catalog.auditActor
        return try await admitted {
            try await self.pool.write { db in try Catalog.$auditActor.withValue(actor) { try body(db) } }
        }
    }

    private func admitted<T>(_ body: () async throws -> T) async throws -> T {
        let now = waiting.wrappingAdd(1, ordering: .relaxed).newValue
        defer { waiting.wrappingSubtract(1, ordering: .relaxed) }
        guard now <= maxWaiting else { throw CatalogError.busy("\(maxWaiting) requests are already waiting for it") }
        do {
            return try await body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        {
            throw CatalogError.busy("SQLite stayed locked for 10 s")
        }
    }

    // MARK: reading

    /// Sites with at least one released package, by id.
    public func sites() async throws -> [SiteSummary] {
        try await read { db in
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
    public func packages(site: String, limit: Int, after: String?) async throws -> Page {
        try await read { db in
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

    public func siteExists(_ id: String) async throws -> Bool {
        try await read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM site WHERE id = ?)", arguments: [id]) ?? false
        }
    }

    /// A version (nil `version`: the newest released one).
    public func version(
        package id: String, version given: String?, releasedOnly: Bool = true
    ) async throws
        -> RegisteredVersion?
    {
        try await read { db in
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
    public func versions(package id: String) async throws -> [PackageSummary] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT \(Self.summaryColumns) FROM packageVersion WHERE packageID = ? AND status = 'released' ORDER BY versionKey DESC",
                arguments: [id]
            ).map(Self.summary)
        }
    }

    /// Whether a blob may be downloaded: some released version holds it.
    public func isReleasedBlob(_ sha256: String) async throws -> Int64? {
        try await read { db in
            try Int64.fetchOne(
                db, sql: "SELECT size FROM packageVersion WHERE sha256 = ? AND status = 'released' LIMIT 1",
                arguments: [sha256])
        }
    }

    /// Every blob the catalog records (a blob on disk that is not here is an orphan: see `trailpack admin gc`).
    public func blobHashes() async throws -> Set<String> {
        try await read { db in Set(try String.fetchAll(db, sql: "SELECT sha256 FROM blob")) }
    }

    // MARK: writing

    /// Records a blob about to be stored (before it is renamed into `blobs/`), so that no blob on
    /// disk is ever unknown to the catalog.
    public func claimVersion(
        package id: String, version: String, sha256: String, now: Double, staleAfter: Double
    ) async throws -> Catalog.VersionClaim {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM versionClaim WHERE packageID = ? AND version = ? AND claimedAt < ?",
                arguments: [id, version, now - staleAfter])
            if let held = try String.fetchOne(
                db, sql: "SELECT sha256 FROM versionClaim WHERE packageID = ? AND version = ?",
                arguments: [id, version])
            {
                return held == sha256 ? .sameBytes : .otherBytes
            }
            try db.execute(
                sql: "INSERT INTO versionClaim (packageID, version, sha256, claimedAt) VALUES (?, ?, ?, ?)",
                arguments: [id, version, sha256, now])
            return .claimed
        }
    }

    public func releaseVersionClaim(package id: String, version: String, sha256: String) async throws {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM versionClaim WHERE packageID = ? AND version = ? AND sha256 = ?",
                arguments: [id, version, sha256])
        }
    }

    public func recordBlob(sha256: String, size: Int64) async throws {
        try await write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO blob (sha256, size, storedAt) VALUES (?, ?, ?)",
                arguments: [sha256, size, Self.now()])
        }
    }

    /// Records an uploaded, verified package whose blob is already stored. One transaction.
    public func register(
        manifest: Manifest, manifestJSON: String, sha256: String, size: Int64, actor: String,
        status: PublishStatus = .released
    ) async throws -> RegisterOutcome {
        try await write { db in
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
                    detail: Catalog.conflictDetail(existingVersion: existingVersion, existingSHA256: existing))
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

    public func replaceDraft(
        manifest: Manifest, manifestJSON: String, sha256: String, size: Int64, actor: String,
        status: PublishStatus, replacing: String
    ) async throws -> String? {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT version, sha256, size, manifest, status FROM packageVersion
                        WHERE packageID = ? AND versionKey = ?
                        """, arguments: [manifest.id, Self.versionKey(manifest.version)])
            else { return "there is no version \(manifest.version) to build again" }
            let version: String = row["version"], old: String = row["sha256"]
            let current = PublishStatus(rawValue: row["status"]) ?? .released
            if let why = Catalog.replaceRefusal(version: version, status: current, stored: old, replacing: replacing) {
                return why
            }
            let now = Self.now()
            try db.execute(
                sql: "INSERT OR IGNORE INTO blob (sha256, size, storedAt) VALUES (?, ?, ?)",
                arguments: [sha256, size, now])
            try db.execute(
                sql: """
                    INSERT INTO replacedVersion (packageID, version, sha256, size, manifest, replacedAt, replacedBy)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [manifest.id, version, old, row["size"] as Int64, row["manifest"] as String, now, actor])
            try db.execute(
                sql: """
                    UPDATE packageVersion SET siteName = ?, name = ?, park = ?, description = ?, sha256 = ?, size = ?,
                        manifest = ?, status = ?, uploadedBy = ?, scanStatus = 'clean', scanDetail = ''
                    WHERE packageID = ? AND version = ?
                    """,
                arguments: [
                    manifest.site.name, manifest.name, manifest.park, manifest.description, sha256, size, manifestJSON,
                    status, actor, manifest.id, version,
                ])
            try db.execute(
                sql: "DELETE FROM approval WHERE packageID = ? AND version = ?", arguments: [manifest.id, version])
            if status == .released { try Self.publishSiteName(db, site: manifest.site.id, name: manifest.site.name) }
            try Self.audit(
                db, actor: actor, action: .upload, id: manifest.id, version: version, sha256: sha256,
                detail: Catalog.replacedDetail(size: size, status: status, old: old))
            return nil
        }
    }

    public func replacedBytes(package id: String, version: String) async throws -> [Catalog.ReplacedBytes] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT sha256, size, manifest, replacedBy FROM replacedVersion
                    WHERE packageID = ? AND version = ? ORDER BY rowid
                    """, arguments: [id, version]
            ).map {
                Catalog.ReplacedBytes(
                    sha256: $0["sha256"], size: $0["size"], manifest: $0["manifest"], replacedBy: $0["replacedBy"])
            }
        }
    }

    /// A released version names its site in public, unless an admin named the site.
    static func publishSiteName(_ db: Database, site: String, name: String) throws {
        try db.execute(sql: "UPDATE site SET name = ? WHERE id = ? AND adminNamed = 0", arguments: [name, site])
    }

    /// Counts a client's confirmation (unless `count` is false: a repeat, or over the client's rate):
    /// a mismatch when the SHA-256 is not the version's or the client `refused` the download; returns
    /// the expected SHA-256 (nil: no such released version).
    public func confirm(
        package id: String, version given: String, sha256: String, refused: Bool = false, count: Bool = true
    ) async throws
        -> Confirmation?
    {
        try await write { db in
            let version = try Self.storedVersion(db, package: id, given)
            guard
                let expected = try String.fetchOne(
                    db,
                    sql:
                        "SELECT sha256 FROM packageVersion WHERE packageID = ? AND version = ? AND status = 'released'",
                    arguments: [id, version])
            else { return nil }
            let match = !refused && expected == sha256.lowercased()
            guard count else { return Confirmation(expected: expected, match: match) }
            try db.execute(
                sql:
                    "UPDATE packageVersion SET \(match ? "confirmMatch = confirmMatch + 1" : "confirmMismatch = confirmMismatch + 1") WHERE packageID = ? AND version = ?",
                arguments: [id, version])
            return Confirmation(expected: expected, match: match)
        }
    }

    public func confirmations() async throws -> [Confirmations] {
        try await read { db in
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

    public func auditLog(after: Int64 = 0, limit: Int = 100) async throws -> [AuditEntry] {
        try await read { db in
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
    ) async throws {
        try await write { db in
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
    @_spi(Testing) public func execute(_ sql: String) async throws {
        try await write { db in try db.execute(sql: sql) }
    }

    static func now() -> String { Catalog.timestamp() }

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
    public func storedVersion(package id: String, version: String) async throws -> String? {
        try await read { db in
            let stored = try Self.storedVersion(db, package: id, version)
            return try Bool.fetchOne(
                db, sql: "SELECT EXISTS(SELECT 1 FROM packageVersion WHERE packageID = ? AND version = ?)",
                arguments: [id, stored]) == true ? stored : nil
        }
    }

    /// A text key that sorts versions numerically (see ``Catalog/versionKey(_:)``).
    static func versionKey(_ version: String) -> String { Catalog.versionKey(version) }
}
