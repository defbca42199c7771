import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TrailPackBlocking
import TrailPackCatalogModel
import TrailPackCore

/// What the phone apps read: sites, a site's packages (paged), a package's versions, manifests,
/// reviewers' signatures and map tiles. Public for released versions; a version under review is
/// visible to its publisher, reviewers and admins with their token.
struct CatalogController {
    let catalog: any CatalogStore
    /// The public answers kept as bytes.
    let answers: PublicAnswerCache
    /// Where the packages are (a tile is read out of its package).
    let blobs: any BlobStore
    /// Where a tile is read (a read of the package may block).
    let pool: BlockingPool

    func addRoutes(to routes: Routes) {
        routes.get("/v1/sites") { request, context in try await sites(request, context) }
        routes.get("/v1/sites/:site/packages") { request, context in try await sitePackages(request, context) }
        routes.get("/v1/packages/:id") { request, context in try await package(request, context) }
        routes.get("/v1/packages/:id/manifest") { request, context in try await manifest(request, context) }
        routes.get("/v1/packages/:id/versions/:version/manifest") { request, context in
            try await manifest(request, context)
        }
        routes.get("/v1/packages/:id/versions/:version/signatures") { request, context in
            try await signatures(request, context)
        }
        routes.get("/v1/packages/:id/versions/:version/tiles/:z/:x/:y") { request, context in
            try await tile(request, context)
        }
    }

    /// The wire type the client decodes (TrailPackCore's `CatalogEntry`), from the catalog's row.
    static func entry(_ p: Catalog.PackageSummary) -> CatalogEntry {
        CatalogEntry(
            id: p.id, name: p.name, description: p.description, park: p.park, site: p.site, version: p.version,
            size: p.size, sha256: p.sha256,
            download: "/v1/blobs/\(p.sha256).zip", manifest: "/v1/packages/\(p.id)/versions/\(p.version)/manifest",
            confirm: "/v1/packages/\(p.id)/versions/\(p.version)/confirm")
    }

    /// A public answer: kept as bytes (with a strong ETag, 304 to a client that has it) until the
    /// catalog's public change count moves.
    /// `key` names the answer: the path, and the query parameters the route reads (others are
    /// ignored, so that made-up queries cannot fill the cache).
    func kept(
        _ request: Request, key: String? = nil, make: () async throws -> (ByteBuffer, String)
    ) async throws -> Response {
        let changes = catalog.publicChangeCount  // read first: a change while making is never kept as current
        let key = key ?? request.uri.path
        return try await answers.answer(key: key, request: request, changeCount: changes, make: make)
    }

    static func jsonBody(_ value: some Encodable) throws -> (ByteBuffer, String) {
        (ByteBuffer(bytes: JSONWriter.bytes(try JSONValueEncoder().encode(value))), "application/json")
    }

    func sites(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        try await kept(request) {
            let sites = try await catalog.sites()
            return try Self.jsonBody(
                CatalogSites(sites: sites.map { CatalogSite(id: $0.id, name: $0.name, packages: $0.packages) }))
        }
    }

    func sitePackages(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let site = try context.parameters.require("site")
        let limitText = request.uri.queryParameters.get("limit") ?? "50"
        guard let limit = Int(limitText), (1...500).contains(limit) else {
            throw ServerError.badRequest("limit must be a whole number from 1 to 500")
        }
        let after = request.uri.queryParameters.get("after")
        return try await kept(request, key: "\(request.uri.path)?limit=\(limit)&after=\(after ?? "")") {
            guard let page = try await catalog.sitePage(site: site, limit: limit, after: after) else {
                throw ServerError.notFound("no site '\(ServerError.short(site))'")
            }
            return try Self.jsonBody(
                CatalogPage(
                    site: site, packages: page.packages.map(Self.entry),
                    next: page.next.map { "/v1/sites/\(site)/packages?limit=\(limit)&after=\($0)" }))
        }
    }

    func package(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        return try await kept(request) {
            let versions = try await catalog.versions(package: id)
            guard let latest = versions.first else {
                throw ServerError.notFound("no released package '\(ServerError.short(id))'")
            }
            return try Self.jsonBody(CatalogVersions(latest: Self.entry(latest), versions: versions.map(Self.entry)))
        }
    }

    func manifest(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let version = context.parameters.get("version")
        struct NotReleased: Error {}
        do {
            return try await kept(request) {
                guard
                    let manifest = try await catalog.version(package: id, version: version, releasedOnly: true)?
                        .manifest
                else { throw NotReleased() }
                return (ByteBuffer(string: manifest), "application/json")
            }
        } catch is NotReleased {}
        // A version under review: its reviewers and its publisher preview it with their token.
        if let version, try await catalog.reviewAccess(context, package: id, version: version) != nil,
            let manifest = try await catalog.version(package: id, version: version, releasedOnly: false)?.manifest
        {
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "private, no-store"],
                body: .init(byteBuffer: ByteBuffer(string: manifest)))
        }
        throw ServerError.notFound(
            version.map { "no released version \(ServerError.short($0)) of '\(ServerError.short(id))'" }
                ?? "no released package '\(ServerError.short(id))'")
    }

    func signatures(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id"), version = try context.parameters.require("version")
        guard try await catalog.version(package: id, version: version, releasedOnly: true) != nil else {
            throw ServerError.notFound(
                "no released version \(ServerError.short(version)) of '\(ServerError.short(id))'")
        }
        let list = try await catalog.approvalSignatures(package: id, version: version)
        return try .json(
            ReviewerSignatures(signatures: list.map { ReviewerSignature(reviewer: $0.reviewer, minisig: $0.signature) })
        )
    }
}

extension CatalogStore {
    /// A reviewer, an admin, or the publisher who uploaded it may fetch a version that is not released
    /// (to review it) with their token. Nil: the request carries no token, or nothing matches; 403
    /// for a publisher asking for someone else's version.
    func reviewAccess(
        _ context: AppRequestContext, sha256: String? = nil, package id: String? = nil, version: String? = nil
    ) async throws -> Catalog.PackageSummary? {
        guard context.user != nil else { return nil }
        let user = try context.require([.publisher, .reviewer, .admin])
        let candidates = try await unreleased(sha256: sha256, package: id, version: version)
        guard let match = candidates.first(where: { user.role != .publisher || $0.uploadedBy == user.name }) else {
            if candidates.isEmpty { return nil }
            throw ServerError(.forbidden, .forbidden, "'\(user.name)' may fetch only their own versions under review")
        }
        return match.summary
    }
}
