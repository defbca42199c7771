import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import TrailPackCatalog
import TrailPackCore
import TrailPackCrypto
import TrailPackVerifier

/// The content-package download server: catalog, verified uploads, resumable verified downloads.
public struct ServerConfiguration: Sendable {
    /// The data folder: `catalog.sqlite`, `blobs/`, `tmp/`.
    public var dataDirectory: String
    public var host: String
    public var port: Int
    /// SHA-256 of the admin token (the token itself is never kept); nil: uploads are disabled.
    public var adminTokenHash: SHA256Digest?
    /// The largest upload accepted, in bytes.
    public var maxUploadBytes: Int64
    /// When set, downloads answer with a redirect to `<base>/<sha256>.zip` (a CDN or object store).
    public var downloadBaseURL: String?

    public init(dataDirectory: String, host: String = "127.0.0.1", port: Int = 8080, adminToken: String? = nil,
                maxUploadBytes: Int64 = 16 << 30, downloadBaseURL: String? = nil) {
        self.dataDirectory = dataDirectory
        self.host = host
        self.port = port
        self.adminTokenHash = adminToken.map { SHA256.hash(Array($0.utf8)) }
        self.maxUploadBytes = maxUploadBytes
        self.downloadBaseURL = downloadBaseURL
    }
}

/// Builds the router and the application.
public struct TrailPackServer: Sendable {
    public let configuration: ServerConfiguration
    public let catalog: Catalog
    public let store: BlobStore

    /// Opens the data folder (migrating the catalog) and removes what interrupted uploads left.
    public init(configuration: ServerConfiguration) throws {
        self.configuration = configuration
        store = try BlobStore(root: configuration.dataDirectory)
        catalog = try Catalog(path: configuration.dataDirectory + "/catalog.sqlite")
        store.collectGarbage(known: try catalog.blobHashes())
    }

    /// The application, ready to run (`runService()` stops gracefully on SIGINT and SIGTERM).
    public func application(logger: Logger, onListening: @escaping @Sendable (Int) -> Void = { _ in }) -> some ApplicationProtocol {
        Application(
            router: router(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "trailpack"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    public func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: LogRequestsMiddleware(.info))
        router.add(middleware: JSONErrorMiddleware())
        let api = API(server: self)
        router.get("/healthz") { _, _ in "ok\n" }
        router.get("/v1/sites") { request, context in try api.sites(request, context) }
        router.get("/v1/sites/:site/packages") { request, context in try api.sitePackages(request, context) }
        router.get("/v1/packages/:id") { request, context in try api.package(request, context) }
        router.get("/v1/packages/:id/manifest") { request, context in try api.manifest(request, context) }
        router.get("/v1/packages/:id/versions/:version/manifest") { request, context in try api.manifest(request, context) }
        router.post("/v1/packages/:id/versions/:version/confirm") { request, context in try await api.confirm(request, context) }
        router.get("/v1/blobs/:file") { request, context in try await api.download(request, context, head: false) }
        router.head("/v1/blobs/:file") { request, context in try await api.download(request, context, head: true) }
        router.post("/v1/admin/packages") { request, context in try await api.upload(request, context) }
        router.get("/v1/admin/confirmations") { request, context in try api.confirmations(request, context) }
        router.get("/v1/admin/audit") { request, context in try api.audit(request, context) }
        return router
    }
}

/// The handlers.
struct API: Sendable {
    let server: TrailPackServer
    var catalog: Catalog { server.catalog }

    static let json: HTTPFields = [.contentType: "application/json"]

