import Foundation
import GRDB
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto

/// Accounts, API tokens, and the publish workflow: draft → pending → ready → released (→ withdrawn).
extension SQLiteCatalog {
    // MARK: users and tokens

    public func addUser(name: String, role: Role, publicKey: String? = nil) async throws {
        try await write { db in
            if try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM user WHERE name = ?)", arguments: [name]) == true
            {
                throw CatalogError.userExists(name)
            }
            try db.execute(
                sql: "INSERT INTO user (name, role, publicKey, createdAt) VALUES (?, ?, ?, ?)",
                arguments: [name, role.rawValue, publicKey, Self.now()])
            try Self.audit(
                db, actor: Catalog.auditActor, action: .userAdd, id: nil, version: nil, sha256: nil,
                detail: "\(name) as \(role.rawValue)")
        }
    }

    /// Adds the user unless it exists (the bootstrap admin of `--admin-token-file`).
    public func ensureUser(name: String, role: Role) async throws {
        try await write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO user (name, role, createdAt) VALUES (?, ?, ?)",
                arguments: [name, role.rawValue, Self.now()])
        }
    }

    public func users() async throws -> [User] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT name, role, publicKey FROM user WHERE removedAt IS NULL ORDER BY name")
                .map {
                    User(name: $0["name"], role: Role(rawValue: $0["role"]) ?? .publisher, publicKey: $0["publicKey"])
                }
        }
    }

    /// Issues a token for `user`: `tp_<id>_<secret>`. Only the SHA-256 of the secret is stored;
    /// the token is returned once and never again.
    public func issueToken(user: String) async throws -> IssuedToken {
        let id = try SecureRandom.bytes(6).map { String(format: "%02x", $0) }.joined()
        let secret = try SecureRandom.bytes(24).map { String(format: "%02x", $0) }.joined()
        try await write { db in
            try Self.requireUser(db, user)
            try db.execute(
                sql: "INSERT INTO token (id, userName, hash, createdAt) VALUES (?, ?, ?, ?)",
                arguments: [id, user, Data(SHA256.hash(Array(secret.utf8)).bytes), Self.now()])
            try Self.audit(
                db, actor: Catalog.auditActor, action: .tokenIssue, id: nil, version: nil, sha256: nil,
                detail: "token \(id) for \(user)")
        }
        return IssuedToken(id: id, token: "tp_\(id)_\(secret)")
    }

    public func revokeToken(id: String) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: "UPDATE token SET revokedAt = ? WHERE id = ? AND revokedAt IS NULL", arguments: [Self.now(), id])
            let changed = db.changesCount > 0
            if changed {
                try Self.audit(
                    db, actor: Catalog.auditActor, action: .tokenRevoke, id: nil, version: nil, sha256: nil,
                    detail: "token \(id)")
            }
            return changed
        }
    }

    /// The user a bearer token belongs to, or nil. The secret's hash is compared in constant time.
    public func authenticate(token: String) async throws -> User? {
        let parts = token.split(separator: "_")
        guard parts.count == 3, parts[0] == "tp" else { return nil }
        let id = String(parts[1]), secret = String(parts[2])
        return try await read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT t.hash, u.name, u.role, u.publicKey FROM token t JOIN user u ON u.name = t.userName WHERE t.id = ? AND t.revokedAt IS NULL AND u.removedAt IS NULL
                        """, arguments: [id])
            else { return nil }
            let stored: Data = row["hash"]
            guard ConstantTime.equals(Array(stored), SHA256.hash(Array(secret.utf8)).bytes) else { return nil }
            return User(name: row["name"], role: Role(rawValue: row["role"]) ?? .publisher, publicKey: row["publicKey"])
        }
    }

    // MARK: the workflow

    /// Applies `transition` to a package version as `user`, in one transaction (SQLite's one writer
    /// keeps racing requests apart), as ``Catalog/Workflow`` decides.
    ///
    /// - Parameters:
    ///   - required: how many distinct reviewers' approvals make a version ready.
    ///   - signature: an approval's minisign signature of the package (already checked by the caller).
    ///   - reason: why (a denial's or a withdrawal's reason, shown to the publisher and audited).
    public func apply(
        _ transition: Transition, package id: String, version given: String, by user: User, required: Int,
        signature: String? = nil,
        reason: String? = nil
    ) async throws -> TransitionOutcome {
        try await write { db in
            let version = try Self.storedVersion(db, package: id, given)
            guard
                let row = try Row.fetchOne(
                    db,
                    sql:
                        "SELECT status, uploadedBy, sha256, scanStatus, scanDetail, siteID, siteName FROM packageVersion WHERE packageID = ? AND version = ?",
                    arguments: [id, version])
            else { return .notFound }
            let siteID: String = row["siteID"], siteName: String = row["siteName"], sha: String = row["sha256"]
            // Decoded with a check: a catalog edited by hand gets an error, never a trap.
            let subject = Catalog.Workflow.Subject(
                status: try row.decode(forColumn: "status"), uploadedBy: row["uploadedBy"],
                scanStatus: try row.decode(forColumn: "scanStatus"), scanDetail: row["scanDetail"])
            var approvals = Catalog.Workflow.Approvals.none
            if transition == .approve {
                let own = try Row.fetchOne(
                    db, sql: "SELECT signature FROM approval WHERE packageID = ? AND version = ? AND reviewer = ?",
                    arguments: [id, version, user.name])
                let count =
                    try Int.fetchOne(
                        db, sql: "SELECT COUNT(DISTINCT reviewer) FROM approval WHERE packageID = ? AND version = ?",
                        arguments: [id, version]) ?? 0
                approvals = .init(
                    count: count, own: own.map { ($0["signature"] as String?) == nil ? .unsigned : .signed })
            }
            let plan = Catalog.Workflow.plan(
                transition, version: subject, user: user, required: required, signature: signature, reason: reason,
                approvals: approvals)
            switch plan {
            case .forbidden(let text):
                return .forbidden(text)
            case .refuse(let text):
                try Self.audit(
                    db, actor: user.name, action: .transition(transition, refused: true), id: id, version: version,
                    sha256: sha, detail: text)
                return .illegal(current: subject.status, reason: text)
            case .move(let to, let count, let detail, let change):
                switch change {
                case .none: break
                case .add(let signature):
                    try db.execute(
                        sql:
                            "INSERT INTO approval (packageID, version, reviewer, at, signature) VALUES (?, ?, ?, ?, ?)",
                        arguments: [id, version, user.name, Self.now(), signature])
                case .sign(let signature):
                    try db.execute(
                        sql: "UPDATE approval SET signature = ? WHERE packageID = ? AND version = ? AND reviewer = ?",
                        arguments: [signature, id, version, user.name])
                case .clear:
                    try db.execute(
                        sql: "DELETE FROM approval WHERE packageID = ? AND version = ?", arguments: [id, version])
                }
                try db.execute(
                    sql: "UPDATE packageVersion SET status = ? WHERE packageID = ? AND version = ?",
                    arguments: [to, id, version])
                if to == .released { try Self.publishSiteName(db, site: siteID, name: siteName) }
                try Self.audit(
                    db, actor: user.name, action: .transition(transition), id: id, version: version, sha256: sha,
                    detail: Catalog.Workflow.auditDetail(from: subject.status, to: to, detail: detail))
                return .moved(from: subject.status, to: to, approvals: count)
            }
        }
    }

    /// Records the malware scan's verdict for a stored version.
    public func setScan(package id: String, version given: String, status: ScanStatus, detail: String) async throws {
        try await write { db in
            let version = try Self.storedVersion(db, package: id, given)
            try db.execute(
                sql: "UPDATE packageVersion SET scanStatus = ?, scanDetail = ? WHERE packageID = ? AND version = ?",
                arguments: [status, detail, id, version])
        }
    }

    /// Records a new scan of a stored version (a rescan), audited with the change.
    public func recordRescan(
        package id: String, version given: String, status: ScanStatus, detail: String, actor: String
    ) async throws {
        try await write { db in
            let version = try Self.storedVersion(db, package: id, given)
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT scanStatus, sha256 FROM packageVersion WHERE packageID = ? AND version = ?",
                    arguments: [id, version])
            else { return }
            let before: ScanStatus = try row.decode(forColumn: "scanStatus"), sha: String = row["sha256"]
            try db.execute(
                sql: "UPDATE packageVersion SET scanStatus = ?, scanDetail = ? WHERE packageID = ? AND version = ?",
                arguments: [status, detail, id, version])
            try Self.audit(
                db, actor: actor, action: .rescan, id: id, version: version, sha256: sha,
                detail: "\(before) → \(status)\(detail.isEmpty ? "" : ": " + detail)")
        }
    }

    /// Versions whose scan is held (the scanner could not vouch for them), or every stored version.
    public func scanTargets(
        heldOnly: Bool
    ) async throws -> [(id: String, version: String, sha256: String, scanStatus: ScanStatus)] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT packageID, version, sha256, scanStatus FROM packageVersion WHERE status != 'damaged'\(heldOnly ? " AND scanStatus = 'held'" : "") ORDER BY packageID, versionKey"
            )
            .map { ($0["packageID"], $0["version"], $0["sha256"], try $0.decode(forColumn: "scanStatus")) }
        }
    }

    public func state(package id: String, version given: String) async throws -> VersionState? {
        try await read { db in
            let version = try Self.storedVersion(db, package: id, given)
            guard
                let row = try Row.fetchOne(
                    db,
                    sql:
                        "SELECT status, uploadedBy, scanStatus, scanDetail FROM packageVersion WHERE packageID = ? AND version = ?",
                    arguments: [id, version])
            else { return nil }
            let approvals = try String.fetchAll(
                db, sql: "SELECT reviewer FROM approval WHERE packageID = ? AND version = ? ORDER BY reviewer",
                arguments: [id, version])
            return VersionState(
                status: try row.decode(forColumn: "status"), uploadedBy: row["uploadedBy"],
                scanStatus: try row.decode(forColumn: "scanStatus"),
                scanDetail: row["scanDetail"], approvals: approvals)
        }
    }

    /// The reviewers' signatures of a version (served to clients for `verify --threshold`).
    public func approvalSignatures(
        package id: String, version given: String
    ) async throws -> [(reviewer: String, signature: String)] {
        try await read { db in
            let version = try Self.storedVersion(db, package: id, given)
            return try Row.fetchAll(
                db,
                sql:
                    "SELECT reviewer, signature FROM approval WHERE packageID = ? AND version = ? AND signature IS NOT NULL ORDER BY reviewer",
                arguments: [id, version]
            ).map { ($0["reviewer"], $0["signature"]) }
        }
    }
}
