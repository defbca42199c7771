import Foundation
import PostgresNIO
import TrailPackCatalogModel
import TrailPackCore

/// The public answers, uploads, blobs, confirmations and the audit log: the same statements as
/// the SQLite store's, in PostgreSQL.
extension PostgresCatalog {
    // MARK: reading

    public func sites() async throws -> [Catalog.SiteSummary] {
        try await read { tx in
            try await tx.all(
                """
                SELECT s.id, s.name, COUNT(DISTINCT p.packageID) AS n FROM site s
                JOIN packageVersion p ON p.siteID = s.id AND p.status = 'released'
                GROUP BY s.id ORDER BY s.id
                """, as: (String, String, Int).self
            ).map { Catalog.SiteSummary(id: $0.0, name: $0.1, packages: $0.2) }
        }
    }

    static let summaryColumns = "packageID, name, description, park, siteID, version, size, sha256, status"
    typealias SummaryRow = (String, String, String, String, String, String, Int64, String, String)

    static func summary(_ row: PostgresRow) throws -> Catalog.PackageSummary {
        let r = try row.decode(SummaryRow.self)
        return Catalog.PackageSummary(
            id: r.0, name: r.1, description: r.2, park: r.3, site: r.4, version: r.5, size: r.6, sha256: r.7,
            status: try status(r.8))
    }

    /// A stored status, checked: a catalog edited by hand gets an error, never a trap.
    static func status(_ text: String) throws -> Catalog.PublishStatus {
        guard let status = Catalog.PublishStatus(rawValue: text) else {
            throw PostgresCatalogError(
                code: .server, message: "the catalog holds a version whose status '\(text)' is not one trailpack knows")
        }
        return status
    }

    /// A stored scan verdict, checked.
    static func scanStatus(_ text: String) throws -> Catalog.ScanStatus {
        guard let status = Catalog.ScanStatus(rawValue: text) else {
            throw PostgresCatalogError(
                code: .server, message: "the catalog holds a scan verdict '\(text)' that trailpack does not know")
        }
        return status
    }

    public func packages(site: String, limit: Int, after: String?) async throws -> Catalog.Page {
        try await read { tx in
            let rows = try await tx.rows(
                """
                SELECT \(unescaped: Self.summaryColumns) FROM packageVersion p
                WHERE siteID = \(site) AND status = 'released' AND packageID > \(after ?? "")
                  AND version = (SELECT q.version FROM packageVersion q WHERE q.packageID = p.packageID AND q.status = 'released'
                                 ORDER BY q.versionKey DESC, q.createdAt DESC, q.version DESC LIMIT 1)
                ORDER BY packageID LIMIT \(limit + 1)
                """)
            let page = try rows.prefix(limit).map(Self.summary)
            return Catalog.Page(packages: Array(page), next: rows.count > limit ? page.last?.id : nil)
        }
    }

    public func siteExists(_ id: String) async throws -> Bool {
        try await read { tx in
            try await tx.value("SELECT EXISTS(SELECT 1 FROM site WHERE id = \(id))", as: Bool.self) ?? false
        }
    }

    public func version(
        package id: String, version given: String?, releasedOnly: Bool = true
    ) async throws -> Catalog.RegisteredVersion? {
        try await read { tx in
            let row: PostgresRow?
            if let given {
                let version = try await Self.storedVersion(tx, package: id, given)
                row = try await tx.rows(
                    """
                    SELECT \(unescaped: Self.summaryColumns), manifest FROM packageVersion WHERE packageID = \(id) AND version = \(version)
                    \(unescaped: releasedOnly ? " AND status = 'released'" : "")
                    """
                ).first
            } else {
                row = try await tx.rows(
                    """
                    SELECT \(unescaped: Self.summaryColumns), manifest FROM packageVersion WHERE packageID = \(id) AND status = 'released'
                    ORDER BY versionKey DESC LIMIT 1
                    """
                ).first
            }
            guard let row else { return nil }
            let manifest = try row.decode(
                (String, String, String, String, String, String, Int64, String, String, String).self
            ).9
            return Catalog.RegisteredVersion(summary: try Self.summary(row), manifest: manifest)
        }
    }

