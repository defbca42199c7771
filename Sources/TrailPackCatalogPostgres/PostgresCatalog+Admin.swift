import Foundation
import PostgresNIO
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto

/// Accounts, tokens, sites and grants: every change one transaction and one audit entry, as in the
/// SQLite store. Where two servers could add the same name at once, the unique key decides
/// (`ON CONFLICT DO NOTHING`), and the loser gets the same refusal as a second call would.
extension PostgresCatalog {
    public func uploadRefusal(user: Catalog.User, package id: String, site: String) async throws -> String? {
        try await read { tx in
            let owner = try await tx.value(
                "SELECT siteID FROM packageVersion WHERE packageID = \(id) AND siteID != \(site) LIMIT 1",
                as: String.self)
            let granted =
                try await tx.value(
                    "SELECT EXISTS(SELECT 1 FROM siteGrant WHERE userName = \(user.name) AND siteID = \(site))",
                    as: Bool.self) ?? false
            return Catalog.Workflow.uploadRefusal(user: user, package: id, site: site, owner: owner, granted: granted)
        }
    }

    public func unreleased(
        sha256: String? = nil, package id: String? = nil, version: String? = nil
    ) async throws -> [(summary: Catalog.PackageSummary, uploadedBy: String)] {
        try await read { tx in
            let rows: [PostgresRow]
            if let sha256 {
                rows = try await tx.rows(
                    """
                    SELECT \(unescaped: Self.summaryColumns), uploadedBy FROM packageVersion
                    WHERE sha256 = \(sha256) AND status IN ('draft', 'pending', 'ready')
                    """)
            } else {
                var stored: String?
                if let version { stored = try await Self.storedVersion(tx, package: id ?? "", version) }
                rows = try await tx.rows(
                    """
                    SELECT \(unescaped: Self.summaryColumns), uploadedBy FROM packageVersion
                    WHERE packageID = \(id) AND version = \(stored) AND status IN ('draft', 'pending', 'ready')
                    """)
            }
            return try rows.map { row in
                let uploadedBy = try row.decode(
                    (String, String, String, String, String, String, Int64, String, String, String).self
                ).9
                return (try Self.summary(row), uploadedBy)
            }
        }
    }

    // MARK: users and tokens

    static func requireUser(_ tx: Transaction, _ name: String) async throws {
        guard
            try await tx.value(
                "SELECT EXISTS(SELECT 1 FROM users WHERE name = \(name) AND removedAt IS NULL)", as: Bool.self) == true
        else { throw CatalogError.noSuchUser(name) }
    }

    /// Refuses a change that takes the administrator role from `name` when nobody else has it.
    /// `FOR UPDATE` locks the administrators' rows: a second transaction demoting another one
    /// waits for this one, then sees its outcome (so two administrators demoting each other at
    /// once leave one, on one server or two).
    static func keepAnAdministrator(_ tx: Transaction, losing name: String) async throws {
        let admins = try await tx.values(
            "SELECT name FROM users WHERE role = \(Catalog.Role.admin.rawValue) AND removedAt IS NULL ORDER BY name FOR UPDATE",
            as: String.self
        )
        if admins == [name] { throw CatalogError.lastAdministrator(name) }
    }

    public func addUser(name: String, role: Catalog.Role, publicKey: String? = nil) async throws {
        try await write { tx in
            let added = try await tx.changes(
                """
                INSERT INTO users (name, role, publicKey, createdAt) VALUES (\(name), \(role.rawValue), \(publicKey), \(Catalog.timestamp()))
                ON CONFLICT (name) DO NOTHING RETURNING 1
                """)
            guard added > 0 else { throw CatalogError.userExists(name) }
            tx.audit(
                actor: Catalog.auditActor, action: .userAdd, id: nil, version: nil, sha256: nil,
                detail: "\(name) as \(role.rawValue)")
        }
    }

    public func ensureUser(name: String, role: Catalog.Role) async throws {
        try await write { tx in
            try await tx.execute(
                """
                INSERT INTO users (name, role, createdAt) VALUES (\(name), \(role.rawValue), \(Catalog.timestamp()))
                ON CONFLICT (name) DO NOTHING
                """)
        }
    }

