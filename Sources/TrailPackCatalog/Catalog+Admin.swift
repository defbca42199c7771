import Foundation
import GRDB
import TrailPackCatalogModel
import TrailPackCore

/// What an admin manages besides users' tokens: roles, removals, sites and which publisher may
/// upload to which site. Every change is one transaction and one audit entry.
extension SQLiteCatalog {
    /// Who may upload `package` for `site`, or why not: an admin always; a publisher to the sites
    /// granted to them; never a package id that already belongs to another site.
    public func uploadRefusal(user: User, package id: String, site: String) async throws -> String? {
        try await read { db in
            let owner = try String.fetchOne(
                db, sql: "SELECT siteID FROM packageVersion WHERE packageID = ? AND siteID != ? LIMIT 1",
                arguments: [id, site])
            let granted =
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS(SELECT 1 FROM siteGrant WHERE userName = ? AND siteID = ?)",
                    arguments: [user.name, site]) ?? false
            return Catalog.Workflow.uploadRefusal(user: user, package: id, site: site, owner: owner, granted: granted)
        }
    }

    /// Versions under review (draft, pending, ready) stored as `sha256`, or the one `package`/`version`.
    public func unreleased(
        sha256: String? = nil, package id: String? = nil, version: String? = nil
    ) async throws -> [(summary: PackageSummary, uploadedBy: String)] {
        try await read { db in
            let rows: [Row]
            if let sha256 {
                rows = try Row.fetchAll(
                    db,
                    sql:
                        "SELECT \(Self.summaryColumns), uploadedBy FROM packageVersion WHERE sha256 = ? AND status IN ('draft', 'pending', 'ready')",
                    arguments: [sha256])
            } else {
                let stored = try version.map { try Self.storedVersion(db, package: id ?? "", $0) }
                rows = try Row.fetchAll(
                    db,
                    sql:
                        "SELECT \(Self.summaryColumns), uploadedBy FROM packageVersion WHERE packageID = ? AND version = ? AND status IN ('draft', 'pending', 'ready')",
                    arguments: [id, stored])
            }
            return try rows.map { (try Self.summary($0), $0["uploadedBy"]) }
        }
    }

    static func requireUser(_ db: Database, _ name: String) throws {
        guard
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS(SELECT 1 FROM user WHERE name = ? AND removedAt IS NULL)", arguments: [name])
                == true
        else {
            throw CatalogError.noSuchUser(name)
        }
    }

    /// Refuses, inside the writing transaction, a change that takes the administrator role from
    /// `name` when nobody else has it: two administrators demoting each other at once leave one.
    static func keepAnAdministrator(_ db: Database, losing name: String) throws {
        let admins = try String.fetchAll(
            db, sql: "SELECT name FROM user WHERE role = ? AND removedAt IS NULL", arguments: [Role.admin.rawValue])
        if admins == [name] { throw CatalogError.lastAdministrator(name) }
    }

    /// Removes a user: their tokens are revoked and grants dropped; their name stays in the history
    /// (approvals, the audit log) and cannot be reused.
    public func removeUser(name: String) async throws {
        try await write { db in
            try Self.requireUser(db, name)
            try Self.keepAnAdministrator(db, losing: name)
            let now = Self.now()
            try db.execute(sql: "UPDATE user SET removedAt = ? WHERE name = ?", arguments: [now, name])
            try db.execute(
                sql: "UPDATE token SET revokedAt = ? WHERE userName = ? AND revokedAt IS NULL", arguments: [now, name])
            try db.execute(sql: "DELETE FROM siteGrant WHERE userName = ?", arguments: [name])
            try Self.audit(
                db, actor: Catalog.auditActor, action: .userRemove, id: nil, version: nil, sha256: nil,
                detail: "\(name); tokens revoked, grants dropped")
        }
    }

    public func setRole(name: String, role: Role) async throws {
        try await write { db in
            try Self.requireUser(db, name)
            if role != .admin { try Self.keepAnAdministrator(db, losing: name) }
            try db.execute(sql: "UPDATE user SET role = ? WHERE name = ?", arguments: [role.rawValue, name])
            try Self.audit(
                db, actor: Catalog.auditActor, action: .userRole, id: nil, version: nil, sha256: nil,
                detail: "\(name) is now \(role.rawValue)")
        }
    }

    public func setPublicKey(name: String, publicKey: String?) async throws {
        try await write { db in
            try Self.requireUser(db, name)
            try db.execute(sql: "UPDATE user SET publicKey = ? WHERE name = ?", arguments: [publicKey, name])
            try Self.audit(
                db, actor: Catalog.auditActor, action: .userKey, id: nil, version: nil, sha256: nil,
                detail: Catalog.publicKeyDetail(name, publicKey))
        }
    }

    public func setEmail(name: String, email: String?) async throws {
        try await write { db in
            try Self.requireUser(db, name)
            try db.execute(sql: "UPDATE user SET email = ? WHERE name = ?", arguments: [email, name])
            try Self.audit(
                db, actor: Catalog.auditActor, action: .userEmail, id: nil, version: nil, sha256: nil,
                detail: Catalog.emailDetail(name, email))
        }
    }

    public func emailAddresses() async throws -> [String: String] {
        try await read { db in
            var out: [String: String] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT name, email FROM user WHERE email IS NOT NULL AND removedAt IS NULL")
            {
                out[row["name"]] = row["email"]
            }
            return out
        }
    }

    public func tokens() async throws -> [TokenInfo] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT id, userName, createdAt, revokedAt FROM token ORDER BY userName, createdAt"
            ).map {
                TokenInfo(id: $0["id"], user: $0["userName"], createdAt: $0["createdAt"], revokedAt: $0["revokedAt"])
            }
        }
    }

    /// Adds a site with its public name (an admin's name is never replaced by a release's), or with
    /// no name yet (`nil`: its first released tour names it).
    public func addSite(id: String, name: String?) async throws {
        try await write { db in
            let current = try String.fetchOne(db, sql: "SELECT name FROM site WHERE id = ?", arguments: [id])
            guard let name else {
                guard current == nil else { throw CatalogError.siteExists(id) }
                try db.execute(sql: "INSERT INTO site (id, name, adminNamed) VALUES (?, '', 0)", arguments: [id])
                try Self.audit(
                    db, actor: Catalog.auditActor, action: .siteAdd, id: nil, version: nil, sha256: nil,
                    detail: "\(id) (named by its first release)")
                return
            }
            if let current, !current.isEmpty {
                throw CatalogError.siteExists(id)
            }
            try db.execute(
                sql:
                    "INSERT INTO site (id, name, adminNamed) VALUES (?, ?, 1) ON CONFLICT(id) DO UPDATE SET name = excluded.name, adminNamed = 1",
                arguments: [id, name])
            try Self.audit(
                db, actor: Catalog.auditActor, action: .siteAdd, id: nil, version: nil, sha256: nil,
                detail: "\(id): \(name)")
        }
    }

    public func renameSite(id: String, name: String) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE site SET name = ?, adminNamed = 1 WHERE id = ?", arguments: [name, id])
            guard db.changesCount > 0 else { throw CatalogError.noSuchSite(id) }
            try Self.audit(
                db, actor: Catalog.auditActor, action: .siteRename, id: nil, version: nil, sha256: nil,
                detail: "\(id): \(name)")
        }
    }

    public func setSiteFrame(id: String, frame: Bounds?) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE site SET frameSouth = ?, frameWest = ?, frameNorth = ?, frameEast = ? WHERE id = ?",
                arguments: [
                    frame?.southwest.latitude, frame?.southwest.longitude, frame?.northeast.latitude,
                    frame?.northeast.longitude, id,
                ])
            guard db.changesCount > 0 else { throw CatalogError.noSuchSite(id) }
            try Self.audit(
                db, actor: Catalog.auditActor, action: .siteFrame, id: nil, version: nil, sha256: nil,
                detail: Catalog.siteFrameDetail(id, frame))
        }
    }

    public func siteFrame(id: String) async throws -> Bounds? {
        try await read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT frameSouth, frameWest, frameNorth, frameEast FROM site WHERE id = ?",
                    arguments: [id]),
                let south: Double = row["frameSouth"], let west: Double = row["frameWest"],
                let north: Double = row["frameNorth"], let east: Double = row["frameEast"]
            else { return nil }
            return Bounds(
                southwest: Coordinate(latitude: south, longitude: west),
                northeast: Coordinate(latitude: north, longitude: east))
        }
    }

    /// Lets a publisher upload packages of a site, which must exist (`addSite`, or an upload made
    /// it): a mistyped site id is refused, never granted.
    public func grant(user: String, site: String) async throws {
        try await write { db in
            try Self.requireUser(db, user)
            guard
                try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM site WHERE id = ?)", arguments: [site]) == true
            else {
                let known = try String.fetchAll(db, sql: "SELECT id FROM site ORDER BY id LIMIT 6")
                throw CatalogError.noSuchSite(site, known: known)
            }
            try db.execute(
                sql: "INSERT OR IGNORE INTO siteGrant (userName, siteID, at) VALUES (?, ?, ?)",
                arguments: [user, site, Self.now()])
            try Self.audit(
                db, actor: Catalog.auditActor, action: .grant, id: nil, version: nil, sha256: nil,
                detail: "\(user) may publish to \(site)")
        }
    }

    /// Returns whether there was such a grant.
    public func revokeGrant(user: String, site: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM siteGrant WHERE userName = ? AND siteID = ?", arguments: [user, site])
            let changed = db.changesCount > 0
            if changed {
                try Self.audit(
                    db, actor: Catalog.auditActor, action: .grantRevoke, id: nil, version: nil, sha256: nil,
                    detail: "\(user) may no longer publish to \(site)")
            }
            return changed
        }
    }

    public func grants() async throws -> [(user: String, site: String)] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT userName, siteID FROM siteGrant ORDER BY userName, siteID").map {
                ($0["userName"], $0["siteID"])
            }
        }
    }
}

