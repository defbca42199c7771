/// Why an S3 operation failed: the error type of `TrailPackS3`, in the shape of swift-nio's
/// `FileSystemError` — a stable ``code`` to branch on, a ``message`` for people, and what is known
/// of the request: the ``operation``, the ``key``, the HTTP ``status`` and S3's own ``s3Code`` and
/// ``s3Message`` from the error body.
///
/// No error, message or description ever holds a secret access key or a session token: only the
/// access key id, which names the credentials without granting anything.
public struct S3Error: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Stable: programs branch on it; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case invalidLocation, invalidCredentials, invalidArgument, unreachable, timeout, notFound
            case accessDenied, badDigest, rejected, invalidResponse, io
        }
        private let wrapped: Wrapped
        private init(wrapped: Wrapped) { self.wrapped = wrapped }

        /// An `s3://` location, an endpoint, a bucket name or a region that breaks a rule.
        public static let invalidLocation = Code(wrapped: .invalidLocation)
        /// Credentials that are missing or malformed (a shared-credentials file, the environment).
        public static let invalidCredentials = Code(wrapped: .invalidCredentials)
        /// A key, a range, a size, an expiry or a setting the caller passed that cannot be used.
        public static let invalidArgument = Code(wrapped: .invalidArgument)
        /// The endpoint could not be reached: no connection, a refused connection, a broken TLS handshake.
        public static let unreachable = Code(wrapped: .unreachable)
        /// The endpoint did not answer in time (connecting, reading or writing).
        public static let timeout = Code(wrapped: .timeout)
        /// The bucket or the object does not exist (HTTP 404).
        public static let notFound = Code(wrapped: .notFound)
        /// The store refused the credentials or the signature (HTTP 403, HTTP 401).
        public static let accessDenied = Code(wrapped: .accessDenied)
        /// The bytes sent do not have the SHA-256 the upload declared: refused by the store
        /// (`BadDigest`, `XAmzContentSHA256Mismatch`) or, before the last byte was sent, by this client.
        public static let badDigest = Code(wrapped: .badDigest)
        /// Any other refusal by the store (an HTTP status it should not have answered).
        public static let rejected = Code(wrapped: .rejected)
        /// The store answered something this client cannot read (malformed XML, a missing header).
        public static let invalidResponse = Code(wrapped: .invalidResponse)
        /// Reading or writing a local file failed.
        public static let io = Code(wrapped: .io)

        /// `invalid-location`, `not-found`, …: the code as it appears in JSON reports.
        public var description: String {
            switch wrapped {
            case .invalidLocation: "invalid-location"
            case .invalidCredentials: "invalid-credentials"
            case .invalidArgument: "invalid-argument"
            case .unreachable: "unreachable"
            case .timeout: "timeout"
            case .notFound: "not-found"
            case .accessDenied: "access-denied"
            case .badDigest: "bad-digest"
            case .rejected: "rejected"
            case .invalidResponse: "invalid-response"
            case .io: "io"
            }
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, for people, lowercase: the operation, the key, the endpoint, the rule and,
    /// where there is one, the fix.
    public var message: String
    /// The operation that failed (`put`, `get`, `list`, `create bucket`, …), when one did.
    public var operation: String?
    /// The object key concerned (as the caller gave it, without the location's prefix), when there is one.
    public var key: String?
    /// The HTTP status the store answered, when it answered.
    public var status: Int?
    /// The `<Code>` of S3's error body (`NoSuchKey`, `SignatureDoesNotMatch`, …), when there was one.
    public var s3Code: String?
    /// The `<Message>` of S3's error body, when there was one.
    public var s3Message: String?
    /// The error that led to this one, when there is one.
    public var cause: (any Error & Sendable)?

    /// An error with `code` and `message`, and what is known of the request.
    public init(
        code: Code, message: String, operation: String? = nil, key: String? = nil, status: Int? = nil,
        s3Code: String? = nil, s3Message: String? = nil, cause: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.operation = operation
        self.key = key
        self.status = status
        self.s3Code = s3Code
        self.s3Message = s3Message
        self.cause = cause
    }

    /// The message (which already names the operation, the key, the status and S3's code).
    public var description: String { message }
}

extension S3Error {
    static func invalidArgument(_ message: String, operation: String? = nil, key: String? = nil) -> S3Error {
        S3Error(code: .invalidArgument, message: message, operation: operation, key: key)
    }

    static func invalidResponse(_ message: String, operation: String, key: String?, status: Int?) -> S3Error {
        S3Error(code: .invalidResponse, message: message, operation: operation, key: key, status: status)
    }
}

/// Text from a server or a file, made safe to print: control, bidi and other invisible format
/// characters as `\u{…}`, and at most `limit` characters (then `…`).
func printable(_ text: some StringProtocol, limit: Int = 300) -> String {
    var out = ""
    var count = 0
    for scalar in text.unicodeScalars {
        if count == limit {
            out += "…"
            break
        }
        count += 1
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned:
            out += "\\u{\(String(scalar.value, radix: 16))}"
        default:
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}
