import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TrailPackArchive
import TrailPackCore
import TrailPackMap
import TrailPackServer
import TrailPackVerifier

/// The tour's own offline map in the panel: a draft's `map/*.pmtiles` under the editor, a stored
/// version's map under its review page (raster tiles drawn by Leaflet; a vector map is described,
/// not drawn: Leaflet cannot render MVT), and the map's coverage of the frame, zoom by zoom.
extension MapsController {
    func addMapRoutes(panel: RouterGroup<AppRequestContext>) {
        panel.get("/drafts/:site/:tour/tiles/:z/:x/:y") { request, context in
            await draftRoute(request, context) { visitor, key in
                let tile = try Self.tileID(context)
                guard let map = Self.draftBaseMap(drafts.folder(key)) else {
                    throw PanelError(status: .notFound, message: "the draft has no offline map")
                }
                let (header, bytes) = try await blocking {
                    let archive = try PMTilesArchive(source: try MapFile(path: map))
                    return (archive.header, try archive.tile(tile))
                }
                return try Self.tileResponse(header, bytes, tile: tile)
            }
        }
        panel.get("/packages/:id/versions/:version/tiles/:z/:x/:y") { request, context in
            await signedIn(request, context) { visitor in
                let id = try context.parameters.require("id"), version = try context.parameters.require("version")
                let tile = try Self.tileID(context)
                let record = try await record(visitor, id: id, version: version)
                guard
                    let manifestText = try await catalog.version(
                        package: id, version: version, releasedOnly: false)?.manifest,
                    let manifest = ManifestReader.read(Array(manifestText.utf8)).manifest,
                    let map = Self.baseMap(manifest)
                else {
                    throw PanelError(status: .notFound, message: "version \(version) has no offline map")
                }
                let blob = try await blobs.localFile(for: BlobNames.digest(record.summary.sha256))
                let (header, bytes) = try await blocking {
                    try PackageTiles.read(blob: blob, map: map.path, tile: tile)
                }
                return try Self.tileResponse(header, bytes, tile: tile)
            }
        }
    }

    /// A site's region map, tile by tile, for the editor's base map (read through the bounded PMTiles reader).
    func addSiteMapRoute(panel: RouterGroup<AppRequestContext>) {
        // What the site's region map covers, for a page that draws it under a tour without its own
        // map (the visitor preview): its zooms and its tiles' address. The same access as the tiles.
        panel.get("/sites/:site/map") { request, context in
            await signedIn(request, context, json: true) { visitor in
                let site = try context.parameters.require("site")
                guard
                    visitor.user.role == .admin || visitor.user.role == .reviewer
                        || visitor.sites.contains(where: { $0.id == site }),
                    let header = Self.siteMapHeader(drafts.siteMapPath(site))
                else { throw PanelError(status: .notFound, message: "the site has no region map") }
                return Self.jsonMessage(
                    .ok, "the site's region map",
                    extra: [
                        JSONMember("tiles", .string("/sites/\(Self.pathSegment(site))/tiles/{z}/{x}/{y}")),
                        JSONMember("minZoom", .number(JSONNumber(Int64(header.minZoom)))),
                        JSONMember("maxZoom", .number(JSONNumber(Int64(header.maxZoom)))),
                    ])
            }
        }
        panel.get("/sites/:site/tiles/:z/:x/:y") { request, context in
            await signedIn(request, context) { visitor in
                let site = try context.parameters.require("site")
                let tile = try Self.tileID(context)
                // Reviewers see every site's versions, so its region map under them too.
                guard
                    visitor.user.role == .admin || visitor.user.role == .reviewer
                        || visitor.sites.contains(where: { $0.id == site }),
                    let path = Self.regularFile(drafts.siteMapPath(site))
                else { throw PanelError(status: .notFound, message: "the site has no region map") }
                let read = try? await blocking {
                    let archive = try PMTilesArchive(source: try MapFile(path: path))
                    return (archive.header, try archive.tile(tile))
                }
                guard let (header, bytes) = read else {
                    throw PanelError(
                        status: .notFound,
                        message: "the site's region map cannot be read; an administrator can give it again")
                }
                return try Self.tileResponse(header, bytes, tile: tile)
            }
        }
    }

