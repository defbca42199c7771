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
    /// Each word is made from its 16 digits as they are read, with no bounds check and no branch
    /// out per digit (one per asset of a manifest: it was 3 % of a 100,000-entry verify).
    public init?(hex: String, uppercase: Bool) {
        var text = hex
        let parsed = text.withUTF8 { utf8 -> (UInt64, UInt64, UInt64, UInt64)? in
            guard utf8.count == 64, let digits = utf8.baseAddress else { return nil }
            var invalid: UInt8 = 0
            /// The eight bytes written by the 16 digits from `start`, the first in the lowest bits.
            func word(_ start: Int) -> UInt64 {
                var word: UInt64 = 0
                for j in 0..<8 {
                    let high = Self.nibble(digits[start + 2 * j], uppercase)
                    let low = Self.nibble(digits[start + 2 * j + 1], uppercase)
                    invalid |= (high | low) & 0xF0
                    word |= UInt64((high << 4) | (low & 0x0F)) << (8 * j)
                }
                // Held in memory in the digits' order on any byte order.
                return UInt64(littleEndian: word)
            }
            let words = (word(0), word(16), word(32), word(48))
            return invalid == 0 ? words : nil
        }
        guard let parsed else { return nil }
        words = parsed
    }

    /// A digit's value, or 0xF0 (a bit no value has) when `c` is not a digit.
    private static func nibble(_ c: UInt8, _ uppercase: Bool) -> UInt8 {
        switch c {
        case 0x30...0x39: c &- 0x30
        case 0x61...0x66: c &- 0x61 &+ 10
        case 0x41...0x46 where uppercase: c &- 0x41 &+ 10
        default: 0xF0
        }
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
