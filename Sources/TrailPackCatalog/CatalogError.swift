import GRDB

/// Why the catalog refused a change: the error type of `TrailPackCatalog`, in the shape of
/// swift-nio's `FileSystemError` — a stable ``code``, a ``message`` for people (with the command
/// that fixes it) and the ``name`` it concerns. SQLite's own failures are GRDB's `DatabaseError`.
public struct CatalogError: Error, Sendable, CustomStringConvertible {
    /// What kind of refusal this is. Stable: programs branch on it; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable { case noSuchUser, userExists, siteExists, noSuchSite, busy }
        private let wrapped: Wrapped
        private init(wrapped: Wrapped) { self.wrapped = wrapped }

        /// No user has the name.
        public static let noSuchUser = Code(wrapped: .noSuchUser)
        /// A user has (or had) the name already.
        public static let userExists = Code(wrapped: .userExists)
        /// A site has the id already.
        public static let siteExists = Code(wrapped: .siteExists)
        /// No site has the id.
        public static let noSuchSite = Code(wrapped: .noSuchSite)
        /// The catalog is busy (its queue is full, or a request waited too long): try again shortly.
        public static let busy = Code(wrapped: .busy)

        /// `no-such-user`, …: the code as it appears in JSON reports.
        public var description: String {
            switch wrapped {
            case .noSuchUser: "no-such-user"
            case .userExists: "user-exists"
            case .siteExists: "site-exists"
            case .noSuchSite: "no-such-site"
            case .busy: "busy"
            }
        }
    }

    /// What kind of refusal this is.
    public var code: Code
    /// What is wrong and the command that fixes it, for people.
    public var message: String
    /// The user's name or the site's id.
    public var name: String

    /// A refusal with these values.
    public init(code: Code, message: String, name: String) {
        self.code = code
        self.message = message
        self.name = name
    }

    /// There is no user `name`.
    public static func noSuchUser(_ name: String) -> CatalogError {
        CatalogError(
            code: .noSuchUser, message: "there is no user '\(name)'; add one with 'trailpack admin user add'",
            name: name)
    }

    /// There is (or was) a user `name`.
    public static func userExists(_ name: String) -> CatalogError {
        CatalogError(
            code: .userExists,
            message:
                "there is already a user '\(name)' (a removed user's name is not reused); change a role with 'trailpack admin user role'",
            name: name)
    }

    /// There is a site `id`.
    public static func siteExists(_ id: String) -> CatalogError {
        CatalogError(
            code: .siteExists, message: "there is already a site '\(id)'; rename it with 'trailpack admin site rename'",
            name: id)
    }

    /// There is no site `id`.
    public static func noSuchSite(_ id: String) -> CatalogError {
        CatalogError(
            code: .noSuchSite, message: "there is no site '\(id)'; add one with 'trailpack admin site add'", name: id)
    }

    /// The catalog could not take the request in time (`what` says why); nothing was changed.
    public static func busy(_ what: String) -> CatalogError {
        CatalogError(
            code: .busy, message: "the catalog is busy (\(what)); nothing was changed: try again in a moment", name: "")
    }

    /// Whether `error` says the catalog was busy: the pool's refusal, or SQLite still locked when its
    /// wait ran out (`SQLITE_BUSY`, `SQLITE_LOCKED`).
    public static func isBusy(_ error: any Error) -> Bool {
        if let error = error as? CatalogError { return error.code == .busy }
        if let error = error as? DatabaseError {
            return error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        }
        return false
    }

    /// The message.
    public var description: String { message }
}
