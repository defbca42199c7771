internal import CZlib
import TrailPackArchive

/// A ZIP archive as a list of records whose fields a mutator can set one at a time.
///
/// `bytes()` writes the archive honestly — every offset, size, count and CRC computed from
/// what is there — and then applies `overrides` to the fields a mutation chose. So a mutated
/// archive is consistent in every field but the ones changed on purpose: the shape that reaches
/// the deep checks, which byte flips rarely produce.
public struct ZipModel: Sendable {
    /// The fields of one entry's records that a mutation can set.
    public enum Field: Int, CaseIterable, Sendable {
        case localSignature, localVersion, localFlags, localMethod, localTime, localCRC, localCompressed,
            localUncompressed
        case localNameLength, localExtraLength
        case centralSignature, centralMadeBy, centralVersion, centralFlags, centralMethod, centralCRC, centralCompressed
        case centralUncompressed, centralNameLength, centralExtraLength, centralCommentLength, centralDisk
        case centralExternal, centralOffset
        case descriptorCRC, descriptorCompressed, descriptorUncompressed
        case zip64Uncompressed, zip64Compressed, zip64Offset

        /// The field's width in bytes.
        var width: Int {
            switch self {
            case .localSignature, .localTime, .localCRC, .localCompressed, .localUncompressed, .centralSignature,
                .centralCRC, .centralCompressed, .centralUncompressed, .centralExternal, .centralOffset, .descriptorCRC:
                4
            case .descriptorCompressed, .descriptorUncompressed, .zip64Uncompressed, .zip64Compressed, .zip64Offset: 8
            default: 2
            }
        }
    }

    /// The fields of the end records that a mutation can set.
    public enum EndField: Int, CaseIterable, Sendable {
        case disk, centralDirectoryDisk, entriesOnDisk, entries, centralDirectorySize, centralDirectoryOffset,
            commentLength
        case zip64RecordSize, zip64Disk, zip64CentralDirectoryDisk, zip64EntriesOnDisk, zip64Entries, zip64Size
        case zip64Offset, locatorDisk, locatorOffset, locatorDisks

        var width: Int {
            switch self {
            case .disk, .centralDirectoryDisk, .entriesOnDisk, .entries, .commentLength: 2
            case .centralDirectorySize, .centralDirectoryOffset, .zip64Disk, .zip64CentralDirectoryDisk, .locatorDisk,
                .locatorDisks:
                4
            default: 8
            }
        }
    }

    public struct Entry: Sendable {
        public var name: [UInt8]
        /// The uncompressed bytes (what the CRC covers).
        public var data: [UInt8]
        /// The bytes stored in the archive (compressed when `method` is 8).
        public var stored: [UInt8]
        public var method: UInt16
        public var flags: UInt16
        public var versionMadeBy: UInt16 = 0x0314
        public var dosTime: UInt32 = 0x0021_0000
        public var externalAttributes: UInt32 = 0o100644 << 16
        public var centralExtra: [UInt8] = []
        public var localExtra: [UInt8] = []
        public var comment: [UInt8] = []
        /// Write a data descriptor after the data (sets flag bit 3), with or without its signature.
        public var descriptor = false
        public var descriptorSignature = true
        /// Write ZIP64 sizes (and offset) with their extra fields and all-ones sentinels.
        public var zip64 = false
        /// Whether the entry has a local record (header, data, descriptor) and a central record.
        public var inLocal = true
        public var inCentral = true
        /// Pinned values for fields, applied after the honest ones are computed.
        public var overrides: [Field: UInt64] = [:]

        public init(name: [UInt8], data: [UInt8], stored: [UInt8], method: UInt16, flags: UInt16 = 0) {
            self.name = name
            self.data = data
            self.stored = stored
            self.method = method
            self.flags = flags
        }
    }

    public var entries: [Entry]
    /// The order of the central records (indexes into `entries`); local records follow `entries`.
    public var centralOrder: [Int]
    public var prefix: [UInt8] = []
    public var trailing: [UInt8] = []
    public var comment: [UInt8] = []
    /// Write a ZIP64 end record and locator.
    public var zip64End = false
    public var endOverrides: [EndField: UInt64] = [:]
    /// Cut the result to this many bytes.
    public var truncateAt: Int?

    public init(entries: [Entry]) {
        self.entries = entries
        self.centralOrder = Array(entries.indices)
    }

    /// The honest value of a field (with no override), as `bytes()` would write it.
    public struct Layout: Sendable {
        public var values: [[Field: UInt64]] = []
        public var end: [EndField: UInt64] = [:]
        /// Where each record starts, for truncation at a boundary.
        public var boundaries: [Int] = []
    }

    public func bytes() -> [UInt8] { render().bytes }

    public func layout() -> Layout { render().layout }