    func respond(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = API.json) -> Response {
        Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: JSONWriter.bytes(value))))
    }

    func summaryJSON(_ p: Catalog.PackageSummary) -> JSONValue {
        .object([
            "id": .string(p.id), "name": .string(p.name), "description": .string(p.description), "park": .string(p.park),
            "site": .string(p.site), "version": .string(p.version), "size": .number(JSONNumber(p.size)), "sha256": .string(p.sha256),
            "download": .string("/v1/blobs/\(p.sha256).zip"),
            "manifest": .string("/v1/packages/\(p.id)/versions/\(p.version)/manifest"),
            "confirm": .string("/v1/packages/\(p.id)/versions/\(p.version)/confirm"),
        ])
    }

    func sites(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        respond(.object(["sites": .array(try catalog.sites().map { .object(["id": .string($0.id), "name": .string($0.name), "packages": .number(JSONNumber(Int64($0.packages)))]) })]))
    }

    func sitePackages(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let site = try context.parameters.require("site")
        let limitText = request.uri.queryParameters.get("limit") ?? "50"
        guard let limit = Int(limitText), (1...500).contains(limit) else { throw ServerError.badRequest("limit must be a whole number from 1 to 500") }
        let after = request.uri.queryParameters.get("after")
        guard try catalog.siteExists(site) else { throw ServerError.notFound("no site '\(site)'") }
        let page = try catalog.packages(site: site, limit: limit, after: after)
        return respond(.object([
            "site": .string(site),
            "packages": .array(page.packages.map(summaryJSON)),
            "next": page.next.map { .string("/v1/sites/\(site)/packages?limit=\(limit)&after=\($0)") } ?? .null,
        ]))
    }

    func package(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let id = try context.parameters.require("id")
        let versions = try catalog.versions(package: id)
        guard let latest = versions.first else { throw ServerError.notFound("no released package '\(id)'") }
        return respond(.object(["latest": summaryJSON(latest), "versions": .array(versions.map(summaryJSON))]))
    }

    func manifest(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let id = try context.parameters.require("id")
        let version = context.parameters.get("version")
        guard let (_, manifest) = try catalog.version(package: id, version: version) else {
            throw ServerError.notFound(version.map { "no released version \($0) of '\(id)'" } ?? "no released package '\(id)'")
        }
        return Response(status: .ok, headers: API.json, body: .init(byteBuffer: ByteBuffer(string: manifest)))
    }

    func confirm(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.parameters.require("id"), version = try context.parameters.require("version")
        var body = try await request.body.collect(upTo: 4096)
        guard let bytes = body.readBytes(length: body.readableBytes), let doc = try? JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 4096)).value,
              case .string(let hex)? = doc["sha256"], SHA256Digest(hex: hex) != nil else {
            throw ServerError.badRequest("send {\"sha256\": \"<64 hex digits>\"}: the SHA-256 of the file you received")
        }
        guard let result = try catalog.confirm(package: id, version: version, sha256: hex) else { throw ServerError.notFound("no released version \(version) of '\(id)'") }
        return respond(.object([
            "match": .bool(result.match), "expected": .string(result.expected),
            "message": .string(result.match ? "the download is complete and intact" : "the download is damaged: delete it and download again"),
        ]))
    }

    // MARK: downloads

    func download(_ request: Request, _ context: BasicRequestContext, head: Bool) async throws -> Response {
        let file = try context.parameters.require("file")
        guard file.hasSuffix(".zip"), let digest = SHA256Digest(hex: String(file.dropLast(4))) else {
            throw ServerError.notFound("downloads are named <sha256>.zip")
        }
        let sha = digest.hex
        guard let size = try catalog.isReleasedBlob(sha) else { throw ServerError.notFound("no released package has SHA-256 \(sha)") }
        let etag = "\"\(sha)\""
        var headers: HTTPFields = [
            .contentType: "application/zip",
            .eTag: etag,
            .acceptRanges: "bytes",
            .cacheControl: "public, max-age=31536000, immutable",
        ]
        headers[HTTPField.Name("Repr-Digest")!] = "sha-256=:\(Data(digest.bytes).base64EncodedString()):"
        if let base = server.configuration.downloadBaseURL {
            headers[.location] = base.hasSuffix("/") ? "\(base)\(sha).zip" : "\(base)/\(sha).zip"
            return Response(status: .found, headers: headers)
        }
        if let inm = request.headers[.ifNoneMatch], inm.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag || $0.trimmingCharacters(in: .whitespaces) == "*" }) {
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
                    var h = headers
                    h[.contentRange] = "bytes */\(size)"
                    var error = ServerError(.rangeNotSatisfiable, "range-not-satisfiable", "the range '\(rangeHeader)' lies outside the \(size)-byte package")
                    error.headers = h
                    throw error
                case .range(let r): range = r
                }
            }
        }
        let path = server.store.path(for: sha)
        let served = range ?? 0...(size - 1)
        headers[.contentLength] = String(served.count)
        var status = HTTPResponse.Status.ok
        if let range {
            status = .partialContent
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
        }
        if head || size == 0 { return Response(status: status, headers: headers) }
        let body = try await FileIO().loadFile(path: path, range: Int(served.lowerBound)...Int(served.upperBound), context: context, chunkLength: 256 << 10)
        return Response(status: status, headers: headers, body: body)
    }

    // MARK: uploads

    func requireAdmin(_ request: Request) throws -> String {
        guard let expected = server.configuration.adminTokenHash else {
            throw ServerError(.forbidden, "uploads-disabled", "uploads are disabled: start the server with --admin-token-file")
        }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            var e = ServerError(.unauthorized, "unauthorized", "send 'Authorization: Bearer <token>'")
            e.headers[.wwwAuthenticate] = "Bearer"
            throw e
        }
        guard SHA256.hash(Array(header.dropFirst(7).utf8)) == expected else {
            var e = ServerError(.unauthorized, "unauthorized", "the token is not valid")
            e.headers[.wwwAuthenticate] = "Bearer error=\"invalid_token\""
            throw e
        }
        return "admin"
    }

    func upload(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let actor = try requireAdmin(request)
        let limit = server.configuration.maxUploadBytes
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > limit { throw ServerError.tooLarge(limit) }
        let temp = server.store.temporaryPath()
        var committed = false
        defer { if !committed { unlink(temp) } }
        let sink = try UploadSink(path: temp, limit: limit)
        for try await buffer in request.body {
            try buffer.withUnsafeReadableBytes { try sink.write($0) }
        }
        let digest = try sink.finish()
        // Verification reads the whole file: keep it off the cooperative pool.
        let report: VerificationReport = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try Verifier.verify(path: temp) }) }
        }
        guard report.isValid, let manifest = report.manifest, digest == report.sha256 else {
            try? catalog.audit(actor: actor, action: "upload-refused", id: report.manifest?.id, version: report.manifest?.version, sha256: digest.hex,
                               detail: "\(report.findings.filter { $0.severity == .error }.count) findings")
            throw ServerError(.unprocessableContent, "invalid-package", "the package is not valid; nothing was stored", findings: report.findings)
        }
        try server.store.commit(temporary: temp, sha256: digest.hex)
        committed = true
        let manifestJSON = JSONWriter.string(manifest.jsonValue)
        switch try catalog.register(manifest: manifest, manifestJSON: manifestJSON, sha256: digest.hex, size: sink.size, actor: actor) {
        case .created:
            return respond(.object(["stored": .bool(true), "package": summaryJSON(try catalog.version(package: manifest.id, version: manifest.version)!.0)]), status: .created)
        case .unchanged:
            return respond(.object(["stored": .bool(false), "message": .string("this version is already held with the same bytes"),
                                    "package": summaryJSON(try catalog.version(package: manifest.id, version: manifest.version)!.0)]))
        case .conflict(let existing):
            // The bytes stay only if another version refers to them; the next start collects them otherwise.
            throw ServerError(.conflict, "version-exists", "version \(manifest.version) of '\(manifest.id)' is already published with SHA-256 \(existing); publish a new version number instead")
        }
    }

    func confirmations(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        _ = try requireAdmin(request)
        return respond(.object(["confirmations": .array(try catalog.confirmations().map {
            .object(["id": .string($0.id), "version": .string($0.version), "match": .number(JSONNumber(Int64($0.match))), "mismatch": .number(JSONNumber(Int64($0.mismatch)))])
        })]))
    }

    func audit(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        _ = try requireAdmin(request)
        let after = request.uri.queryParameters.get("after").flatMap(Int64.init) ?? 0
        let entries = try catalog.auditLog(after: after, limit: 500)
        return respond(.object(["entries": .array(entries.map { e in
            .object([
                "id": .number(JSONNumber(e.id)), "at": .string(e.at), "actor": .string(e.actor), "action": .string(e.action),
                "package": e.packageID.map { .string($0) } ?? .null, "version": e.version.map { .string($0) } ?? .null,
                "sha256": e.sha256.map { .string($0) } ?? .null, "detail": .string(e.detail),
            ])
        })]))
    }
}

/// `Range: bytes=…` for one range (RFC 9110 §14). Several ranges are answered with the whole file.
enum ByteRange: Equatable {
    case none
    case unsatisfiable
    case range(ClosedRange<Int64>)

    static func parse(_ header: String, size: Int64) -> ByteRange {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return .none }
        let spec = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .none }
        let a = parts[0].trimmingCharacters(in: .whitespaces), b = parts[1].trimmingCharacters(in: .whitespaces)
        if a.isEmpty {
            guard let n = Int64(b), n >= 0, b.allSatisfy(\.isNumber) else { return .none }
            if n == 0 || size == 0 { return .unsatisfiable }
            return .range(max(0, size - n)...(size - 1))
        }
        guard let start = Int64(a), a.allSatisfy(\.isNumber) else { return .none }
        if start >= size { return .unsatisfiable }
        if b.isEmpty { return .range(start...(size - 1)) }
        guard let end = Int64(b), b.allSatisfy(\.isNumber), end >= start else { return .none }
        return .range(start...min(end, size - 1))
    }
}
