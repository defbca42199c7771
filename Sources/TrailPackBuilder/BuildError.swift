import TrailPackArchive
import TrailPackCore
import TrailPackFileIO

/// Why the builder could not make a package or a tour folder, or could not read a file it was
/// given: the error type of `TrailPackBuilder`, in the shape of swift-nio's `FileSystemError` — a
/// stable ``code``, a ``message`` for people (with the fix), the ``file`` and place it concerns,
/// and for an input/output failure the ``systemCall`` and the ``cause``.
///
/// Problems in a tour's content (a missing title, a photo too large) are findings, not errors.
public struct BuildError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What kind of failure this is. Stable: programs branch on it; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable { case usage, io, malformedFile, sourceChanged }
        private let wrapped: Wrapped
        private init(wrapped: Wrapped) { self.wrapped = wrapped }

        /// The request cannot be done as asked (a folder where a file was wanted, a tour that
        /// exists already, an invalid `SOURCE_DATE_EPOCH`): the message says what to give instead.
        public static let usage = Code(wrapped: .usage)
        /// Reading or writing a file failed.
        public static let io = Code(wrapped: .io)
        /// A file given to read (a GPX file, a tour folder's JSON) is not what it should be; the
        /// ``BuildError/file`` and, when known, ``BuildError/line`` and ``BuildError/column`` say where.
        public static let malformedFile = Code(wrapped: .malformedFile)
        /// A file of the tour changed while it was being packaged.
        public static let sourceChanged = Code(wrapped: .sourceChanged)

        /// `usage`, `io`, …: the code as it appears in JSON reports.
        public var description: String {
            switch wrapped {
            case .usage: "usage"
            case .io: "io"
            case .malformedFile: "malformed-file"
            case .sourceChanged: "source-changed"
            }
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What is wrong and how to fix it, for people. For ``Code/malformedFile`` this is the reason
    /// alone; ``description`` puts the file and the place before it.
    public var message: String
    /// The file the error concerns, when there is one.
    public var file: String?
    /// The line in ``file`` (from 1), when the error has a place in it.
    public var line: Int?
    /// The column in ``line`` (from 1).
    public var column: Int?
    /// The system call that failed and its `errno`, for an input/output failure.
    public var systemCall: SystemCall?
    /// The error that led to this one.
    public var cause: (any Error & Sendable)?

    /// An error with these values.
    public init(
        code: Code, message: String, file: String? = nil, line: Int? = nil, column: Int? = nil,
        systemCall: SystemCall? = nil, cause: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.systemCall = systemCall
        self.cause = cause
    }

    /// The request cannot be done as asked; `message` says what to give instead.
    public static func usage(_ message: String) -> BuildError { BuildError(code: .usage, message: message) }
    /// Reading or writing failed, as `message` says.
    public static func io(_ message: String) -> BuildError { BuildError(code: .io, message: message) }
    /// `file` is not what it should be: `reason`, at `line` and `column` when known.
    public static func malformed(_ file: String, line: Int? = nil, column: Int? = nil, _ reason: String) -> BuildError {
        BuildError(code: .malformedFile, message: reason, file: file, line: line, column: column)
    }

    /// An input/output failure of the file layer.
    public init(_ error: FileIOError) {
        self.init(code: .io, message: error.description, file: error.path, systemCall: error.systemCall, cause: error)
    }

    /// A failure of the ZIP writer: a file that changed while it was packaged, or input/output.
    public init(_ error: ArchiveError) {
        self.init(
            code: error.code == .sourceChanged ? .sourceChanged : .io, message: error.message,
            systemCall: error.systemCall, cause: error)
    }

    /// For people. A malformed file is named first, with the place (control and bidirectional
    /// characters the file put into the reason are shown as `\u{1b}`-style escapes):
    /// `'stops.gpx' line 3, column 7: …`.
    public var description: String {
        guard code == .malformedFile, let file else { return message }
        if let line, let column { return "'\(file)' line \(line), column \(column): \(TerminalText.escaped(message))" }
        return "'\(file)': \(TerminalText.escaped(message))"
    }

    /// Equal when everything but the ``cause`` is.
    public static func == (a: BuildError, b: BuildError) -> Bool {
        a.code == b.code && a.message == b.message && a.file == b.file && a.line == b.line && a.column == b.column
            && a.systemCall == b.systemCall
    }
}
