import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TrailPackBlocking
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackDiff
import TrailPackVerifier

/// The publishing workflow under `/v1/admin` (every route needs a token; each checks its role):
/// uploads through `PackageIntake`, a version's state, the transitions (start, approve with an
/// optional signature, deny, push, withdraw, rescan), confirmations and the audit log.
public struct PublishingController: Sendable {
    let catalog: any CatalogStore
    let blobs: any BlobStore
    let configuration: ServerConfiguration
    /// Where uploads are received (its `tmp/`).
    let folder: DataFolder
    let intake: PackageIntake
    let scans: ScanQueue
    /// Blocking work (a signature's prehash reads the whole package).
    let pool: BlockingPool
    /// The review loop's notices by mail (`--smtp`).
    let mail: ReviewMail?

    /// The controller of `server`'s publishing routes (and the panel's approval signatures).
    public init(server: TrailPackServer) {
        catalog = server.catalog
        mail = server.mail
        blobs = server.store
        configuration = server.configuration
        folder = server.folder
        intake = server.intake
        scans = server.scans
        pool = server.pool
    }

    func addRoutes(to routes: Routes) {
        routes.post("/packages") { request, context in try await upload(request, context) }
        routes.get("/packages/:id/versions/:version") { request, context in try await state(request, context) }
        routes.get("/packages/:id/versions/:version/diff") { request, context in try await diff(request, context) }
        routes.post("/packages/:id/versions/:version/:action") { request, context in
            try await transition(request, context)
        }
        routes.get("/confirmations") { request, context in try await confirmations(request, context) }
        routes.get("/audit") { request, context in try await audit(request, context) }
    }

    /// The state of a version that exists (it was just moved or read): a 404 if it vanished meanwhile.
    func requireState(_ id: String, _ version: String) async throws -> Catalog.VersionState {
        guard let state = try await catalog.state(package: id, version: version) else {
            throw ServerError.notFound("no version \(ServerError.short(version)) of '\(ServerError.short(id))'")
        }
        return state
    }

    func upload(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let uploader = try context.require([.publisher, .admin])
        let limit = configuration.maxUploadBytes
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > limit {
            throw ServerError.tooLarge(limit)
        }
        let folder = try folder.temporaryFolder()
        let temp = folder + "/" + BlobNames.uploadFileName
        defer {
            unlink(temp)  // gone already when the intake stored it
            rmdir(folder)
        }
        let sink = try UploadSink(path: temp, limit: limit, pool: pool)
        do {
            for try await buffer in request.body { try await sink.write(buffer) }
        } catch let error as ServerError {
            throw error
        } catch let error as BlockingPool.Busy {
            throw error  // the server's doing: 503 with Retry-After
        } catch {
            // Reading the body failed: the client's doing (aborted, cut short, too slow, malformed).
            throw ServerError.clientFault(error) ?? ServerError.clientClosedUpload(error)
        }
        if let length = request.headers[.contentLength].flatMap(Int64.init), length != sink.size {
            throw ServerError(
                .badRequest, .clientClosed,
                "the upload ended after \(sink.size) of the \(length) bytes it announced; send it again")
        }
        try await sink.finish()
        let result = try await intake.ingest(folder: folder, by: uploader)
        return try .json(
            UploadResponse(
                stored: result.stored, message: result.message, package: CatalogController.entry(result.summary),
                state: stateResponse(result.state, id: result.manifest.id, version: result.manifest.version)),
            status: result.stored ? .created : .ok)
    }

