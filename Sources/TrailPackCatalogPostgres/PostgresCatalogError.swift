import PostgresNIO
import TrailPackCatalogModel

/// Why the PostgreSQL catalog could not be reached or used: the error type of
/// `TrailPackCatalogPostgres`, in the shape of swift-nio's `FileSystemError` — a stable ``code``, a
/// ``message`` for people naming what is wrong and the fix, the server's `SQLSTATE` when it answered
/// one, and the driver's error as ``cause``. No message ever holds a password.
///
/// The catalog's own refusals (no such user, a site that exists, busy) are ``CatalogError``s, as
/// from every store.
public struct PostgresCatalogError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Stable: programs branch on it; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable { case location, authentication, connection, noDatabase, server }
        private let wrapped: Wrapped
        private init(wrapped: Wrapped) { self.wrapped = wrapped }

        /// The catalog's URL, or its password's file or variable, breaks a rule (the message names it).
        public static let location = Code(wrapped: .location)
        /// The server refused the user or the password.
        public static let authentication = Code(wrapped: .authentication)
        /// The server could not be reached, or the connection broke.
        public static let connection = Code(wrapped: .connection)
        /// The server has no database of that name.
        public static let noDatabase = Code(wrapped: .noDatabase)
        /// The server refused a statement (``PostgresCatalogError/sqlState`` says which rule).
        public static let server = Code(wrapped: .server)

        /// `location`, `authentication`, …: the code as it appears in JSON reports.
        public var description: String {
            switch wrapped {
            case .location: "location"
            case .authentication: "authentication"
            case .connection: "connection"
            case .noDatabase: "no-database"
            case .server: "server"
            }
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What is wrong and how to fix it, for people.
    public var message: String
    /// The server's `SQLSTATE` (`28P01`: a wrong password), when it answered one.
    public var sqlState: String?
    /// The driver's error, when there is one (postgres-nio's `PSQLError` describes itself without
    /// the query's values; `String(reflecting:)` shows more).
    public var cause: (any Error & Sendable)?

    /// An error with these values.
    public init(code: Code, message: String, sqlState: String? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
        self.cause = cause
    }

    /// The message.
    public var description: String { message }

    /// A rule of the catalog's location broken.
    static func location(_ message: String) -> PostgresCatalogError {
        PostgresCatalogError(code: .location, message: message)
    }
}

extension PostgresCatalogError {
    /// `error` from postgres-nio, said in the catalog's words for `location`: a refused password
    /// names the user and the server (never the password), an unknown database names it. The
    /// catalog's own errors and cancellation pass through unchanged.
    static func wrap(_ error: any Error, at location: PostgresLocation) -> any Error {
        switch error {
        case is CatalogError, is PostgresCatalogError, is CancellationError: return error
        case let e as PostgresTransactionError:
            // BEGIN, the body, COMMIT or ROLLBACK: the first that failed says why.
            guard let first = e.beginError ?? e.closureError ?? e.commitError else { return error }
            return wrap(first, at: location)
        case let e as PSQLError:
            return wrap(e, at: location)
        default:
            // The pool's own errors (its module is not one to import): connections failing one after
            // another, or none to be had — PostgreSQL is down or unreachable, so try again later.
            if String(reflecting: type(of: error)).hasSuffix("ConnectionPoolError") {
                return CatalogError.busy(
                    "PostgreSQL at \(location.host):\(location.port) is not answering (\(error)); is it running?")
            }
            return error
        }
    }

    private static func wrap(_ error: PSQLError, at location: PostgresLocation) -> any Error {
        let server = "PostgreSQL at \(location.host):\(location.port)"
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            let said = error.serverInfo?[.message] ?? "no message"
            switch state {
            case "28P01", "28000":
                // invalid_password; invalid_authorization_specification (no pg_hba.conf entry, no such role).
                return PostgresCatalogError(
                    code: .authentication,
                    message:
                        "\(server) refused user '\(location.user)' for database '\(location.database)' (\(said)); "
                        + "check the password in \(location.passwordSource) and the server's pg_hba.conf",
                    sqlState: state, cause: error)
            case "3D000":
                return PostgresCatalogError(
                    code: .noDatabase,
                    message:
                        "\(server) has no database '\(location.database)'; create it (createdb -O \(location.user) \(location.database)) or name another in the catalog URL",
                    sqlState: state, cause: error)
            case "40001", "40P01", "55P03", "57014":
                // A serialization failure or a deadlock left after the retries, a lock not granted in
                // time, a statement cancelled: nothing was changed, and trying again may work.
                return CatalogError.busy("\(server) said: \(said)")
            default:
                return PostgresCatalogError(
                    code: .server, message: "\(server) refused a statement: \(said) (SQLSTATE \(state))",
                    sqlState: state, cause: error)
            }
        case .authMechanismRequiresPassword:
            return PostgresCatalogError(
                code: .authentication,
                message:
                    "\(server) asks a password for user '\(location.user)', and none was given: put it in a password file (first line) or PGPASSWORD",
                cause: error)
        case .unsupportedAuthMechanism, .saslError:
            return PostgresCatalogError(
                code: .authentication,
                message:
                    "\(server) and trailpack found no way to sign in user '\(location.user)' (scram-sha-256, md5 or password authentication are supported)",
                cause: error)
        case .sslUnsupported:
            return PostgresCatalogError(
                code: .connection,
                message: "\(server) does not offer TLS, which the catalog URL's sslmode requires",
                cause: error)
        case .queryCancelled:
            return CancellationError()
        case .poolClosed:
            return PostgresCatalogError(
                code: .connection,
                message:
                    "the catalog's connections to \(server) are closed: its service is not running (run() ended or never started)",
                cause: error)
        default:
            // NIO's connection errors describe every attempt at length: the plain reason, when there is one.
            let text = error.underlying.map { String(describing: $0) } ?? ""
            let reasons = [
                "Connection refused": "the connection was refused", "No route to host": "there is no route to it",
                "timed out": "the connection timed out", "Timeout": "the connection timed out",
                "lookup": "its name could not be looked up", "Network is unreachable": "the network is unreachable",
            ]
            let known = reasons.first { text.contains($0.key) }.map { ": \($0.value)" }
            let reason = known ?? (text.isEmpty ? "" : ": \(text)")
            return PostgresCatalogError(
                code: .connection,
                message: "cannot connect to \(server)\(reason); is it running, and may this host connect?",
                cause: error)
        }
    }
}
