internal import CLibCrypto
import Foundation

/// Errors from OpenSSL, with its error queue's text.
public struct CryptoError: Error, Sendable, CustomStringConvertible {
    public var operation: String
    public var detail: String
    public var description: String { "\(operation) failed: \(detail)" }

    static func fromQueue(_ operation: String) -> CryptoError {
        var detail = ""
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            if !detail.isEmpty { detail += "; " }
            detail += String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return CryptoError(operation: operation, detail: detail.isEmpty ? "unknown OpenSSL error" : detail)
    }
}
