import TrailPackArchive
import TrailPackCore

/// The route of a package (`docs/FORMAT.md` §3.3): `map/route.geojson`, when the manifest lists it,
/// read (at most 16 MiB) and checked against its own positions and the manifest's stops and frame.
public enum PackageRoute {
    /// The route the manifest lists and the package holds, and every finding about it; nil when
    /// the package has no route or it cannot be read (said in the findings). Entries whose data
    /// already failed a check (`damaged`) are not read again: that is reported already.
    public static func check(
        source: some ByteSource, directory: ZipDirectory, manifest: Manifest?, damaged: (ZipEntry) -> Bool
    ) throws(ArchiveError) -> (route: Route?, findings: [Finding]) {
        guard let manifest, let asset = manifest.mapAssets.first(where: { $0.path == Route.entryName }) else {
            return (nil, [])
        }
        guard asset.size <= Int64(Route.maxFileBytes) else {
            return (
                nil,
                [
                    Finding(
                        .routeFile, file: Route.entryName,
                        "the route file is \(asset.size) bytes; the limit is \(Route.maxFileBytes) (16 MiB)")
                ]
            )
        }
        guard
            let entry = directory.entries.first(where: { $0.nameBytes == Array(Route.entryName.utf8) }),
            entry.dataOffset != nil, entry.uncompressedSize == asset.size, !damaged(entry)
        else { return (nil, []) }
        let bytes = try read(source: source, entry: entry)
        let reading = RouteFile.read(bytes)
        guard let route = reading.route else { return (nil, reading.findings) }
        return (
            route,
            reading.findings + RouteChecks.check(route, waypoints: manifest.waypoints, bounds: manifest.bounds)
        )
    }

    /// An entry's bytes, at most its declared size (the reader stops at that).
    static func read(source: some ByteSource, entry: ZipEntry) throws(ArchiveError) -> [UInt8] {
        let reader = try EntryReader(source: source, entry: entry)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(entry.uncompressedSize))
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let n = try reader.read(into: chunk)
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        return bytes
    }
}

extension PackageReader {
    /// The package's route (`docs/FORMAT.md` §3.3), read through the verified stream and checked
    /// against the manifest; nil when the package has none. A route that breaks a rule throws
    /// ``PackageError`` with its findings.
    public func route() throws(PackageError) -> Route? {
        guard let asset = manifest.mapAssets.first(where: { $0.path == Route.entryName }) else { return nil }
        guard asset.size <= Int64(Route.maxFileBytes) else {
            throw .invalid([Finding(.routeFile, file: Route.entryName, "the route file is larger than 16 MiB")])
        }
        let stream = try openAsset(Route.entryName)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(asset.size))
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let n = try stream.read(into: chunk)
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        let reading = RouteFile.read(bytes)
        guard let route = reading.route else { throw .invalid(reading.findings) }
        let problems = RouteChecks.check(route, waypoints: manifest.waypoints, bounds: manifest.bounds).filter {
            $0.severity == .error
        }
        guard problems.isEmpty else { throw .invalid(problems) }
        return route
    }
}
