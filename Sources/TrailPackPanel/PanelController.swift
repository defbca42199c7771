import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// The web control panel's routes, added to the server's router by `trailpack serve` (mounted at `/`).
public struct PanelController: Sendable {
    public let configuration: PanelConfiguration
    let library: MustacheLibrary
    let fileIO = FileIO()
    /// The signed-in sessions (in memory) and the sign-in throttle.
    public let sessions = PanelSessions()
    public let loginThrottle = LoginThrottle()

    /// Fails only with settings the panel cannot use, naming the option and the fix.
    public init(configuration: PanelConfiguration) throws {
        let problems = configuration.problems()
        guard problems.isEmpty else { throw PanelError(message: problems.joined(separator: "; ")) }
        self.configuration = configuration
        self.library = try PanelPages.library()
    }

    /// The Content-Security-Policy of every panel response: scripts and styles from this server only
    /// (no 'unsafe-inline'), images also from the tile server when one is configured.
    var contentSecurityPolicy: String {
        var images = "'self' data:"
        // The tile server's origin; a `{s}.` subdomain template ({s}.tile.openstreetmap.org) allows its subdomains.
        if let tileURL = configuration.tileURL {
            let subdomains = tileURL.contains("://{s}.")
            let plain = tileURL.replacingOccurrences(of: "{s}.", with: "").replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")
            if let url = URL(string: plain), let scheme = url.scheme, let host = url.host {
                images += " \(scheme)://\(subdomains ? "*." : "")\(host)\(url.port.map { ":\($0)" } ?? "")"
            }
        }
        return "default-src 'self'; script-src 'self'; style-src 'self'; img-src \(images); object-src 'none'; base-uri 'none'; "
            + "frame-ancestors 'none'; form-action 'self'"
    }

    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        let panel = router.group().add(middleware: PanelHeadersMiddleware<Context>(contentSecurityPolicy: contentSecurityPolicy))
        panel.get("/") { _, _ in try self.page("home", title: "Tours", map: true) }
        // State-changing routes: each behind the CSRF check.
        let guarded = panel.group().add(middleware: PanelCSRFMiddleware<Context>(sessions: sessions))
        guarded.post("/logout") { request, _ in
            if let id = PanelCookies.sessionID(request.headers[.cookie]) { await sessions.end(id: id) }
            return Response(status: .seeOther, headers: [.location: "/", .setCookie: sessions.clearingCookie(secure: configuration.secureCookies)])
        }
        panel.get("/static/panel.css") { _, _ in Self.text(PanelAssets.css, type: "text/css; charset=utf-8") }
        panel.get("/static/panel.js") { _, _ in Self.text(PanelAssets.js, type: "text/javascript; charset=utf-8") }
        for vendor in PanelAssets.vendorLibraries {
            panel.get("/static/vendor/\(vendor.folder)/**") { _, context in
                guard let path = PanelAssets.vendorPath(root: configuration.webAssets, library: vendor.folder, segments: context.parameters.getCatchAll()) else {
                    throw HTTPError(.notFound)
                }
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { throw HTTPError(.notFound) }
                let body = try await fileIO.loadFile(path: path, context: context)
                return Response(status: .ok, headers: [.contentType: PanelAssets.contentType(path: path), .cacheControl: "public, max-age=3600"], body: body)
            }
        }
    }

    func page(_ name: String, title: String, map: Bool = false, values: [String: Any] = [:]) throws -> Response {
        var object: [String: Any] = ["title": title, "map": map]
        if let tileURL = configuration.tileURL {
            object["tileURL"] = tileURL
            object["tileAttribution"] = configuration.tileAttribution ?? ""
        }
        object.merge(values) { _, new in new }
        guard let html = library.render(object, withTemplate: name) else { throw HTTPError(.internalServerError, message: "the panel has no page '\(name)'") }
        return Self.text(html, type: "text/html; charset=utf-8")
    }

    static func text(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// A panel setting or request the panel cannot use, in words naming the fix.
public struct PanelError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}

/// The headers every panel response carries: the CSP, no sniffing, no framing, no referrer to other sites.
struct PanelHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let contentSecurityPolicy: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        return response
    }
}