    public func users() async throws -> [Catalog.User] {
        try await read { tx in
            try await tx.all(
                "SELECT name, role, publicKey FROM users WHERE removedAt IS NULL ORDER BY name",
                as: (String, String, String?).self
            ).map { Catalog.User(name: $0.0, role: Catalog.Role(rawValue: $0.1) ?? .publisher, publicKey: $0.2) }
        }
    }

    public func removeUser(name: String) async throws {
        try await write { tx in
            try await Self.requireUser(tx, name)
            try await Self.keepAnAdministrator(tx, losing: name)
            let now = Catalog.timestamp()
            try await tx.execute("UPDATE users SET removedAt = \(now) WHERE name = \(name)")
            try await tx.execute("UPDATE token SET revokedAt = \(now) WHERE userName = \(name) AND revokedAt IS NULL")
            try await tx.execute("DELETE FROM siteGrant WHERE userName = \(name)")
            tx.audit(
                actor: Catalog.auditActor, action: .userRemove, id: nil, version: nil, sha256: nil,
                detail: "\(name); tokens revoked, grants dropped")
        }
    }

    public func setRole(name: String, role: Catalog.Role) async throws {
        try await write { tx in
            try await Self.requireUser(tx, name)
            if role != .admin { try await Self.keepAnAdministrator(tx, losing: name) }
            try await tx.execute("UPDATE users SET role = \(role.rawValue) WHERE name = \(name)")
            tx.audit(
                actor: Catalog.auditActor, action: .userRole, id: nil, version: nil, sha256: nil,
                detail: "\(name) is now \(role.rawValue)")
        }
    }

    public func setPublicKey(name: String, publicKey: String?) async throws {
        try await write { tx in
            try await Self.requireUser(tx, name)
            try await tx.execute("UPDATE users SET publicKey = \(publicKey) WHERE name = \(name)")
            tx.audit(
                actor: Catalog.auditActor, action: .userKey, id: nil, version: nil, sha256: nil,
                detail: Catalog.publicKeyDetail(name, publicKey))
        }
    }

    public func setPassword(name: String, hash: String) async throws {
        try await write { tx in
            try await Self.requireUser(tx, name)
            try await tx.execute("UPDATE users SET passwordHash = \(hash) WHERE name = \(name)")
            tx.audit(
                actor: Catalog.auditActor, action: .userPassword, id: nil, version: nil, sha256: nil,
                detail: "panel password set for \(name)")
        }
    }

    public func signInRecord(name: String) async throws -> Catalog.SignInRecord? {
        try await read { tx in
            guard
                let row = try await tx.first(
                    "SELECT name, role, publicKey, passwordHash FROM users WHERE name = \(name) AND removedAt IS NULL",
                    as: (String, String, String?, String?).self)
            else { return nil }
            return Catalog.SignInRecord(
                user: Catalog.User(name: row.0, role: Catalog.Role(rawValue: row.1) ?? .publisher, publicKey: row.2),
                passwordHash: row.3)
        }
    }

    public func user(name: String) async throws -> Catalog.User? { try await signInRecord(name: name)?.user }

    /// Issues a token for `user`: `tp_<id>_<secret>`. Only the SHA-256 of the secret is stored.
    public func issueToken(user: String) async throws -> Catalog.IssuedToken {
        let id = try SecureRandom.bytes(6).map { String(format: "%02x", $0) }.joined()
        let secret = try SecureRandom.bytes(24).map { String(format: "%02x", $0) }.joined()
        let hash = Data(SHA256.hash(Array(secret.utf8)).bytes)
        try await write { tx in
            try await Self.requireUser(tx, user)
            try await tx.execute(
                "INSERT INTO token (id, userName, hash, createdAt) VALUES (\(id), \(user), \(hash), \(Catalog.timestamp()))"
            )
            tx.audit(
                actor: Catalog.auditActor, action: .tokenIssue, id: nil, version: nil, sha256: nil,
                detail: "token \(id) for \(user)")
        }
        return Catalog.IssuedToken(id: id, token: "tp_\(id)_\(secret)")
    }

