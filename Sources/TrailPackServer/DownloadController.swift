import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto

/// `GET|HEAD /v1/blobs/{sha256}.zip`: a package's bytes, content-addressed, resumable (one
/// `Range`, `If-Range` on the strong ETag), with `Repr-Digest`; a redirect to the CDN when one is
/// configured. Released blobs are cached as immutable; errors and redirects never for long.
struct DownloadController {
    let catalog: any CatalogStore
    let blobs: any BlobStore
    /// Where released blobs are redirected to (`--download-base-url`), if anywhere.
    let downloadBaseURL: String?
    /// Takes a damaged blob out of service (the server's `takeOutOfService`).
    let takeOutOfService: @Sendable (_ sha256: String, _ reason: String) async -> Void
    /// Send blobs by `sendfile` (see `ZeroCopy`).
    var zeroCopy = false

    func addRoutes(to routes: Routes) {
        routes.getAndHead(
            "/v1/blobs/:file",
            get: { request, context in try await download(request, context, head: false) },
            head: { request, context in try await download(request, context, head: true) })
    }

    func download(_ request: Request, _ context: AppRequestContext, head: Bool) async throws -> Response {
        let file = try context.parameters.require("file")
        guard file.hasSuffix(".zip"), let digest = SHA256Digest(hex: String(file.dropLast(4))) else {
            throw ServerError.notFound("downloads are named <sha256>.zip")
        }
        let sha = digest.hex
        var size: Int64
        var underReview = false
        if let released = try await catalog.isReleasedBlob(sha) {
            size = released
        } else if let version = try await catalog.reviewAccess(context, sha256: sha) {
            size = version.size
            underReview = true
        } else {
            throw ServerError.notFound("no released package has SHA-256 \(sha)")
        }
        let etag = "\"\(sha)\""
        var headers: HTTPFields = [
            .contentType: "application/zip",
            .eTag: etag,
            .acceptRanges: "bytes",
            // A version under review is fetched with a token: never kept by a shared cache.
            .cacheControl: underReview ? "private, no-store" : "public, max-age=31536000, immutable",
        ]
        headers[HTTPField.Name("Repr-Digest")!] = "sha-256=:\(Data(digest.bytes).base64EncodedString()):"
        if let base = downloadBaseURL, !underReview {
            // The target is content-addressed, but where it lives is the operator's choice: cache
            // the redirect briefly, never for a year.
            let location = base.hasSuffix("/") ? "\(base)\(sha).zip" : "\(base)/\(sha).zip"
            return Response(status: .found, headers: [.location: location, .cacheControl: "public, max-age=300"])
        }
        if let inm = request.headers[.ifNoneMatch], ETag.noneMatchHits(inm, etag) {
            return Response(status: .notModified, headers: headers)
        }
        var range: ClosedRange<Int64>?
        if let rangeHeader = request.headers[.range] {
            // If-Range: resume only if the client's copy is of these same bytes; else send it all.
            let ifRange = request.headers[.ifRange]
            if ifRange == nil || ifRange == etag {
                switch ByteRange.parse(rangeHeader, size: size) {
                case .none: break
                case .unsatisfiable:
                    var error = ServerError(
                        .rangeNotSatisfiable, .rangeNotSatisfiable,
                        "the range '\(ServerError.short(rangeHeader))' lies outside the \(size)-byte package")
                    error.headers[.contentRange] = "bytes */\(size)"
                    error.headers[.acceptRanges] = "bytes"
                    throw error
                case .range(let r): range = r
                }
            }
        }
        let source = try await blobs.source(for: digest, size: size)
        if case .redirect(let location) = source {
            // Where the store says (a presigned URL): fetched by the client itself, ranges and all.
            return Response(
                status: .found, headers: [.location: location, .cacheControl: "private, no-store", .eTag: etag])
        }
        if case .file(let path) = source {
            // The file must be the size the catalog recorded: a truncated or grown blob is never sent
            // (its Content-Length would be a lie, and the client would wait for bytes that never come).
            var info = stat()
            let onDisk: Int64? = stat(path, &info) == 0 ? Int64(info.st_size) : nil
            guard onDisk == size else {
                let reason =
                    onDisk.map { "the stored file has \($0) bytes, the catalog says \(size)" }
                    ?? "the stored file is missing (\(String(cString: strerror(errno))))"
                await takeOutOfService(sha, reason)
                throw ServerError.internal(
                    "the package with SHA-256 \(sha) is damaged on this server and was taken out of service; the operator has been told"
                )
            }
        }
        let served = range ?? 0...(size - 1)
        headers[.contentLength] = String(served.count)
        var status = HTTPResponse.Status.ok
        if let range {
            status = .partialContent
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
        }
        if head || size == 0 { return Response(status: status, headers: headers) }
        switch source {
        case .file(let path):
            if zeroCopy {
                headers[ZeroCopy.field] = ZeroCopy.headerValue(
                    path: path, offset: served.lowerBound, length: Int64(served.count))
                return Response(status: status, headers: headers)
            }
            return Response(
                status: status, headers: headers, body: try await body(path: path, range: served, context: context))
        case .stream(let body):
            // The store proves the bytes before the head goes out: a missing, short or swapped
            // object is never sent under the catalog's ETag, Repr-Digest and a year's caching.
            do {
                return Response(status: status, headers: headers, body: try await body(served))
            } catch let damage as BlobDamaged {
                await takeOutOfService(sha, damage.reason)
                throw ServerError.internal(
                    "the package with SHA-256 \(sha) is damaged in the package store and was taken out of service (\(damage.reason)); the operator has been told"
                )
            }
        case .redirect:
            throw ServerError.internal("a redirect was answered above")
        }
    }

    /// The response body: the blob's bytes in `range`, read off the event loop in large chunks.
    func body(path: String, range: ClosedRange<Int64>, context: AppRequestContext) async throws -> ResponseBody {
        try await FileIO().loadFile(
            path: path, range: Int(range.lowerBound)...Int(range.upperBound), context: context, chunkLength: 256 << 10)
    }
}
