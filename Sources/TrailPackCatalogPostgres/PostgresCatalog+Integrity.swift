import Foundation
import PostgresNIO
import TrailPackCatalogModel

/// Keeping what is served intact: damaged blobs taken out of service and brought back, unused
/// blobs forgotten. A backup is PostgreSQL's own (`pg_dump`).
extension PostgresCatalog {
    @discardableResult
    public func markDamaged(sha256: String, reason: String, actor: String) async throws -> [String] {
        try await write { tx in
            // One statement: a version registered meanwhile by another server is either taken out
            // with the others (and audited) or not touched.
            let rows = try await tx.all(
                """
                UPDATE packageVersion SET statusBeforeDamage = status, status = 'damaged'
                WHERE sha256 = \(sha256) AND status != 'damaged'
                RETURNING packageID, version, statusBeforeDamage, versionKey
                """, as: (String, String, String, String).self
            ).sorted { ($0.0, $0.3) < ($1.0, $1.3) }
            var changed: [String] = []
            for (id, version, status, _) in rows {
                tx.audit(
                    actor: actor, action: .damaged, id: id, version: version, sha256: sha256,
                    detail: "\(status) → damaged; \(reason)")
                changed.append("\(id) \(version)")
            }
            if rows.isEmpty {
                tx.audit(actor: actor, action: .damaged, id: nil, version: nil, sha256: sha256, detail: reason)
            }
            return changed
        }
    }

    @discardableResult
    public func restoreDamaged(sha256: String, actor: String, detail: String) async throws -> [String] {
        try await write { tx in
            let rows = try await tx.all(
                """
                SELECT packageID, version, COALESCE(statusBeforeDamage, 'draft') AS before FROM packageVersion
                WHERE sha256 = \(sha256) AND status = 'damaged' ORDER BY packageID, versionKey FOR UPDATE
                """, as: (String, String, String).self)
            var changed: [String] = []
            for (id, version, stored) in rows {
                let before = Catalog.PublishStatus(rawValue: stored) ?? .draft
                try await tx.execute(
                    """
                    UPDATE packageVersion SET status = \(before.rawValue), statusBeforeDamage = NULL
                    WHERE packageID = \(id) AND version = \(version)
                    """)
                tx.audit(
                    actor: actor, action: .restored, id: id, version: version, sha256: sha256,
                    detail: "damaged → \(before); \(detail)")
                changed.append("\(id) \(version)")
            }
            return changed
        }
    }

    public func damagedVersions(sha256: String) async throws -> [String] {
        try await read { tx in
            try await tx.all(
                """
                SELECT packageID, version FROM packageVersion WHERE sha256 = \(sha256) AND status = 'damaged'
                ORDER BY packageID, versionKey
                """, as: (String, String).self
            ).map { "\($0.0) \($0.1)" }
        }
    }

    public func storedBlobs(inService: Bool = false) async throws -> [(sha256: String, size: Int64)] {
        try await read { tx in
            let filter =
                inService
                ? " WHERE NOT EXISTS (SELECT 1 FROM packageVersion p WHERE p.sha256 = b.sha256 AND p.status = 'damaged')"
                : ""
            return try await tx.all(
                "SELECT sha256, size FROM blob b\(unescaped: filter) ORDER BY sha256", as: (String, Int64).self
            ).map { (sha256: $0.0, size: $0.1) }
        }
    }

    public func unusedBlobs(recordedBefore date: Date) async throws -> [String] {
        let before = Catalog.timestamp(date)
        return try await read { tx in
            try await tx.values(
                """
                SELECT sha256 FROM blob b WHERE storedAt < \(before)
                  AND NOT EXISTS (SELECT 1 FROM packageVersion p WHERE p.sha256 = b.sha256)
                ORDER BY sha256
                """, as: String.self)
        }
    }

    /// The advisory lock every server's `admin gc` and `admin scrub` take, held on a connection of
    /// its own for as long as `body` runs; when another holds it, refused at once.
    public func withMaintenanceLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let key = Self.maintenanceLockKey
        return try await client.withConnection { connection in
            let transaction = Transaction(connection: connection, logger: self.logger)
            guard try await transaction.value("SELECT pg_try_advisory_lock(\(key))", as: Bool.self) == true else {
                throw CatalogError.busy(
                    "another 'trailpack admin gc' or 'scrub' is running on this catalog, from this machine or another; wait for it to end"
                )
            }
            do {
                let value = try await body()
                _ = try? await transaction.value("SELECT pg_advisory_unlock(\(key))", as: Bool.self)
                return value
            } catch {
                _ = try? await transaction.value("SELECT pg_advisory_unlock(\(key))", as: Bool.self)
                throw error
            }
        }
    }

    /// The advisory lock of gc and scrub (apart from the migrations' and the per-package ones).
    static let maintenanceLockKey: Int64 = 0x7472_6169_6c67_6300

    public func forgetUnusedBlob(sha256: String) async throws {
        try await write { tx in
            try await tx.execute(
                """
                DELETE FROM blob WHERE sha256 = \(sha256)
                AND NOT EXISTS (SELECT 1 FROM packageVersion p WHERE p.sha256 = blob.sha256)
                """)
        }
    }

    /// A shared catalog is backed up by PostgreSQL's own tools: this throws
    /// ``CatalogError/Code/unsupported``, naming the `pg_dump` command.
    public func backup(to path: String) async throws {
        throw CatalogError.unsupported(
            "a backup by trailpack",
            instead:
                "the catalog is in PostgreSQL (\(location)): back it up with pg_dump, for example "
                + "'pg_dump -h \(location.host) -p \(location.port) -U \(location.user) -Fc -f \(path) \(location.database)'"
        )
    }
}
