import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TrailPackArchive
import TrailPackCatalogModel
import TrailPackCore
import TrailPackMap
import TrailPackVerifier

/// `GET /v1/packages/{id}/versions/{version}/tiles/{z}/{x}/{y}`: one tile of a package's base map,
/// read in place from the stored package (the PMTiles entry is stored, so its bytes are a window
/// of the blob), through the bounded PMTiles reader. Released versions are public and cached as
/// immutable; a version under review is seen by whom its manifest is (`reviewAccess`), and is never cached.
extension CatalogController {
    func tile(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id"), version = try context.parameters.require("version")
        guard let z = Int(try context.parameters.require("z")), let x = Int(try context.parameters.require("x")),
            let y = Int(try context.parameters.require("y").split(separator: ".").first.map(String.init) ?? ""),
            TileID(z: z, x: x, y: y).isValid
        else {
            throw ServerError.badRequest(
                "tiles are addressed /tiles/{z}/{x}/{y} with 0 ≤ x, y < 2^z and z from 0 to \(TileID.maxZoom)")
        }
        var released = true
        var found = try await catalog.version(package: id, version: version, releasedOnly: true)
        if found == nil {
            // A version under review: its map is seen by whom its manifest is (its reviewers, admins
            // and the publisher who uploaded it), never by any token holder.
            _ = try context.require(Set(Catalog.Role.allCases))
            if try await catalog.reviewAccess(context, package: id, version: version) != nil {
                found = try await catalog.version(package: id, version: version, releasedOnly: false)
            }
            released = false
        }
        guard let found else {
            throw ServerError.notFound("no version \(ServerError.short(version)) of '\(ServerError.short(id))'")
        }
        let (summary, manifestText) = (found.summary, found.manifest)
        let manifest = ManifestReader.read(Array(manifestText.utf8)).manifest
        guard
            let map = manifest?.mapAssets.first(where: {
                MapInfo.isPMTiles($0.path) && MapInfo.role(forPath: $0.path) == .base
            })
        else {
            throw ServerError.notFound("version \(version) of '\(id)' has no offline map")
        }
        let path = try await blobs.localFile(for: try BlobNames.digest(summary.sha256))
        let tileID = TileID(z: z, x: x, y: y)
        let etag = "\"\(summary.sha256)-\(z)-\(x)-\(y)\""
        let result = try await pool.run { () throws -> (PMTilesHeader, [UInt8]?) in
            try Self.readTile(blob: path, map: map.path, tile: tileID)
        }
        guard let bytes = result.1 else { throw ServerError.notFound("the map has no tile \(tileID)") }
        var headers = PackageTiles.headers(result.0, bytes)
        headers[.eTag] = etag
        headers[.cacheControl] = released ? "public, max-age=31536000, immutable" : "private, no-store"
        if let inm = request.headers[.ifNoneMatch], ETag.noneMatchHits(inm, etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(bytes.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func readTile(blob: String, map: String, tile: TileID) throws -> (PMTilesHeader, [UInt8]?) {
        try PackageTiles.read(blob: blob, map: map, tile: tile)
    }
}

/// One tile of a stored package's map, read in place (the API's tile route and the panel's review page).
package enum PackageTiles {
    /// The headers of a tile response: its type read from the tile's bytes (inflated first when the
    /// map's tiles are gzipped), never from the map's header: raster images are inline, anything
    /// else (a vector tile, HTML, unknown bytes) an `application/octet-stream` attachment; and,
    /// whatever it is, the sandboxing policy and `nosniff`.
    package static func headers(_ header: PMTilesHeader, _ bytes: [UInt8]) -> HTTPFields {
        let gzipped = header.tileCompression == .gzip
        let head =
            gzipped
            ? Gzip.head(ofGzip: bytes, maxBytes: ContentSniff.prefixLength) ?? []
            : Array(bytes.prefix(ContentSniff.prefixLength))
        var served = ContentSniff.served(head)
        // A map's tiles are images or vector data; a tile that reads as text or media is a download.
        if !served.contentType.hasPrefix("image/") { served = .download }
        var headers: HTTPFields = [.contentType: served.contentType]
        if !served.inline { headers[.contentDisposition] = ContentSniff.Served.attachment }
        headers[.contentSecurityPolicy] = ContentSniff.Served.contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        if gzipped { headers[.contentEncoding] = "gzip" }
        return headers
    }

    /// Opens the blob's ZIP directory, finds the map's stored entry and reads one tile from it.
    package static func read(blob: String, map: String, tile: TileID) throws -> (PMTilesHeader, [UInt8]?) {
        let source = try FileSource(path: blob)
        let directory = try ZipDirectory.read(source)
        guard directory.isReadable,
            let mapSource = PackageMaps.storedMap(source: source, directory: directory, path: map)
        else {
            throw ServerError(
                .internalServerError, .mapUnreadable, "the stored package's map '\(map)' cannot be read in place")
        }
        do {
            let archive = try PMTilesArchive(source: mapSource)
            return (archive.header, try archive.tile(tile))
        } catch {
            throw ServerError(
                .internalServerError, .mapUnreadable,
                "the stored package's map '\(map)' cannot be read: \(error.message)")
        }
    }
}
