import Foundation
import TrailPackCatalogModel
import TrailPackCrypto

/// The panel's signed-in sessions, kept in the catalog so that every server sharing it accepts
/// them: an unguessable id (the cookie; the catalog keeps only its SHA-256) and a CSRF token per
/// session, a new id at every sign-in (rotation), an idle and an absolute expiry. A restart signs
/// nobody out; a changed password or a removed user ends the user's sessions.
public struct PanelSessions: Sendable {
    public typealias Session = Catalog.Session

    let catalog: any CatalogStore
    public let idleTimeout: TimeInterval
    public let absoluteTimeout: TimeInterval

    public init(
        catalog: any CatalogStore, idleTimeout: TimeInterval = 2 * 3600, absoluteTimeout: TimeInterval = 12 * 3600
    ) {
        self.catalog = catalog
        self.idleTimeout = idleTimeout
        self.absoluteTimeout = absoluteTimeout
    }

    /// A new session for `user`; `replacing` (the cookie sent with the sign-in form) is ended, so an id set
    /// before sign-in is never the signed-in one.
    public func start(
        user: String, credential: String = "", replacing old: String? = nil, now: Date = Date()
    ) async throws -> Session {
        let session = Session(
            id: Self.randomToken(), user: user, csrfToken: Self.randomToken(), credential: credential, created: now,
            lastSeen: now)
        try await catalog.startSession(session, replacing: old)
        return session
    }

    /// The live session with this id (touching it), or nil when unknown or expired (an expired one is ended).
    public func session(id: String, now: Date = Date()) async throws -> Session? {
        try await catalog.session(id: id, now: now, idleTimeout: idleTimeout, absoluteTimeout: absoluteTimeout)
    }

    /// Whether `token` is this live session's CSRF token (compared in constant time).
    public func checkCSRF(id: String, token: String?, now: Date = Date()) async throws -> Bool {
        guard let session = try await session(id: id, now: now), let token else { return false }
        return Self.constantTimeEqual(Array(session.csrfToken.utf8), Array(token.utf8))
    }

    public func end(id: String) async throws { try await catalog.endSession(id: id) }

    /// Ends every session of `user` but `keeping` (a password changed, a user removed).
    public func endAll(user: String, keeping: String? = nil) async throws {
        try await catalog.endSessions(user: user, keeping: keeping)
    }

    /// Keeps `text` for the session's next page.
    public func flash(id: String, _ text: String) async throws {
        try await catalog.setSessionNote(id: id, kind: .flash, text: text)
    }

    /// The message kept for this session, once.
    public func takeFlash(id: String) async throws -> String? {
        try await catalog.takeSessionNote(id: id, kind: .flash)
    }

    /// Keeps why a form was refused, for the session's next page.
    public func flashProblem(id: String, _ text: String) async throws {
        try await catalog.setSessionNote(id: id, kind: .problem, text: text)
    }

    /// The refusal kept for this session, once.
    public func takeProblem(id: String) async throws -> String? {
        try await catalog.takeSessionNote(id: id, kind: .problem)
    }

    /// Keeps `secret` for the session's next page, sealed with the session's id (see
    /// ``Catalog/SessionNote/sealed``): a redirect after a form that made a secret (a new token)
    /// can show it once, on the page it leads to, without the catalog holding it readable.
    public func seal(id: String, _ secret: String) async throws {
        let nonce = try SecureRandom.bytes(16)
        let sealed = Self.xor(Array(secret.utf8), pad: Self.pad(id: id, nonce: nonce, count: secret.utf8.count))
        try await catalog.setSessionNote(
            id: id, kind: .sealed, text: Data(nonce).base64EncodedString() + ":" + Data(sealed).base64EncodedString())
    }

    /// The secret kept by ``seal(id:_:)``, once; nil when there is none (or it is not this session's).
    public func takeSealed(id: String) async throws -> String? {
        guard let text = try await catalog.takeSessionNote(id: id, kind: .sealed) else { return nil }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let nonce = Data(base64Encoded: String(parts[0])).map(Array.init),
            let sealed = Data(base64Encoded: String(parts[1])).map(Array.init)
        else {
            return nil
        }
        return String(
            validating: Self.xor(sealed, pad: Self.pad(id: id, nonce: nonce, count: sealed.count)), as: UTF8.self)
    }

    /// A key stream of `count` bytes: BLAKE2b-512 blocks of (label, session id, nonce, counter).
    static func pad(id: String, nonce: [UInt8], count: Int) -> [UInt8] {
        var stream: [UInt8] = []
        var counter: UInt32 = 0
        while stream.count < count {
            let block =
                Array("trailpack sealed session note\u{0}".utf8) + Array(id.utf8) + [0] + nonce
                + withUnsafeBytes(of: counter.littleEndian, Array.init)
            stream += BLAKE2b.digest(block, length: 64)
            counter += 1
        }
        return Array(stream.prefix(count))
    }

    static func xor(_ bytes: [UInt8], pad: [UInt8]) -> [UInt8] { zip(bytes, pad).map { $0 ^ $1 } }

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
    public func cookie(for session: Session, secure: Bool) -> String {
        "trailpack_session=\(session.id); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(Int(absoluteTimeout))\(secure ? "; Secure" : "")"
    }

    /// The Set-Cookie value that removes the session cookie (sign-out).
    public func clearingCookie(secure: Bool) -> String {
        "trailpack_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0\(secure ? "; Secure" : "")"
    }
}

/// Sign-in attempts limited per client address, and per address and name together: `limit`
/// failures of one name from one address, or `addressLimit` failures of any names from one address,
/// in `window` seconds make that address wait until the oldest leaves the window. A name is never
/// locked for every address: nobody elsewhere can lock a ranger out. Kept in the catalog, so the
/// limits hold across every server sharing it.
///
/// The check and the count are one step (`begin`): an attempt is counted as a failure before its
/// password is checked, and taken back if it succeeds — so a burst of parallel guesses is checked
/// at most `limit` times, however it races.
public struct LoginThrottle: Sendable {
    public typealias Attempt = Catalog.SignInAttempt
    public typealias Decision = Catalog.ThrottleDecision

    let catalog: any CatalogStore
    public let limit: Int
    public let addressLimit: Int
    public let window: TimeInterval

    public init(catalog: any CatalogStore, limit: Int = 5, addressLimit: Int = 20, window: TimeInterval = 15 * 60) {
        self.catalog = catalog
        self.limit = limit
        self.addressLimit = addressLimit
        self.window = window
    }

    /// Checks `address` and `address`+`name`, and when both may try, counts this attempt (as a
    /// failure until `succeeded`).
    public func begin(address: String, name: String, now: Date = Date()) async throws -> Decision {
        let pair = "pair:\(address)|\(name.lowercased())", single = "address:\(address)"
        return try await catalog.beginSignIn(
            keys: [.init(key: pair, limit: limit), .init(key: single, limit: addressLimit)], window: window, now: now)
    }

    /// The password was right: the attempt is taken back, and the name's failures from this address forgotten.
    public func succeeded(_ attempt: Attempt) async throws {
        try await catalog.signInSucceeded(attempt, forgetAll: Array(attempt.keys.prefix(1)))
    }
}
