import TrailPackFileIO

/// Why fetching or installing a package failed: the error type of `TrailPackClient`, in the shape
/// of swift-nio's `FileSystemError` — a stable ``Code`` for programs, a message for people (naming
/// the server, package or file, and what to do), the system call behind an input/output failure,
/// and the underlying error.
public struct ClientError: Error, Sendable, CustomStringConvertible {
    /// A stable identifier of the kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case network, http, badResponse, notFound, unauthorized, damaged, invalid, signature, rollback, io,
                cancelled
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The server could not be reached, or the connection broke more often than the retries allow.
        public static let network = Code(.network)
        /// The server answered with an unexpected HTTP status.
        public static let http = Code(.http)
        /// The server's answer was not what the API documents.
        public static let badResponse = Code(.badResponse)
        /// No such site, package or version.
        public static let notFound = Code(.notFound)
        /// The server needs a token (a version under review), or refused the one given.
        public static let unauthorized = Code(.unauthorized)
        /// The downloaded bytes are not the ones the catalog names (length or SHA-256).
        public static let damaged = Code(.damaged)
        /// The package failed verification (structure, manifest or contents).
        public static let invalid = Code(.invalid)
        /// Too few valid signatures from trusted keys.
        public static let signature = Code(.signature)
        /// An older version, or the same version with other bytes, than one already installed.
        public static let rollback = Code(.rollback)
        /// The library folder could not be read or written.
        public static let io = Code(.io)
        /// The fetch was cancelled.
        public static let cancelled = Code(.cancelled)

        /// The code as a stable word (`damaged`, `rollback`, …), for logs and JSON.
        public var description: String { value.rawValue }
    }

    /// The kind of failure: what a program branches on.
    public var code: Code
    /// What went wrong and what to do, in plain words.
    public var message: String
    /// The system call that failed and its `errno`, for an input/output failure.
    public var systemCall: SystemCall?
    /// The error behind this one, when there is one.
    public var cause: (any Error & Sendable)?

    /// An error of kind `code` with a message for people and, optionally, the error behind it.
    public init(_ code: Code, _ message: String, systemCall: SystemCall? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.systemCall = systemCall
        self.cause = cause
    }

    /// An input/output failure of the file layer (the library folder).
    public init(_ error: FileIOError) {
        self.init(.io, error.description, systemCall: error.systemCall, cause: error)
    }

    /// The message.
    public var description: String { message }
}