    public func versions(package id: String) async throws -> [Catalog.PackageSummary] {
        try await read { tx in
            try await tx.rows(
                """
                SELECT \(unescaped: Self.summaryColumns) FROM packageVersion WHERE packageID = \(id) AND status = 'released'
                ORDER BY versionKey DESC
                """
            ).map(Self.summary)
        }
    }

    public func isReleasedBlob(_ sha256: String) async throws -> Int64? {
        try await read { tx in
            try await tx.value(
                "SELECT size FROM packageVersion WHERE sha256 = \(sha256) AND status = 'released' LIMIT 1",
                as: Int64.self)
        }
    }

    public func blobHashes() async throws -> Set<String> {
        try await read { tx in Set(try await tx.values("SELECT sha256 FROM blob", as: String.self)) }
    }

    /// The version as the catalog stores it: `version` itself when stored so, else the one stored
    /// version equal to it after normalisation (`1.0` names `1.0.0`), else `version` unchanged.
    static func storedVersion(_ tx: Transaction, package id: String, _ version: String) async throws -> String {
        if try await tx.value(
            "SELECT EXISTS(SELECT 1 FROM packageVersion WHERE packageID = \(id) AND version = \(version))",
            as: Bool.self) == true
        {
            return version
        }
        guard Catalog.isVersion(version) else { return version }
        return try await tx.value(
            """
            SELECT version FROM packageVersion WHERE packageID = \(id) AND versionKey = \(Catalog.versionKey(version))
            ORDER BY version LIMIT 1
            """, as: String.self) ?? version
    }

    public func storedVersion(package id: String, version: String) async throws -> String? {
        try await read { tx in
            let stored = try await Self.storedVersion(tx, package: id, version)
            return try await tx.value(
                "SELECT EXISTS(SELECT 1 FROM packageVersion WHERE packageID = \(id) AND version = \(stored))",
                as: Bool.self) == true ? stored : nil
        }
    }

    // MARK: uploads and blobs

    public func claimVersion(
        package id: String, version: String, sha256: String, now: Double, staleAfter: Double
    ) async throws -> Catalog.VersionClaim {
        try await write { tx in
            try await tx.execute(
                "DELETE FROM versionClaim WHERE packageID = \(id) AND version = \(version) AND claimedAt < \(now - staleAfter)"
            )
            // The row's own lock decides a race: the second INSERT waits for the first's commit.
            let inserted = try await tx.changes(
                """
                INSERT INTO versionClaim (packageID, version, sha256, claimedAt) VALUES (\(id), \(version), \(sha256), \(now))
                ON CONFLICT (packageID, version) DO NOTHING RETURNING 1
                """)
            if inserted == 1 { return .claimed }
            let held = try await tx.value(
                "SELECT sha256 FROM versionClaim WHERE packageID = \(id) AND version = \(version)", as: String.self)
            // Released between the two statements: another try claims it.
            guard let held else { return .sameBytes }
            return held == sha256 ? .sameBytes : .otherBytes
        }
    }

    public func releaseVersionClaim(package id: String, version: String, sha256: String) async throws {
        try await write { tx in
            try await tx.execute(
                "DELETE FROM versionClaim WHERE packageID = \(id) AND version = \(version) AND sha256 = \(sha256)")
        }
    }

    public func recordBlob(sha256: String, size: Int64) async throws {
        try await write { tx in
            try await tx.execute(
                """
                INSERT INTO blob (sha256, size, storedAt) VALUES (\(sha256), \(size), \(Catalog.timestamp()))
                ON CONFLICT (sha256) DO NOTHING
                """)
        }
    }