    /// What changed from the latest released version (or `?against=VERSION`) to this one, as the
    /// reviewer's page shows it: built from the manifests stored at upload, which are the packages' own.
    func diff(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.require([.publisher, .reviewer, .admin])
        let id = try context.parameters.require("id"), version = try context.parameters.require("version")
        guard let record = try await catalog.version(package: id, version: version, releasedOnly: false) else {
            throw ServerError.notFound("no version \(ServerError.short(version)) of '\(ServerError.short(id))'")
        }
        let (summary, manifestText) = (record.summary, record.manifest)
        if user.role == .publisher, try await catalog.state(package: id, version: version)?.uploadedBy != user.name {
            throw ServerError(
                .forbidden, .forbidden,
                "'\(user.name)' may compare only their own versions; reviewers and admins compare any")
        }
        var older: Catalog.RegisteredVersion?
        if let against = request.uri.queryParameters.get("against") {
            guard let found = try await catalog.version(package: id, version: against, releasedOnly: false) else {
                throw ServerError.notFound(
                    "no version \(ServerError.short(against)) of '\(ServerError.short(id))' to compare with")
            }
            older = found
        } else if let latest = try await catalog.versions(package: id).first(where: { $0.version != summary.version }) {
            older = try await catalog.version(package: id, version: latest.version, releasedOnly: true)
        }
        guard let newManifest = ManifestReader.read(Array(manifestText.utf8)).manifest else {
            throw ServerError.internal("the stored manifest of version \(ServerError.short(version)) cannot be read")
        }
        let oldManifest = older.flatMap { ManifestReader.read(Array($0.manifest.utf8)).manifest }
        let diff = PackageDiff(
            old: oldManifest, new: newManifest, oldPackage: older.map { ($0.summary.sha256, $0.summary.size) },
            newPackage: (summary.sha256, summary.size))
        return try .json(diff)
    }

    func confirmations(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        _ = try context.require([.admin, .reviewer, .publisher])
        return try .json(ConfirmationsResponse(confirmations: try await catalog.confirmations()))
    }

    func audit(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        _ = try context.require([.admin, .reviewer])
        let after = request.uri.queryParameters.get("after").flatMap(Int64.init) ?? 0
        let entries = try await catalog.auditLog(after: after, limit: 500)
        return try .json(AuditResponse(entries: entries.map { AuditResponse.Entry(entry: $0) }))
    }
}

extension PublishingController {
    func stateResponse(_ s: Catalog.VersionState, id: String, version: String) -> VersionStateResponse {
        VersionStateResponse(
            status: s.status, uploadedBy: s.uploadedBy, approvals: s.approvals,
            required: configuration.approvals,
            scan: .init(status: s.scanStatus, detail: s.scanDetail), next: nextActions(s, id: id, version: version))
    }

    /// What can happen to a version next, and who does it, in words with the request to send.
    func nextActions(_ s: Catalog.VersionState, id: String, version: String) -> [String] {
        let path = "/v1/admin/packages/\(id)/versions/\(version)"
        var next: [String] = []
        if s.scanStatus == .held {
            next.append(
                "the malware scan holds this version (\(s.scanDetail)): once the scanner works, upload the same bytes again, or an admin rescans it (POST \(path)/rescan, or 'trailpack admin rescan --held')"
            )
        }
        switch s.status {
        case .draft: next.append("\(s.uploadedBy) opens the publish request: POST \(path)/start")
        case .pending:
            next.append(
                "reviewers approve (\(s.approvals.count) of \(configuration.approvals) so far) or deny: POST \(path)/approve or \(path)/deny"
            )
            next.append("preview it with a reviewer's token: GET /v1/packages/\(id)/versions/\(version)/manifest")
        case .ready:
            next.append(
                "\(s.uploadedBy) releases it: POST \(path)/push\(s.scanStatus == .held ? " (refused while the scan holds it)" : "")"
            )
        case .released:
            next.append("it is public: GET /v1/packages/\(id); an admin can withdraw it: POST \(path)/withdraw")
        case .damaged:
            next.append(
                "its stored file is damaged and out of service: restore it from a backup, or upload a new version")
        case .withdrawn: next.append("an admin withdrew it; upload a new version to publish again")
        }
        return next
    }

    func state(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        _ = try context.require([.publisher, .reviewer, .admin])
        let id = try context.parameters.require("id"), version = try context.parameters.require("version")
        guard let s = try await catalog.state(package: id, version: version) else {
            throw ServerError.notFound("no version \(ServerError.short(version)) of '\(ServerError.short(id))'")
        }
        return try .json(stateResponse(s, id: id, version: version))
    }

