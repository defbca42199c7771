import Foundation
import SystemPackage
import TrailPackCore
import TrailPackFileIO

#if canImport(Glibc)
import Glibc
#endif

/// Writes a PMTiles version 3 archive: clustered (tiles in tile-id order), identical tiles
/// stored once (runs of them as one entry), gzip-compressed directories and metadata, and leaf
/// directories when the root would not fit the first 16 KiB.
///
/// Tile bytes go straight to a temporary file beside the output, so memory holds only the
/// directory entries (24 bytes a tile) and one hash per distinct tile. `finish` writes the
/// archive under a temporary name and renames it into place: the output path never holds a
/// partial file; `abandon` (or an error) removes the temporary files.
public final class PMTilesWriter {
    public let outputPath: String
    private let dataPath: String
    private let data: FileDescriptor
    private var entries: [PMTilesEntry] = []
    private var contents: [UInt64: [(offset: UInt64, length: UInt32)]] = [:]
    private var dataLength: UInt64 = 0
    private var addressed: UInt64 = 0
    private var unique: UInt64 = 0
    private var lastID: UInt64?
    private var finished = false

    /// Starts an archive that `finish` will write to `outputPath`.
    public init(outputPath: String) throws(MapError) {
        self.outputPath = outputPath
        let url = URL(fileURLWithPath: outputPath)
        let folder = url.deletingLastPathComponent().path
        self.dataPath = folder + "/." + url.lastPathComponent + ".tiles-\(getpid()).trailpack-tmp"
        do {
            self.data = try FileOperations.open(
                dataPath, .readWrite, options: [.create, .exclusiveCreate], permissions: .ownerReadWrite,
                failure: "cannot write in '\(folder)'")
        } catch { throw MapError(error) }
    }

    deinit {
        try? data.close()
        unlink(dataPath)
    }

    /// Adds tile `id` with its stored bytes (compressed already if the tiles are). Ids must
    /// increase from call to call.
    public func add(id: UInt64, data: [UInt8]) throws(MapError) {
        guard !data.isEmpty else {
            throw MapError(.mapTileData, "tile \(TileID(id: id).map(\.description) ?? "\(id)") is empty")
        }
        guard data.count <= Int(UInt32.max) else {
            throw MapError(.mapTileData, "a tile of \(data.count) bytes is larger than PMTiles allows")
        }
        if let lastID, id <= lastID {
            throw MapError.io("tiles must be added in increasing tile-id order (\(id) after \(lastID))")
        }
        lastID = id
        addressed += 1
        let hash = Self.fnv1a(data)
        if let known = try findContent(hash: hash, data: data) {
            if var last = entries.last, last.offset == known.offset, last.tileID + UInt64(last.runLength) == id,
                last.runLength < UInt32.max
            {
                last.runLength += 1
                entries[entries.count - 1] = last
            } else {
                entries.append(PMTilesEntry(tileID: id, offset: known.offset, length: known.length, runLength: 1))
            }
            return
        }
        try writeAll(data, at: dataLength)
        let span = (offset: dataLength, length: UInt32(data.count))
        contents[hash, default: []].append(span)
        entries.append(PMTilesEntry(tileID: id, offset: dataLength, length: span.length, runLength: 1))
        dataLength += UInt64(data.count)
        unique += 1
    }

    /// An earlier tile with the same bytes (compared byte for byte on a hash match).
    private func findContent(hash: UInt64, data: [UInt8]) throws(MapError) -> (offset: UInt64, length: UInt32)? {
        guard let candidates = contents[hash] else { return nil }
        for c in candidates where Int(c.length) == data.count {
            var stored = [UInt8](repeating: 0, count: data.count)
            guard try readBack(into: &stored, at: c.offset) == data.count else {
                throw MapError.io("cannot read back '\(dataPath)'")
            }
            if stored == data { return c }
        }
        return nil
    }

    private func writeAll(_ bytes: [UInt8], at offset: UInt64) throws(MapError) {
        do throws(FileIOError) {
            try FileOperations.typed {
                try bytes.withUnsafeBytes { try data.writeAll(toAbsoluteOffset: Int64(offset), $0, path: dataPath) }
            }
        } catch { throw MapError(error) }
    }

    /// Reads the tile data back from `offset` into `buffer`; returns how many bytes it read.
    private func readBack(into buffer: inout [UInt8], at offset: UInt64) throws(MapError) -> Int {
        do throws(FileIOError) {
            return try FileOperations.typed {
                try buffer.withUnsafeMutableBytes {
                    try data.readFully(fromAbsoluteOffset: Int64(offset), into: $0, path: dataPath)
                }
            }
        } catch { throw MapError(error) }
    }

