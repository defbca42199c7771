import Foundation
import PostgresNIO
import TrailPackCatalogModel

/// The control panel's sessions, the sign-in throttle and the confirmations' counting windows,
/// shared by every server: the SQLite store's statements, with advisory locks where SQLite's one
/// writer kept racing calls apart (a throttle key, a confirming address).
extension PostgresCatalog {
    public func startSession(_ session: Catalog.Session, replacing old: String?) async throws {
        try await write { tx in
            if let old { try await Self.endSession(tx, idHash: Catalog.sessionKey(old)) }
            try await tx.execute(
                """
                INSERT INTO panelSession (idHash, userName, csrfToken, credential, created, lastSeen)
                VALUES (\(Catalog.sessionKey(session.id)), \(session.user), \(session.csrfToken), \(session.credential),
                        \(session.created.timeIntervalSince1970), \(session.lastSeen.timeIntervalSince1970))
                """)
        }
    }

    public func session(
        id: String, now: Date, idleTimeout: TimeInterval, absoluteTimeout: TimeInterval
    ) async throws -> Catalog.Session? {
        let key = Catalog.sessionKey(id), at = now.timeIntervalSince1970
        let idle = at - idleTimeout, old = at - absoluteTimeout
        return try await write { tx in
            // The expired ones go whenever any session is looked at: the table stays small.
            try await tx.execute(
                """
                DELETE FROM panelSessionNote WHERE idHash IN
                  (SELECT idHash FROM panelSession WHERE lastSeen < \(idle) OR created < \(old))
                """)
            try await tx.execute("DELETE FROM panelSession WHERE lastSeen < \(idle) OR created < \(old)")
            guard
                let row = try await tx.first(
                    "UPDATE panelSession SET lastSeen = \(at) WHERE idHash = \(key) RETURNING userName, csrfToken, credential, created",
                    as: (String, String, String, Double).self)
            else { return nil }
            return Catalog.Session(
                id: id, user: row.0, csrfToken: row.1, credential: row.2,
                created: Date(timeIntervalSince1970: row.3), lastSeen: now)
        }
    }

    public func endSession(id: String) async throws {
        try await write { tx in try await Self.endSession(tx, idHash: Catalog.sessionKey(id)) }
    }

    public func endSessions(user: String, keeping: String?) async throws {
        let kept = keeping.map(Catalog.sessionKey) ?? ""
        try await write { tx in
            try await tx.execute(
                """
                DELETE FROM panelSessionNote WHERE idHash IN
                  (SELECT idHash FROM panelSession WHERE userName = \(user) AND idHash != \(kept))
                """)
            try await tx.execute("DELETE FROM panelSession WHERE userName = \(user) AND idHash != \(kept)")
        }
    }

    public func setSessionNote(id: String, kind: Catalog.SessionNote, text: String) async throws {
        let key = Catalog.sessionKey(id), text = String(text.prefix(2000))
        try await write { tx in
            try await tx.execute(
                """
                INSERT INTO panelSessionNote (idHash, kind, text) VALUES (\(key), \(kind.rawValue), \(text))
                ON CONFLICT (idHash, kind) DO UPDATE SET text = EXCLUDED.text
                """)
        }
    }

    public func takeSessionNote(id: String, kind: Catalog.SessionNote) async throws -> String? {
        let key = Catalog.sessionKey(id)
        return try await write { tx in
            // One statement: two pages taking the note at once get it once.
            try await tx.value(
                "DELETE FROM panelSessionNote WHERE idHash = \(key) AND kind = \(kind.rawValue) RETURNING text",
                as: String.self)
        }
    }

    static func endSession(_ tx: Transaction, idHash: String) async throws {
        try await tx.execute("DELETE FROM panelSession WHERE idHash = \(idHash)")
        try await tx.execute("DELETE FROM panelSessionNote WHERE idHash = \(idHash)")
    }

    public func beginSignIn(
        keys: [Catalog.ThrottleKey], window: TimeInterval, now: Date
    ) async throws -> Catalog.ThrottleDecision {
        let at = now.timeIntervalSince1970, since = at - window
        return try await write { tx in
            // Each key's lock, in one order (no deadlock): parallel guesses on several servers are
            // counted one after the other, so a key is tried at most its limit times.
            for key in Set(keys.map(\.key)).sorted() { try await tx.lock(AdvisoryLock.throttle, key) }
            var longest = 0
            for key in keys {
                try await tx.execute("DELETE FROM signInFailure WHERE key = \(key.key) AND at <= \(since)")
                guard
                    let row = try await tx.first(
                        "SELECT COUNT(*), MIN(at) FROM signInFailure WHERE key = \(key.key)", as: (Int, Double?).self)
                else { continue }
                if row.0 >= key.limit, let oldest = row.1 {
                    longest = max(longest, Catalog.throttleWait(oldest: oldest, window: window, now: at))
                }
            }
            if longest > 0 { return .wait(longest) }
            for key in keys {
                try await tx.execute("INSERT INTO signInFailure (key, at) VALUES (\(key.key), \(at))")
            }
            return .allowed(Catalog.SignInAttempt(keys: keys.map(\.key), at: now))
        }
    }

    public func signInSucceeded(_ attempt: Catalog.SignInAttempt, forgetAll: [String]) async throws {
        let at = attempt.at.timeIntervalSince1970
        try await write { tx in
            for key in attempt.keys {
                if forgetAll.contains(key) {
                    try await tx.execute("DELETE FROM signInFailure WHERE key = \(key)")
                } else {
                    try await tx.execute(
                        """
                        DELETE FROM signInFailure WHERE id = (SELECT id FROM signInFailure WHERE key = \(key) AND at = \(at) LIMIT 1)
                        """)
                }
            }
        }
    }

    public func admitConfirmation(address: String, download: String, perMinute: Int, now: Date) async throws -> Bool {
        let at = now.timeIntervalSince1970, key = Catalog.sessionKey(address + "\u{0}" + download)
        return try await write { tx in
            // The address's lock: its window is counted one confirmation after another, on every server.
            try await tx.lock(AdvisoryLock.confirmation, address)
            if let last = try await tx.value(
                "SELECT at FROM confirmationSeen WHERE download = \(key)", as: Double.self),
                at - last < Catalog.confirmationRepeatWindow
            {
                return false
            }
            var start = at, count = 0
            if let row = try await tx.first(
                "SELECT start, count FROM confirmationWindow WHERE address = \(address)", as: (Double, Int).self)
            {
                if at - row.0 < 60 {
                    start = row.0
                    count = row.1
                }
            }
            guard count < perMinute else { return false }
            try await tx.execute(
                """
                INSERT INTO confirmationWindow (address, start, count) VALUES (\(address), \(start), \(count + 1))
                ON CONFLICT (address) DO UPDATE SET start = EXCLUDED.start, count = EXCLUDED.count
                """)
            try await tx.execute(
                """
                INSERT INTO confirmationSeen (download, at) VALUES (\(key), \(at))
                ON CONFLICT (download) DO UPDATE SET at = EXCLUDED.at
                """)
            // What no longer counts goes now and then (one confirmation in 64), so the tables stay small.
            if Catalog.sweepsConfirmationWindows(key) {
                try await tx.execute(
                    "DELETE FROM confirmationSeen WHERE at < \(at - Catalog.confirmationRepeatWindow)")
                try await tx.execute("DELETE FROM confirmationWindow WHERE start < \(at - 60)")
            }
            return true
        }
    }
}
