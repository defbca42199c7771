import Foundation

/// The panel's signed-in sessions, in memory: an unguessable id (the cookie) and a CSRF token per session,
/// a new id at every sign-in (rotation), an idle and an absolute expiry. A restart signs everyone out.
public actor PanelSessions {
    public struct Session: Sendable, Equatable {
        public let id: String
        public let user: String
        /// Sent back in every state-changing form (`_csrf`) or fetch (`X-CSRF-Token`).
        public let csrfToken: String
        /// What the user's password was when they signed in (a digest of its stored hash): a session
        /// whose user's password has changed since is ended (`PanelController.visitor`).
        public let credential: String
        let created: Date
        var lastSeen: Date
    }

    public let idleTimeout: TimeInterval
    public let absoluteTimeout: TimeInterval
    private var sessions: [String: Session] = [:]
    /// One message per session for the next page ("'view.png' was added"), kept here rather than in
    /// the URL so no link can make a panel page say something the server did not.
    private var flashes: [String: String] = [:]
    /// One refusal per session for the next page, said beside the form that was refused.
    private var problems: [String: String] = [:]

    public init(idleTimeout: TimeInterval = 2 * 3600, absoluteTimeout: TimeInterval = 12 * 3600) {
        self.idleTimeout = idleTimeout
        self.absoluteTimeout = absoluteTimeout
    }

    /// A new session for `user`; `replacing` (the cookie sent with the sign-in form) is ended, so an id set
    /// before sign-in is never the signed-in one.
    public func start(
        user: String, credential: String = "", replacing old: String? = nil, now: Date = Date()
    ) -> Session {
        if let old { sessions[old] = nil }
        purge(now: now)
        let session = Session(
            id: Self.randomToken(), user: user, csrfToken: Self.randomToken(), credential: credential, created: now,
            lastSeen: now)
        sessions[session.id] = session
        return session
    }

    /// The live session with this id (touching it), or nil when unknown or expired (an expired one is ended).
    public func session(id: String, now: Date = Date()) -> Session? {
        guard var session = sessions[id] else { return nil }
        if now.timeIntervalSince(session.lastSeen) > idleTimeout
            || now.timeIntervalSince(session.created) > absoluteTimeout
        {
            sessions[id] = nil
            return nil
        }
        session.lastSeen = now
        sessions[id] = session
        return session
    }

    /// Whether `token` is this live session's CSRF token (compared in constant time).
    public func checkCSRF(id: String, token: String?, now: Date = Date()) -> Bool {
        guard let session = session(id: id, now: now), let token else { return false }
        return Self.constantTimeEqual(Array(session.csrfToken.utf8), Array(token.utf8))
    }

    public func end(id: String) {
        sessions[id] = nil
        flashes[id] = nil
        problems[id] = nil
    }

    /// Ends every session of `user` but `keeping` (a password changed, a user removed).
    public func endAll(user: String, keeping: String? = nil) {
        for (id, session) in sessions where session.user == user && id != keeping { end(id: id) }
    }

    /// Keeps `text` for the session's next page.
    public func flash(id: String, _ text: String) { flashes[id] = String(text.prefix(2000)) }

    /// The message kept for this session, once.
    public func takeFlash(id: String) -> String? { flashes.removeValue(forKey: id) }

    /// Keeps why a form was refused, for the session's next page.
    public func flashProblem(id: String, _ text: String) { problems[id] = String(text.prefix(2000)) }

    /// The refusal kept for this session, once.
    public func takeProblem(id: String) -> String? { problems.removeValue(forKey: id) }

    public var count: Int { sessions.count }

    private func purge(now: Date) {
        sessions = sessions.filter {
            now.timeIntervalSince($0.value.lastSeen) <= idleTimeout
                && now.timeIntervalSince($0.value.created) <= absoluteTimeout
        }
        flashes = flashes.filter { sessions[$0.key] != nil }
        problems = problems.filter { sessions[$0.key] != nil }
    }

    /// 32 random bytes (the system's CSPRNG: getrandom on Linux) as base64url without padding.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// The Set-Cookie value for a session: HttpOnly, SameSite=Strict, Path=/, Secure over TLS, lasting the absolute timeout.
    public nonisolated func cookie(for session: Session, secure: Bool) -> String {
        "trailpack_session=\(session.id); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(Int(absoluteTimeout))\(secure ? "; Secure" : "")"
    }

    /// The Set-Cookie value that removes the session cookie (sign-out).
    public nonisolated func clearingCookie(secure: Bool) -> String {
        "trailpack_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0\(secure ? "; Secure" : "")"
    }
}

/// Sign-in attempts limited per client address, and per address and name together: `limit`
/// failures of one name from one address, or `addressLimit` failures of any names from one address,
/// in `window` seconds make that address wait until the oldest leaves the window. A name is never
/// locked for every address: nobody elsewhere can lock a ranger out.
///
/// The check and the count are one step (`begin`): an attempt is counted as a failure before its
/// password is checked, and taken back if it succeeds — so a burst of parallel guesses is checked
/// at most `limit` times, however it races.
public actor LoginThrottle {
    public let limit: Int
    public let addressLimit: Int
    public let window: TimeInterval
    private var failures: [String: [Date]] = [:]

    /// An attempt allowed to check its password; hand it back with `succeeded` or `failed`.
    public struct Attempt: Sendable {
        let keys: [String]
        let at: Date
    }

    /// What `begin` decided.
    public enum Decision: Sendable {
        case allowed(Attempt)
        /// Seconds to wait before this address may try this name again.
        case wait(Int)
    }

    public init(limit: Int = 5, addressLimit: Int = 20, window: TimeInterval = 15 * 60) {
        self.limit = limit
        self.addressLimit = addressLimit
        self.window = window
    }

    /// Checks `address` and `address`+`name`, and when both may try, counts this attempt (as a
    /// failure until `succeeded`).
    public func begin(address: String, name: String, now: Date = Date()) -> Decision {
        let pair = "pair:\(address)|\(name.lowercased())", single = "address:\(address)"
        let waits = [wait(for: pair, limit: limit, now: now), wait(for: single, limit: addressLimit, now: now)]
        if let longest = waits.max(), longest > 0 { return .wait(longest) }
        for key in [pair, single] { failures[key, default: []].append(now) }
        return .allowed(Attempt(keys: [pair, single], at: now))
    }

    /// The password was right: the attempt is taken back, and the name's failures from this address forgotten.
    public func succeeded(_ attempt: Attempt) {
        failures[attempt.keys[0]] = nil
        if var list = failures[attempt.keys[1]], let index = list.firstIndex(of: attempt.at) {
            list.remove(at: index)
            failures[attempt.keys[1]] = list.isEmpty ? nil : list
        }
    }

    /// Seconds `key` must wait (0: it may try now), forgetting failures older than the window.
    private func wait(for key: String, limit: Int, now: Date) -> Int {
        let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < window }
        failures[key] = recent.isEmpty ? nil : recent
        guard recent.count >= limit, let oldest = recent.first else { return 0 }
        return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
    }
}
