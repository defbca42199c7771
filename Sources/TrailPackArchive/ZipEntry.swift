/// One record of the central directory, cross-checked against its local header.
///
/// Every record of the central directory becomes an entry, even one whose sizes or offset
/// cannot be known (a ZIP64 sentinel without its extra field): such an entry has no
/// `dataOffset`, and the checks that need its data skip it. So `entries[i].index == i` always.
public struct ZipEntry: Sendable, Equatable {
    // The stored properties are in the order that packs them: 80 bytes an entry (100,000 entries at
    // the most), the name's 14 followed by the 2-byte flags, then the 8-byte fields, then the rest.

    /// The position in the central directory, from 0.
    public var index: Int
    /// The name's bytes as stored (in the buffer of all the directory's names): compare these, never `name`.
    public var nameBytes: ZipName
    /// The general-purpose bit flags (bit 0 encrypted, bit 3 data descriptor, bit 11 UTF-8).
    public var flags: UInt16
    /// The size of the stored (compressed) data, ZIP64 resolved.
    public var compressedSize: Int64
    /// The size of the data once inflated, ZIP64 resolved.
    public var uncompressedSize: Int64
    /// Where the entry's local header starts, ZIP64 resolved.
    public var localHeaderOffset: Int64
    /// The length of the data descriptor after the data (0 when there is none).
    public var descriptorLength: Int64
    /// Where the entry's (compressed) data starts: set only when the local header was read and
    /// every size and offset is known and inside the entry area.
    public var dataOffset: Int64?
    /// Whether the sizes and the local header offset are known (false when a ZIP64 sentinel
    /// has no ZIP64 extra field to resolve it).
    public var sizesKnown: Bool = true
    /// 0 = stored, 8 = deflated.
    public var method: UInt16
    /// The central directory's "version made by" (the high byte is the host system).
    public var versionMadeBy: UInt16
    /// The central directory's "version needed to extract" (20 for store and deflate, 45 with ZIP64).
    public var versionNeeded: UInt16 = 20
    /// The CRC-32 of the uncompressed data, as the central directory declares it.
    public var crc32: UInt32
    /// The host system's file attributes (Unix mode in the high 16 bits).
    public var externalAttributes: UInt32

    /// The name, decoded from UTF-8 (or ASCII); invalid bytes are replaced for messages. Made from
    /// ``nameBytes`` when asked for: a package of 100,000 entries held 8 MB of names twice.
    public var name: String { nameBytes.description }
    /// Whether the name ends with `/`.
    public var isDirectory: Bool { nameBytes.last == UInt8(ascii: "/") }
    /// Whether the entry is encrypted (packages never are).
    public var isEncrypted: Bool {
        flags & 0x0001 != 0 || flags & 0x0040 != 0 || flags & 0x2000 != 0 || method == 99
    }
    /// Whether a data descriptor follows the data (flag bit 3).
    public var hasDataDescriptor: Bool { flags & 0x0008 != 0 }
    /// The end of everything the entry occupies: local header, data, descriptor.
    public var endOffset: Int64? { dataOffset.map { $0 + compressedSize + descriptorLength } }
    /// The Unix file type bits, when the entry was made on Unix.
    public var unixMode: UInt32? { versionMadeBy >> 8 == 3 ? externalAttributes >> 16 : nil }
}
