import TrailPackArchive
import TrailPackCore
import TrailPackFileIO

/// Why a package, or one of its assets, cannot be read or extracted: the error type of
/// `TrailPackVerifier`, in the shape of swift-nio's `FileSystemError` — a stable ``code``, a
/// ``message`` for people, what the code concerns (``findings``, ``path``, ``suggestion``), and
/// for an input/output failure the ``systemCall`` and the ``cause``.
///
/// `Verifier.verify` reports problems of a package as findings and throws only for input/output;
/// the reader and the extractor, which cannot go on with an invalid package, throw
/// ``Code/invalid`` with the findings.
public struct PackageError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Stable: programs branch on it; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable { case invalid, noSuchAsset, assetMismatch, destinationExists, io }
        private let wrapped: Wrapped
        private init(wrapped: Wrapped) { self.wrapped = wrapped }

        /// The package's structure or manifest has errors (``PackageError/findings``).
        public static let invalid = Code(wrapped: .invalid)
        /// The manifest does not list the asset asked for (``PackageError/suggestion`` may name the
        /// closest one).
        public static let noSuchAsset = Code(wrapped: .noSuchAsset)
        /// The asset's bytes do not match the manifest or the ZIP's own checks: it was altered or
        /// damaged (the one finding is in ``PackageError/findings``).
        public static let assetMismatch = Code(wrapped: .assetMismatch)
        /// The folder to extract into already exists.
        public static let destinationExists = Code(wrapped: .destinationExists)
        /// Reading the package or writing the extracted files failed.
        public static let io = Code(wrapped: .io)

        /// `invalid`, `no-such-asset`, …: the code as it appears in JSON reports.
        public var description: String {
            switch wrapped {
            case .invalid: "invalid"
            case .noSuchAsset: "no-such-asset"
            case .assetMismatch: "asset-mismatch"
            case .destinationExists: "destination-exists"
            case .io: "io"
            }
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong and what to do, for people.
    public var message: String
    /// The asset's path in the package, or the folder, that the error concerns.
    public var path: String?
    /// The findings behind ``Code/invalid`` (all of them) or ``Code/assetMismatch`` (one).
    public var findings: [Finding]
    /// For ``Code/noSuchAsset``: the closest path the manifest lists, when one is close.
    public var suggestion: String?
    /// The system call that failed and its `errno`, for an input/output failure.
    public var systemCall: SystemCall?
    /// The error that led to this one.
    public var cause: (any Error & Sendable)?

    /// An error with these values.
    public init(
        code: Code, message: String, path: String? = nil, findings: [Finding] = [], suggestion: String? = nil,
        systemCall: SystemCall? = nil, cause: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.findings = findings
        self.suggestion = suggestion
        self.systemCall = systemCall
        self.cause = cause
    }

    /// The package is not valid: `findings` has errors.
    public static func invalid(_ findings: [Finding]) -> PackageError {
        let errors = findings.filter { $0.severity == .error }
        return PackageError(
            code: .invalid,
            message:
                "the package is not valid (\(errors.count) error\(errors.count == 1 ? "" : "s")); first: \(errors.first.map(\.description) ?? "?")",
            findings: findings)
    }

    /// The manifest lists no asset `path`.
    public static func noSuchAsset(_ path: String, suggestion: String?) -> PackageError {
        PackageError(
            code: .noSuchAsset,
            message: "the package has no asset '\(path)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? ""),
            path: path, suggestion: suggestion)
    }

    /// Asset `path` failed its check, as `finding` says.
    public static func assetMismatch(_ path: String, _ finding: Finding) -> PackageError {
        PackageError(
            code: .assetMismatch, message: "asset '\(path)' failed its check: \(finding.message)", path: path,
            findings: [finding])
    }

    /// A failure of the archive layer: ``Code/io`` for input/output, ``Code/invalid`` (with its
    /// finding) for an entry's data that is not what its record says.
    public init(_ error: ArchiveError) {
        if let finding = error.code.findingCode {
            self.init(code: .invalid, message: error.message, findings: [Finding(finding, error.message)], cause: error)
        } else {
            self.init(code: .io, message: error.message, systemCall: error.systemCall, cause: error)
        }
    }

    /// An input/output failure of the file layer.
    public init(_ error: FileIOError) {
        self.init(code: .io, message: error.description, path: error.path, systemCall: error.systemCall, cause: error)
    }

    /// The message.
    public var description: String { message }
}
