import SystemPackage

/// Why reading or writing a file failed: the error type of `TrailPackFileIO`, in the shape of
/// swift-nio's `FileSystemError` — a stable ``code`` to branch on, a ``message`` for people, the
/// ``path``, and the ``systemCall`` (name and `Errno`) when one failed.
public struct FileIOError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Stable: programs branch on it; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case notFound, permissionDenied, alreadyExists, notRegularFile, tooLarge, noSpace, io
        }
        private let wrapped: Wrapped
        private init(wrapped: Wrapped) { self.wrapped = wrapped }

        /// The file or a folder on its path does not exist (`ENOENT`, `ENOTDIR`).
        public static let notFound = Code(wrapped: .notFound)
        /// The file's or its folder's permissions forbid it (`EACCES`, `EPERM`, `EROFS`).
        public static let permissionDenied = Code(wrapped: .permissionDenied)
        /// Something is already at the path (`EEXIST`, `ENOTEMPTY`).
        public static let alreadyExists = Code(wrapped: .alreadyExists)
        /// The path is a folder, a pipe or a device where a regular file was needed.
        public static let notRegularFile = Code(wrapped: .notRegularFile)
        /// The file is larger than the caller's limit.
        public static let tooLarge = Code(wrapped: .tooLarge)
        /// The disk or the user's quota is full (`ENOSPC`, `EDQUOT`).
        public static let noSpace = Code(wrapped: .noSpace)
        /// Any other input/output failure.
        public static let io = Code(wrapped: .io)

        /// The code for a system call's `errno`.
        public init(_ errno: Errno) {
            switch errno {
            case .noSuchFileOrDirectory, .notDirectory: self = .notFound
            case .permissionDenied, .notPermitted, .readOnlyFileSystem: self = .permissionDenied
            case .fileExists, .directoryNotEmpty: self = .alreadyExists
            case .isDirectory: self = .notRegularFile
            case .noSpace, .diskQuotaExceeded: self = .noSpace
            default: self = .io
            }
        }

        /// `not-found`, `permission-denied`, …: the code as it appears in JSON reports.
        public var description: String {
            switch wrapped {
            case .notFound: "not-found"
            case .permissionDenied: "permission-denied"
            case .alreadyExists: "already-exists"
            case .notRegularFile: "not-regular-file"
            case .tooLarge: "too-large"
            case .noSpace: "no-space"
            case .io: "io"
            }
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What could not be done, for people: `cannot read 'tour/stops.csv'`.
    public var message: String
    /// The file or folder concerned, when there is one.
    public var path: String?
    /// The system call that failed and its `errno`, when one did.
    public var systemCall: SystemCall?
    /// The error that led to this one, when there is one.
    public var cause: (any Error & Sendable)?

    /// An error with `code` and `message` about `path`.
    public init(
        code: Code, message: String, path: String? = nil, systemCall: SystemCall? = nil,
        cause: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.systemCall = systemCall
        self.cause = cause
    }

    /// A failed system call `call` while doing `message` (`cannot read 'x'`); the code follows the `errno`.
    public static func system(_ call: String, _ errno: Errno, _ message: String, path: String? = nil) -> FileIOError {
        FileIOError(code: Code(errno), message: message, path: path, systemCall: SystemCall(call, errno))
    }

    /// `cannot read 'x': No such file or directory` — the message, then the system's explanation.
    public var description: String {
        if let systemCall { return "\(message): \(systemCall.errno)" }
        return message
    }
}
