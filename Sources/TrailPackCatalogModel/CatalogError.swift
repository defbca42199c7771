import TrailPackBlocking

/// Why the catalog refused a change: the error type of `TrailPackCatalog`, in the shape of
/// swift-nio's `FileSystemError` — a stable ``code``, a ``message`` for people (with the command
/// that fixes it) and the ``name`` it concerns. A store's database failures are its driver's errors.
public struct CatalogError: Error, Sendable, CustomStringConvertible {
    /// What kind of refusal this is. Stable: programs branch on it; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case noSuchUser, userExists, siteExists, noSuchSite, busy, unsupported, lastAdministrator
        }
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
        /// The store cannot do this (a PostgreSQL catalog is not backed up by trailpack): the message says what to use.
        public static let unsupported = Code(wrapped: .unsupported)
        /// The change would leave the catalog without an administrator.
        public static let lastAdministrator = Code(wrapped: .lastAdministrator)

        /// `no-such-user`, …: the code as it appears in JSON reports.
        public var description: String {
            switch wrapped {
            case .noSuchUser: "no-such-user"
            case .userExists: "user-exists"
            case .siteExists: "site-exists"
            case .noSuchSite: "no-such-site"
            case .busy: "busy"
            case .unsupported: "unsupported"
            case .lastAdministrator: "last-administrator"
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

    /// Demoting or removing `name` would leave nobody able to manage people, sites and tokens.
    public static func lastAdministrator(_ name: String) -> CatalogError {
        CatalogError(
            code: .lastAdministrator,
            message:
                "'\(name)' is the last administrator: make another person an administrator first ('trailpack admin user role NAME admin')",
            name: name)
    }

    /// There is no site `id`.
    public static func noSuchSite(_ id: String) -> CatalogError {
        CatalogError(
            code: .noSuchSite, message: "there is no site '\(id)'; add one with 'trailpack admin site add'", name: id)
    }

    /// There is no site `id` to grant: `known` are the first sites there are (at most 6 are read).
    public static func noSuchSite(_ id: String, known: [String]) -> CatalogError {
        let list =
            known.isEmpty
            ? "there are no sites yet"
            : "the sites are \(known.prefix(5).joined(separator: ", "))\(known.count > 5 ? ", …" : "")"
        return CatalogError(
            code: .noSuchSite,
            message:
                "there is no site '\(id)' (\(list)); check the spelling, or add it first with 'trailpack admin site add \(id)'",
            name: id)
    }

    /// The store cannot do `what`; `instead` says what to use.
    public static func unsupported(_ what: String, instead: String) -> CatalogError {
        CatalogError(code: .unsupported, message: "\(what) is not possible with this catalog; \(instead)", name: "")
    }

    /// The catalog could not take the request in time (`what` says why); nothing was changed.
    public static func busy(_ what: String) -> CatalogError {
        CatalogError(
            code: .busy, message: "the catalog is busy (\(what)); nothing was changed: try again in a moment", name: "")
    }

    /// Whether `error` says the catalog was busy (a store turns its database's own "locked" or
    /// "too many waiting" into ``busy(_:)``), or the blocking pool its work waits for was.
    public static func isBusy(_ error: any Error) -> Bool {
        (error as? CatalogError)?.code == .busy || error is BlockingPool.Busy
    }

    /// The message.
    public var description: String { message }
}
