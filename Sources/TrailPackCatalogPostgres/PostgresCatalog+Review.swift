import PostgresNIO
import TrailPackCatalogModel

/// What the control panel's review pages read: the queue of versions waiting for reviewers, a
/// package's versions in every state with who approved them.
extension PostgresCatalog {
    static let recordColumns = summaryColumns + ", uploadedBy, createdAt, scanStatus, scanDetail"

    public func reviewQueue(
        statuses: [Catalog.PublishStatus] = [.pending], limit: Int = 200
    ) async throws -> [Catalog.VersionRecord] {
        try await read { tx in
            let rows = try await tx.rows(
                """
                SELECT \(unescaped: Self.recordColumns) FROM packageVersion
                WHERE status = ANY(\(statuses.map(\.rawValue))) ORDER BY createdAt DESC, packageID, versionKey DESC LIMIT \(limit)
                """)
            return try await Self.records(rows, tx)
        }
    }

    public func waitingCount(for reviewer: String) async throws -> Int {
        try await read { tx in
            try await tx.value(
                """
                SELECT COUNT(*) FROM packageVersion p WHERE p.status = 'pending' AND p.uploadedBy != \(reviewer)
                AND NOT EXISTS (SELECT 1 FROM approval a WHERE a.packageID = p.packageID AND a.version = p.version AND a.reviewer = \(reviewer))
                """, as: Int.self) ?? 0
        }
    }

    public func history(package id: String) async throws -> [Catalog.VersionRecord] {
        try await read { tx in
            let rows = try await tx.rows(
                """
                SELECT \(unescaped: Self.recordColumns) FROM packageVersion
                WHERE packageID = \(id) ORDER BY versionKey DESC, createdAt DESC
                """)
            return try await Self.records(rows, tx)
        }
    }

    public func record(package id: String, version given: String) async throws -> Catalog.VersionRecord? {
        try await read { tx in
            let version = try await Self.storedVersion(tx, package: id, given)
            let rows = try await tx.rows(
                """
                SELECT \(unescaped: Self.recordColumns) FROM packageVersion WHERE packageID = \(id) AND version = \(version)
                """)
            return try await Self.records(rows, tx).first
        }
    }

    static func records(_ rows: [PostgresRow], _ tx: Transaction) async throws -> [Catalog.VersionRecord] {
        var records: [Catalog.VersionRecord] = []
        for row in rows {
            let summary = try summary(row)
            let r = try row.decode(
                (String, String, String, String, String, String, Int64, String, String, String, String, String, String)
                    .self)
            let approvals = try await tx.all(
                """
                SELECT reviewer, at, signature IS NOT NULL AS signed FROM approval
                WHERE packageID = \(summary.id) AND version = \(summary.version) ORDER BY at, reviewer
                """, as: (String, String, Bool).self
            ).map { Catalog.Approval(reviewer: $0.0, at: $0.1, signed: $0.2) }
            records.append(
                Catalog.VersionRecord(
                    summary: summary, uploadedBy: r.9, createdAt: r.10, approvals: approvals,
                    scanStatus: try scanStatus(r.11), scanDetail: r.12))
        }
        return records
    }
}
