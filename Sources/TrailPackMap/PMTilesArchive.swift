import TrailPackCore

/// How much of a PMTiles file the reader is willing to read: every bound a hostile file could
/// push against, with room for any real map a tour needs.
public struct PMTilesLimits: Sendable {
    /// The largest directory (root or leaf), compressed or not.
    public var maxDirectoryBytes = 32 << 20
    /// Entries in one directory.
    public var maxDirectoryEntries = 4 << 20
    /// Directory bytes inflated over a whole walk.
    public var maxTotalDirectoryBytes: Int64 = 1 << 30
    /// Root plus leaf levels.
    public var maxDepth = 4
    /// Tile entries over a whole walk.
    public var maxTileEntries: Int64 = 64 << 20
    /// The metadata, compressed or not.
    public var maxMetadataBytes = 16 << 20
    /// One tile, for `tile(...)`.
    public var maxTileBytes = 64 << 20

    public init() {}
    public static let `default` = PMTilesLimits()
}

/// A PMTiles version 3 archive opened for reading: the checked header, and tiles by `z/x/y`.
///
/// Nothing is trusted: every offset and length is checked against the file and its section
/// before it is read, directories are inflated with a byte cap, and a walk of the directories
/// checks order, nesting and counts. Problems are thrown as `MapError`s carrying a `map.*` code.
public final class PMTilesArchive: Sendable {
    public let source: any MapSource
    public let header: PMTilesHeader
    public let limits: PMTilesLimits
    private let root: [PMTilesEntry]

    /// Reads and checks the header and the root directory.
    public init(source: any MapSource, limits: PMTilesLimits = .default) throws(MapError) {
        let size = UInt64(max(0, source.size))
        let head = try source.bytes(
            at: 0, count: min(UInt64(PMTilesHeader.size), size), what: "the header", code: .mapHeader)
        let header = try PMTilesHeader.parse(head, fileSize: size)
        self.source = source
        self.header = header
        self.limits = limits
        self.root = try Self.directory(
            source: source, header: header, offset: header.rootOffset, length: header.rootLength, limits: limits,
            what: "the root directory")
        if root.isEmpty { throw MapError(.mapDirectory, "the root directory has no entries: the map holds no tiles") }
    }

    /// Reads, inflates and decodes the directory at absolute `offset`.
    static func directory(
        source: any MapSource, header: PMTilesHeader, offset: UInt64, length: UInt64, limits: PMTilesLimits,
        what: String
    ) throws(MapError) -> [PMTilesEntry] {
        guard length <= UInt64(limits.maxDirectoryBytes) else {
            throw MapError(
                .mapDirectory, "\(what) is \(length) bytes, more than the limit of \(limits.maxDirectoryBytes)")
        }
        let raw = try source.bytes(at: offset, count: length, what: what, code: .mapDirectory)
        let bytes =
            header.internalCompression == .gzip
            ? try Gzip.decompress(raw, limit: limits.maxDirectoryBytes, what: what, code: .mapDirectory) : raw
        return try PMTilesDirectory.decode(bytes, maxEntries: limits.maxDirectoryEntries, what: what)
    }

    // MARK: metadata

    /// The metadata as JSON (an object), or a `map.metadata` error.
    public func metadata() throws(MapError) -> JSONValue {
        guard header.metadataLength > 0 else { return .object([]) }
        guard header.metadataLength <= UInt64(limits.maxMetadataBytes) else {
            throw MapError(
                .mapMetadata,
                "the metadata is \(header.metadataLength) bytes, more than the limit of \(limits.maxMetadataBytes)")
        }
        let raw = try source.bytes(
            at: header.metadataOffset, count: header.metadataLength, what: "the metadata", code: .mapMetadata)
        let bytes =
            header.internalCompression == .gzip
            ? try Gzip.decompress(raw, limit: limits.maxMetadataBytes, what: "the metadata", code: .mapMetadata) : raw
        let value: JSONValue
        do {
            value = try JSONParser.parse(
                bytes,
                limits: JSONLimits(
                    maxBytes: limits.maxMetadataBytes, maxDepth: 64, maxNumberLength: 400,
                    maxStringBytes: limits.maxMetadataBytes)
            ).value
        } catch {
            throw MapError(.mapMetadata, "the metadata is not valid JSON: \(error)")
        }
        guard case .object = value else { throw MapError(.mapMetadata, "the metadata is not a JSON object") }
        return value
    }

