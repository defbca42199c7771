import Foundation
import GRDB
import TrailPackCatalogModel

extension Catalog.PublishStatus: DatabaseValueConvertible {}
extension Catalog.ScanStatus: DatabaseValueConvertible {}
extension Catalog.AuditAction: DatabaseValueConvertible {}

/// The control panel's sessions, the sign-in throttle and the confirmations' counting windows, in
/// the catalog (one server per SQLite file, but the same calls as the shared PostgreSQL store).
extension SQLiteCatalog {
    public func startSession(_ session: Catalog.Session, replacing old: String?) async throws {
        try await write { db in
            if let old { try Self.endSession(db, idHash: Catalog.sessionKey(old)) }
            try db.execute(
                sql: """
                    INSERT INTO panelSession (idHash, userName, csrfToken, credential, created, lastSeen)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Catalog.sessionKey(session.id), session.user, session.csrfToken, session.credential,
                    session.created.timeIntervalSince1970, session.lastSeen.timeIntervalSince1970,
                ])
        }
    }

    public func session(
        id: String, now: Date, idleTimeout: TimeInterval, absoluteTimeout: TimeInterval
    ) async throws -> Catalog.Session? {
        let key = Catalog.sessionKey(id), at = now.timeIntervalSince1970
        return try await write { db in
            // The expired ones go whenever any session is looked at: the table stays small.
            try db.execute(
                sql:
                    "DELETE FROM panelSessionNote WHERE idHash IN (SELECT idHash FROM panelSession WHERE lastSeen < ? OR created < ?)",
                arguments: [at - idleTimeout, at - absoluteTimeout])
            try db.execute(
                sql: "DELETE FROM panelSession WHERE lastSeen < ? OR created < ?",
                arguments: [at - idleTimeout, at - absoluteTimeout])
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT userName, csrfToken, credential, created FROM panelSession WHERE idHash = ?",
                    arguments: [key])
            else { return nil }
            try db.execute(sql: "UPDATE panelSession SET lastSeen = ? WHERE idHash = ?", arguments: [at, key])
            return Catalog.Session(
                id: id, user: row["userName"], csrfToken: row["csrfToken"], credential: row["credential"],
                created: Date(timeIntervalSince1970: row["created"]), lastSeen: now)
        }
    }

    public func endSession(id: String) async throws {
        try await write { db in try Self.endSession(db, idHash: Catalog.sessionKey(id)) }
    }

    public func endSessions(user: String, keeping: String?) async throws {
        let kept = keeping.map(Catalog.sessionKey) ?? ""
        try await write { db in
            try db.execute(
                sql: """
                    DELETE FROM panelSessionNote WHERE idHash IN
                      (SELECT idHash FROM panelSession WHERE userName = ? AND idHash != ?)
                    """,
                arguments: [user, kept])
            try db.execute(
                sql: "DELETE FROM panelSession WHERE userName = ? AND idHash != ?", arguments: [user, kept])
        }
    }

    public func setSessionNote(id: String, kind: Catalog.SessionNote, text: String) async throws {
        let key = Catalog.sessionKey(id), text = String(text.prefix(2000))
        try await write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO panelSessionNote (idHash, kind, text) VALUES (?, ?, ?)",
                arguments: [key, kind.rawValue, text])
        }
    }

    public func takeSessionNote(id: String, kind: Catalog.SessionNote) async throws -> String? {
        let key = Catalog.sessionKey(id)
        return try await write { db in
            let text = try String.fetchOne(
                db, sql: "SELECT text FROM panelSessionNote WHERE idHash = ? AND kind = ?",
                arguments: [key, kind.rawValue])
            if text != nil {
                try db.execute(
                    sql: "DELETE FROM panelSessionNote WHERE idHash = ? AND kind = ?", arguments: [key, kind.rawValue])
            }
            return text
        }
    }

    static func endSession(_ db: Database, idHash: String) throws {
        try db.execute(sql: "DELETE FROM panelSession WHERE idHash = ?", arguments: [idHash])
        try db.execute(sql: "DELETE FROM panelSessionNote WHERE idHash = ?", arguments: [idHash])
    }

    public func beginSignIn(
        keys: [Catalog.ThrottleKey], window: TimeInterval, now: Date
    ) async throws -> Catalog.ThrottleDecision {
        let at = now.timeIntervalSince1970
        return try await write { db in
            var longest = 0
            for key in keys {
                try db.execute(
                    sql: "DELETE FROM signInFailure WHERE key = ? AND at <= ?", arguments: [key.key, at - window])
                let row = try Row.fetchOne(
                    db, sql: "SELECT COUNT(*) AS n, MIN(at) AS oldest FROM signInFailure WHERE key = ?",
                    arguments: [key.key])
                let count: Int = row?["n"] ?? 0
                if count >= key.limit, let oldest: Double = row?["oldest"] {
                    longest = max(longest, Catalog.throttleWait(oldest: oldest, window: window, now: at))
                }
            }
            if longest > 0 { return .wait(longest) }
            for key in keys {
                try db.execute(sql: "INSERT INTO signInFailure (key, at) VALUES (?, ?)", arguments: [key.key, at])
            }
            return .allowed(Catalog.SignInAttempt(keys: keys.map(\.key), at: now))
        }
    }

    public func signInSucceeded(_ attempt: Catalog.SignInAttempt, forgetAll: [String]) async throws {
        let at = attempt.at.timeIntervalSince1970
        try await write { db in
            for key in attempt.keys {
                if forgetAll.contains(key) {
                    try db.execute(sql: "DELETE FROM signInFailure WHERE key = ?", arguments: [key])
                } else {
                    try db.execute(
                        sql:
                            "DELETE FROM signInFailure WHERE rowid = (SELECT rowid FROM signInFailure WHERE key = ? AND at = ? LIMIT 1)",
                        arguments: [key, at])
                }
            }
        }
    }

    public func admitConfirmation(address: String, download: String, perMinute: Int, now: Date) async throws -> Bool {
        let at = now.timeIntervalSince1970, key = Catalog.sessionKey(address + "\u{0}" + download)
        return try await write { db in
            if let last = try Double.fetchOne(
                db, sql: "SELECT at FROM confirmationSeen WHERE download = ?", arguments: [key]),
                at - last < Catalog.confirmationRepeatWindow
            {
                return false
            }
            var start = at, count = 0
            if let row = try Row.fetchOne(
                db, sql: "SELECT start, count FROM confirmationWindow WHERE address = ?", arguments: [address])
            {
                let kept: Double = row["start"]
                if at - kept < 60 {
                    start = kept
                    count = row["count"]
                }
            }
            guard count < perMinute else { return false }
            try db.execute(
                sql: "INSERT OR REPLACE INTO confirmationWindow (address, start, count) VALUES (?, ?, ?)",
                arguments: [address, start, count + 1])
            try db.execute(
                sql: "INSERT OR REPLACE INTO confirmationSeen (download, at) VALUES (?, ?)", arguments: [key, at])
            // What no longer counts goes now and then (one confirmation in 64), so the tables stay small.
            if Catalog.sweepsConfirmationWindows(key) {
                try db.execute(
                    sql: "DELETE FROM confirmationSeen WHERE at < ?", arguments: [at - Catalog.confirmationRepeatWindow]
                )
                try db.execute(sql: "DELETE FROM confirmationWindow WHERE start < ?", arguments: [at - 60])
            }
            return true
        }
    }
}
