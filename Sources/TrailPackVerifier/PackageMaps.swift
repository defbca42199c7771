import TrailPackArchive
import TrailPackCore
import TrailPackMap

/// The maps of a package, checked where they lie: each stored `map/*.pmtiles` entry is read in
/// place (random access inside the ZIP, as a phone reads it), never unpacked or held in memory.
public enum PackageMaps {
    /// One map's report, by its path in the package.
    public struct Checked: Sendable {
        /// The map's path in the package (`map/….pmtiles`).
        public var path: String
        /// What the map check found: header facts, coverage per zoom, findings.
        public var report: MapReport
    }

    /// Checks every PMTiles map the manifest lists against the manifest's frame, and that the
    /// manifest's map fields match each file's header. Entries whose data already failed a check
    /// (`damaged`) are skipped: that is reported already.
    public static func check(
        source: some ByteSource, directory: ZipDirectory, manifest: Manifest?, damaged: (ZipEntry) -> Bool,
        options: MapCheckOptions
    ) throws(ArchiveError) -> (findings: [Finding], maps: [Checked]) {
        guard let manifest else { return ([], []) }
        var findings: [Finding] = []
        var maps: [Checked] = []
        let pmtiles = manifest.mapAssets.filter { MapInfo.isPMTiles($0.path) }
        if pmtiles.isEmpty {
            findings.append(noMap())
        }
        for asset in pmtiles {
            guard let entry = directory.entries.first(where: { $0.nameBytes == Array(asset.path.utf8) }),
                entry.dataOffset != nil,
                entry.uncompressedSize == asset.size, !damaged(entry)
            else { continue }
            guard entry.method == 0 else {
                findings.append(
                    Finding(
                        .mapStored, file: asset.path,
                        "the map is deflated in the package; phones read maps in place, so it must be stored (trailpack build stores .pmtiles files)"
                    ))
                continue
            }
            let window = StoredEntrySource(
                source: source, offset: entry.dataOffset!, size: entry.uncompressedSize, name: asset.path)
            let report: MapReport
            do {
                report = try MapCheck.check(
                    window, file: asset.path, frame: manifest.bounds, options: options.forMap(at: asset.path))
            } catch {
                throw ArchiveError(
                    code: .io, message: "cannot read the map '\(asset.path)': \(error.message)",
                    systemCall: error.systemCall, cause: error)
            }
            findings += report.findings
            if let declared = asset.map, let actual = report.mapInfo(role: declared.role), declared != actual {
                findings.append(
                    Finding(
                        .mapMismatch, file: asset.path,
                        "the manifest describes the map as \(describe(declared)), but its header says \(describe(actual)); rebuild the package"
                    ))
            }
            maps.append(Checked(path: asset.path, report: report))
        }
        return (findings, maps)
    }

    /// The map at `path` as a random-access source inside the package, when its entry is stored
    /// (method 0, as the builder writes maps); nil otherwise. For readers that serve tiles.
    public static func storedMap(source: some ByteSource, directory: ZipDirectory, path: String) -> (any MapSource)? {
        guard let entry = directory.entries.first(where: { $0.nameBytes == Array(path.utf8) }), entry.method == 0,
            let offset = entry.dataOffset, entry.compressedSize == entry.uncompressedSize
        else { return nil }
        return StoredEntrySource(source: source, offset: offset, size: entry.uncompressedSize, name: path)
    }

    /// The warning for a tour without a map.
    public static func noMap(file: String? = nil) -> Finding {
        Finding(
            .mapNone, file: file,
            "the tour has no offline map (map/*.pmtiles), so the apps will need a network to show one where visitors go; cut one from a larger tile set with 'trailpack map extract SOURCE -o map/NAME.pmtiles --tour TOUR-FOLDER' and build again"
        )
    }

    static func describe(_ m: MapInfo) -> String {
        "\(m.tileType.rawValue) tiles, zoom \(m.minZoom)–\(m.maxZoom), bounds \(m.bounds.southwest.latitude),\(m.bounds.southwest.longitude) to \(m.bounds.northeast.latitude),\(m.bounds.northeast.longitude)"
    }
}

/// A stored ZIP entry's bytes as a map source: reads are offset into the package and never
/// reach past the entry.
struct StoredEntrySource<Source: ByteSource>: MapSource {
    let source: Source
    let offset: Int64
    let size: Int64
    let name: String

    func read(at position: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(MapError) -> Int {
        guard position >= 0, position < size else { return 0 }
        let n = Int(min(Int64(buffer.count), size - position))
        do {
            return try source.read(at: offset + position, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<n]))
        } catch {
            throw MapError.io("cannot read the map '\(name)' in the package: \(error)")
        }
    }
}
