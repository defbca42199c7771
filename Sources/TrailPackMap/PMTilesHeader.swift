import TrailPackCore

/// The 127-byte header of a PMTiles version 3 archive (protomaps' specification, section 3).
/// All numbers little-endian; positions in degrees × 10^7.
public struct PMTilesHeader: Sendable, Equatable {
    public static let size = 127
    public static let magic: [UInt8] = Array("PMTiles".utf8)
    /// The specification asks writers to keep the header and root directory in the first 16 KiB,
    /// so that one request fetches both.
    public static let rootLimit: UInt64 = 16_384

    /// Compression of directories, metadata or tiles.
    public enum Compression: UInt8, Sendable, CaseIterable {
        case unknown = 0, none = 1, gzip = 2, brotli = 3, zstd = 4
        public var name: String { ["unknown", "none", "gzip", "brotli", "zstd"][Int(rawValue)] }
    }

    /// The tiles' format.
    public enum TileType: UInt8, Sendable, CaseIterable {
        case unknown = 0, mvt = 1, png = 2, jpeg = 3, webp = 4, avif = 5
        /// MapLibre Tile (MLT), the columnar vector tile format (PMTiles v3.5).
        case mlt = 6
        public var name: String { ["unknown", "mvt", "png", "jpeg", "webp", "avif", "mlt"][Int(rawValue)] }
        /// The name for people: "MLT (MapLibre Tile)", "MVT (Mapbox Vector Tile)", "PNG", …
        public var displayName: String {
            [
                "unknown", "MVT (Mapbox Vector Tile)", "PNG", "JPEG", "WebP", "AVIF", "MLT (MapLibre Tile)",
            ][Int(rawValue)]
        }
        /// The HTTP media type of one tile.
        public var mediaType: String {
            [
                "application/octet-stream", "application/vnd.mapbox-vector-tile", "image/png", "image/jpeg",
                "image/webp", "image/avif", "application/vnd.maplibre-tile",
            ][Int(rawValue)]
        }
    }

    public var rootOffset: UInt64 = 0
    public var rootLength: UInt64 = 0
    public var metadataOffset: UInt64 = 0
    public var metadataLength: UInt64 = 0
    public var leafOffset: UInt64 = 0
    public var leafLength: UInt64 = 0
    public var tileDataOffset: UInt64 = 0
    public var tileDataLength: UInt64 = 0
    /// 0 when the writer did not count.
    public var addressedTiles: UInt64 = 0
    public var tileEntries: UInt64 = 0
    public var tileContents: UInt64 = 0
    public var clustered = false
    public var internalCompression = Compression.gzip
    public var tileCompression = Compression.none
    /// The raw tile-type byte (kept raw so that an unknown value can be reported).
    public var tileTypeByte: UInt8 = 0
    public var minZoom = 0
    public var maxZoom = 0
    public var minLonE7: Int32 = 0
    public var minLatE7: Int32 = 0
    public var maxLonE7: Int32 = 0
    public var maxLatE7: Int32 = 0
    public var centerZoom = 0
    public var centerLonE7: Int32 = 0
    public var centerLatE7: Int32 = 0

    public init() {}

    public var tileType: TileType? { TileType(rawValue: tileTypeByte) }

    /// The header's bounds as a box (degrees).
    public var bounds: Bounds {
        Bounds(
            southwest: Coordinate(latitude: Double(minLatE7) / 1e7, longitude: Double(minLonE7) / 1e7),
            northeast: Coordinate(latitude: Double(maxLatE7) / 1e7, longitude: Double(maxLonE7) / 1e7))
    }

