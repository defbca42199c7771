import Foundation
import GRDB
import TrailPackCore
import TrailPackCrypto

/// Accounts, API tokens, and the publish workflow: draft → pending → ready → released (→ withdrawn).
extension Catalog {
    public enum Role: String, Codable, Sendable, CaseIterable {
        case publisher, reviewer, admin
    }

    public struct User: Codable, Sendable, Equatable {
        public var name: String
        public var role: Role
        /// The reviewer's minisign public key (base64), for signed approvals.
        public var publicKey: String?

        public init(name: String, role: Role, publicKey: String?) {
            self.name = name
            self.role = role
            self.publicKey = publicKey
        }
    }

    /// What the audit log says of a version released without a malware scan.
    public static let notScannedDetail = "not scanned (operator's choice: --no-malware-scan)"

    // MARK: users and tokens

    public func addUser(name: String, role: Role, publicKey: String? = nil) throws {
        try pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM user WHERE name = ?)", arguments: [name]) == true
            {
                throw CatalogError.userExists(name)
            }
            try db.execute(
                sql: "INSERT INTO user (name, role, publicKey, createdAt) VALUES (?, ?, ?, ?)",
                arguments: [name, role.rawValue, publicKey, Self.now()])
            try Self.audit(
                db, actor: "admin-cli", action: .userAdd, id: nil, version: nil, sha256: nil,
                detail: "\(name) as \(role.rawValue)")
        }
    }

    /// Adds the user unless it exists (the bootstrap admin of `--admin-token-file`).
    public func ensureUser(name: String, role: Role) throws {
        try pool.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO user (name, role, createdAt) VALUES (?, ?, ?)",
                arguments: [name, role.rawValue, Self.now()])
        }
    }

    public func users() throws -> [User] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT name, role, publicKey FROM user WHERE removedAt IS NULL ORDER BY name")
                .map {
                    User(name: $0["name"], role: Role(rawValue: $0["role"]) ?? .publisher, publicKey: $0["publicKey"])
                }
        }
    }

    /// Issues a token for `user`: `tp_<id>_<secret>`. Only the SHA-256 of the secret is stored;
    /// the token is returned once and never again.
    public func issueToken(user: String) throws -> IssuedToken {
        let id = try SecureRandom.bytes(6).map { String(format: "%02x", $0) }.joined()
        let secret = try SecureRandom.bytes(24).map { String(format: "%02x", $0) }.joined()
        try pool.write { db in
            try requireUser(db, user)
            try db.execute(
                sql: "INSERT INTO token (id, userName, hash, createdAt) VALUES (?, ?, ?, ?)",
                arguments: [id, user, Data(SHA256.hash(Array(secret.utf8)).bytes), Self.now()])
            try Self.audit(
                db, actor: "admin-cli", action: .tokenIssue, id: nil, version: nil, sha256: nil,
                detail: "token \(id) for \(user)")
        }
        return IssuedToken(id: id, token: "tp_\(id)_\(secret)")
    }

    public func revokeToken(id: String) throws -> Bool {
        try pool.write { db in
            try db.execute(
                sql: "UPDATE token SET revokedAt = ? WHERE id = ? AND revokedAt IS NULL", arguments: [Self.now(), id])
            let changed = db.changesCount > 0
            if changed {
                try Self.audit(
                    db, actor: "admin-cli", action: .tokenRevoke, id: nil, version: nil, sha256: nil,
                    detail: "token \(id)")
            }
            return changed
        }
    }

    /// The user a bearer token belongs to, or nil. The secret's hash is compared in constant time.
    public func authenticate(token: String) throws -> User? {
        let parts = token.split(separator: "_")
        guard parts.count == 3, parts[0] == "tp" else { return nil }
        let id = String(parts[1]), secret = String(parts[2])
        return try pool.read { db in
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

    public enum Transition: String, Sendable {
        case start, approve, deny, push, withdraw
    }

    /// What a transition did, or why it was refused.
    public enum TransitionOutcome: Sendable, Equatable {
        case moved(from: PublishStatus, to: PublishStatus, approvals: Int)
        case illegal(current: PublishStatus, reason: String)
        case forbidden(String)
        case notFound
    }

    /// Applies `transition` to a package version as `user`, in one transaction, so that racing
    /// requests leave one of the legal outcomes.
    ///
    /// - Parameters:
    ///   - required: how many distinct reviewers' approvals make a version ready.
    ///   - signature: an approval's minisign signature of the package (already checked by the caller).
    ///   - reason: why (a denial's or a withdrawal's reason, shown to the publisher and audited).
    public func apply(
        _ transition: Transition, package id: String, version given: String, by user: User, required: Int,
        signature: String? = nil,
        reason: String? = nil
    ) throws -> TransitionOutcome {
        let because = reason.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap {
            $0.isEmpty ? nil : "reason: " + String($0.prefix(2000))
        }
        return try pool.write { db in
            let version = try Self.storedVersion(db, package: id, given)
            guard
                let row = try Row.fetchOne(
                    db,
                    sql:
                        "SELECT status, uploadedBy, sha256, scanStatus, scanDetail, siteID, siteName FROM packageVersion WHERE packageID = ? AND version = ?",
                    arguments: [id, version])
            else { return .notFound }
            let siteID: String = row["siteID"], siteName: String = row["siteName"]
            let uploader: String = row["uploadedBy"], sha: String = row["sha256"],
                scanDetail: String = row["scanDetail"]
            // Decoded with a check: a catalog edited by hand gets an error, never a trap.
            let status: PublishStatus = try row.decode(forColumn: "status"),
                scan: ScanStatus = try row.decode(forColumn: "scanStatus")
            func move(_ to: PublishStatus, approvals: Int = 0, detail: String = "") throws -> TransitionOutcome {
                try db.execute(
                    sql: "UPDATE packageVersion SET status = ? WHERE packageID = ? AND version = ?",
                    arguments: [to, id, version])
                if to == .released { try Self.publishSiteName(db, site: siteID, name: siteName) }
                try Self.audit(
                    db, actor: user.name, action: .transition(transition), id: id, version: version, sha256: sha,
                    detail: "\(status) → \(to)\(detail.isEmpty ? "" : "; " + detail)")
                return .moved(from: status, to: to, approvals: approvals)
            }
            func refuse(_ reason: String) throws -> TransitionOutcome {
                try Self.audit(
                    db, actor: user.name, action: .transition(transition, refused: true), id: id, version: version,
                    sha256: sha, detail: reason)
                return .illegal(current: status, reason: reason)
            }
            switch transition {
            case .start:
                guard user.name == uploader || user.role == .admin else {
                    return .forbidden("only the publisher who uploaded it (\(uploader)) can open its publish request")
                }
                guard status == .draft else {
                    return try refuse("a publish request can be opened on a draft; this version is \(status)")
                }
                if required == 0 { return try move(.ready) }
                return try move(.pending)
            case .approve:
                guard user.role == .reviewer || user.role == .admin else {
                    return .forbidden("approving needs the reviewer or admin role")
                }
                guard user.name != uploader else { return .forbidden("a publisher cannot approve their own request") }
                guard status == .pending || status == .ready else {
                    return try refuse("only a pending request can be approved; this version is \(status)")
                }
                if let earlier = try Row.fetchOne(
                    db, sql: "SELECT signature FROM approval WHERE packageID = ? AND version = ? AND reviewer = ?",
                    arguments: [id, version, user.name])
                {
                    // A second approval only adds a signature to an unsigned one; anything else is a repeat.
                    let stored: String? = earlier["signature"]
                    guard let signature, stored == nil else {
                        return try refuse(
                            stored == nil
                                ? "\(user.name) already approved this version; approve again only to add a signature"
                                : "\(user.name) already approved and signed this version")
                    }
                    try db.execute(
                        sql: "UPDATE approval SET signature = ? WHERE packageID = ? AND version = ? AND reviewer = ?",
                        arguments: [signature, id, version, user.name])
                    let count =
                        try Int.fetchOne(
                            db,
                            sql: "SELECT COUNT(DISTINCT reviewer) FROM approval WHERE packageID = ? AND version = ?",
                            arguments: [id, version]) ?? 0
                    return try move(status, approvals: count, detail: "signature added to \(user.name)'s approval")
                }
                try db.execute(
                    sql: "INSERT INTO approval (packageID, version, reviewer, at, signature) VALUES (?, ?, ?, ?, ?)",
                    arguments: [id, version, user.name, Self.now(), signature])
                let count =
                    try Int.fetchOne(
                        db, sql: "SELECT COUNT(DISTINCT reviewer) FROM approval WHERE packageID = ? AND version = ?",
                        arguments: [id, version]) ?? 0
                let to: PublishStatus = count >= required ? .ready : .pending
                return try move(
                    to, approvals: count,
                    detail: "\(count) of \(required) approvals\(signature == nil ? "" : ", signed")")
            case .deny:
                guard user.role == .reviewer || user.role == .admin else {
                    return .forbidden("denying needs the reviewer or admin role")
                }
                guard status == .pending || status == .ready else {
                    return try refuse("only a pending or ready request can be denied; this version is \(status)")
                }
                try db.execute(
                    sql: "DELETE FROM approval WHERE packageID = ? AND version = ?", arguments: [id, version])
                return try move(.draft, detail: "approvals cleared" + (because.map { "; " + $0 } ?? ""))
            case .push:
                guard user.name == uploader else {
                    return .forbidden("only the publisher who uploaded it (\(uploader)) can release it")
                }
                guard status == .ready else {
                    return try refuse("only a ready version can be released; this version is \(status)")
                }
                guard scan.releasable else {
                    return try refuse("the version is held by the malware scan: \(scanDetail)")
                }
                return try move(.released, detail: scan == .notScanned ? Self.notScannedDetail : "")
            case .withdraw:
                guard user.role == .admin else { return .forbidden("withdrawing needs the admin role") }
                guard status == .released else {
                    return try refuse("only a released version can be withdrawn; this version is \(status)")
                }
                return try move(.withdrawn, detail: because ?? "")
            }
        }
    }

    /// Records the malware scan's verdict for a stored version.
    public func setScan(package id: String, version given: String, status: ScanStatus, detail: String) throws {
        try pool.write { db in
            let version = try Self.storedVersion(db, package: id, given)
            try db.execute(
                sql: "UPDATE packageVersion SET scanStatus = ?, scanDetail = ? WHERE packageID = ? AND version = ?",
                arguments: [status, detail, id, version])
        }
    }

    /// Records a new scan of a stored version (a rescan), audited with the change.
    public func recordRescan(
        package id: String, version given: String, status: ScanStatus, detail: String, actor: String
    ) throws {
        try pool.write { db in
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
    ) throws -> [(id: String, version: String, sha256: String, scanStatus: ScanStatus)] {
        try pool.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT packageID, version, sha256, scanStatus FROM packageVersion WHERE status != 'damaged'\(heldOnly ? " AND scanStatus = 'held'" : "") ORDER BY packageID, versionKey"
            )
            .map { ($0["packageID"], $0["version"], $0["sha256"], try $0.decode(forColumn: "scanStatus")) }
        }
    }

    public struct VersionState: Codable, Sendable, Equatable {
        public var status: PublishStatus
        public var uploadedBy: String
        public var scanStatus: ScanStatus
        public var scanDetail: String
        public var approvals: [String]
    }

    public func state(package id: String, version given: String) throws -> VersionState? {
        try pool.read { db in
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
    ) throws -> [(reviewer: String, signature: String)] {
        try pool.read { db in
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