    public func revokeToken(id: String) async throws -> Bool {
        try await write { tx in
            let changed =
                try await tx.changes(
                    """
                    UPDATE token SET revokedAt = \(Catalog.timestamp()) WHERE id = \(id) AND revokedAt IS NULL RETURNING 1
                    """) > 0
            if changed {
                tx.audit(
                    actor: Catalog.auditActor, action: .tokenRevoke, id: nil, version: nil, sha256: nil,
                    detail: "token \(id)")
            }
            return changed
        }
    }

    public func tokens() async throws -> [Catalog.TokenInfo] {
        try await read { tx in
            try await tx.all(
                "SELECT id, userName, createdAt, revokedAt FROM token ORDER BY userName, createdAt",
                as: (String, String, String, String?).self
            ).map { Catalog.TokenInfo(id: $0.0, user: $0.1, createdAt: $0.2, revokedAt: $0.3) }
        }
    }

    /// The user a bearer token belongs to, or nil. The secret's hash is compared in constant time.
    public func authenticate(token: String) async throws -> Catalog.User? {
        let parts = token.split(separator: "_")
        guard parts.count == 3, parts[0] == "tp" else { return nil }
        let id = String(parts[1]), secret = String(parts[2])
        return try await read { tx in
            guard
                let row = try await tx.first(
                    """
                    SELECT t.hash, u.name, u.role, u.publicKey FROM token t JOIN users u ON u.name = t.userName
                    WHERE t.id = \(id) AND t.revokedAt IS NULL AND u.removedAt IS NULL
                    """, as: (Data, String, String, String?).self)
            else { return nil }
            guard ConstantTime.equals(Array(row.0), SHA256.hash(Array(secret.utf8)).bytes) else { return nil }
            return Catalog.User(name: row.1, role: Catalog.Role(rawValue: row.2) ?? .publisher, publicKey: row.3)
        }
    }

    // MARK: sites and grants

    public func addSite(id: String, name: String?) async throws {
        try await write { tx in
            guard let name else {
                let added = try await tx.changes(
                    "INSERT INTO site (id, name, adminNamed) VALUES (\(id), '', FALSE) ON CONFLICT (id) DO NOTHING RETURNING 1"
                )
                guard added > 0 else { throw CatalogError.siteExists(id) }
                tx.audit(
                    actor: Catalog.auditActor, action: .siteAdd, id: nil, version: nil, sha256: nil,
                    detail: "\(id) (named by its first release)")
                return
            }
            // A site an upload made (no name yet) takes the admin's name; a named one is refused.
            let named = try await tx.changes(
                """
                INSERT INTO site (id, name, adminNamed) VALUES (\(id), \(name), TRUE)
                ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, adminNamed = TRUE WHERE site.name = ''
                RETURNING 1
                """)
            guard named > 0 else { throw CatalogError.siteExists(id) }
            tx.audit(
                actor: Catalog.auditActor, action: .siteAdd, id: nil, version: nil, sha256: nil,
                detail: "\(id): \(name)")
        }
    }

    public func renameSite(id: String, name: String) async throws {
        try await write { tx in
            let changed = try await tx.changes(
                "UPDATE site SET name = \(name), adminNamed = TRUE WHERE id = \(id) RETURNING 1")
            guard changed > 0 else { throw CatalogError.noSuchSite(id) }
            tx.audit(
                actor: Catalog.auditActor, action: .siteRename, id: nil, version: nil, sha256: nil,
                detail: "\(id): \(name)")
        }
    }

    public func setEmail(name: String, email: String?) async throws {
        try await write { tx in
            try await Self.requireUser(tx, name)
            try await tx.execute("UPDATE users SET email = \(email) WHERE name = \(name)")
            tx.audit(
                actor: Catalog.auditActor, action: .userEmail, id: nil, version: nil, sha256: nil,
                detail: Catalog.emailDetail(name, email))
        }
    }

