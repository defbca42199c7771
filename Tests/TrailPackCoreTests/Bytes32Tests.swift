import Testing
import TrailPackTestSupport

@testable import TrailPackCore

/// `Bytes32`'s hex: what the manifest's `sha256` fields and the package's digests are read from.
@Suite("32 bytes as hex digits", .ownThreads)
struct Bytes32Tests {
    /// The digits' value read one by one, by the rule as it is written: nil unless exactly 64 digits.
    static func reference(_ text: String, uppercase: Bool) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 64 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            if let v = Array("0123456789abcdef".utf8).firstIndex(of: c) { return UInt8(v) }
            if uppercase, let v = Array("ABCDEF".utf8).firstIndex(of: c) { return 10 + UInt8(v) }
            return nil
        }
        var bytes: [UInt8] = []
        for i in stride(from: 0, to: 64, by: 2) {
            guard let high = value(utf8[i]), let low = value(utf8[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    @Test("64 digits read as the reference reads them, either case as asked, anything else refused, on 20,000 texts")
    func hexAgreesWithReference() {
        var rng = SplitMix(seed: 32)
        // Digits of both cases, characters next to them in ASCII ('/', ':', '@', 'G', '`', 'g'), the same
        // 64 or 128 away (where a digit's low bits and bit 6 are a letter's: 'p', 'v', DEL), a control
        // character, and letters not ASCII (bytes from 0x80 up).
        let alphabet = Array("0123456789abcdefABCDEF/:@G`gpvqV\u{7F}\u{1}~") + ["é", "ñ", "\u{00A6}"]
        var accepted = 0
        var refused = 0
        for _ in 0..<20_000 {
            var digits = (0..<64).map { _ in rng.pick(Array("0123456789abcdef")) }
            switch rng.below(4) {
            case 0: digits[rng.below(64)] = rng.pick(alphabet)  // one character anywhere
            case 1: digits = digits.map { rng.below(8) == 0 ? rng.pick(alphabet) : $0 }
            case 2: digits = Array(digits.prefix(60 + rng.below(9))) + (rng.below(2) == 0 ? ["0", "0"] : [])
            default: break
            }
            let text = String(digits)
            for uppercase in [false, true] {
                let parsed = Bytes32(hex: text, uppercase: uppercase)
                let expected = Self.reference(text, uppercase: uppercase)
                #expect(parsed.map { $0.withUnsafeBytes { Array($0) } } == expected, "\(text), uppercase: \(uppercase)")
                if let parsed {
                    #expect(parsed.hex == text.lowercased())
                    accepted += 1
                } else {
                    refused += 1
                }
            }
        }
        #expect(accepted > 5_000 && refused > 5_000, "both kinds were generated: \(accepted) read, \(refused) refused")
        let lowest = Bytes32(hex: String(repeating: "0", count: 63) + "1", uppercase: false)
        #expect(lowest?.withUnsafeBytes { Array($0) } == Array(repeating: 0, count: 31) + [1], "the digits' order")
    }
}
