import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The download server's public API (manifests/openapi.yaml): sites, packages, versions,
/// signatures and confirmations. Uses URLSession, so the same code runs on Linux and on Apple
/// platforms.
public struct CatalogClient: Sendable {
    /// The server's base URL, e.g. `https://tours.example.gov`.
    public let server: URL
    /// A bearer token: needed for versions under review, never sent for released ones' bytes
    /// to other hosts.
    public let token: String?
    let session: URLSession

    /// The largest JSON answer read (a catalog page, a manifest preview).
    public static let maxResponseBytes = 32 << 20

    /// A client of the trailpack server at `server` (for example `https://trails.example.org`).
    ///
    /// - Parameters:
    ///   - server: the server's base URL; the API paths (`/v1/...`) are added to it.
    ///   - token: a bearer token, needed only for versions still under review.
    ///   - session: the URLSession to use (FoundationNetworking's on Linux).
    public init(server: URL, token: String? = nil, session: URLSession = .shared) {
        self.server = server
        self.token = token
        self.session = session
    }

    /// Every site the server publishes packages for.
    public func sites() async throws(ClientError) -> [CatalogSite] {
        struct Page: Decodable { var sites: [CatalogSite] }
        return try await get("/v1/sites", as: Page.self).sites
    }

    /// Every package of `site` (all pages), newest version of each.
    public func packages(site: String) async throws(ClientError) -> [CatalogEntry] {
        struct Page: Decodable {
            var packages: [CatalogEntry]
            var next: String?
        }
        var out: [CatalogEntry] = []
        var path: String? = "/v1/sites/\(Self.escape(site))/packages"
        var pages = 0
        while let current = path, pages < 10_000 {
            let page = try await get(current, as: Page.self)
            out += page.packages
            path = page.next
            pages += 1
        }
        return out
    }

    /// A package's newest version and all its versions.
    public func versions(of id: String) async throws(ClientError) -> CatalogVersions {
        try await get("/v1/packages/\(Self.escape(id))", as: CatalogVersions.self)
    }

    /// The entry for `version` of `id`, or the newest when `version` is nil.
    public func entry(id: String, version: String? = nil) async throws(ClientError) -> CatalogEntry {
        let all = try await versions(of: id)
        guard let version else { return all.latest }
        if let exact = all.versions.first(where: { $0.version == version }) { return exact }
        let known = all.versions.map(\.version).joined(separator: ", ")
        throw ClientError(.notFound, "\(id) has no version \(version) on \(server.absoluteString); it has \(known)")
    }

    /// The reviewers' signatures of a version.
    public func signatures(id: String, version: String) async throws(ClientError) -> [ReviewerSignature] {
        struct List: Decodable { var signatures: [ReviewerSignature] }
        return try await get(
            "/v1/packages/\(Self.escape(id))/versions/\(Self.escape(version))/signatures", as: List.self
        ).signatures
    }

    /// Tells the server which SHA-256 the app computed; returns whether the server agrees.
    @discardableResult
    public func confirm(_ entry: CatalogEntry, sha256: String) async throws(ClientError) -> Bool {
        struct Answer: Decodable { var match: Bool }
        var request = URLRequest(url: url(entry.confirm))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("{\"sha256\": \"\(sha256)\"}".utf8)
        return try await send(request, as: Answer.self).match
    }

    // MARK: plumbing

    /// `path` (absolute on this server, or a full URL the server gave) as a URL.
    func url(_ path: String) -> URL {
        if let absolute = URL(string: path), absolute.scheme != nil { return absolute }
        var base = server.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + (path.hasPrefix("/") ? path : "/" + path)) ?? server
    }

    static func escape(_ segment: String) -> String {
        segment.addingPercentEncoding(
            withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? segment
    }

    /// `request`, the next hop of a redirect from `origin`: without the token once it leaves that
    /// host and port (a CDN or `--download-base-url` must not see it).
    static func redirected(_ request: URLRequest, from origin: URL?) -> URLRequest {
        var next = request
        if request.url?.host != origin?.host || request.url?.port != origin?.port {
            next.setValue(nil, forHTTPHeaderField: "Authorization")
        }
        return next
    }

    func authorize(_ request: inout URLRequest) {
        // The token goes only to the server it belongs to (a redirect to a CDN must not carry it).
        if let token, request.url?.host == server.host, request.url?.port == server.port {
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
    }

    func get<T: Decodable>(_ path: String, as type: T.Type) async throws(ClientError) -> T {
        try await send(URLRequest(url: url(path)), as: type)
    }

    func send<T: Decodable>(_ original: URLRequest, as type: T.Type) async throws(ClientError) -> T {
        var request = original
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        authorize(&request)
        let data: Data
        let response: URLResponse
        do { (data, response) = try await session.data(for: request) } catch {
            if Task.isCancelled { throw ClientError(.cancelled, "cancelled") }
            throw ClientError(
                .network,
                "cannot reach \(server.absoluteString): \(error.localizedDescription); check the address and the connection, then try again",
                cause: error)
        }
        let path = request.url?.path ?? ""
        guard let http = response as? HTTPURLResponse else {
            throw ClientError(.badResponse, "\(path): not an HTTP answer")
        }
        try Self.check(status: http.statusCode, body: data, path: path, server: server)
        guard data.count <= Self.maxResponseBytes else {
            throw ClientError(
                .badResponse, "\(path): the answer is \(data.count) bytes; the limit is \(Self.maxResponseBytes)")
        }
        do { return try JSONDecoder().decode(T.self, from: data) } catch {
            throw ClientError(.badResponse, "\(path): the answer is not what the API documents (\(error))")
        }
    }

    /// Turns a non-2xx status into an error with the server's own message when it sent one.
    static func check(status: Int, body: Data, path: String, server: URL) throws(ClientError) {
        guard !(200..<300).contains(status) else { return }
        struct ServerError: Decodable {
            struct Detail: Decodable { var code: String?; var message: String? }
            var error: Detail?
        }
        let said = (try? JSONDecoder().decode(ServerError.self, from: body.prefix(1 << 16)))?.error?.message
        let suffix = said.map { ": \($0.prefix(300))" } ?? ""
        switch status {
        case 404: throw ClientError(.notFound, "\(server.absoluteString)\(path) was not found (404)\(suffix)")
        case 401, 403:
            throw ClientError(
                .unauthorized,
                "\(server.absoluteString)\(path) needs a valid token (\(status))\(suffix); pass --token for versions under review"
            )
        default: throw ClientError(.http, "\(server.absoluteString)\(path) answered \(status)\(suffix)")
        }
    }
}