    private func render() -> (bytes: [UInt8], layout: Layout) {
        var out = prefix
        var layout = Layout()
        layout.values = Array(repeating: [:], count: entries.count)
        var offsets = Array(repeating: 0, count: entries.count)
        for (k, e) in entries.enumerated() {
            let crc = Self.crc(e.data)
            let flags = e.flags | (e.descriptor ? 0x0008 : 0)
            offsets[k] = out.count
            var v: [Field: UInt64] = [
                .localSignature: 0x0403_4B50, .localVersion: e.zip64 ? 45 : 20, .localFlags: UInt64(flags),
                .localMethod: UInt64(e.method), .localTime: UInt64(e.dosTime), .localCRC: UInt64(crc),
                .localCompressed: UInt64(e.stored.count), .localUncompressed: UInt64(e.data.count),
                .centralSignature: 0x0201_4B50, .centralMadeBy: UInt64(e.versionMadeBy),
                .centralVersion: e.zip64 ? 45 : 20, .centralFlags: UInt64(flags), .centralMethod: UInt64(e.method),
                .centralCRC: UInt64(crc), .centralCompressed: UInt64(e.stored.count),
                .centralUncompressed: UInt64(e.data.count), .centralNameLength: UInt64(e.name.count),
                .centralCommentLength: UInt64(e.comment.count), .centralDisk: 0,
                .centralExternal: UInt64(e.externalAttributes), .centralOffset: UInt64(out.count - prefix.count),
                .descriptorCRC: UInt64(crc), .descriptorCompressed: UInt64(e.stored.count),
                .descriptorUncompressed: UInt64(e.data.count), .zip64Uncompressed: UInt64(e.data.count),
                .zip64Compressed: UInt64(e.stored.count), .zip64Offset: UInt64(out.count - prefix.count),
                .localNameLength: UInt64(e.name.count),
            ]
            if e.descriptor {
                v[.localCRC] = 0
                v[.localCompressed] = 0
                v[.localUncompressed] = 0
            }
            let localZip64 =
                e.zip64 ? le16(1) + le16(16) + le64(v[.zip64Uncompressed]!) + le64(v[.zip64Compressed]!) : []
            let centralZip64 =
                e.zip64
                ? le16(1) + le16(24) + le64(v[.zip64Uncompressed]!) + le64(v[.zip64Compressed]!)
                    + le64(v[.zip64Offset]!)
                : []
            if e.zip64 {
                if !e.descriptor {
                    v[.localCompressed] = 0xFFFF_FFFF
                    v[.localUncompressed] = 0xFFFF_FFFF
                }
                v[.centralCompressed] = 0xFFFF_FFFF
                v[.centralUncompressed] = 0xFFFF_FFFF
                v[.centralOffset] = 0xFFFF_FFFF
            }
            v[.localExtraLength] = UInt64(localZip64.count + e.localExtra.count)
            v[.centralExtraLength] = UInt64(centralZip64.count + e.centralExtra.count)
            layout.values[k] = v
            v.merge(e.overrides) { _, pinned in pinned }
            guard e.inLocal else { continue }
            layout.boundaries.append(out.count)
            out += put(
                v,
                [
                    .localSignature, .localVersion, .localFlags, .localMethod, .localTime, .localCRC,
                    .localCompressed, .localUncompressed, .localNameLength, .localExtraLength,
                ])
            out +=
                e.name + Self.patched(localZip64, e.overrides, [.zip64Uncompressed, .zip64Compressed]) + e.localExtra
            layout.boundaries.append(out.count)
            out += e.stored
            if e.descriptor {
                layout.boundaries.append(out.count)
                if e.descriptorSignature { out += le32(0x0807_4B50) }
                let wide = e.zip64
                out += le32(UInt32(truncatingIfNeeded: v[.descriptorCRC]!))
                out +=
                    wide ? le64(v[.descriptorCompressed]!) : le32(UInt32(truncatingIfNeeded: v[.descriptorCompressed]!))
                out +=
                    wide
                    ? le64(v[.descriptorUncompressed]!) : le32(UInt32(truncatingIfNeeded: v[.descriptorUncompressed]!))
            }
        }
        let cdStart = out.count
        var count = 0
        for k in centralOrder where entries.indices.contains(k) && entries[k].inCentral {
            let e = entries[k]
            var v = layout.values[k]
            v.merge(e.overrides) { _, pinned in pinned }
            layout.boundaries.append(out.count)
            let centralZip64 =
                e.zip64
                ? le16(1) + le16(24) + le64(layout.values[k][.zip64Uncompressed]!)
                    + le64(layout.values[k][.zip64Compressed]!) + le64(layout.values[k][.zip64Offset]!) : []
            out += put(v, [.centralSignature, .centralMadeBy, .centralVersion, .centralFlags, .centralMethod])
            out += le32(e.dosTime)
            out += put(
                v,
                [
                    .centralCRC, .centralCompressed, .centralUncompressed, .centralNameLength,
                    .centralExtraLength, .centralCommentLength, .centralDisk,
                ])
            out += le16(0)  // internal attributes
            out += put(v, [.centralExternal, .centralOffset])
            out += e.name
            out += Self.patched(centralZip64, e.overrides, [.zip64Uncompressed, .zip64Compressed, .zip64Offset])
            out += e.centralExtra + e.comment
            count += 1
        }
        let cdSize = out.count - cdStart
        var end: [EndField: UInt64] = [
            .disk: 0, .centralDirectoryDisk: 0, .entriesOnDisk: UInt64(count), .entries: UInt64(count),
            .centralDirectorySize: UInt64(cdSize), .centralDirectoryOffset: UInt64(cdStart - prefix.count),
            .commentLength: UInt64(comment.count), .zip64RecordSize: 44, .zip64Disk: 0, .zip64CentralDirectoryDisk: 0,
            .zip64EntriesOnDisk: UInt64(count), .zip64Entries: UInt64(count), .zip64Size: UInt64(cdSize),
            .zip64Offset: UInt64(cdStart - prefix.count), .locatorDisk: 0,
            .locatorOffset: UInt64(out.count - prefix.count),
            .locatorDisks: 1,
        ]
        if zip64End {
            end[.entriesOnDisk] = 0xFFFF
            end[.entries] = 0xFFFF
            end[.centralDirectorySize] = 0xFFFF_FFFF
            end[.centralDirectoryOffset] = 0xFFFF_FFFF
        }
        layout.end = end
        end.merge(endOverrides) { _, pinned in pinned }
        if zip64End {
            layout.boundaries.append(out.count)
            out += le32(0x0606_4B50) + putEnd(end, [.zip64RecordSize]) + le16(45) + le16(45)
            out += putEnd(
                end,
                [
                    .zip64Disk, .zip64CentralDirectoryDisk, .zip64EntriesOnDisk, .zip64Entries, .zip64Size,
                    .zip64Offset,
                ])
            layout.boundaries.append(out.count)
            out += le32(0x0706_4B50) + putEnd(end, [.locatorDisk, .locatorOffset, .locatorDisks])
        }
        layout.boundaries.append(out.count)
        out += le32(0x0605_4B50)
        out += putEnd(
            end,
            [
                .disk, .centralDirectoryDisk, .entriesOnDisk, .entries, .centralDirectorySize,
                .centralDirectoryOffset, .commentLength,
            ])
        out += comment + trailing
        if let truncateAt, truncateAt < out.count { out.removeLast(out.count - max(0, truncateAt)) }
        return (out, layout)
    }