    /// Records an uploaded, verified package whose blob is already stored. One transaction, which
    /// first takes the package's advisory lock: two servers registering one version (or two
    /// spellings of it) at once are taken one after the other, and the second finds the first's.
    public func register(
        manifest: Manifest, manifestJSON: String, sha256: String, size: Int64, actor: String,
        status: Catalog.PublishStatus = .released
    ) async throws -> Catalog.RegisterOutcome {
        try await write { tx in
            try await tx.lock(AdvisoryLock.register, manifest.id)
            // Versions are unique after normalisation: 1.0 and 1.0.0 are the same version.
            if let (existingVersion, existing) = try await tx.first(
                """
                SELECT version, sha256 FROM packageVersion
                WHERE packageID = \(manifest.id) AND versionKey = \(Catalog.versionKey(manifest.version))
                """, as: (String, String).self)
            {
                if existing == sha256 && existingVersion == manifest.version { return .unchanged }
                tx.audit(
                    actor: actor, action: .uploadRefused, id: manifest.id, version: manifest.version, sha256: sha256,
                    detail: Catalog.conflictDetail(existingVersion: existingVersion, existingSHA256: existing))
                return .conflict(existingVersion: existingVersion, existingSHA256: existing)
            }
            let now = Catalog.timestamp()
            try await tx.execute(
                "INSERT INTO blob (sha256, size, storedAt) VALUES (\(sha256), \(size), \(now)) ON CONFLICT (sha256) DO NOTHING"
            )
            // A draft never names a site in public: the name is set on release (or by an admin).
            try await tx.execute(
                "INSERT INTO site (id, name) VALUES (\(manifest.site.id), '') ON CONFLICT (id) DO NOTHING")
            try await tx.execute(
                """
                INSERT INTO packageVersion (packageID, version, versionKey, siteID, siteName, name, park, description, sha256, size, manifest, status, uploadedBy, createdAt)
                VALUES (\(manifest.id), \(manifest.version), \(Catalog.versionKey(manifest.version)), \(manifest.site.id),
                        \(manifest.site.name), \(manifest.name), \(manifest.park), \(manifest.description), \(sha256), \(size),
                        \(manifestJSON), \(status.rawValue), \(actor), \(now))
                """)
            if status == .released {
                try await Self.publishSiteName(tx, site: manifest.site.id, name: manifest.site.name)
            }
            tx.audit(
                actor: actor, action: .upload, id: manifest.id, version: manifest.version, sha256: sha256,
                detail: "\(size) bytes, \(status)")
            return .created
        }
    }

    public func replaceDraft(
        manifest: Manifest, manifestJSON: String, sha256: String, size: Int64, actor: String,
        status: Catalog.PublishStatus, replacing: String
    ) async throws -> String? {
        try await write { tx in
            try await tx.lock(AdvisoryLock.register, manifest.id)
            guard
                let (version, old, oldSize, oldManifest, statusText) = try await tx.first(
                    """
                    SELECT version, sha256, size, manifest, status FROM packageVersion
                    WHERE packageID = \(manifest.id) AND versionKey = \(Catalog.versionKey(manifest.version))
                    FOR UPDATE
                    """, as: (String, String, Int64, String, String).self)
            else { return "there is no version \(manifest.version) to build again" }
            let current = Catalog.PublishStatus(rawValue: statusText) ?? .released
            if let why = Catalog.replaceRefusal(version: version, status: current, stored: old, replacing: replacing) {
                return why
            }
            let now = Catalog.timestamp()
            try await tx.execute(
                "INSERT INTO blob (sha256, size, storedAt) VALUES (\(sha256), \(size), \(now)) ON CONFLICT (sha256) DO NOTHING"
            )
            try await tx.execute(
                """
                INSERT INTO replacedVersion (packageID, version, sha256, size, manifest, replacedAt, replacedBy)
                VALUES (\(manifest.id), \(version), \(old), \(oldSize), \(oldManifest), \(now), \(actor))
                """)
            try await tx.execute(
                """
                UPDATE packageVersion SET siteName = \(manifest.site.name), name = \(manifest.name), park = \(manifest.park),
                    description = \(manifest.description), sha256 = \(sha256), size = \(size), manifest = \(manifestJSON),
                    status = \(status.rawValue), uploadedBy = \(actor), scanStatus = 'clean', scanDetail = ''
                WHERE packageID = \(manifest.id) AND version = \(version)
                """)
            try await tx.execute("DELETE FROM approval WHERE packageID = \(manifest.id) AND version = \(version)")
            if status == .released {
                try await Self.publishSiteName(tx, site: manifest.site.id, name: manifest.site.name)
            }
            tx.audit(
                actor: actor, action: .upload, id: manifest.id, version: version, sha256: sha256,
                detail: Catalog.replacedDetail(size: size, status: status, old: old))
            return nil
        }
    }