    public func emailAddresses() async throws -> [String: String] {
        try await read { tx in
            var out: [String: String] = [:]
            for (name, email) in try await tx.all(
                "SELECT name, email FROM users WHERE email IS NOT NULL AND removedAt IS NULL", as: (String, String).self
            ) {
                out[name] = email
            }
            return out
        }
    }

    public func setSiteFrame(id: String, frame: Bounds?) async throws {
        let (south, west) = (frame?.southwest.latitude, frame?.southwest.longitude)
        let (north, east) = (frame?.northeast.latitude, frame?.northeast.longitude)
        try await write { tx in
            let changed = try await tx.changes(
                """
                UPDATE site SET frameSouth = \(south), frameWest = \(west), frameNorth = \(north), frameEast = \(east)
                WHERE id = \(id) RETURNING 1
                """)
            guard changed > 0 else { throw CatalogError.noSuchSite(id) }
            tx.audit(
                actor: Catalog.auditActor, action: .siteFrame, id: nil, version: nil, sha256: nil,
                detail: Catalog.siteFrameDetail(id, frame))
        }
    }

    public func siteFrame(id: String) async throws -> Bounds? {
        try await read { tx in
            guard
                let (south, west, north, east) = try await tx.first(
                    "SELECT frameSouth, frameWest, frameNorth, frameEast FROM site WHERE id = \(id)",
                    as: (Double?, Double?, Double?, Double?).self),
                let south, let west, let north, let east
            else { return nil }
            return Bounds(
                southwest: Coordinate(latitude: south, longitude: west),
                northeast: Coordinate(latitude: north, longitude: east))
        }
    }

    public func grant(user: String, site: String) async throws {
        try await write { tx in
            try await Self.requireUser(tx, user)
            guard try await tx.value("SELECT EXISTS(SELECT 1 FROM site WHERE id = \(site))", as: Bool.self) == true
            else {
                let known = try await tx.values("SELECT id FROM site ORDER BY id LIMIT 6", as: String.self)
                throw CatalogError.noSuchSite(site, known: known)
            }
            try await tx.execute(
                """
                INSERT INTO siteGrant (userName, siteID, at) VALUES (\(user), \(site), \(Catalog.timestamp()))
                ON CONFLICT (userName, siteID) DO NOTHING
                """)
            tx.audit(
                actor: Catalog.auditActor, action: .grant, id: nil, version: nil, sha256: nil,
                detail: "\(user) may publish to \(site)")
        }
    }

    public func revokeGrant(user: String, site: String) async throws -> Bool {
        try await write { tx in
            let changed =
                try await tx.changes(
                    "DELETE FROM siteGrant WHERE userName = \(user) AND siteID = \(site) RETURNING 1") > 0
            if changed {
                tx.audit(
                    actor: Catalog.auditActor, action: .grantRevoke, id: nil, version: nil, sha256: nil,
                    detail: "\(user) may no longer publish to \(site)")
            }
            return changed
        }
    }

    public func grants() async throws -> [(user: String, site: String)] {
        try await read { tx in
            try await tx.all(
                "SELECT userName, siteID FROM siteGrant ORDER BY userName, siteID", as: (String, String).self
            )
            .map { (user: $0.0, site: $0.1) }
        }
    }

    public func workableSites(for user: Catalog.User) async throws -> [(id: String, name: String)] {
        try await read { tx in
            let rows =
                user.role == .publisher
                ? try await tx.all(
                    """
                    SELECT g.siteID AS id, COALESCE(s.name, g.siteID) AS name FROM siteGrant g LEFT JOIN site s ON s.id = g.siteID
                    WHERE g.userName = \(user.name) ORDER BY g.siteID
                    """, as: (String, String).self)
                : try await tx.all(
                    """
                    SELECT id, name FROM site UNION SELECT siteID, siteID FROM siteGrant WHERE siteID NOT IN (SELECT id FROM site)
                    ORDER BY id
                    """, as: (String, String).self)
            return rows.map { (id: $0.0, name: $0.1) }
        }
    }
}