    // MARK: tiles

    /// The stored bytes of tile `z/x/y` (still compressed if the tiles are), or nil when the map
    /// has no such tile.
    public func tile(_ t: TileID) throws(MapError) -> [UInt8]? {
        guard let entry = try entry(for: t) else { return nil }
        return try tileBytes(entry)
    }

    /// The directory entry holding tile `t`, or nil.
    public func entry(for t: TileID) throws(MapError) -> PMTilesEntry? {
        guard let id = t.id else { return nil }
        var entries = root
        for depth in 0...limits.maxDepth {
            // The last entry whose id is at most `id`.
            var lo = 0, hi = entries.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if entries[mid].tileID <= id { lo = mid + 1 } else { hi = mid }
            }
            guard lo > 0 else { return nil }
            let e = entries[lo - 1]
            if !e.isLeaf { return id < e.tileID + UInt64(e.runLength) ? e : nil }
            // The same bound as the walk's: root plus `maxDepth - 1` leaf levels.
            guard depth + 1 < limits.maxDepth else { break }
            entries = try leaf(e)
        }
        throw MapError(.mapDirectory, "the leaf directories nest deeper than \(limits.maxDepth) levels")
    }

    /// The bytes of a tile entry, checked to lie inside the tile data section.
    public func tileBytes(_ e: PMTilesEntry) throws(MapError) -> [UInt8] {
        guard e.length > 0, e.offset <= header.tileDataLength, UInt64(e.length) <= header.tileDataLength - e.offset
        else {
            throw MapError(
                .mapTileData,
                "tile \(TileID(id: e.tileID).map(\.description) ?? "?") (\(e.length) bytes at \(e.offset)) lies outside the tile data section (\(header.tileDataLength) bytes)"
            )
        }
        guard Int(e.length) <= limits.maxTileBytes else {
            throw MapError(
                .mapTileData, "a tile of \(e.length) bytes is larger than the limit of \(limits.maxTileBytes)")
        }
        return try source.bytes(
            at: header.tileDataOffset + e.offset, count: UInt64(e.length), what: "a tile", code: .mapTileData)
    }

    /// The leaf directory an entry points to, checked to lie inside the leaf section.
    func leaf(_ e: PMTilesEntry) throws(MapError) -> [PMTilesEntry] {
        guard e.length > 0, e.offset <= header.leafLength, UInt64(e.length) <= header.leafLength - e.offset else {
            throw MapError(
                .mapDirectory,
                "a leaf directory (\(e.length) bytes at \(e.offset)) lies outside the leaf directory section (\(header.leafLength) bytes)"
            )
        }
        return try Self.directory(
            source: source, header: header, offset: header.leafOffset + e.offset, length: UInt64(e.length),
            limits: limits,
            what: "the leaf directory at byte \(header.leafOffset + e.offset)")
    }

    // MARK: walking every entry

    /// What a complete walk found.
    public struct WalkSummary: Sendable {
        public var tileEntries: Int64 = 0
        public var addressedTiles: Int64 = 0
        public var leafDirectories = 0
        public var directoryBytes: Int64 = 0
    }

    /// Visits every tile entry in tile-id order, checking the directories as it goes: leaves
    /// inside their section, within their parent's id range and not deeper than the limit; ids
    /// increasing across the whole walk (so a leaf listed twice, or a loop, is caught); tiles
    /// inside the tile data section; and, at the end, the counts against the header's.
    /// Memory: one directory per level at a time.
    public func walk(_ visit: (PMTilesEntry) throws(MapError) -> Void) throws(MapError) -> WalkSummary {
        var summary = WalkSummary()
        var nextFree: UInt64 = 0
        func process(_ entries: [PMTilesEntry], depth: Int, lower: UInt64, upper: UInt64) throws(MapError) {
            for (i, e) in entries.enumerated() {
                guard e.tileID >= lower, e.tileID < upper else {
                    throw MapError(
                        .mapDirectory,
                        "a leaf directory holds tile id \(e.tileID), outside the range \(lower)–\(upper) its parent entry gives it"
                    )
                }
                if e.isLeaf {
                    guard depth + 1 < limits.maxDepth else {
                        throw MapError(
                            .mapDirectory, "the leaf directories nest deeper than \(limits.maxDepth) levels (a loop?)")
                    }
                    guard e.tileID >= nextFree else {
                        throw MapError(
                            .mapDirectory,
                            "a leaf directory starts at tile id \(e.tileID), before tiles already listed (a loop, or overlapping leaves)"
                        )
                    }
                    let leafEntries = try leaf(e)
                    summary.leafDirectories += 1
                    summary.directoryBytes += Int64(e.length)
                    if summary.directoryBytes > limits.maxTotalDirectoryBytes {
                        throw MapError(
                            .mapDirectory,
                            "the directories add up to more than the limit of \(limits.maxTotalDirectoryBytes) bytes")
                    }
                    if leafEntries.isEmpty {
                        throw MapError(
                            .mapDirectory, "a leaf directory at byte \(header.leafOffset + e.offset) is empty")
                    }
                    try process(
                        leafEntries, depth: depth + 1, lower: e.tileID,
                        upper: i + 1 < entries.count ? entries[i + 1].tileID : upper)
                } else {
                    guard e.tileID >= nextFree else {
                        throw MapError(
                            .mapDirectory,
                            "tile id \(e.tileID) is listed again, or before tiles already listed: the directories overlap"
                        )
                    }
                    guard e.tileID + UInt64(e.runLength) <= upper else {
                        throw MapError(
                            .mapDirectory,
                            "a run of \(e.runLength) tiles from id \(e.tileID) runs past the next entry's range")
                    }
                    guard e.length > 0 else {
                        throw MapError(.mapTileData, "tile \(TileID(id: e.tileID)!) has length 0")
                    }
                    guard e.offset <= header.tileDataLength, UInt64(e.length) <= header.tileDataLength - e.offset else {
                        throw MapError(
                            .mapTileData,
                            "tile \(TileID(id: e.tileID)!) (\(e.length) bytes at \(e.offset)) lies outside the tile data section (\(header.tileDataLength) bytes)"
                        )
                    }
                    nextFree = e.tileID + UInt64(e.runLength)
                    summary.tileEntries += 1
                    summary.addressedTiles += Int64(e.runLength)
                    if summary.tileEntries > limits.maxTileEntries {
                        throw MapError(
                            .mapDirectory, "the map has more than the limit of \(limits.maxTileEntries) tile entries")
                    }
                    try visit(e)
                }
            }
        }
        summary.directoryBytes = Int64(header.rootLength)
        try process(root, depth: 0, lower: 0, upper: TileID.idLimit)
        if header.addressedTiles != 0 && header.addressedTiles != UInt64(summary.addressedTiles) {
            throw MapError(
                .mapDirectory,
                "the header says \(header.addressedTiles) tiles, the directories address \(summary.addressedTiles)")
        }
        if header.tileEntries != 0 && header.tileEntries != UInt64(summary.tileEntries) {
            throw MapError(
                .mapDirectory,
                "the header says \(header.tileEntries) tile entries, the directories hold \(summary.tileEntries)")
        }
        if summary.addressedTiles == 0 { throw MapError(.mapDirectory, "the directories list no tiles") }
        return summary
    }
}
