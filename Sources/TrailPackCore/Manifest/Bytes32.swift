/// 32 bytes held inline, written as 64 hex digits: a SHA-256 in the manifest model and in
/// TrailPackCrypto's `SHA256Digest`.
///
/// Inline, not an array or a `String`: one of these per entry or asset is 32 bytes, where a
/// `String` of 64 digits is a 112-byte heap object and a `[UInt8]` of 32 an 80-byte one.
public struct Bytes32: Sendable, Hashable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// Thirty-two zero bytes.
    public init() {}

    /// Parses 64 hex digits (`0-9a-f`, and `A-F` when `uppercase` is true); nil for anything else.
    /// Eight digits at a time, in one 64-bit word: every byte checked against its ranges and turned
    /// into its value with no branch (one per asset of a manifest: digit by digit it was 7 % of a
    /// 100,000-entry verify's manifest thread). Swift's `SIMD64` was tried and was lane by lane,
    /// ten times slower.
    public init?(hex: String, uppercase: Bool) {
        var text = hex
        let parsed = text.withUTF8 { utf8 -> (UInt64, UInt64, UInt64, UInt64)? in
            guard utf8.count == 64, let digits = utf8.baseAddress else { return nil }
            let raw = UnsafeRawPointer(digits)
            var valid = true
            /// The four bytes the eight digits at `offset` make, the first in the lowest bits.
            func four(_ offset: Int) -> UInt64 {
                let x = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                valid = valid && Self.allHexDigits(x, uppercase: uppercase)
                // A digit's low four bits, plus 9 for a letter (bit 6 is set in letters alone).
                let value = (x & 0x0F0F_0F0F_0F0F_0F0F) &+ ((x &>> 6) & 0x0101_0101_0101_0101) &* 9
                // Pairs into bytes, then the four bytes side by side.
                var w = ((value & 0x00FF_00FF_00FF_00FF) &<< 4) | ((value &>> 8) & 0x00FF_00FF_00FF_00FF)
                w = (w | (w &>> 8)) & 0x0000_FFFF_0000_FFFF
                return (w | (w &>> 16)) & 0x0000_0000_FFFF_FFFF
            }
            // Held in memory in the digits' order on any byte order.
            let words = (
                UInt64(littleEndian: four(0) | four(8) &<< 32), UInt64(littleEndian: four(16) | four(24) &<< 32),
                UInt64(littleEndian: four(32) | four(40) &<< 32), UInt64(littleEndian: four(48) | four(56) &<< 32)
            )
            return valid ? words : nil
        }
        guard let parsed else { return nil }
        words = parsed
    }

    /// Whether each of the eight bytes of `x` is `0-9`, `a-f` or (when `uppercase`) `A-F`. For
    /// bytes below 0x80, adding `0x80 - low` sets a byte's top bit exactly when it is at least
    /// `low`, with no carry into the next byte.
    private static func allHexDigits(_ x: UInt64, uppercase: Bool) -> Bool {
        let high: UInt64 = 0x8080_8080_8080_8080
        func atLeast(_ low: UInt64) -> UInt64 { (x &+ (0x80 &- low) &* 0x0101_0101_0101_0101) & high }
        let digit = atLeast(0x30) & ~atLeast(0x3A)
        let lower = atLeast(0x61) & ~atLeast(0x67)
        let upper = uppercase ? atLeast(0x41) & ~atLeast(0x47) : 0
        return x & high == 0 && digit | lower | upper == high
    }

    /// The 64 lowercase hex digits.
    public var hex: String {
        withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: 64) { out in
                for (i, b) in bytes.enumerated() {
                    out[2 * i] = Self.digit(b >> 4)
                    out[2 * i + 1] = Self.digit(b & 0x0F)
                }
                return 64
            }
        }
    }

    private static func digit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x61 - 10 + nibble }

    /// Calls `body` with the 32 bytes, in order.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: words, body)
    }

    /// Calls `body` with the 32 bytes to change them.
    public mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeMutableBytes(of: &words, body)
    }

    /// Equal bytes, compared in constant time: every word, whatever the first difference.
    public static func == (a: Bytes32, b: Bytes32) -> Bool {
        let difference =
            (a.words.0 ^ b.words.0) | (a.words.1 ^ b.words.1) | (a.words.2 ^ b.words.2) | (a.words.3 ^ b.words.3)
        return difference == 0
    }

    /// Hashes the 32 bytes (consistent with `==`).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
