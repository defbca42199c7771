import GRDB
import TrailPackCatalogModel

/// What the control panel's review pages read: the queue of versions waiting for reviewers, a
/// package's versions in every state with who approved them, and a package's audit trail.
extension SQLiteCatalog {

    /// Versions in `statuses` (by default: waiting for reviewers), the most recently uploaded first.
    public func reviewQueue(statuses: [PublishStatus] = [.pending], limit: Int = 200) async throws -> [VersionRecord] {
        try await read { db in
            let marks = statuses.map { _ in "?" }.joined(separator: ", ")
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.summaryColumns), uploadedBy, createdAt, scanStatus, scanDetail FROM packageVersion
                    WHERE status IN (\(marks)) ORDER BY createdAt DESC, packageID, versionKey DESC LIMIT ?
                    """, arguments: StatementArguments(statuses.map(\.rawValue) + [String(limit)]))
            return try rows.map { try Self.record($0, db) }
        }
    }

    /// How many pending versions wait for `reviewer` (not their own upload, not yet approved by them):
    /// one count, for the badge on every panel page.
    public func waitingCount(for reviewer: String) async throws -> Int {
        try await read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM packageVersion p WHERE p.status = 'pending' AND p.uploadedBy != ?
                    AND NOT EXISTS (SELECT 1 FROM approval a WHERE a.packageID = p.packageID AND a.version = p.version AND a.reviewer = ?)
                    """, arguments: [reviewer, reviewer]) ?? 0
        }
    }

    /// Every version of a package, in every state, the newest first.
    public func history(package id: String) async throws -> [VersionRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.summaryColumns), uploadedBy, createdAt, scanStatus, scanDetail FROM packageVersion
                    WHERE packageID = ? ORDER BY versionKey DESC, createdAt DESC
                    """, arguments: [id]
            ).map { try Self.record($0, db) }
        }
    }

    /// One version of a package in any state, with its approvals.
    public func record(package id: String, version given: String) async throws -> VersionRecord? {
        try await read { db in
            let version = try Self.storedVersion(db, package: id, given)
            return try Row.fetchOne(
                db,
                sql: """
                    SELECT \(Self.summaryColumns), uploadedBy, createdAt, scanStatus, scanDetail FROM packageVersion
                    WHERE packageID = ? AND version = ?
                    """, arguments: [id, version]
            ).map { try Self.record($0, db) }
        }
    }

    /// The audit trail of one package, oldest first.
    public func auditLog(package id: String, limit: Int = 1000) async throws -> [AuditEntry] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM auditLog WHERE packageID = ? ORDER BY id LIMIT ?", arguments: [id, limit]
            ).map {
                AuditEntry(
                    id: $0["id"], at: $0["at"], actor: $0["actor"], action: $0["action"], packageID: $0["packageID"],
                    version: $0["version"], sha256: $0["sha256"], detail: $0["detail"])
            }
        }
    }

    static func record(_ row: Row, _ db: Database) throws -> VersionRecord {
        let summary = try summary(row)
        let approvals = try Row.fetchAll(
            db,
            sql:
                "SELECT reviewer, at, signature IS NOT NULL AS signed FROM approval WHERE packageID = ? AND version = ? ORDER BY at, reviewer",
            arguments: [summary.id, summary.version]
        ).map { Approval(reviewer: $0["reviewer"], at: $0["at"], signed: $0["signed"]) }
        return VersionRecord(
            summary: summary, uploadedBy: row["uploadedBy"], createdAt: row["createdAt"], approvals: approvals,
            scanStatus: try row.decode(forColumn: "scanStatus"), scanDetail: row["scanDetail"])
    }
}
