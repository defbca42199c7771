internal import CLibCrypto

/// Why a cryptographic operation, or reading a key or a signature, failed: the error type of
/// `TrailPackCrypto`, in the shape of swift-nio's `FileSystemError` — a stable ``code``, a
/// ``message`` for people and, for OpenSSL, the library's own text as the ``detail``. File I/O
/// fails with `TrailPackFileIO.FileIOError`.
public struct CryptoError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Stable: programs branch on it; new codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable { case library, malformedKey, malformedSignature, wrongPassword }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// OpenSSL failed (out of memory, a missing algorithm, a refused parameter).
        public static let library = Code(.library)
        /// A key file's text is not a key trailpack (or minisign) can use.
        public static let malformedKey = Code(.malformedKey)
        /// A signature file's text is not a minisign signature, or asks for what cannot be signed.
        public static let malformedSignature = Code(.malformedSignature)
        /// The password does not open the secret key.
        public static let wrongPassword = Code(.wrongPassword)

        /// `library`, `malformed-key`, …: the code as it appears in JSON reports.
        public var description: String {
            switch wrapped {
            case .library: "library"
            case .malformedKey: "malformed-key"
            case .malformedSignature: "malformed-signature"
            case .wrongPassword: "wrong-password"
            }
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, for people: `the public key is not 42 bytes of base64`.
    public var message: String
    /// OpenSSL's error queue, when the library failed.
    public var detail: String?

    /// An error with `code`, `message` and (for OpenSSL) its `detail`.
    public init(code: Code, message: String, detail: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
    }

    static func malformedKey(_ message: String) -> CryptoError { CryptoError(code: .malformedKey, message: message) }
    static func malformedSignature(_ message: String) -> CryptoError {
        CryptoError(code: .malformedSignature, message: message)
    }

    /// The failure of OpenSSL's `operation`, with its error queue's text (which it empties).
    static func fromQueue(_ operation: String) -> CryptoError {
        var detail = ""
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            if !detail.isEmpty { detail += "; " }
            detail += String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return CryptoError(
            code: .library, message: "\(operation) failed", detail: detail.isEmpty ? "unknown OpenSSL error" : detail)
    }

    /// The message, then OpenSSL's text when there is one.
    public var description: String { detail.map { "\(message): \($0)" } ?? message }
}
