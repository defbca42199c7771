import TrailPackCore
import TrailPackFileIO

/// Why an archive could not be read or written: the error type of `TrailPackArchive` (and of the
/// writer, `TrailPackArchiveWriter`), in the shape of swift-nio's `FileSystemError` — a stable
/// ``code``, a ``message`` for people, the ``systemCall`` behind an input/output failure and the
/// ``cause``.
///
/// Problems in the archive's *structure* are findings, not errors. An entry's *data* that does not
/// match its record (``Code/dataTooLong``, ``Code/corruptData``, …) is an error of the
/// ``EntryReader``, which the verifier turns into the finding ``findingCode``; an ``Code/io``
/// failure is never a finding about the package, and stops a check.
public struct ArchiveError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Stable: programs branch on it; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case io, library, sourceChanged, dataTooLong, dataTooShort, corruptData, unsupportedMethod,
                missingLocalHeader
        }
        private let wrapped: Wrapped
        private init(wrapped: Wrapped) { self.wrapped = wrapped }

        /// Reading or writing the archive's file failed (the ``ArchiveError/systemCall`` says how).
        public static let io = Code(wrapped: .io)
        /// libarchive refused to write (its text is in the message).
        public static let library = Code(wrapped: .library)
        /// A file being packaged changed size while it was read.
        public static let sourceChanged = Code(wrapped: .sourceChanged)
        /// An entry's data decompresses to more bytes than its record declares.
        public static let dataTooLong = Code(wrapped: .dataTooLong)
        /// An entry's data ends before its declared size.
        public static let dataTooShort = Code(wrapped: .dataTooShort)
        /// An entry's deflate stream is corrupt, or does not end where its compressed bytes do.
        public static let corruptData = Code(wrapped: .corruptData)
        /// An entry's compression method cannot be read.
        public static let unsupportedMethod = Code(wrapped: .unsupportedMethod)
        /// An entry's local header was not found, so its data cannot be located.
        public static let missingLocalHeader = Code(wrapped: .missingLocalHeader)

        /// `io`, `data-too-long`, …: the code as it appears in JSON reports.
        public var description: String {
            switch wrapped {
            case .io: "io"
            case .library: "library"
            case .sourceChanged: "source-changed"
            case .dataTooLong: "data-too-long"
            case .dataTooShort: "data-too-short"
            case .corruptData: "corrupt-data"
            case .unsupportedMethod: "unsupported-method"
            case .missingLocalHeader: "missing-local-header"
            }
        }

        /// The finding an entry's data problem is reported as; nil for ``io``, ``library`` and
        /// ``sourceChanged``, which are not problems of the package.
        public var findingCode: FindingCode? {
            switch wrapped {
            case .dataTooLong, .dataTooShort: .zipSizeMismatch
            case .corruptData: .zipDeflate
            case .unsupportedMethod: .zipMethod
            case .missingLocalHeader: .zipLocalHeader
            case .io, .library, .sourceChanged: nil
            }
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, for people: `cannot read 'tour.zip' at byte 4096: Input/output error`.
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

    /// An input/output failure of the file layer, as an archive error.
    public init(_ error: FileIOError) {
        self.init(code: .io, message: error.description, systemCall: error.systemCall, cause: error)
    }

    /// The message.
    public var description: String { message }
}