    public func replacedBytes(package id: String, version: String) async throws -> [Catalog.ReplacedBytes] {
        try await read { tx in
            try await tx.all(
                """
                SELECT sha256, size, manifest, replacedBy FROM replacedVersion
                WHERE packageID = \(id) AND version = \(version) ORDER BY id
                """, as: (String, Int64, String, String).self
            ).map { Catalog.ReplacedBytes(sha256: $0.0, size: $0.1, manifest: $0.2, replacedBy: $0.3) }
        }
    }

    /// A released version names its site in public, unless an admin named the site.
    static func publishSiteName(_ tx: Transaction, site: String, name: String) async throws {
        try await tx.execute("UPDATE site SET name = \(name) WHERE id = \(site) AND NOT adminNamed")
    }

    // MARK: confirmations

    public func confirm(
        package id: String, version given: String, sha256: String, refused: Bool = false, count: Bool = true
    ) async throws -> Catalog.Confirmation? {
        try await write { tx in
            let version = try await Self.storedVersion(tx, package: id, given)
            guard
                let expected = try await tx.value(
                    """
                    SELECT sha256 FROM packageVersion WHERE packageID = \(id) AND version = \(version) AND status = 'released'
                    """, as: String.self)
            else { return nil }
            let match = !refused && expected == sha256.lowercased()
            guard count else { return Catalog.Confirmation(expected: expected, match: match) }
            // One statement: a counter racing on another server is never lost.
            try await tx.execute(
                match
                    ? "UPDATE packageVersion SET confirmMatch = confirmMatch + 1 WHERE packageID = \(id) AND version = \(version)"
                    : "UPDATE packageVersion SET confirmMismatch = confirmMismatch + 1 WHERE packageID = \(id) AND version = \(version)"
            )
            return Catalog.Confirmation(expected: expected, match: match)
        }
    }

    public func confirmations() async throws -> [Catalog.Confirmations] {
        try await read { tx in
            try await tx.all(
                """
                SELECT packageID, version, confirmMatch, confirmMismatch FROM packageVersion ORDER BY packageID, versionKey
                """, as: (String, String, Int, Int).self
            ).map { Catalog.Confirmations(id: $0.0, version: $0.1, match: $0.2, mismatch: $0.3) }
        }
    }

    // MARK: the audit log

    static let auditColumns = "id, at, actor, action, packageID, version, sha256, detail"

    static func auditEntry(_ row: PostgresRow) throws -> Catalog.AuditEntry {
        let r = try row.decode((Int64, String, String, String, String?, String?, String?, String).self)
        return Catalog.AuditEntry(
            id: r.0, at: r.1, actor: r.2, action: r.3, packageID: r.4, version: r.5, sha256: r.6, detail: r.7)
    }

    public func auditLog(after: Int64 = 0, limit: Int = 100) async throws -> [Catalog.AuditEntry] {
        try await read { tx in
            try await tx.rows(
                "SELECT \(unescaped: Self.auditColumns) FROM auditLog WHERE id > \(after) ORDER BY id LIMIT \(limit)"
            ).map(Self.auditEntry)
        }
    }

    public func auditLog(package id: String, limit: Int = 1000) async throws -> [Catalog.AuditEntry] {
        try await read { tx in
            try await tx.rows(
                "SELECT \(unescaped: Self.auditColumns) FROM auditLog WHERE packageID = \(id) ORDER BY id LIMIT \(limit)"
            ).map(Self.auditEntry)
        }
    }

    public func audit(
        actor: String, action: Catalog.AuditAction, id: String?, version: String?, sha256: String?, detail: String = ""
    ) async throws {
        try await write { tx in
            tx.audit(actor: actor, action: action, id: id, version: version, sha256: sha256, detail: detail)
        }
    }
}
