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

    /// Up to `count` bytes as a slice of ``bytes`` (no copy), as ``take(_:)`` counts them.
    package mutating func slice(_ count: Int) -> ArraySlice<UInt8> {
        let n = max(0, min(count, remaining))
        if n < count { overran = true }
        defer { offset += n }
        return bytes[offset..<offset + n]
    }

    /// Moves past up to `count` bytes, as ``take(_:)`` would (nothing is copied).
    package mutating func skip(_ count: Int) { _ = slice(count) }

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

/// The extra fields of one header, checked as they are found and read where they lie (nothing
/// copied): every record of an archive has a few (libarchive writes a timestamp and an owner), and
/// an array of them, each field's bytes and a set of their ids were six allocations a header,
/// twelve an entry — a fifth of reading a 100,000-entry directory.
struct ZipExtraFields {
    /// The header's extra bytes.
    private let bytes: ArraySlice<UInt8>
    /// Where the fields that were read whole end (the rest is what `malformed` says).
    private var end: Int
    var malformed: String?

    /// Fields compared one by one for a repeated id, up to this many; past it (only a hostile
    /// header has so many), a set of the ids.
    private static let scannedFields = 8

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        end = bytes.startIndex
        var count = 0
        var seen: Set<UInt16>?
        var at = bytes.startIndex
        while at < bytes.endIndex {
            guard bytes.endIndex - at >= 4 else {
                malformed = "an extra field is cut short"
                return
            }
            let id = Self.u16(bytes, at)
            let length = Int(Self.u16(bytes, at + 2))
            guard length <= bytes.endIndex - at - 4 else {
                malformed = "extra field 0x\(String(id, radix: 16)) runs past the end of the header"
                return
            }
            let repeated: Bool
            if count < Self.scannedFields {
                repeated = Self.offset(of: id, in: bytes, from: bytes.startIndex, to: at) != nil
            } else {
                if seen == nil { seen = Self.ids(in: bytes, from: bytes.startIndex, to: at) }
                repeated = !seen!.insert(id).inserted
            }
            if repeated { malformed = "extra field 0x\(String(id, radix: 16)) appears twice" }
            at += 4 + length
            end = at
            count += 1
        }
    }

    init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    /// The data of the first field `id` among those read whole, or nil.
    func field(_ id: UInt16) -> ArraySlice<UInt8>? {
        guard let at = Self.offset(of: id, in: bytes, from: bytes.startIndex, to: end) else { return nil }
        return bytes[(at + 4)..<(at + 4 + Int(Self.u16(bytes, at + 2)))]
    }

    /// Whether an Info-ZIP Unicode-path field (0x7075), if present, names exactly `nameBytes`.
    func unicodePathAgrees(with nameBytes: ZipName) -> Bool {
        guard let field = field(0x7075) else { return true }
        // version (1), CRC-32 of the header name (4), the UTF-8 name
        guard field.count >= 5, field[field.startIndex] == 1 else { return false }
        return field.dropFirst(5).elementsEqual(nameBytes)
    }

    private static func u16(_ bytes: ArraySlice<UInt8>, _ at: Int) -> UInt16 {
        UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    /// Where the first field `id` starts among the whole fields in `start..<end`, or nil.
    private static func offset(of id: UInt16, in bytes: ArraySlice<UInt8>, from start: Int, to end: Int) -> Int? {
        var at = start
        while at < end {
            if u16(bytes, at) == id { return at }
            at += 4 + Int(u16(bytes, at + 2))
        }
        return nil
    }

    /// The ids of the whole fields in `start..<end`.
    private static func ids(in bytes: ArraySlice<UInt8>, from start: Int, to end: Int) -> Set<UInt16> {
        var ids = Set<UInt16>()
        var at = start
        while at < end {
            ids.insert(u16(bytes, at))
            at += 4 + Int(u16(bytes, at + 2))
        }
        return ids
    }
}