    /// startPublish, approvePublish, denyPublish, pushPublish, and withdraw.
    func transition(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id"), version = try context.parameters.require("version")
        let action = try context.parameters.require("action")
        if action == "rescan" { return try await rescan(request, context, id: id, version: version) }
        guard let transition = Catalog.Transition(rawValue: action) else {
            throw ServerError.notFound(
                "no action '\(ServerError.short(action))'; the actions are start, approve, deny, push, withdraw and rescan"
            )
        }
        let user = try context.require([.publisher, .reviewer, .admin])
        var signature: String?
        if transition == .approve {
            // The bootstrap token is a key to the server, not a person: it cannot vouch for a package.
            if context.isBootstrap {
                throw ServerError(
                    .forbidden, .forbidden,
                    "the bootstrap admin token (--admin-token-file) cannot approve; approve with a reviewer's own token ('trailpack admin token issue')"
                )
            }
            var body = try await request.body.collect(upTo: 16 << 10)
            if body.readableBytes > 0, let bytes = body.readBytes(length: body.readableBytes) {
                guard let doc = try? JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 16 << 10)).value,
                    case .string(let text)? = doc["signature"]
                else {
                    throw ServerError.badRequest("send no body, or {\"signature\": \"<the .minisig file's text>\"}")
                }
                try await checkApprovalSignature(text, package: id, version: version, user: user)
                signature = text
            }
        }
        // A denial or a withdrawal may say why: {"reason": "…"} (shown to the publisher, audited).
        var reason: String?
        if transition == .deny || transition == .withdraw {
            var body = try await request.body.collect(upTo: 16 << 10)
            if body.readableBytes > 0, let bytes = body.readBytes(length: body.readableBytes) {
                guard let doc = try? JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 16 << 10)).value,
                    case .string(let text)? = doc["reason"]
                else {
                    throw ServerError.badRequest("send no body, or {\"reason\": \"why, for the publisher\"}")
                }
                reason = text
            }
        }
        if transition == .start { try await refuseUnready(id, version) }
        let required = configuration.approvals, chosen = signature
        let outcome = try await catalog.apply(
            transition, package: id, version: version, by: user, required: required, signature: chosen, reason: reason)
        switch outcome {
        case .notFound:
            throw ServerError.notFound("no version \(ServerError.short(version)) of '\(ServerError.short(id))'")
        case .forbidden(let why): throw ServerError(.forbidden, .forbidden, why)
        case .illegal(let current, let why):
            throw ServerError(.conflict, .illegalTransition, "cannot \(action): \(why) (current state: \(current))")
        case .moved:
            mail?.after(transition, outcome: outcome, package: id, version: version, by: user, reason: reason)
            return try .json(stateResponse(try await requireState(id, version), id: id, version: version))
        }
    }

    /// Refuses a review request for a version whose stored manifest has findings that block review
    /// (``Finding/Severity/blocksReview``): the same rule the panel shows on its pages.
    func refuseUnready(_ id: String, _ version: String) async throws {
        guard let text = try await catalog.version(package: id, version: version, releasedOnly: false)?.manifest,
            let manifest = ManifestReader.read(Array(text.utf8)).manifest
        else { return }  // no such version: the transition says so
        let blockers = ManifestValidator.validate(manifest).blockingReview
        guard !blockers.isEmpty else { return }
        throw ServerError(
            .unprocessableContent, .notReadyForReview,
            "version \(ServerError.short(version)) is not ready for review: \(blockers.map(\.message).joined(separator: "; ")). "
                + "Fix it in the tour (or write the stop's accessibility waiver), build a new version and request review of that",
            findings: blockers)
    }

    /// An admin scans a stored version again (after the scanner was fixed); the verdict replaces the old one.
    func rescan(_ request: Request, _ context: AppRequestContext, id: String, version: String) async throws -> Response
    {
        let user = try context.require([.admin])
        guard let summary = try await catalog.version(package: id, version: version, releasedOnly: false)?.summary
        else {
            throw ServerError.notFound("no version \(ServerError.short(version)) of '\(ServerError.short(id))'")
        }
        let verdict = await scans.scan(
            path: try await blobs.localFile(for: try BlobNames.digest(summary.sha256)), sha256: summary.sha256,
            engine: configuration.scanner)
        let state = MalwareScanner.catalogState(verdict)
        let (status, detail) = (state.status, state.detail)
        try await catalog.recordRescan(package: id, version: version, status: status, detail: detail, actor: user.name)
        return try .json(stateResponse(try await requireState(id, version), id: id, version: version))
    }

    /// The reviewer's signature of the stored version (``ApprovalSignatures/check(_:package:version:user:)``).
    public func checkApprovalSignature(
        _ text: String, package id: String, version: String, user: Catalog.User
    ) async throws {
        try await ApprovalSignatures(catalog: catalog, blobs: blobs, pool: pool).check(
            text, package: id, version: version, user: user)
    }
}
