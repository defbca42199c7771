import TrailPackCore
import TrailPackFileIO

/// Why a map could not be read or written: the error type of `TrailPackMap`, in the shape of
/// swift-nio's `FileSystemError` — a stable ``code``, a ``message`` for people, and for an
/// input/output failure the ``systemCall`` and the ``cause``.
///
/// A problem in the file carries the `map.*` finding code it is reported as
/// (``Code/findingCode``); an input/output failure is not a problem of the map, and stops a check.
public struct MapError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Stable: programs branch on it; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case malformed(FindingCode)
            case io
        }
        private let wrapped: Wrapped
        private init(wrapped: Wrapped) { self.wrapped = wrapped }

        /// The map file breaks the rule of `finding` (a `map.*` code).
        public static func malformed(_ finding: FindingCode) -> Code { Code(wrapped: .malformed(finding)) }
        /// Reading or writing the file failed.
        public static let io = Code(wrapped: .io)

        /// The finding a problem in the file is reported as; nil for ``io``.
        public var findingCode: FindingCode? {
            if case .malformed(let code) = wrapped { return code }
            return nil
        }

        /// The finding code (`map.header`, …), or `io`.
        public var description: String { findingCode?.rawValue ?? "io" }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, for people: `the header is cut short: the file ends at byte 40`.
    public var message: String
    /// The system call that failed and its `errno`, for an input/output failure.
    public var systemCall: SystemCall?
    /// The error that led to this one (a `FileIOError` for a file that could not be read).
    public var cause: (any Error & Sendable)?

    /// An error with `code` and `message`.
    public init(code: Code, message: String, systemCall: SystemCall? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.systemCall = systemCall
        self.cause = cause
    }

    /// A problem in the map file, reported as the finding `finding`.
    public init(_ finding: FindingCode, _ message: String) { self.init(code: .malformed(finding), message: message) }

    /// An input/output failure of the file layer, as a map error.
    public init(_ error: FileIOError) {
        self.init(code: .io, message: error.description, systemCall: error.systemCall, cause: error)
    }

    /// An input/output failure explained by `message`.
    public static func io(_ message: String) -> MapError { MapError(code: .io, message: message) }

    /// The error as a finding about `file` (input/output failures become `map.header`).
    public func finding(file: String?) -> Finding { Finding(code.findingCode ?? .mapHeader, file: file, message) }

    /// The message.
    public var description: String { message }
}
