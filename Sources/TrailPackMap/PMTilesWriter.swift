import Foundation
import TrailPackCore
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
    private let dataFD: Int32
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
        let fd = open(dataPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw MapError.io("cannot write in '\(folder)': \(String(cString: strerror(errno)))") }
        self.dataFD = fd
    }

    deinit {
        close(dataFD)
        unlink(dataPath)
    }

    /// Adds tile `id` with its stored bytes (compressed already if the tiles are). Ids must
    /// increase from call to call.
    public func add(id: UInt64, data: [UInt8]) throws(MapError) {
        guard !data.isEmpty else { throw MapError(.mapTileData, "tile \(TileID(id: id).map(\.description) ?? "\(id)") is empty") }
        guard data.count <= Int(UInt32.max) else { throw MapError(.mapTileData, "a tile of \(data.count) bytes is larger than PMTiles allows") }
        if let lastID, id <= lastID { throw MapError.io("tiles must be added in increasing tile-id order (\(id) after \(lastID))") }
        lastID = id
        addressed += 1
        let hash = Self.fnv1a(data)
        if let known = try findContent(hash: hash, data: data) {
            if var last = entries.last, last.offset == known.offset, last.tileID + UInt64(last.runLength) == id, last.runLength < UInt32.max {
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
            let n = stored.withUnsafeMutableBytes { pread(dataFD, $0.baseAddress!, data.count, off_t(c.offset)) }
            guard n == data.count else { throw MapError.io("cannot read back '\(dataPath)'") }
            if stored == data { return c }
        }
        return nil
    }

    private func writeAll(_ bytes: [UInt8], at offset: UInt64) throws(MapError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(dataFD, $0.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw MapError.io("cannot write '\(dataPath)': \(String(cString: strerror(errno)))")
            }
            done += n
        }
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
        guard let first = entries.first, let last = entries.last else { throw MapError(.mapDirectory, "the map would hold no tiles; check the bounds and zooms") }
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

        let url = URL(fileURLWithPath: outputPath)
        let temp = url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".\(getpid()).trailpack-tmp"
        let out = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard out >= 0 else { throw MapError.io("cannot write '\(temp)': \(String(cString: strerror(errno)))") }
        var ok = false
        defer {
            close(out)
            if !ok { unlink(temp) }
        }
        func put(_ bytes: [UInt8]) throws(MapError) {
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { write(out, $0.baseAddress! + done, bytes.count - done) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw MapError.io("cannot write '\(temp)': \(String(cString: strerror(errno)))")
                }
                done += n
            }
        }
        try put(h.bytes + root + meta + leaves)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: UInt64 = 0
        while offset < dataLength {
            let want = Int(min(UInt64(buffer.count), dataLength - offset))
            let n = buffer.withUnsafeMutableBytes { pread(dataFD, $0.baseAddress!, want, off_t(offset)) }
            guard n == want else { throw MapError.io("cannot read back '\(dataPath)'") }
            try put(want == buffer.count ? buffer : Array(buffer[0..<want]))
            offset += UInt64(want)
        }
        guard fsync(out) == 0 else { throw MapError.io("cannot flush '\(temp)': \(String(cString: strerror(errno)))") }
        guard rename(temp, outputPath) == 0 else { throw MapError.io("cannot rename '\(temp)' to '\(outputPath)': \(String(cString: strerror(errno)))") }
        ok = true
        finished = true
        return Summary(addressedTiles: addressed, tileEntries: UInt64(entries.count), tileContents: unique, leafDirectories: leafCount,
                       bytes: h.tileDataOffset + dataLength)
    }

    /// The root directory (compressed, fitting the first 16 KiB after the header) and the leaf
    /// section: everything in the root when it fits, else leaves of 4096 entries, doubled until
    /// the root of pointers fits.
    static func directories(_ entries: [PMTilesEntry]) throws(MapError) -> (root: [UInt8], leaves: [UInt8], count: Int) {
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
                pointers.append(PMTilesEntry(tileID: chunk[0].tileID, offset: UInt64(leaves.count), length: UInt32(bytes.count), runLength: 0))
                leaves += bytes
                i += leafSize
            }
            let root = try Gzip.compress(PMTilesDirectory.encode(pointers))
            if root.count <= budget { return (root, leaves, pointers.count) }
            leafSize *= 2
        }
    }
}
