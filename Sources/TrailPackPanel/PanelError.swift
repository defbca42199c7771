import HTTPTypes
import TrailPackFileIO

/// A request, a draft or a panel setting the panel cannot use: the error type of
/// `TrailPackPanel`, in the shape of swift-nio's `FileSystemError` — a stable ``code`` (which
/// decides the HTTP status), a ``message`` in words naming the fix, and for an input/output
/// failure the ``systemCall`` and the ``cause``.
public struct PanelError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Stable: programs branch on it; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case badRequest, forbidden, notFound, conflict, tooLarge, unsupportedMediaType, unprocessable, `internal`,
                busy
        }
        private let wrapped: Wrapped
        private init(wrapped: Wrapped) { self.wrapped = wrapped }

        /// The request is malformed or asks for something the form does not offer (400).
        public static let badRequest = Code(wrapped: .badRequest)
        /// The user's role does not allow it (403).
        public static let forbidden = Code(wrapped: .forbidden)
        /// No such draft, stop, file or page (404).
        public static let notFound = Code(wrapped: .notFound)
        /// Someone else saved the draft since the page was opened, or the thing exists already (409).
        public static let conflict = Code(wrapped: .conflict)
        /// An upload larger than the limit (413).
        public static let tooLarge = Code(wrapped: .tooLarge)
        /// A file of a type the apps cannot show (415).
        public static let unsupportedMediaType = Code(wrapped: .unsupportedMediaType)
        /// Understood, but the content cannot be used: a value out of range, a damaged file, a
        /// draft whose files cannot be read (422).
        public static let unprocessable = Code(wrapped: .unprocessable)
        /// The server failed (a file could not be written, a page is missing) (500).
        public static let `internal` = Code(wrapped: .internal)
        /// The server is too busy to do it now; nothing was changed (503, with `Retry-After`).
        public static let busy = Code(wrapped: .busy)

        /// The HTTP status the panel answers with.
        public var status: HTTPResponse.Status {
            switch wrapped {
            case .badRequest: .badRequest
            case .forbidden: .forbidden
            case .notFound: .notFound
            case .conflict: .conflict
            case .tooLarge: .contentTooLarge
            case .unsupportedMediaType: .unsupportedMediaType
            case .unprocessable: .unprocessableContent
            case .internal: .internalServerError
            case .busy: .serviceUnavailable
            }
        }

        /// The code for an HTTP status (an unknown one is ``internal``).
        init(status: HTTPResponse.Status) {
            switch status {
            case .badRequest: self = .badRequest
            case .forbidden: self = .forbidden
            case .notFound: self = .notFound
            case .conflict: self = .conflict
            case .contentTooLarge: self = .tooLarge
            case .unsupportedMediaType: self = .unsupportedMediaType
            case .unprocessableContent: self = .unprocessable
            case .serviceUnavailable: self = .busy
            default: self = .internal
            }
        }

        /// `bad-request`, `not-found`, …: the code as it appears in logs and JSON.
        public var description: String {
            switch wrapped {
            case .badRequest: "bad-request"
            case .forbidden: "forbidden"
            case .notFound: "not-found"
            case .conflict: "conflict"
            case .tooLarge: "too-large"
            case .unsupportedMediaType: "unsupported-media-type"
            case .unprocessable: "unprocessable"
            case .internal: "internal"
            case .busy: "busy"
            }
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What is wrong and how to fix it, in the ranger's words.
    public var message: String
    /// The system call that failed and its `errno`, for an input/output failure.
    public var systemCall: SystemCall?
    /// The error that led to this one.
    public var cause: (any Error & Sendable)?

    /// The HTTP status the panel answers with (from the ``code``).
    public var status: HTTPResponse.Status { code.status }

    /// An error with these values.
    public init(code: Code, message: String, systemCall: SystemCall? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.systemCall = systemCall
        self.cause = cause
    }

    /// An error answered with `status` (its ``Code``).
    public init(status: HTTPResponse.Status = .badRequest, message: String) {
        self.init(code: Code(status: status), message: message)
    }

    /// A failure of the file layer, as an internal error that keeps its system call.
    /// A link where a file or folder was expected, or something that is not a regular file, is the
    /// draft's content at fault, not the server: 422.
    public init(_ error: FileIOError, _ message: String? = nil) {
        let refused =
            error.code == .notRegularFile || error.systemCall?.errno == .tooManySymbolicLinkLevels
            || error.systemCall?.errno == .fileNameTooLong
        // A file or folder gone, or a name taken, while the request ran: the draft changed meanwhile.
        let changed = error.code == .notFound || error.code == .alreadyExists
        self.init(
            code: refused ? .unprocessable : changed ? .conflict : .internal, message: message ?? error.description,
            systemCall: error.systemCall, cause: error)
    }

    /// The draft does not exist.
    public static let notFound = PanelError(
        code: .notFound, message: "there is no such draft (it may have been removed)")
    /// Someone else saved the draft after it was opened.
    public static let conflict = PanelError(
        code: .conflict,
        message:
            "someone else saved this draft after you opened it; your change was not saved. Reload the page to see their version, then make your change again"
    )

    /// The message.
    public var description: String { message }
}
