import TrailPackArchive
import TrailPackCore
import TrailPackCrypto

/// Reads single assets out of a package without unpacking the rest — for apps and `trailpack cat`.
///
/// Opening checks the ZIP structure (central directory against every local header) and the
/// manifest; each asset is then streamed and checked as it goes: size, CRC-32 and the SHA-256 the
/// manifest gives. A mismatch is reported when the stream ends, as an error from `read`: a
/// caller must treat the bytes it received as untrusted until `read` has returned 0.
public final class PackageReader: Sendable {
    /// The package's manifest, checked when the package was opened.
    public let manifest: Manifest
    /// The package's ZIP directory, checked when the package was opened.
    public let directory: ZipDirectory
    private let source: any ByteSource
    /// The `manifest.json` entry, found by name.
    private let manifestEntry: ZipEntry
    /// Each asset's place in the manifest, by its path's bytes (the first, if a path were listed twice).
    private let assetPlaces: [NameKey: AssetPlace]
    /// Each entry's position in the directory, by its name's bytes (the first of a name).
    private let entryPositions: ZipNameIndex

    /// Where an asset is in the manifest: `waypoint` is nil for a map asset.
    private struct AssetPlace: Sendable {
        var waypoint: Int?
        var index: Int
    }

    /// Opens the package at `path`: checks its ZIP structure and its manifest (not yet the assets).
    ///
    /// Throws ``PackageError`` with code ``PackageError/Code/invalid`` and the findings when either has errors.
    public convenience init(path: String) throws(PackageError) {
        let source: FileSource
        do { source = try FileSource(path: path) } catch { throw PackageError(error) }
        try self.init(source: source)
    }

    /// Opens a package held by any byte source (a file, or bytes in memory).
    public init(source: any ByteSource) throws(PackageError) {
        let directory: ZipDirectory
        do { directory = try ZipDirectory.read(source) } catch { throw PackageError(error) }
        var findings = directory.findings
        guard directory.isReadable, !findings.hasErrors else { throw .invalid(findings) }
        // The manifest rules are the verifier's own; only the assets are left for later, one at a time.
        let manifest: Manifest?
        do { manifest = try Verifier.checkManifest(directory: directory, source: source, findings: &findings) } catch {
            throw PackageError(error)
        }
        guard let manifest, let entry = Verifier.manifestEntry(in: directory), !findings.hasErrors else {
            throw .invalid(findings)
        }
        self.manifest = manifest
        self.directory = directory
        self.source = source
        self.manifestEntry = entry
        // Indexes, so that opening one asset of 20,000 costs a lookup, not a walk of them all.
        var places: [NameKey: AssetPlace] = [:]
        for (w, waypoint) in manifest.waypoints.enumerated() {
            for (i, asset) in waypoint.assets.enumerated() where places[NameKey(asset.path)] == nil {
                places[NameKey(asset.path)] = AssetPlace(waypoint: w, index: i)
            }
        }
        for (i, asset) in manifest.mapAssets.enumerated() where places[NameKey(asset.path)] == nil {
            places[NameKey(asset.path)] = AssetPlace(waypoint: nil, index: i)
        }
        self.assetPlaces = places
        self.entryPositions = directory.positionsByName()
    }

    /// The `id` and `version` of the package at `path`, read from its first entry alone: the
    /// manifest, its data checked as the verifier checks it (bounded inflate, size, CRC-32) and its
    /// waypoints parsed without being kept. Nil when the file cannot be read or is not a package whose
    /// first entry is an intact manifest naming both. For a builder asking whether the file it is
    /// about to replace holds the same version of the same tour, without opening the package: its
    /// whole directory and manifest, 40 MB at 100,000 assets. Says nothing of the rest of the package.
    public static func identity(path: String) -> (id: String, version: String)? {
        guard let source = try? FileSource(path: path) else { return nil }
        return identity(source: source)
    }

    /// The `id` and `version` of the package `source` holds, as ``identity(path:)`` reads them.
    public static func identity(source: some ByteSource) -> (id: String, version: String)? {
        guard let entry = ZipDirectory.leadingEntry(source), Verifier.EarlyManifest.canRead(entry, limits: .default),
            let read = try? Verifier.parseManifest(
                source: source, entry: entry, { ManifestReader.identity(chunks: $0) })
        else { return nil }
        return read.parsed ?? nil
    }