    static func tileID(_ context: AppRequestContext) throws -> TileID {
        guard let z = Int(try context.parameters.require("z")), let x = Int(try context.parameters.require("x")),
            let y = Int(try context.parameters.require("y").split(separator: ".").first.map(String.init) ?? ""),
            TileID(z: z, x: x, y: y).isValid
        else {
            throw PanelError(status: .notFound, message: "tiles are addressed /tiles/{z}/{x}/{y}")
        }
        return TileID(z: z, x: x, y: y)
    }

    static func tileResponse(_ header: PMTilesHeader, _ bytes: [UInt8]?, tile: TileID) throws -> Response {
        // A tile the map does not hold (outside its area or its zooms): no content, which the map draws as empty.
        guard let bytes else { return Response(status: .noContent, headers: [.cacheControl: "private, max-age=60"]) }
        var headers = PackageTiles.headers(header, bytes)
        headers[.cacheControl] = "private, max-age=60"
        headers[.contentLength] = String(bytes.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

}

extension PanelRoom {
    /// What the page's map needs to draw the tour's own map: a tile URL template and its zooms, or nil
    /// for a vector map (which Leaflet cannot draw) or none.
    static func ownMapValues(tileURL: String, header: PMTilesHeader?) -> OwnMapView? {
        guard let header, let type = header.tileType, ["png", "jpeg", "webp"].contains(type.name) else { return nil }
        let frame = FrameView(header.bounds)
        return OwnMapView(
            url: tileURL + "/{z}/{x}/{y}", minZoom: header.minZoom, maxZoom: header.maxZoom, type: type.name,
            south: frame.south, west: frame.west, north: frame.north, east: frame.east)
    }

    /// The site's region map header (nil: none, or not readable).
    static func siteMapHeader(_ path: String?) -> PMTilesHeader? {
        guard let path = regularFile(path), let source = try? MapFile(path: path) else { return nil }
        return try? PMTilesArchive(source: source).header
    }

    /// `path` when it is a regular file itself (a link or folder planted in its place is not followed).
    static func regularFile(_ path: String?) -> String? {
        guard let path else { return nil }
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? path : nil
    }

    /// The draft's map header, read from its file (nil: no map, or not a readable PMTiles file).
    static func draftMapHeader(_ folder: String) -> PMTilesHeader? {
        guard let path = draftBaseMap(folder), let source = try? MapFile(path: path) else { return nil }
        return try? PMTilesArchive(source: source).header
    }

    /// One row per zoom: tiles of the frame, present, percent, the missing area named.
    static func coverageRows(_ zooms: [MapZoomReport]) -> [ReviewPage.Coverage] {
        zooms.map { zoom in
            ReviewPage.Coverage(
                zoom: zoom.zoom, tiles: zoom.frameTiles ?? 0, present: zoom.framePresent,
                percent: zoom.coveragePercent.map { String(format: "%.1f", $0) } ?? "–",
                missing: zoom.missingArea ?? "", complete: zoom.frameMissing == 0)
        }
    }

    /// The stored version's map check against its frame (header and coverage zoom by zoom), for the review page.
    static func coverage(blob: String, manifest: Manifest) -> (header: PMTilesHeader?, zooms: [MapZoomReport])? {
        guard let map = baseMap(manifest), let source = try? FileSource(path: blob),
            let directory = try? ZipDirectory.read(source),
            let mapSource = PackageMaps.storedMap(source: source, directory: directory, path: map.path),
            let report = try? MapCheck.check(mapSource, file: map.path, frame: manifest.bounds)
        else { return nil }
        return (report.header, report.zooms)
    }

    /// The package's base map (`map/*.pmtiles`, not an overlay).
    static func baseMap(_ manifest: Manifest) -> Asset? {
        manifest.mapAssets.first { MapInfo.isPMTiles($0.path) && MapInfo.role(forPath: $0.path) == .base }
    }
}

extension PanelRoom {
    /// A draft folder's base map file, if it has one.
    static func draftBaseMap(_ folder: String) -> String? {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/map")) ?? []).sorted()
        let name = names.first { MapInfo.isPMTiles("map/" + $0) && MapInfo.role(forPath: "map/" + $0) == .base }
        return regularFile(name.map { folder + "/map/" + $0 })
    }
}