    /// 64-bit FNV-1a, for finding candidate duplicates (confirmed byte for byte).
    static func fnv1a(_ data: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in data { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    /// What was written.
    public struct Summary: Sendable {
        public var addressedTiles: UInt64
        public var tileEntries: UInt64
        public var tileContents: UInt64
        public var leafDirectories: Int
        public var bytes: UInt64
    }

    /// Writes the archive. `header` gives the tile type, tile compression, bounds and center;
    /// the offsets, counts, zooms and flags are filled in here. `metadata` is a JSON object.
    public func finish(header template: PMTilesHeader, metadata: JSONValue) throws(MapError) -> Summary {
        guard let first = entries.first, let last = entries.last else {
            throw MapError(.mapDirectory, "the map would hold no tiles; check the bounds and zooms")
        }
        let (root, leaves, leafCount) = try Self.directories(entries)
        let meta = try Gzip.compress(JSONWriter.bytes(metadata))
        var h = template
        h.clustered = true
        h.internalCompression = .gzip
        h.rootOffset = UInt64(PMTilesHeader.size)
        h.rootLength = UInt64(root.count)
        h.metadataOffset = h.rootOffset + h.rootLength
        h.metadataLength = UInt64(meta.count)
        h.leafOffset = h.metadataOffset + h.metadataLength
        h.leafLength = UInt64(leaves.count)
        h.tileDataOffset = h.leafOffset + h.leafLength
        h.tileDataLength = dataLength
        h.addressedTiles = addressed
        h.tileEntries = UInt64(entries.count)
        h.tileContents = unique
        h.minZoom = TileID.zoom(ofID: first.tileID) ?? 0
        h.maxZoom = TileID.zoom(ofID: last.tileID + UInt64(last.runLength) - 1) ?? 0
        h.centerZoom = min(max(h.centerZoom, h.minZoom), h.maxZoom)

        do throws(FileIOError) {
            let out = try AtomicFile(destination: outputPath)
            try out.write(h.bytes + root + meta + leaves)
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            var offset: UInt64 = 0
            while offset < dataLength {
                let want = Int(min(UInt64(buffer.count), dataLength - offset))
                let n = try FileOperations.typed {
                    try buffer.withUnsafeMutableBytes {
                        try data.readFully(
                            fromAbsoluteOffset: Int64(offset),
                            into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<want]), path: dataPath)
                    }
                }
                guard n == want else {
                    throw FileIOError(
                        code: .io, message: "cannot read back '\(dataPath)': it is shorter than written", path: dataPath
                    )
                }
                try FileOperations.typed {
                    try buffer.withUnsafeBytes { try out.write(UnsafeRawBufferPointer(rebasing: $0[0..<want])) }
                }
                offset += UInt64(want)
            }
            try out.commit()
        } catch { throw MapError(error) }
        finished = true
        return Summary(
            addressedTiles: addressed, tileEntries: UInt64(entries.count), tileContents: unique,
            leafDirectories: leafCount,
            bytes: h.tileDataOffset + dataLength)
    }

    /// The root directory (compressed, fitting the first 16 KiB after the header) and the leaf
    /// section: everything in the root when it fits, else leaves of 4096 entries, doubled until
    /// the root of pointers fits.
    static func directories(_ entries: [PMTilesEntry]) throws(MapError) -> (root: [UInt8], leaves: [UInt8], count: Int)
    {
        let budget = Int(PMTilesHeader.rootLimit) - PMTilesHeader.size
        let all = try Gzip.compress(PMTilesDirectory.encode(entries))
        if all.count <= budget { return (all, [], 0) }
        var leafSize = 4096
        while true {
            var leaves: [UInt8] = []
            var pointers: [PMTilesEntry] = []
            var i = 0
            while i < entries.count {
                let chunk = Array(entries[i..<min(i + leafSize, entries.count)])
                let bytes = try Gzip.compress(PMTilesDirectory.encode(chunk))
                pointers.append(
                    PMTilesEntry(
                        tileID: chunk[0].tileID, offset: UInt64(leaves.count), length: UInt32(bytes.count), runLength: 0
                    ))
                leaves += bytes
                i += leafSize
            }
            let root = try Gzip.compress(PMTilesDirectory.encode(pointers))
            if root.count <= budget { return (root, leaves, pointers.count) }
            leafSize *= 2
        }
    }
}