    /// The bytes of `entry` (at most `limit` uncompressed), read through the verifier's checks:
    /// bounded inflate, size, CRC-32. For a client holding one entry of a package in hand (an update
    /// by part reads the new manifest this way before it has the rest).
    public static func entryBytes(
        _ entry: ZipEntry, source: any ByteSource, limit: Int64 = Verifier.maxManifestBytes
    ) throws(PackageError) -> [UInt8] {
        guard entry.uncompressedSize <= limit else {
            throw .invalid([Finding(.zipTooLarge, file: entry.name, "the entry holds more than \(limit) bytes")])
        }
        return try checkedRead(entry, source: source)
    }

    /// Reads `entry`'s data through the verifier's checks (bounded inflate, size, CRC-32), keeping its bytes.
    private static func checkedRead(_ entry: ZipEntry, source: any ByteSource) throws(PackageError) -> [UInt8] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(max(0, min(entry.uncompressedSize, Verifier.maxManifestBytes))))
        let check: Verifier.EntryCheck
        do { check = try Verifier.checkData(source: source, entry: entry, buffer: buffer) { bytes += $0 } } catch {
            throw PackageError(error)
        }
        if case .damaged(let finding) = check { throw .invalid([finding]) }
        return bytes
    }

    /// `manifest.json` exactly as stored, read again through the same checks as when the package was
    /// opened (bounded inflate, size, CRC-32): for a copy of the package's files. Throws
    /// ``PackageError`` (``PackageError/Code/invalid``) when the bytes no longer pass (the file changed since).
    public func manifestBytes() throws(PackageError) -> [UInt8] {
        try Self.checkedRead(manifestEntry, source: source)
    }

    /// The manifest's entry for `path`.
    public func asset(_ path: String) throws(PackageError) -> Asset {
        if let place = assetPlaces[NameKey(path)] {
            return place.waypoint.map { manifest.waypoints[$0].assets[place.index] } ?? manifest.mapAssets[place.index]
        }
        let suggestion = Spelling.closest(to: path, among: manifest.allAssets.map(\.path))
        throw .noSuchAsset(path, suggestion: suggestion)
    }

    /// Opens one asset as a verified stream.
    public func openAsset(_ path: String) throws(PackageError) -> AssetStream {
        let asset = try asset(path)
        guard let entry = entryPositions.position(of: path).map({ directory.entries[$0] }) else {
            throw .assetMismatch(
                path, Finding(.contentMissing, file: path, "the manifest lists it but the package does not hold it"))
        }
        guard entry.uncompressedSize == asset.size else {
            throw .assetMismatch(
                path,
                Finding(
                    .contentSize, file: path,
                    "the manifest says \(asset.size) bytes, the package holds \(entry.uncompressedSize)"))
        }
        let reader: EntryReader
        do { reader = try EntryReader(source: source, entry: entry) } catch {
            guard let finding = error.code.findingCode else { throw PackageError(error) }
            throw .assetMismatch(path, Finding(finding, file: path, error.message))
        }
        return AssetStream(asset: asset, entry: entry, reader: reader)
    }
}

/// One asset's bytes, checked as they stream: size, CRC-32 and SHA-256 against the manifest.
public final class AssetStream {
    /// The manifest's entry for the asset being read.
    public let asset: Asset
    private let entry: ZipEntry
    private let reader: EntryReader
    private var sha: SHA256? = SHA256()
    private var crc = CRC32()
    private var done = false

    init(asset: Asset, entry: ZipEntry, reader: EntryReader) {
        self.asset = asset
        self.entry = entry
        self.reader = reader
    }

    /// Fills `buffer`; returns 0 at the end, once every check has passed. Throws
    /// ``PackageError`` (``PackageError/Code/assetMismatch``) when the data is not what the manifest says.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(PackageError) -> Int {
        if done { return 0 }
        let n: Int
        do { n = try reader.read(into: buffer) } catch {
            guard let finding = error.code.findingCode else { throw PackageError(error) }
            throw .assetMismatch(asset.path, Finding(finding, file: asset.path, error.message))
        }
        if n > 0 {
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            sha!.update(chunk)
            crc.update(chunk)
            return n
        }
        done = true
        if crc.value != entry.crc32 {
            throw .assetMismatch(
                asset.path, Finding(.zipCRC, file: asset.path, "the data's CRC-32 does not match the ZIP's"))
        }
        let digest = sha.take()!.finalize()
        guard let declared = SHA256Digest(of: asset), declared == digest else {
            throw .assetMismatch(
                asset.path,
                Finding(
                    .contentSHA256, file: asset.path,
                    "the data's SHA-256 is \(digest.hex), not \(asset.sha256) as the manifest says"))
        }
        return 0
    }
}