    /// Parses and checks the header of an archive of `fileSize` bytes: the magic and version,
    /// every section inside the file and after the header, no two sections overlapping, the root
    /// directory in the first 16 KiB, known compressions, zooms and bounds in range.
    public static func parse(_ b: [UInt8], fileSize: UInt64) throws(MapError) -> PMTilesHeader {
        guard b.count >= size else {
            throw MapError(
                .mapHeader,
                "the file is \(b.count) bytes, shorter than the 127-byte PMTiles header; it is not a PMTiles map")
        }
        guard Array(b[0..<7]) == magic else {
            if b.starts(with: Array("SQLite format 3".utf8)) {
                throw MapError(
                    .mapHeader,
                    "the file is an SQLite database (MBTiles?), not PMTiles; convert it with 'trailpack map convert'")
            }
            throw MapError(.mapHeader, "the file does not start with 'PMTiles'; it is not a PMTiles map")
        }
        guard b[7] == 3 else {
            throw MapError(
                .mapHeader,
                "PMTiles version \(b[7]) is not supported; this trailpack reads version 3 (convert it with the pmtiles tool: 'pmtiles convert')"
            )
        }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) } }
        func i32(_ at: Int) -> Int32 {
            Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(b[at + $1]) << (8 * UInt32($1)) })
        }
        var h = PMTilesHeader()
        h.rootOffset = u64(8); h.rootLength = u64(16)
        h.metadataOffset = u64(24); h.metadataLength = u64(32)
        h.leafOffset = u64(40); h.leafLength = u64(48)
        h.tileDataOffset = u64(56); h.tileDataLength = u64(64)
        h.addressedTiles = u64(72); h.tileEntries = u64(80); h.tileContents = u64(88)
        guard b[96] <= 1 else { throw MapError(.mapHeader, "the clustered flag is \(b[96]); it must be 0 or 1") }
        h.clustered = b[96] == 1
        guard let ic = Compression(rawValue: b[97]), let tc = Compression(rawValue: b[98]) else {
            throw MapError(
                .mapHeader,
                "the compression bytes (\(b[97]), \(b[98])) are not ones the PMTiles specification defines (0 to 4)")
        }
        h.internalCompression = ic
        h.tileCompression = tc
        h.tileTypeByte = b[99]
        h.minZoom = Int(b[100]); h.maxZoom = Int(b[101])
        h.minLonE7 = i32(102); h.minLatE7 = i32(106); h.maxLonE7 = i32(110); h.maxLatE7 = i32(114)
        h.centerZoom = Int(b[118]); h.centerLonE7 = i32(119); h.centerLatE7 = i32(123)
        try h.check(fileSize: fileSize)
        return h
    }

    /// The rules of `parse` beyond the byte layout.
    func check(fileSize: UInt64) throws(MapError) {
        let sections: [(String, UInt64, UInt64)] = [
            ("the root directory", rootOffset, rootLength), ("the metadata", metadataOffset, metadataLength),
            ("the leaf directories", leafOffset, leafLength), ("the tile data", tileDataOffset, tileDataLength),
        ]
        for (name, offset, length) in sections {
            guard offset <= fileSize, length <= fileSize - offset else {
                throw MapError(
                    .mapHeader,
                    "\(name) (\(length) bytes at byte \(offset)) lies beyond the end of the file (\(fileSize) bytes): the file is truncated or its header is damaged"
                )
            }
            if length > 0 && offset < UInt64(Self.size) {
                throw MapError(.mapHeader, "\(name) starts at byte \(offset), inside the 127-byte header")
            }
        }
        guard rootLength > 0 else { throw MapError(.mapHeader, "the root directory is empty (length 0)") }
        guard rootOffset + rootLength <= Self.rootLimit else {
            throw MapError(
                .mapHeader,
                "the root directory ends at byte \(rootOffset + rootLength); PMTiles keeps it in the first 16384 bytes (rewrite the file with 'trailpack map extract')"
            )
        }
        let nonEmpty = sections.filter { $0.2 > 0 }
        for i in 0..<nonEmpty.count {
            for j in (i + 1)..<max(i + 1, nonEmpty.count) {
                let a = nonEmpty[i], c = nonEmpty[j]
                if a.1 < c.1 + c.2 && c.1 < a.1 + a.2 {
                    throw MapError(
                        .mapHeader, "\(a.0) (bytes \(a.1)–\(a.1 + a.2)) overlaps \(c.0) (bytes \(c.1)–\(c.1 + c.2))")
                }
            }
        }
        for (what, c) in [("directories and metadata", internalCompression), ("tiles", tileCompression)]
        where c == .brotli || c == .zstd {
            throw MapError(
                .mapCompression,
                "the \(what) are compressed with \(c.name), which this trailpack and many phones cannot read; rewrite the map with gzip or no compression"
            )
        }
        if internalCompression == .unknown {
            throw MapError(.mapCompression, "the directories' compression is 'unknown'; it must be none or gzip")
        }
        guard minZoom <= maxZoom, maxZoom <= MapInfo.maxZoomLevel else {
            throw MapError(
                .mapHeader,
                "the zoom range \(minZoom)–\(maxZoom) is not a range of levels from 0 to \(MapInfo.maxZoomLevel)")
        }
        let e7lon: ClosedRange<Int32> = -1_800_000_000...1_800_000_000,
            e7lat: ClosedRange<Int32> = -900_000_000...900_000_000
        guard e7lon.contains(minLonE7), e7lon.contains(maxLonE7), e7lat.contains(minLatE7), e7lat.contains(maxLatE7),
            minLonE7 <= maxLonE7, minLatE7 <= maxLatE7
        else {
            let bb = bounds
            throw MapError(
                .mapHeader,
                "the bounds (\(bb.southwest.longitude), \(bb.southwest.latitude)) to (\(bb.northeast.longitude), \(bb.northeast.latitude)) are not a box of valid longitudes and latitudes, west to east and south to north"
            )
        }
    }

    /// The 127 bytes of this header.
    public var bytes: [UInt8] {
        var b = Self.magic + [3]
        func u64(_ v: UInt64) { for i in 0..<8 { b.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
        func i32(_ v: Int32) {
            let u = UInt32(bitPattern: v); for i in 0..<4 { b.append(UInt8(truncatingIfNeeded: u >> (8 * UInt32(i)))) }
        }
        u64(rootOffset); u64(rootLength); u64(metadataOffset); u64(metadataLength)
        u64(leafOffset); u64(leafLength); u64(tileDataOffset); u64(tileDataLength)
        u64(addressedTiles); u64(tileEntries); u64(tileContents)
        b += [
            clustered ? 1 : 0, internalCompression.rawValue, tileCompression.rawValue, tileTypeByte, UInt8(minZoom),
            UInt8(maxZoom),
        ]
        i32(minLonE7); i32(minLatE7); i32(maxLonE7); i32(maxLatE7)
        b.append(UInt8(centerZoom))
        i32(centerLonE7); i32(centerLatE7)
        return b
    }
}