    private func put(_ values: [Field: UInt64], _ fields: [Field]) -> [UInt8] {
        fields.flatMap { f in Self.encode(values[f] ?? 0, width: f.width) }
    }

    private func putEnd(_ values: [EndField: UInt64], _ fields: [EndField]) -> [UInt8] {
        fields.flatMap { f in Self.encode(values[f] ?? 0, width: f.width) }
    }

    /// A ZIP64 extra field with the pinned values of `fields` written over its honest ones.
    private static func patched(_ extra: [UInt8], _ overrides: [Field: UInt64], _ fields: [Field]) -> [UInt8] {
        guard !extra.isEmpty else { return extra }
        var out = extra
        for (i, f) in fields.enumerated() {
            if let v = overrides[f], 4 + 8 * i + 8 <= out.count {
                out.replaceSubrange(4 + 8 * i..<4 + 8 * i + 8, with: le64(v))
            }
        }
        return out
    }

    static func encode(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    public static func crc(_ data: [UInt8]) -> UInt32 {
        data.withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, uInt($0.count))) }
    }

    /// Raw deflate (method 8) of `data`.
    public static func deflate(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        guard trailpack_deflate_init_raw(&stream, 6) == Z_OK else { return data }
        defer { deflateEnd(&stream) }
        var input = data
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 16)
        let produced: Int = input.withUnsafeMutableBufferPointer { inp in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = inp.baseAddress
                stream.avail_in = uInt(inp.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                _ = CZlib.deflate(&stream, Z_FINISH)
                return out.count - Int(stream.avail_out)
            }
        }
        return Array(output.prefix(produced))
    }
}

func le16(_ v: UInt16) -> [UInt8] { ZipModel.encode(UInt64(v), width: 2) }
func le32(_ v: UInt32) -> [UInt8] { ZipModel.encode(UInt64(v), width: 4) }
func le64(_ v: UInt64) -> [UInt8] { ZipModel.encode(v, width: 8) }
