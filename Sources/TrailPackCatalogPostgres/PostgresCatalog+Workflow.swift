import PostgresNIO
import TrailPackCatalogModel

/// The publish workflow: draft → pending → ready → released (→ withdrawn), as ``Catalog/Workflow``
/// decides, each transition in one transaction holding the version's row lock.
extension PostgresCatalog {
    /// Applies `transition` to a package version as `user`, in one transaction that first locks the
    /// version's row (`SELECT … FOR UPDATE`): two servers' approvals of one version are taken one
    /// after the other, the second seeing the first's, so both are counted or one is refused —
    /// never lost.
    ///
    /// - Parameters:
    ///   - required: how many distinct reviewers' approvals make a version ready.
    ///   - signature: an approval's minisign signature of the package (already checked by the caller).
    ///   - reason: why (a denial's or a withdrawal's reason, shown to the publisher and audited).
    public func apply(
        _ transition: Catalog.Transition, package id: String, version given: String, by user: Catalog.User,
        required: Int, signature: String? = nil, reason: String? = nil
    ) async throws -> Catalog.TransitionOutcome {
        try await write { tx in
            let version = try await Self.storedVersion(tx, package: id, given)
            guard
                let row = try await tx.first(
                    """
                    SELECT status, uploadedBy, sha256, scanStatus, scanDetail, siteID, siteName FROM packageVersion
                    WHERE packageID = \(id) AND version = \(version) FOR UPDATE
                    """, as: (String, String, String, String, String, String, String).self)
            else { return .notFound }
            let sha = row.2, siteID = row.5, siteName = row.6
            let subject = Catalog.Workflow.Subject(
                status: try Self.status(row.0), uploadedBy: row.1, scanStatus: try Self.scanStatus(row.3),
                scanDetail: row.4)
            var approvals = Catalog.Workflow.Approvals.none
            if transition == .approve {
                // nil: no approval of theirs; .some(nil): an unsigned one.
                let own: String?? = try await tx.rows(
                    """
                    SELECT signature FROM approval WHERE packageID = \(id) AND version = \(version) AND reviewer = \(user.name)
                    """
                ).first.map { try $0.decode(String?.self) }
                let count =
                    try await tx.value(
                        "SELECT COUNT(DISTINCT reviewer) FROM approval WHERE packageID = \(id) AND version = \(version)",
                        as: Int.self) ?? 0
                approvals = .init(count: count, own: own.map { $0 == nil ? .unsigned : .signed })
            }
            let plan = Catalog.Workflow.plan(
                transition, version: subject, user: user, required: required, signature: signature, reason: reason,
                approvals: approvals)
            switch plan {
            case .forbidden(let text):
                return .forbidden(text)
            case .refuse(let text):
                tx.audit(
                    actor: user.name, action: .transition(transition, refused: true), id: id, version: version,
                    sha256: sha, detail: text)
                return .illegal(current: subject.status, reason: text)
            case .move(let to, let count, let detail, let change):
                switch change {
                case .none: break
                case .add(let signature):
                    try await tx.execute(
                        """
                        INSERT INTO approval (packageID, version, reviewer, at, signature)
                        VALUES (\(id), \(version), \(user.name), \(Catalog.timestamp()), \(signature))
                        """)
                case .sign(let signature):
                    try await tx.execute(
                        """
                        UPDATE approval SET signature = \(signature)
                        WHERE packageID = \(id) AND version = \(version) AND reviewer = \(user.name)
                        """)
                case .clear:
                    try await tx.execute("DELETE FROM approval WHERE packageID = \(id) AND version = \(version)")
                }
                try await tx.execute(
                    "UPDATE packageVersion SET status = \(to.rawValue) WHERE packageID = \(id) AND version = \(version)"
                )
                if to == .released { try await Self.publishSiteName(tx, site: siteID, name: siteName) }
                tx.audit(
                    actor: user.name, action: .transition(transition), id: id, version: version, sha256: sha,
                    detail: Catalog.Workflow.auditDetail(from: subject.status, to: to, detail: detail))
                return .moved(from: subject.status, to: to, approvals: count)
            }
        }
    }

    public func setScan(
        package id: String, version given: String, status: Catalog.ScanStatus, detail: String
    )
        async throws
    {
        try await write { tx in
            let version = try await Self.storedVersion(tx, package: id, given)
            try await tx.execute(
                """
                UPDATE packageVersion SET scanStatus = \(status.rawValue), scanDetail = \(detail)
                WHERE packageID = \(id) AND version = \(version)
                """)
        }
    }

    public func recordRescan(
        package id: String, version given: String, status: Catalog.ScanStatus, detail: String, actor: String
    ) async throws {
        try await write { tx in
            let version = try await Self.storedVersion(tx, package: id, given)
            guard
                let row = try await tx.first(
                    """
                    SELECT scanStatus, sha256 FROM packageVersion WHERE packageID = \(id) AND version = \(version) FOR UPDATE
                    """, as: (String, String).self)
            else { return }
            let before = try Self.scanStatus(row.0)
            try await tx.execute(
                """
                UPDATE packageVersion SET scanStatus = \(status.rawValue), scanDetail = \(detail)
                WHERE packageID = \(id) AND version = \(version)
                """)
            tx.audit(
                actor: actor, action: .rescan, id: id, version: version, sha256: row.1,
                detail: "\(before) → \(status)\(detail.isEmpty ? "" : ": " + detail)")
        }
    }

    public func scanTargets(
        heldOnly: Bool
    ) async throws -> [(id: String, version: String, sha256: String, scanStatus: Catalog.ScanStatus)] {
        try await read { tx in
            try await tx.all(
                """
                SELECT packageID, version, sha256, scanStatus FROM packageVersion
                WHERE status != 'damaged'\(unescaped: heldOnly ? " AND scanStatus = 'held'" : "") ORDER BY packageID, versionKey
                """, as: (String, String, String, String).self
            ).map { (id: $0.0, version: $0.1, sha256: $0.2, scanStatus: try Self.scanStatus($0.3)) }
        }
    }

    public func state(package id: String, version given: String) async throws -> Catalog.VersionState? {
        try await read { tx in
            let version = try await Self.storedVersion(tx, package: id, given)
            guard
                let row = try await tx.first(
                    """
                    SELECT status, uploadedBy, scanStatus, scanDetail FROM packageVersion
                    WHERE packageID = \(id) AND version = \(version)
                    """, as: (String, String, String, String).self)
            else { return nil }
            let approvals = try await tx.values(
                "SELECT reviewer FROM approval WHERE packageID = \(id) AND version = \(version) ORDER BY reviewer",
                as: String.self)
            return Catalog.VersionState(
                status: try Self.status(row.0), uploadedBy: row.1, scanStatus: try Self.scanStatus(row.2),
                scanDetail: row.3, approvals: approvals)
        }
    }

    public func approvalSignatures(
        package id: String, version given: String
    ) async throws -> [(reviewer: String, signature: String)] {
        try await read { tx in
            let version = try await Self.storedVersion(tx, package: id, given)
            return try await tx.all(
                """
                SELECT reviewer, signature FROM approval
                WHERE packageID = \(id) AND version = \(version) AND signature IS NOT NULL ORDER BY reviewer
                """, as: (String, String).self
            ).map { (reviewer: $0.0, signature: $0.1) }
        }
    }
}