/// The control panel's accounts: the same users as the API, signing in with a password.
extension SQLiteCatalog {
    /// Stores `hash` (a `PasswordHash` text) as the user's panel password.
    public func setPassword(name: String, hash: String) async throws {
        try await write { db in
            try Self.requireUser(db, name)
            try db.execute(sql: "UPDATE user SET passwordHash = ? WHERE name = ?", arguments: [hash, name])
            try Self.audit(
                db, actor: Catalog.auditActor, action: .userPassword, id: nil, version: nil, sha256: nil,
                detail: "panel password set for \(name)")
        }
    }

    /// The user and their stored password hash (nil: no password set), or nil when there is no such user.
    public func signInRecord(name: String) async throws -> SignInRecord? {
        try await read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT name, role, publicKey, passwordHash FROM user WHERE name = ? AND removedAt IS NULL",
                    arguments: [name])
            else { return nil }
            return SignInRecord(
                user: User(
                    name: row["name"], role: Role(rawValue: row["role"]) ?? .publisher, publicKey: row["publicKey"]),
                passwordHash: row["passwordHash"])
        }
    }

    /// The user named `name` (not removed), or nil.
    public func user(name: String) async throws -> User? { try await signInRecord(name: name)?.user }

    /// The sites `user` may work on: every known site for an admin or a reviewer, else the granted ones
    /// (a granted site need not exist in the site table yet).
    public func workableSites(for user: User) async throws -> [(id: String, name: String)] {
        try await read { db in
            let sql =
                user.role == .publisher
                ? "SELECT g.siteID AS id, COALESCE(s.name, g.siteID) AS name FROM siteGrant g LEFT JOIN site s ON s.id = g.siteID WHERE g.userName = ? ORDER BY g.siteID"
                : "SELECT id, name FROM site UNION SELECT siteID, siteID FROM siteGrant WHERE siteID NOT IN (SELECT id FROM site) ORDER BY id"
            return try Row.fetchAll(db, sql: sql, arguments: user.role == .publisher ? [user.name] : []).map {
                ($0["id"], $0["name"])
            }
        }
    }
}
