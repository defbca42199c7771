internal import CLibCrypto
import Foundation

/// Comparisons whose time does not depend on where the inputs differ.
public enum ConstantTime {
    /// Whether `a` and `b` are equal; the time depends only on their lengths.
    /// The corresponding C function is `CRYPTO_memcmp`.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress!, y.baseAddress!, a.count) == 0 }
        }
    }
}
