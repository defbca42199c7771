/// One entry of a PMTiles directory: a run of tiles sharing one content, or (run length 0) a
/// pointer to a leaf directory.
public struct PMTilesEntry: Sendable, Equatable {
    public var tileID: UInt64
    /// Relative to the tile data section (tiles) or the leaf directory section (leaves).
    public var offset: UInt64
    public var length: UInt32
    /// How many consecutive tile ids share this content; 0 for a leaf directory.
    public var runLength: UInt32

    public init(tileID: UInt64, offset: UInt64, length: UInt32, runLength: UInt32) {
        self.tileID = tileID
        self.offset = offset
        self.length = length
        self.runLength = runLength
    }

    public var isLeaf: Bool { runLength == 0 }
}

/// The varint-encoded directory layout (specification section 4): the entry count, then the
/// tile-id deltas, the run lengths, the lengths and the offsets, each as a column.
public enum PMTilesDirectory {
    /// Decodes a (decompressed) directory. Every value is checked: ids strictly increasing and
    /// below the zoom-31 limit, lengths and run lengths within 32 bits, offsets without overflow,
    /// no bytes left over, at most `maxEntries` entries.
    public static func decode(_ b: [UInt8], maxEntries: Int, what: String) throws(MapError) -> [PMTilesEntry] {
        var p = 0
        func varint() throws(MapError) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard p < b.count else {
                    throw MapError(.mapDirectory, "\(what) ends inside a number: it is truncated")
                }
                let byte = b[p]
                p += 1
                if shift == 63 && byte > 1 {
                    throw MapError(.mapDirectory, "\(what) holds a number larger than 64 bits")
                }
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
                if shift > 63 { throw MapError(.mapDirectory, "\(what) holds a number larger than 64 bits") }
            }
        }
        let n = try varint()
        // Every entry takes at least four bytes (one per column), so the count is bounded by the size.
        guard n <= UInt64(maxEntries), n <= UInt64(b.count / 4) else {
            throw MapError(
                .mapDirectory,
                "\(what) claims \(n) entries, more than its \(b.count) bytes can hold or the limit of \(maxEntries)")
        }
        let count = Int(n)
        var entries = [PMTilesEntry](
            repeating: PMTilesEntry(tileID: 0, offset: 0, length: 0, runLength: 0), count: count)
        var last: UInt64 = 0
        for i in 0..<count {
            let delta = try varint()
            if i > 0 && delta == 0 {
                throw MapError(
                    .mapDirectory, "\(what) lists tile id \(last) twice (entries must be sorted, each id once)")
            }
            guard delta < TileID.idLimit, last + delta < TileID.idLimit else {
                throw MapError(.mapDirectory, "\(what) holds a tile id beyond zoom \(TileID.maxZoom)")
            }
            last += delta
            entries[i].tileID = last
        }
        for i in 0..<count {
            let v = try varint()
            guard v <= UInt64(UInt32.max) else {
                throw MapError(.mapDirectory, "\(what): a run length of \(v) does not fit in 32 bits")
            }
            entries[i].runLength = UInt32(v)
            guard entries[i].tileID + v <= TileID.idLimit else {
                throw MapError(
                    .mapDirectory,
                    "\(what): a run of \(v) tiles from id \(entries[i].tileID) runs past zoom \(TileID.maxZoom)")
            }
        }
        for i in 0..<count {
            let v = try varint()
            guard v <= UInt64(UInt32.max) else {
                throw MapError(.mapDirectory, "\(what): a length of \(v) does not fit in 32 bits")
            }
            entries[i].length = UInt32(v)
        }
        for i in 0..<count {
            let v = try varint()
            if v == 0 {
                guard i > 0 else {
                    throw MapError(
                        .mapDirectory, "\(what): the first entry's offset refers to a previous entry, and there is none"
                    )
                }
                let (sum, overflow) = entries[i - 1].offset.addingReportingOverflow(UInt64(entries[i - 1].length))
                guard !overflow else { throw MapError(.mapDirectory, "\(what): an offset overflows 64 bits") }
                entries[i].offset = sum
            } else {
                entries[i].offset = v - 1
            }
        }
        guard p == b.count else {
            throw MapError(.mapDirectory, "\(what) has \(b.count - p) bytes after its last entry")
        }
        return entries
    }

    /// Encodes entries in the column layout. Entries must be sorted by tile id with offsets below
    /// 2^64 − 1 (what the writer produces); other input is encoded with wrapping arithmetic, never a trap.
    public static func encode(_ entries: [PMTilesEntry]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entries.count * 6 + 8)
        func varint(_ v: UInt64) {
            var v = v
            while v >= 0x80 {
                out.append(UInt8(v & 0x7F) | 0x80)
                v >>= 7
            }
            out.append(UInt8(v))
        }
        varint(UInt64(entries.count))
        var last: UInt64 = 0
        for e in entries {
            varint(e.tileID &- last)
            last = e.tileID
        }
        for e in entries { varint(UInt64(e.runLength)) }
        for e in entries { varint(UInt64(e.length)) }
        for (i, e) in entries.enumerated() {
            if i > 0 && e.offset == entries[i - 1].offset &+ UInt64(entries[i - 1].length) {
                varint(0)
            } else {
                varint(e.offset &+ 1)
            }
        }
        return out
    }
}
