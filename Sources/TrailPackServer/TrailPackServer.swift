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
    /// Verifies uploads in a limited child process (`trailpack serve` sets it); nil: in this process.
    public var containedVerifier: ContainedVerifier?

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
    /// The data folder, locked for as long as this server lives.
    public let folder: DataFolder
    let logger: Logger

    /// Opens the data folder (creating and marking a new or empty one, taking its lock, migrating
    /// the catalog) and removes what interrupted uploads left in `tmp/` — nothing else.
    ///
    /// Blobs are never deleted here: blobs without a catalog, or unknown to it (an older catalog
    /// restored next to newer blobs), refuse the start with the fix (`trailpack admin gc`).
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "trailpack.server")) throws {
        self.configuration = configuration
        self.logger = logger
        folder = try DataFolder(path: configuration.dataDirectory, create: true, access: .exclusive)
        for path in folder.removeOwnTemporaryFiles() {
            logger.notice("removed what an interrupted upload left", metadata: ["path": "\(path)"])
        }
        let blobs = folder.blobsOnDisk()
        let data = folder.root
        if !folder.catalogExists && !blobs.isEmpty {
            throw ServerError.dataFolder("'\(data)/blobs' holds \(blobs.count) packages but there is no '\(data)/catalog.sqlite'; nothing was changed. Put back the catalog that belongs to these blobs (from your backup), or move the blobs out of service with 'trailpack admin gc --data \(data)' and start with an empty catalog")
        }
        catalog = try Catalog(path: folder.catalogPath)
        let known = try catalog.blobHashes()
        let orphans = blobs.filter { !known.contains($0) }
        if !orphans.isEmpty {
            throw ServerError.dataFolder("\(orphans.count) packages in '\(data)/blobs' are not in the catalog (an older catalog next to newer blobs?); nothing was changed. Put back the newer catalog, or list them with 'trailpack admin gc --dry-run --data \(data)' and move them to '\(data)/quarantine' with 'trailpack admin gc --data \(data)'")
        }
        store = try BlobStore(root: data)
        if configuration.adminTokenHash != nil { try catalog.ensureUser(name: "admin", role: .admin) }
    }

    /// Takes a damaged blob out of service: logged, moved to `quarantine/`, its versions marked
    /// damaged (no longer listed or served), audited.
    public func takeOutOfService(sha256: String, reason: String) {
        logger.error("a stored package is damaged; taking it out of service", metadata: ["sha256": "\(sha256)", "reason": "\(TerminalText.escaped(reason))"])
        var detail = reason
        do {
            let moved = try folder.quarantine(sha256: sha256, reason: reason)
            detail += "; moved to \(moved)"
        } catch {
            detail += "; not moved: \(error)"
        }
        do { try catalog.markDamaged(sha256: sha256, reason: detail, actor: "server") } catch {
            logger.error("cannot mark a damaged package in the catalog", metadata: ["sha256": "\(sha256)", "error": "\(error)"])
        }
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
        if let (_, manifest) = try catalog.version(package: id, version: version) {
            return Response(status: .ok, headers: API.json, body: .init(byteBuffer: ByteBuffer(string: manifest)))
        }
        // A version under review: its reviewers and its publisher preview it with their token.
        if let version, try reviewAccess(request, package: id, version: version) != nil,
           let (_, manifest) = try catalog.version(package: id, version: version, releasedOnly: false) {
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "private, no-store"], body: .init(byteBuffer: ByteBuffer(string: manifest)))
        }
        throw ServerError.notFound(version.map { "no released version \($0) of '\(id)'" } ?? "no released package '\(id)'")
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
        var size: Int64
        var underReview = false
        if let released = try catalog.isReleasedBlob(sha) {
            size = released
        } else if let version = try reviewAccess(request, sha256: sha) {
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
        if let base = server.configuration.downloadBaseURL, !underReview {
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
        // The file must be the size the catalog recorded: a truncated or grown blob is never sent
        // (its Content-Length would be a lie, and the client would wait for bytes that never come).
        var info = stat()
        let onDisk: Int64? = stat(path, &info) == 0 ? Int64(info.st_size) : nil
        guard onDisk == size else {
            let reason = onDisk.map { "the stored file has \($0) bytes, the catalog says \(size)" } ?? "the stored file is missing (\(String(cString: strerror(errno))))"
            server.takeOutOfService(sha256: sha, reason: reason)
            throw ServerError.internal("the package with SHA-256 \(sha) is damaged on this server and was taken out of service; the operator has been told")
        }
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

    /// Whether the request carries the bootstrap admin token (`--admin-token-file`).
    func isBootstrap(_ request: Request) -> Bool {
        guard let bootstrap = server.configuration.adminTokenHash, let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return false }
        return SHA256.hash(Array(header.dropFirst(7).utf8)) == bootstrap
    }

    /// A reviewer, an admin, or the publisher who uploaded it may fetch a version that is not released
    /// (to review it) with their token. Nil: the request carries no token; 401/403/404 otherwise.
    func reviewAccess(_ request: Request, sha256: String? = nil, package id: String? = nil, version: String? = nil) throws -> Catalog.PackageSummary? {
        guard request.headers[.authorization] != nil else { return nil }
        let user = try authenticate(request, roles: [.publisher, .reviewer, .admin])
        let candidates = try catalog.unreleased(sha256: sha256, package: id, version: version)
        guard let match = candidates.first(where: { user.role != .publisher || $0.uploadedBy == user.name }) else {
            if candidates.isEmpty { return nil }
            throw ServerError(.forbidden, "forbidden", "'\(user.name)' may fetch only their own versions under review")
        }
        return match.summary
    }

    func upload(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let uploader = try authenticate(request, roles: [.publisher, .admin])
        let actor = uploader.name
        let limit = server.configuration.maxUploadBytes
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > limit { throw ServerError.tooLarge(limit) }
        let folder = try server.store.temporaryFolder()
        let temp = folder + "/" + BlobStore.uploadFileName
        var committed = false
        defer {
            if !committed { unlink(temp) }
            rmdir(folder)
        }
        let sink = try UploadSink(path: temp, limit: limit)
        for try await buffer in request.body {
            try buffer.withUnsafeReadableBytes { try sink.write($0) }
        }
        try sink.finish()
        // Verification reads the whole file: keep it off the cooperative pool (and, with a
        // contained verifier, out of this process: a package that crashes it costs one 422).
        let valid: Bool, digest: SHA256Digest, reportManifest: Manifest?, findings: [Finding]
        switch try await verify(folder: folder) {
        case .report(let v, let d, let m, let f): (valid, digest, reportManifest, findings) = (v, d, m, f)
        case .failed(let reason):
            let finding = Finding(.serverVerifierFailed, "\(reason); the package was not stored. If it is a package you built, run 'trailpack verify' on it and report the crash")
            server.logger.error("the contained verifier failed on an upload", metadata: ["reason": "\(TerminalText.escaped(reason))", "by": "\(TerminalText.escaped(actor))"])
            try? catalog.audit(actor: actor, action: "upload-refused", id: nil, version: nil, sha256: nil, detail: "verifier failed: \(reason)")
            throw ServerError(.unprocessableContent, "invalid-package", "the package could not be verified; nothing was stored", findings: [finding])
        }
        guard valid, let manifest = reportManifest else {
            try? catalog.audit(actor: actor, action: "upload-refused", id: reportManifest?.id, version: reportManifest?.version, sha256: digest.hex,
                               detail: "\(findings.filter { $0.severity == .error }.count) findings")
            throw ServerError(.unprocessableContent, "invalid-package", "the package is not valid; nothing was stored", findings: findings)
        }
        // Text left from `trailpack init`'s template must not reach visitors.
        let template = TemplateText.fields(in: manifest)
        if !template.isEmpty {
            let why = "the package still holds the template's text in: \(template.joined(separator: ", ")); write the real text in the tour folder, build again and upload that"
            try? catalog.audit(actor: actor, action: "upload-refused", id: manifest.id, version: manifest.version, sha256: digest.hex, detail: "template text")
            throw ServerError(.unprocessableContent, "template-text", why)
        }
        if let why = try catalog.uploadRefusal(user: uploader, package: manifest.id, site: manifest.site.id) {
            try? catalog.audit(actor: actor, action: "upload-refused", id: manifest.id, version: manifest.version, sha256: digest.hex, detail: why)
            throw ServerError(.forbidden, "forbidden", why)
        }
        let scanner = MalwareScanner(engine: server.configuration.scanner)
        let verdict: MalwareScanner.Verdict = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: scanner.scan(temp)) }
        }
        if case .infected(let signature) = verdict {
            try? catalog.audit(actor: actor, action: "upload-refused", id: manifest.id, version: manifest.version, sha256: digest.hex, detail: "malware: \(signature)")
            throw ServerError(.unprocessableContent, "malware", "the malware scan found \(signature); nothing was stored")
        }
        // Recorded before it is renamed into place: a blob on disk is never unknown to the catalog.
        try catalog.recordBlob(sha256: digest.hex, size: sink.size)
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
        if case .notScanned = verdict, outcome == .created {
            try catalog.setScan(package: manifest.id, version: manifest.version, status: "not-scanned", detail: Catalog.notScannedDetail)
            try catalog.audit(actor: actor, action: "scan-skipped", id: manifest.id, version: manifest.version, sha256: digest.hex, detail: Catalog.notScannedDetail)
        }
        if outcome == .unchanged, let state = try catalog.state(package: manifest.id, version: manifest.version), state.scanStatus == "held" {
            // The same bytes again: the new scan replaces the held one (the scanner may work now).
            let (status, detail) = MalwareScanner.catalogState(verdict)
            try catalog.recordRescan(package: manifest.id, version: manifest.version, status: status, detail: detail, actor: actor)
        }
        switch outcome {
        case .created, .unchanged:
            // The answer says what happened: the state, the scan's verdict and reason, what comes next.
            let summary = try catalog.version(package: manifest.id, version: manifest.version, releasedOnly: false)!.0
            let state = try catalog.state(package: manifest.id, version: manifest.version)!
            let message = outcome == .created ? "stored as \(state.status)" : "this version is already stored with the same bytes (\(state.status)); nothing else changed"
            return respond(.object(["stored": .bool(outcome == .created), "message": .string(message), "package": summaryJSON(summary),
                                    "state": stateJSON(state, id: manifest.id, version: manifest.version)]),
                           status: outcome == .created ? .created : .ok)
        case .conflict(let existingVersion, let existing):
            // The bytes stay, recorded; 'trailpack admin gc' lists blobs no version refers to.
            let same = existingVersion == manifest.version ? "version \(existingVersion)" : "version \(existingVersion) (the same version as \(manifest.version))"
            throw ServerError(.conflict, "version-exists", "\(same) of '\(manifest.id)' is already published with SHA-256 \(existing); publish a new version number instead")
        }
    }

    /// Verifies `folder`'s upload: in a contained child process when the server has one, else here.
    func verify(folder: String) async throws -> ContainedVerifier.Outcome {
        let contained = server.configuration.containedVerifier
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    if let contained { return contained.verify(file: BlobStore.uploadFileName, in: folder) }
                    let report = try Verifier.verify(path: folder + "/" + BlobStore.uploadFileName)
                    return .report(valid: report.isValid, sha256: report.sha256, manifest: report.manifest, findings: report.findings)
                })
            }
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
    func stateJSON(_ s: Catalog.VersionState, id: String, version: String) -> JSONValue {
        .object([
            "status": .string(s.status), "uploadedBy": .string(s.uploadedBy), "approvals": .array(s.approvals.map { .string($0) }),
            "required": .number(JSONNumber(Int64(server.configuration.approvals))),
            "scan": .object(["status": .string(s.scanStatus), "detail": .string(s.scanDetail)]),
            "next": .array(nextActions(s, id: id, version: version).map { .string($0) }),
        ])
    }

    /// What can happen to a version next, and who does it, in words with the request to send.
    func nextActions(_ s: Catalog.VersionState, id: String, version: String) -> [String] {
        let path = "/v1/admin/packages/\(id)/versions/\(version)"
        var next: [String] = []
        if s.scanStatus == "held" {
            next.append("the malware scan holds this version (\(s.scanDetail)): once the scanner works, upload the same bytes again, or an admin rescans it (POST \(path)/rescan, or 'trailpack admin rescan --held')")
        }
        switch s.status {
        case "draft": next.append("\(s.uploadedBy) opens the publish request: POST \(path)/start")
        case "pending":
            next.append("reviewers approve (\(s.approvals.count) of \(server.configuration.approvals) so far) or deny: POST \(path)/approve or \(path)/deny")
            next.append("preview it with a reviewer's token: GET /v1/packages/\(id)/versions/\(version)/manifest")
        case "ready": next.append("\(s.uploadedBy) releases it: POST \(path)/push\(s.scanStatus == "held" ? " (refused while the scan holds it)" : "")")
        case "released": next.append("it is public: GET /v1/packages/\(id); an admin can withdraw it: POST \(path)/withdraw")
        case "damaged": next.append("its stored file is damaged and out of service: restore it from a backup, or upload a new version")
        default: break
        }
        return next
    }

    func state(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        _ = try authenticate(request, roles: [.publisher, .reviewer, .admin])
        let id = try context.parameters.require("id"), version = try context.parameters.require("version")
        guard let s = try catalog.state(package: id, version: version) else { throw ServerError.notFound("no version \(version) of '\(id)'") }
        return respond(stateJSON(s, id: id, version: version))
    }

    /// startPublish, approvePublish, denyPublish, pushPublish, and withdraw.
    func transition(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.parameters.require("id"), version = try context.parameters.require("version")
        let action = try context.parameters.require("action")
        if action == "rescan" { return try await rescan(request, id: id, version: version) }
        guard let transition = Catalog.Transition(rawValue: action) else {
            throw ServerError.notFound("no action '\(action)'; the actions are start, approve, deny, push, withdraw and rescan")
        }
        let user = try authenticate(request, roles: [.publisher, .reviewer, .admin])
        var signature: String?
        if transition == .approve {
            // The bootstrap token is a key to the server, not a person: it cannot vouch for a package.
            if isBootstrap(request) {
                throw ServerError(.forbidden, "forbidden", "the bootstrap admin token (--admin-token-file) cannot approve; approve with a reviewer's own token ('trailpack admin token issue')")
            }
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
            return respond(stateJSON(try catalog.state(package: id, version: version)!, id: id, version: version))
        }
    }

    /// An admin scans a stored version again (after the scanner was fixed); the verdict replaces the old one.
    func rescan(_ request: Request, id: String, version: String) async throws -> Response {
        let user = try authenticate(request, roles: [.admin])
        guard let (summary, _) = try catalog.version(package: id, version: version, releasedOnly: false) else { throw ServerError.notFound("no version \(version) of '\(id)'") }
        let scanner = MalwareScanner(engine: server.configuration.scanner)
        let path = server.store.path(for: summary.sha256)
        let verdict: MalwareScanner.Verdict = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: scanner.scan(path)) }
        }
        let (status, detail) = MalwareScanner.catalogState(verdict)
        try catalog.recordRescan(package: id, version: version, status: status, detail: detail, actor: user.name)
        return respond(stateJSON(try catalog.state(package: id, version: version)!, id: id, version: version))
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
