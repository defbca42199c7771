/// Reads little-endian fields from bytes taken from a file. It never traps: reading past the
/// end yields zeros and sets `overran`, so a caller checks `remaining` before it trusts a field.
package struct LittleEndianReader {
    package let bytes: [UInt8]
    package private(set) var offset: Int
    /// Set when a read went past the end of `bytes`.
    package private(set) var overran = false

    package init(_ bytes: [UInt8], at offset: Int = 0) {
        self.bytes = bytes
        self.offset = min(max(0, offset), bytes.count)
    }

    package var remaining: Int { bytes.count - offset }

    private mutating func byte() -> UInt8 {
        guard offset < bytes.count else {
            overran = true
            return 0
        }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func u16() -> UInt16 { UInt16(byte()) | UInt16(byte()) << 8 }

    package mutating func u32() -> UInt32 {
        UInt32(byte()) | UInt32(byte()) << 8 | UInt32(byte()) << 16 | UInt32(byte()) << 24
    }

    package mutating func u64() -> UInt64 {
        let low = UInt64(u32())
        return low | UInt64(u32()) << 32
    }

    /// Up to `count` bytes (fewer, with `overran` set, when the bytes run out).
    package mutating func take(_ count: Int) -> [UInt8] {
        let n = max(0, min(count, remaining))
        if n < count { overran = true }
        defer { offset += n }
        return Array(bytes[offset..<offset + n])
    }

    package mutating func skip(_ count: Int) { _ = take(count) }

    /// The next four bytes as a signature, without consuming them (0 when fewer remain).
    package var peekSignature: UInt32 {
        guard remaining >= 4 else { return 0 }
        var copy = self
        return copy.u32()
    }
}

/// The signatures that open each ZIP record.
package enum ZipSignature {
    package static let local: UInt32 = 0x0403_4B50
    package static let central: UInt32 = 0x0201_4B50
    package static let end: UInt32 = 0x0605_4B50
    package static let zip64End: UInt32 = 0x0606_4B50
    package static let zip64Locator: UInt32 = 0x0706_4B50
    package static let descriptor: UInt32 = 0x0807_4B50
}

/// The extra fields of one header, parsed.
struct ZipExtraFields {
    var fields: [(id: UInt16, data: [UInt8])] = []
    var malformed: String?

    init(_ bytes: [UInt8]) {
        var r = LittleEndianReader(bytes)
        var seen = Set<UInt16>()
        while r.remaining > 0 {
            guard r.remaining >= 4 else {
                malformed = "an extra field is cut short"
                return
            }
            let id = r.u16()
            let length = Int(r.u16())
            guard length <= r.remaining else {
                malformed = "extra field 0x\(String(id, radix: 16)) runs past the end of the header"
                return
            }
            if !seen.insert(id).inserted { malformed = "extra field 0x\(String(id, radix: 16)) appears twice" }
            fields.append((id, r.take(length)))
        }
    }

    func field(_ id: UInt16) -> [UInt8]? { fields.first(where: { $0.id == id })?.data }

    /// Whether an Info-ZIP Unicode-path field (0x7075), if present, names exactly `nameBytes`.
    func unicodePathAgrees(with nameBytes: [UInt8]) -> Bool {
        guard let field = field(0x7075) else { return true }
        // version (1), CRC-32 of the header name (4), the UTF-8 name
        guard field.count >= 5, field[0] == 1 else { return false }
        return Array(field[5...]) == nameBytes
    }
}
