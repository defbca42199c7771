import Foundation
import GRDB
import TrailPackCatalogModel
import TrailPackFileIO

/// Keeping what is served intact: damaged blobs taken out of service, consistent backups.
extension SQLiteCatalog {
    /// Takes every version stored as `sha256` out of service (status `damaged`: no longer listed
    /// or downloadable), each change audited. Returns the versions changed as `id version`.
    @discardableResult
    public func markDamaged(sha256: String, reason: String, actor: String) async throws -> [String] {
        try await write { db in
            let rows = try Row.fetchAll(
                db,
                sql:
                    "SELECT packageID, version, status FROM packageVersion WHERE sha256 = ? AND status != 'damaged' ORDER BY packageID, versionKey",
                arguments: [sha256])
            try db.execute(
                sql:
                    "UPDATE packageVersion SET statusBeforeDamage = status, status = 'damaged' WHERE sha256 = ? AND status != 'damaged'",
                arguments: [sha256])
            var changed: [String] = []
            for row in rows {
                let id: String = row["packageID"], version: String = row["version"], status: String = row["status"]
                try Self.audit(
                    db, actor: actor, action: .damaged, id: id, version: version, sha256: sha256,
                    detail: "\(status) → damaged; \(reason)")
                changed.append("\(id) \(version)")
            }
            if rows.isEmpty {
                try Self.audit(
                    db, actor: actor, action: .damaged, id: nil, version: nil, sha256: sha256, detail: reason)
            }
            return changed
        }
    }

    /// Brings back every version stored as `sha256` that was taken out of service as damaged, once
    /// its intact bytes are in place again: each returns to the state it had (a version damaged
    /// before that state was recorded returns as a draft, to be reviewed again), each change audited.
    /// Returns the versions changed as `id version`.
    @discardableResult
    public func restoreDamaged(sha256: String, actor: String, detail: String) async throws -> [String] {
        try await write { db in
            let rows = try Row.fetchAll(
                db,
                sql:
                    "SELECT packageID, version, COALESCE(statusBeforeDamage, 'draft') AS before FROM packageVersion WHERE sha256 = ? AND status = 'damaged' ORDER BY packageID, versionKey",
                arguments: [sha256])
            var changed: [String] = []
            for row in rows {
                let id: String = row["packageID"], version: String = row["version"]
                let before: PublishStatus = (try? row.decode(forColumn: "before")) ?? .draft
                try db.execute(
                    sql:
                        "UPDATE packageVersion SET status = ?, statusBeforeDamage = NULL WHERE packageID = ? AND version = ?",
                    arguments: [before, id, version])
                try Self.audit(
                    db, actor: actor, action: .restored, id: id, version: version, sha256: sha256,
                    detail: "damaged → \(before); \(detail)")
                changed.append("\(id) \(version)")
            }
            return changed
        }
    }

    /// The versions stored as `sha256` that are out of service as damaged, as `id version`.
    public func damagedVersions(sha256: String) async throws -> [String] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT packageID, version FROM packageVersion WHERE sha256 = ? AND status = 'damaged' ORDER BY packageID, versionKey",
                arguments: [sha256]
            ).map { "\($0["packageID"] as String) \($0["version"] as String)" }
        }
    }

    /// Every blob the catalog holds, with its recorded size, by SHA-256 (`inService`: leaving out
    /// those already taken out of service as damaged).
    public func storedBlobs(inService: Bool = false) async throws -> [(sha256: String, size: Int64)] {
        try await read { db in
            let filter =
                inService
                ? " WHERE NOT EXISTS (SELECT 1 FROM packageVersion p WHERE p.sha256 = b.sha256 AND p.status = 'damaged')"
                : ""
            return try Row.fetchAll(db, sql: "SELECT sha256, size FROM blob b\(filter) ORDER BY sha256").map {
                ($0["sha256"], $0["size"])
            }
        }
    }

    /// Writes a consistent copy of the catalog to `path` through SQLite's online backup API (the
    /// server may go on writing meanwhile). The copy is made under a temporary name and moved into
    /// place whole (``AtomicFile``): `path` holds the old backup or the new one, never a part.
    /// The corresponding C function is `sqlite3_backup_step`.
    public func backup(to path: String) async throws {
        let file = try AtomicFile(destination: path)
        let destination = try DatabaseQueue(path: file.temporaryPath)
        try pool.backup(to: destination)
        try destination.close()
        try file.commit()
    }

    /// Blobs recorded but used by no package version (an upload refused after its bytes were stored).
    public func unusedBlobs(recordedBefore date: Date) async throws -> [String] {
        let before = Catalog.timestamp(date)
        return try await read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT sha256 FROM blob b WHERE storedAt < ? AND NOT EXISTS (SELECT 1 FROM packageVersion p WHERE p.sha256 = b.sha256) ORDER BY sha256",
                arguments: [before])
        }
    }

    /// The data folder's own lock (taken by the command that moves files) keeps every other out.
    public func withMaintenanceLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await body()
    }

    /// Drops the record of a blob no version uses (after gc moved its file to quarantine).
    public func forgetUnusedBlob(sha256: String) async throws {
        try await write { db in
            try db.execute(
                sql:
                    "DELETE FROM blob WHERE sha256 = ? AND NOT EXISTS (SELECT 1 FROM packageVersion p WHERE p.sha256 = blob.sha256)",
                arguments: [sha256])
        }
    }
}
