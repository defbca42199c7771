import Foundation
import TrailPackArchive
import TrailPackFuzzing

/// Writes ZIP archives byte by byte with every field under the test's control, so that each
/// verifier rule can be broken on its own. Test-only: packages are written by libarchive.
package struct ZipForge {
    package struct Entry {
        package var name: [UInt8]
        package var data: [UInt8]
        package var method: UInt16 = 0
        package var flags: UInt16 = 0
        package var externalAttributes: UInt32 = 0o100644 << 16
        package var versionMadeBy: UInt16 = 0x0314  // Unix, 2.0
        package var centralExtra: [UInt8] = []
        package var localExtra: [UInt8] = []
        /// Overrides, applied after the honest values are computed.
        package var centralCRC: UInt32?
        package var centralCompressedSize: UInt32?
        package var centralUncompressedSize: UInt32?
        package var centralOffset: UInt32?
        package var localName: [UInt8]?
        /// "Version needed to extract" in the local header and the central directory (20 unless set).
        package var localVersionNeeded: UInt16?
        package var centralVersionNeeded: UInt16?
        package var localMethod: UInt16?
        package var localFlags: UInt16?
        package var localCRC: UInt32?
        package var localUncompressedSize: UInt32?
        package var compressedBytes: [UInt8]?
        /// Writes a data descriptor (sets flag bit 3); descriptorCRC overrides its CRC.
        package var descriptor = false
        package var descriptorCRC: UInt32?
        /// Bytes written after this entry's data (a gap).
        package var after: [UInt8] = []

        package init(_ name: String, _ data: [UInt8], deflate: Bool = false) {
            self.name = Array(name.utf8)
            self.data = data
            self.method = deflate ? 8 : 0
            if name.utf8.contains(where: { $0 >= 0x80 }) { flags |= 0x0800 }
        }
    }

    package var entries: [Entry]
    package var prefix: [UInt8] = []
    package var trailing: [UInt8] = []
    package var comment: [UInt8] = []
    package var totalEntriesOverride: UInt16?
    package var diskNumber: UInt16 = 0

    package init(_ entries: [Entry]) { self.entries = entries }

    /// The entries of a valid package, re-emitted honestly (the same names, data and methods).
    package static func from(package bytes: [UInt8]) throws -> ZipForge {
        let source = MemorySource(bytes)
        let directory = try ZipDirectory.read(source)
        var entries: [Entry] = []
        for e in directory.entries {
            let reader = try EntryReader(source: source, entry: e)
            var data: [UInt8] = []
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let n = try reader.read(into: buffer)
                if n == 0 { break }
                data += UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            }
            entries.append(Entry(e.name, data, deflate: e.method == 8))
        }
        return ZipForge(entries)
    }

    package static func crc(_ data: [UInt8]) -> UInt32 { ZipModel.crc(data) }

    package static func deflate(_ data: [UInt8]) -> [UInt8] { ZipModel.deflate(data) }

    package func bytes() -> [UInt8] {
        var out = prefix
        var central: [UInt8] = []
        for var e in entries {
            let compressed = e.compressedBytes ?? (e.method == 8 ? Self.deflate(e.data) : e.data)
            let crc = Self.crc(e.data)
            if e.descriptor { e.flags |= 0x0008 }
            let offset = UInt32(out.count)
            // local header
            out +=
                le32(0x0403_4B50) + le16(e.localVersionNeeded ?? 20) + le16(e.localFlags ?? e.flags)
                + le16(e.localMethod ?? e.method)
                + le32(0x0021_0000)
            if e.descriptor {
                out += le32(e.localCRC ?? 0) + le32(0) + le32(e.localUncompressedSize ?? 0)
            } else {
                out +=
                    le32(e.localCRC ?? crc) + le32(UInt32(compressed.count))
                    + le32(e.localUncompressedSize ?? UInt32(e.data.count))
            }
            let localName = e.localName ?? e.name
            out += le16(UInt16(localName.count)) + le16(UInt16(e.localExtra.count)) + localName + e.localExtra
            out += compressed
            if e.descriptor {
                out +=
                    le32(0x0807_4B50) + le32(e.descriptorCRC ?? crc) + le32(UInt32(compressed.count))
                    + le32(UInt32(e.data.count))
            }
            out += e.after
            // central directory entry
            central +=
                le32(0x0201_4B50) + le16(e.versionMadeBy) + le16(e.centralVersionNeeded ?? 20) + le16(e.flags)
                + le16(e.method)
                + le32(0x0021_0000)
            central += le32(e.centralCRC ?? crc) + le32(e.centralCompressedSize ?? UInt32(compressed.count))
            central += le32(e.centralUncompressedSize ?? UInt32(e.data.count))
            central += le16(UInt16(e.name.count)) + le16(UInt16(e.centralExtra.count)) + le16(0) + le16(0) + le16(0)
            central += le32(e.externalAttributes) + le32(e.centralOffset ?? offset) + e.name + e.centralExtra
        }
        let cdOffset = UInt32(out.count)
        out += central
        let count = totalEntriesOverride ?? UInt16(entries.count)
        out += le32(0x0605_4B50) + le16(diskNumber) + le16(diskNumber) + le16(count) + le16(count)
        out += le32(UInt32(central.count)) + le32(cdOffset) + le16(UInt16(comment.count)) + comment
        return out + trailing
    }
}

package func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
package func le32(_ v: UInt32) -> [UInt8] {
    [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
}
package func le64(_ v: UInt64) -> [UInt8] { le32(UInt32(v & 0xFFFF_FFFF)) + le32(UInt32(v >> 32)) }

extension ZipForge {
    /// Four stored entries; the first `sentinels` claim a ZIP64 size (0xFFFFFFFF) but carry no
    /// ZIP64 extra field; the last two differ only in case. (This archive once crashed the server.)
    package static func sentinelArchive(sentinels: Int) -> [UInt8] {
        var entries = [
            ZipForge.Entry("one.txt", Array("one".utf8)), ZipForge.Entry("two.txt", Array("two".utf8)),
            ZipForge.Entry("x/a.txt", Array("a".utf8)), ZipForge.Entry("x/A.txt", Array("A".utf8)),
        ]
        for k in 0..<sentinels { entries[k].centralUncompressedSize = 0xFFFF_FFFF }
        return ZipForge(entries).bytes()
    }
}
