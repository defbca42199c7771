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
    /// How many distinct reviewers must approve a version before its publisher may release it.
    /// 0: an upload by a publisher is released at once (a single-operator server).
    public var approvals: Int
    /// How uploads are scanned for malware.
    public var scanner: MalwareScanner.Engine

    public static let defaultApprovals = 2

    public init(dataDirectory: String, host: String = "127.0.0.1", port: Int = 8080, adminToken: String? = nil,
                maxUploadBytes: Int64 = 16 << 30, downloadBaseURL: String? = nil, approvals: Int = ServerConfiguration.defaultApprovals,
                scanner: MalwareScanner.Engine = .clamscan(database: nil)) {
        self.approvals = approvals
        self.scanner = scanner
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
        if configuration.adminTokenHash != nil { try catalog.ensureUser(name: "admin", role: .admin) }
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
        router.get("/v1/admin/packages/:id/versions/:version") { request, context in try api.state(request, context) }
        router.post("/v1/admin/packages/:id/versions/:version/:action") { request, context in try await api.transition(request, context) }
        router.get("/v1/packages/:id/versions/:version/signatures") { request, context in try api.signatures(request, context) }
        router.get("/v1/packages/:id/versions/:version/tiles/:z/:x/:y") { request, context in try await api.tile(request, context) }
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

    /// The user behind the request's bearer token: the bootstrap admin token (`--admin-token-file`),
    /// or a token issued with `trailpack admin token issue`. 401 without a valid one, 403 without a role in `roles`.
    func authenticate(_ request: Request, roles: Set<Catalog.Role>) throws -> Catalog.User {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            var e = ServerError(.unauthorized, "unauthorized", "send 'Authorization: Bearer <token>'")
            e.headers[.wwwAuthenticate] = "Bearer"
            throw e
        }
        let token = String(header.dropFirst(7))
        var user: Catalog.User?
        if let bootstrap = server.configuration.adminTokenHash, SHA256.hash(Array(token.utf8)) == bootstrap {
            user = Catalog.User(name: "admin", role: .admin, publicKey: nil)
        } else {
            user = try catalog.authenticate(token: token)
        }
        guard let user else {
            var e = ServerError(.unauthorized, "unauthorized", "the token is not valid (or was revoked)")
            e.headers[.wwwAuthenticate] = "Bearer error=\"invalid_token\""
            throw e
        }
        guard roles.contains(user.role) else {
            throw ServerError(.forbidden, "forbidden", "'\(user.name)' is a \(user.role.rawValue); this needs the \(roles.map(\.rawValue).sorted().joined(separator: " or ")) role")
        }
        return user
    }

    func upload(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let actor = try authenticate(request, roles: [.publisher, .admin]).name
        let limit = server.configuration.maxUploadBytes
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > limit { throw ServerError.tooLarge(limit) }
        let temp = server.store.temporaryPath()
        var committed = false
        defer { if !committed { unlink(temp) } }
        let sink = try UploadSink(path: temp, limit: limit)
        for try await buffer in request.body {
            try buffer.withUnsafeReadableBytes { try sink.write($0) }
        }
        try sink.finish()
        // Verification reads the whole file: keep it off the cooperative pool.
        let report: VerificationReport = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try Verifier.verify(path: temp) }) }
        }
        let digest = report.sha256
        guard report.isValid, let manifest = report.manifest else {
            try? catalog.audit(actor: actor, action: "upload-refused", id: report.manifest?.id, version: report.manifest?.version, sha256: digest.hex,
                               detail: "\(report.findings.filter { $0.severity == .error }.count) findings")
            throw ServerError(.unprocessableContent, "invalid-package", "the package is not valid; nothing was stored", findings: report.findings)
        }
        let scanner = MalwareScanner(engine: server.configuration.scanner)
        let verdict: MalwareScanner.Verdict = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: scanner.scan(temp)) }
        }
        if case .infected(let signature) = verdict {
            try? catalog.audit(actor: actor, action: "upload-refused", id: manifest.id, version: manifest.version, sha256: digest.hex, detail: "malware: \(signature)")
            throw ServerError(.unprocessableContent, "malware", "the malware scan found \(signature); nothing was stored")
        }
        try server.store.commit(temporary: temp, sha256: digest.hex)
        committed = true
        let manifestJSON = JSONWriter.string(manifest.jsonValue)
        var initial = server.configuration.approvals == 0 ? "released" : "draft"
        if case .held = verdict { initial = "draft" }
        let outcome = try catalog.register(manifest: manifest, manifestJSON: manifestJSON, sha256: digest.hex, size: sink.size, actor: actor, status: initial)
        if case .held(let reason) = verdict, outcome == .created {
            try catalog.setScan(package: manifest.id, version: manifest.version, status: "held", detail: reason)
            try catalog.audit(actor: actor, action: "scan-held", id: manifest.id, version: manifest.version, sha256: digest.hex, detail: reason)
        }
        switch outcome {
        case .created:
            return respond(.object(["stored": .bool(true), "package": summaryJSON(try catalog.version(package: manifest.id, version: manifest.version, releasedOnly: false)!.0)]), status: .created)
        case .unchanged:
            return respond(.object(["stored": .bool(false), "message": .string("this version is already held with the same bytes"),
                                    "package": summaryJSON(try catalog.version(package: manifest.id, version: manifest.version, releasedOnly: false)!.0)]))
        case .conflict(let existing):
            // The bytes stay only if another version refers to them; the next start collects them otherwise.
            throw ServerError(.conflict, "version-exists", "version \(manifest.version) of '\(manifest.id)' is already published with SHA-256 \(existing); publish a new version number instead")
        }
    }

    func confirmations(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        _ = try authenticate(request, roles: [.admin, .reviewer, .publisher])
        return respond(.object(["confirmations": .array(try catalog.confirmations().map {
            .object(["id": .string($0.id), "version": .string($0.version), "match": .number(JSONNumber(Int64($0.match))), "mismatch": .number(JSONNumber(Int64($0.mismatch)))])
        })]))
    }

    func audit(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        _ = try authenticate(request, roles: [.admin, .reviewer])
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

extension API {
    func stateJSON(_ s: Catalog.VersionState) -> JSONValue {
        .object([
            "status": .string(s.status), "uploadedBy": .string(s.uploadedBy), "approvals": .array(s.approvals.map { .string($0) }),
            "required": .number(JSONNumber(Int64(server.configuration.approvals))),
            "scan": .object(["status": .string(s.scanStatus), "detail": .string(s.scanDetail)]),
        ])
    }

    func state(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        _ = try authenticate(request, roles: [.publisher, .reviewer, .admin])
        let id = try context.parameters.require("id"), version = try context.parameters.require("version")
        guard let s = try catalog.state(package: id, version: version) else { throw ServerError.notFound("no version \(version) of '\(id)'") }
        return respond(stateJSON(s))
    }

    /// startPublish, approvePublish, denyPublish, pushPublish, and withdraw.
    func transition(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.parameters.require("id"), version = try context.parameters.require("version")
        let action = try context.parameters.require("action")
        guard let transition = Catalog.Transition(rawValue: action) else {
            throw ServerError.notFound("no action '\(action)'; the actions are start, approve, deny, push and withdraw")
        }
        let user = try authenticate(request, roles: [.publisher, .reviewer, .admin])
        var signature: String?
        if transition == .approve {
            var body = try await request.body.collect(upTo: 16 << 10)
            if body.readableBytes > 0, let bytes = body.readBytes(length: body.readableBytes) {
                guard let doc = try? JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 16 << 10)).value, case .string(let text)? = doc["signature"] else {
                    throw ServerError.badRequest("send no body, or {\"signature\": \"<the .minisig file's text>\"}")
                }
                try checkApprovalSignature(text, package: id, version: version, user: user)
                signature = text
            }
        }
        switch try catalog.apply(transition, package: id, version: version, by: user, required: server.configuration.approvals, signature: signature) {
        case .notFound: throw ServerError.notFound("no version \(version) of '\(id)'")
        case .forbidden(let why): throw ServerError(.forbidden, "forbidden", why)
        case .illegal(let current, let why): throw ServerError(.conflict, "illegal-transition", "cannot \(action): \(why) (current state: \(current))")
        case .moved:
            return respond(stateJSON(try catalog.state(package: id, version: version)!))
        }
    }

    /// An approval's signature must be the reviewer's registered key's valid signature of exactly these bytes.
    func checkApprovalSignature(_ text: String, package id: String, version: String, user: Catalog.User) throws {
        guard let keyText = user.publicKey, let key = try? Minisign.PublicKey(fileText: keyText) else {
            throw ServerError(.unprocessableContent, "no-public-key", "'\(user.name)' has no public key registered; add one with 'trailpack admin user add --public-key'")
        }
        guard let (summary, manifestText) = try catalog.version(package: id, version: version, releasedOnly: false) else {
            throw ServerError.notFound("no version \(version) of '\(id)'")
        }
        let prehash = try Minisign.prehash(path: server.store.path(for: summary.sha256))
        let manifest = ManifestReader.read(Array(manifestText.utf8)).manifest
        let result = SignatureCheck.check(signatures: [.init(name: "approval", text: text)], trustedKeys: [key], threshold: 1, prehash: prehash,
                                          manifest: manifest, sha256: SHA256Digest(hex: summary.sha256)!)
        guard result.findings.isEmpty else {
            throw ServerError(.unprocessableContent, "bad-signature", "the approval's signature is not \(user.name)'s valid signature of this package", findings: result.findings)
        }
    }

    func signatures(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let id = try context.parameters.require("id"), version = try context.parameters.require("version")
        guard try catalog.version(package: id, version: version) != nil else { throw ServerError.notFound("no released version \(version) of '\(id)'") }
        let list = try catalog.approvalSignatures(package: id, version: version)
        return respond(.object(["signatures": .array(list.map { .object(["reviewer": .string($0.reviewer), "minisig": .string($0.signature)]) })]))
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
