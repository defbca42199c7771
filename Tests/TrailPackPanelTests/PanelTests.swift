import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TrailPackCatalog
import TrailPackServer
import TrailPackTestSupport

@testable import TrailPackPanel

@Suite("panel: pages, static files, headers", .ownThreads)
struct PanelTests {
    /// A stand-in for /usr/share/javascript: the two libraries' probe files and a file outside them.
    static func withAssets<T>(_ body: (String) async throws -> T) async throws -> T {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("panel-assets-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/leaflet/images", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/bootstrap5/css", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/jquery", withIntermediateDirectories: true)
        try "window.L = {};\n".write(toFile: root + "/leaflet/leaflet.js", atomically: true, encoding: .utf8)
        try "secret\n".write(toFile: root + "/leaflet/.hidden", atomically: true, encoding: .utf8)
        try ".btn{}\n".write(toFile: root + "/bootstrap5/css/bootstrap.min.css", atomically: true, encoding: .utf8)
        try "jquery\n".write(toFile: root + "/jquery/jquery.js", atomically: true, encoding: .utf8)
        return try await body(root)
    }

    /// The panel on a server with a new data folder (no scanner, one approval), through the server's own router and middleware.
    static func withPanel(
        _ configuration: PanelConfiguration, _ test: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        try await withPanelServer(configuration) { _, _, client in try await test(client) }
    }

    static func withPanelServer(
        _ configuration: PanelConfiguration, approvals: Int = 1,
        _ test: @Sendable (TrailPackServer, PanelController, any TestClientProtocol) async throws -> Void
    ) async throws {
        let dir = NSTemporaryDirectory() + "trailpack-panel-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try await TrailPackServer(
            configuration: ServerConfiguration(
                dataDirectory: dir + "/data", adminToken: nil, maxUploadBytes: 64 << 20,
                approvals: approvals, scanner: .off))
        let panel = try PanelController(configuration: configuration, server: server)
        let app = Application(router: server.buildRouter(addRoutes: { panel.addRoutes(to: $0) }))
        try await app.test(.router) { client in try await test(server, panel, client) }
    }

    static func body(_ response: TestResponse) -> String { String(buffer: response.body) }

    @Test(
        "the sign-in page: HTML with headings and a main landmark, scripts only from files, a CSP without 'unsafe-inline'; / sends a stranger there"
    )
    func homePage() async throws {
        try await Self.withAssets { root in
            try await Self.withPanel(PanelConfiguration(webAssets: root)) { client in
                try await client.execute(uri: "/", method: .get) { response in
                    #expect(response.status == .seeOther)
                    #expect(response.headers[.location] == "/login?next=%2F")
                }
                try await client.execute(uri: "/login", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                    let csp = try #require(response.headers[HTTPField.Name("Content-Security-Policy")!])
                    #expect(csp.contains("script-src 'self'"))
                    #expect(!csp.contains("unsafe-inline"))
                    #expect(!csp.contains("unsafe-eval"))
                    #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
                    let html = Self.body(response)
                    #expect(html.contains("<main id=\"main\""))
                    #expect(html.contains("<h1"))
                    #expect(html.contains("<html lang=\"en\">"))
                    // Every script is a file; no event attribute anywhere.
                    let scripts = html.components(separatedBy: "<script").dropFirst()
                    #expect(scripts.count == 1)
                    for script in scripts {
                        #expect(
                            script.hasPrefix(" type=\"module\" src=\"/static/v/\(PanelAssets.version)/js/")
                                || script.hasPrefix(" src=\"/static/"),
                            "an inline script: <script\(script.prefix(60))")
                    }
                    #expect(html.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil)
                    #expect(html.contains("autocomplete=\"current-password\""))
                }
            }
        }
    }

    @Test("the tile attribution is shown escaped (hostile text), and the tile server is allowed for images only")
    func escapedAttribution() async throws {
        try await Self.withAssets { root in
            let hostile = "<script>alert(1)</script>\" onmouseover=\"x"
            let configuration = PanelConfiguration(
                webAssets: root, tileURL: "https://tile.example.org/{z}/{x}/{y}.png", tileAttribution: hostile)
            try await Self.withPanelServer(configuration) { server, panel, client in
                let ranger = try await PanelFlow.signIn(server, panel, site: "willamette-sweet-home")
                let draft = try await PanelFlow.createDraft(client, ranger, name: "Santiam Wagon Road")
                try await client.execute(uri: draft, method: .get, headers: ranger.headers) { response in
                    #expect(response.status == .ok)
                    let html = Self.body(response)
                    #expect(!html.contains("<script>alert"))
                    #expect(!html.contains("\" onmouseover"))
                    #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
                    let csp = try #require(response.headers[HTTPField.Name("Content-Security-Policy")!])
                    #expect(csp.contains("img-src 'self' data: blob: https://tile.example.org"))
                    #expect(csp.contains("script-src 'self';"))
                }
            }
        }
    }

    @Test("the panel's own CSS and JS, and Debian's Leaflet and Bootstrap from --web-assets with their types")
    func staticFiles() async throws {
        try await Self.withAssets { root in
            try await Self.withPanel(PanelConfiguration(webAssets: root)) { client in
                try await client.execute(uri: "/static/js/panel.js", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                    #expect(Self.body(response).contains("DOMContentLoaded"))
                    #expect(Self.body(response).contains("import { startMap } from \"./map.js\""))
                }
                for module in PanelAssets.modules.keys {
                    try await client.execute(uri: "/static/js/" + module, method: .get) { #expect($0.status == .ok) }
                }
                // Under the pages' versioned addresses, kept for a year; another version's, not kept.
                let current = "/static/v/\(PanelAssets.version)"
                for path in [current + "/js/panel.js", current + "/js/map.js", current + "/panel.css"] {
                    try await client.execute(uri: path, method: .get) { response in
                        #expect(response.status == .ok, "\(path)")
                        #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable", "\(path)")
                    }
                }
                try await client.execute(uri: "/static/v/0123456789abcdef/js/panel.js", method: .get) { response in
                    #expect(response.status == .ok && response.headers[.cacheControl] == "no-cache")
                }
                try await client.execute(uri: "/login", method: .get) { response in
                    let html = Self.body(response)
                    #expect(
                        html.contains("href=\"\(current)/panel.css\"")
                            && html.contains("src=\"\(current)/js/panel.js\""))
                }
                #expect(PanelAssets.version.count == 16)
                for missing in [
                    "/static/js/nothing.js", "/static/js/..%2Fpanel.css", "/static/panel.js",
                    current + "/js/nothing.js",
                ] {
                    try await client.execute(uri: missing, method: .get) {
                        #expect($0.status == .notFound, "\(missing)")
                    }
                }
                try await client.execute(uri: "/static/panel.css", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/css; charset=utf-8")
                }
                try await client.execute(uri: "/static/vendor/leaflet/leaflet.js", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                    #expect(Self.body(response) == "window.L = {};\n")
                }
                try await client.execute(uri: "/static/vendor/bootstrap5/css/bootstrap.min.css", method: .get) {
                    response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/css; charset=utf-8")
                    #expect(Self.body(response) == ".btn{}\n")
                }
            }
        }
    }

    @Test(
        "hostile paths under /static/vendor: dot segments, hidden files, other libraries and missing files are 404",
        arguments: [
            "/static/vendor/leaflet/../jquery/jquery.js", "/static/vendor/leaflet/%2e%2e/jquery/jquery.js",
            "/static/vendor/leaflet/.hidden",
            "/static/vendor/leaflet/..%2f..%2fetc%2fpasswd", "/static/vendor/leaflet/%00",
            "/static/vendor/jquery/jquery.js",
            "/static/vendor/leaflet/missing.js", "/static/vendor/leaflet/images",
        ])
    func hostilePaths(uri: String) async throws {
        try await Self.withAssets { root in
            try await Self.withPanel(PanelConfiguration(webAssets: root)) { client in
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(
                        response.status == .notFound, "\(uri): \(response.status) \(Self.body(response).prefix(80))")
                    #expect(!Self.body(response).contains("jquery\n"))
                }
            }
        }
    }

    @Test("serve's panel options: each unusable value is named with its fix")
    func configurationProblems() async throws {
        try await Self.withAssets { root in
            #expect(PanelConfiguration(webAssets: root).problems().isEmpty)
            try await Self.withPanelServer(PanelConfiguration(webAssets: root)) { server, _, _ in
                #expect(throws: PanelError.self) {
                    try PanelController(configuration: PanelConfiguration(webAssets: root + "/nowhere"), server: server)
                }
            }
            #expect(PanelConfiguration(webAssets: root, publicURL: "https://tours.example.org").secureCookies)
            #expect(!PanelConfiguration(webAssets: root, publicURL: "http://127.0.0.1:8080").secureCookies)
            let missing = PanelConfiguration(webAssets: root + "/nowhere").problems()
            #expect(missing.count == 1 && missing[0].contains("--web-assets") && missing[0].contains("libjs-leaflet"))
            try FileManager.default.removeItem(atPath: root + "/bootstrap5/css/bootstrap.min.css")
            let noBootstrap = PanelConfiguration(webAssets: root).problems()
            #expect(noBootstrap.count == 1 && noBootstrap[0].contains("libjs-bootstrap5"))
            let tiles = PanelConfiguration(
                webAssets: root + "/nowhere", tileURL: "ftp://x/{z}", tileAttribution: nil,
                publicURL: "javascript:alert(1)"
            ).problems()
            #expect(tiles.contains { $0.contains("--tile-url 'ftp://x/{z}'") && $0.contains("{x}") })
            #expect(tiles.contains { $0.contains("needs --tile-attribution") })
            #expect(tiles.contains { $0.contains("--public-url 'javascript:alert(1)'") })
            #expect(
                PanelConfiguration(webAssets: root, tileAttribution: "x").problems().contains {
                    $0.contains("without --tile-url")
                })
            #expect(
                PanelConfiguration(webAssets: root, maxMediaBytes: 0).problems().contains {
                    $0.contains("--max-media-mb")
                })
        }
    }
}

@Suite("panel: sessions and sign-in limits", .ownThreads)
struct PanelSessionTests {
    /// A new SQLite catalog in a new folder (the sessions and the throttle are kept in the catalog).
    static func catalog() throws -> (SQLiteCatalog, String) {
        let folder = NSTemporaryDirectory() + "trailpack-sessions-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return (try SQLiteCatalog(path: folder + "/catalog.sqlite"), folder)
    }

    @Test(
        "a session: rotated at sign-in, its CSRF token checked exactly, ended by idle and absolute expiry and by sign-out"
    )
    func sessions() async throws {
        let (catalog, folder) = try PanelSessionTests.catalog()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sessions = PanelSessions(catalog: catalog, idleTimeout: 60, absoluteTimeout: 300)
        let start = Date(timeIntervalSince1970: 1_000_000)
        let first = try await sessions.start(user: "ranger", now: start)
        #expect(first.id.count == 43 && first.csrfToken.count == 43 && first.id != first.csrfToken)
        let second = try await sessions.start(user: "ranger", replacing: first.id, now: start)
        #expect(second.id != first.id)
        #expect(try await sessions.session(id: first.id, now: start) == nil)
        #expect(try await sessions.session(id: second.id, now: start.addingTimeInterval(50))?.user == "ranger")
        #expect(
            try await sessions.checkCSRF(id: second.id, token: second.csrfToken, now: start.addingTimeInterval(100)))
        for hostile in [nil, "", second.id, String(second.csrfToken.dropLast()), second.csrfToken + "x", "<script>"]
            as [String?]
        {
            #expect(!(try await sessions.checkCSRF(id: second.id, token: hostile, now: start.addingTimeInterval(100))))
        }
        #expect(try await sessions.session(id: second.id, now: start.addingTimeInterval(161)) == nil, "idle for 61 s")
        let third = try await sessions.start(user: "ranger", now: start)
        for minute in 1...5 {
            #expect(try await sessions.session(id: third.id, now: start.addingTimeInterval(Double(minute * 59))) != nil)
        }
        #expect(
            try await sessions.session(id: third.id, now: start.addingTimeInterval(301)) == nil,
            "past the absolute limit though active")
        let fourth = try await sessions.start(user: "other", now: start)
        try await sessions.end(id: fourth.id)
        #expect(try await sessions.session(id: fourth.id, now: start) == nil)
        let cookie = sessions.cookie(for: fourth, secure: true)
        #expect(
            cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.hasSuffix("; Secure")
                && cookie.contains("Max-Age=300"))
        #expect(!sessions.cookie(for: fourth, secure: false).contains("Secure"))
        #expect(sessions.clearingCookie(secure: false).contains("Max-Age=0"))
    }

    @Test("sign-in attempts: the sixth failure within the window waits, a success clears, the window passes")
    func throttle() async throws {
        let (catalog, folder) = try PanelSessionTests.catalog()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let throttle = LoginThrottle(catalog: catalog, limit: 5, window: 600)
        let start = Date(timeIntervalSince1970: 1_000_000)
        func waits(_ name: String, at seconds: Double) async throws -> Int {
            switch try await throttle.begin(address: "a", name: name, now: start.addingTimeInterval(seconds)) {
            case .wait(let n): n
            case .allowed: 0
            }
        }
        for attempt in 0..<5 { #expect(try await waits("ranger", at: Double(attempt)) == 0) }
        #expect(try await waits("ranger", at: 10) == 590)
        #expect(try await waits("other", at: 10) == 0)
        #expect(try await waits("ranger", at: 601) == 0)
        guard case .allowed(let attempt) = try await throttle.begin(address: "a", name: "x", now: start) else {
            Issue.record("a first attempt may try")
            return
        }
        try await throttle.succeeded(attempt)
        for _ in 0..<4 { #expect(try await waits("x", at: 0) == 0) }
        #expect(try await waits("x", at: 0) == 0, "the success took its own attempt back: five more may try")
    }
}

@Suite("panel: CSRF", .ownThreads)
struct PanelCSRFTests {
    @Test(
        "a state-changing request without a live session and its exact CSRF token is refused (403; 401 when the session ended); with it, sign-out ends the session"
    )
    func csrf() async throws {
        try await PanelTests.withAssets { root in
            try await PanelTests.withPanelServer(PanelConfiguration(webAssets: root)) { server, panel, client in
                let session = try await panel.sessions.start(user: "ranger")
                let other = try await panel.sessions.start(user: "other")
                let cookie = "trailpack_session=\(session.id)"
                let form: HTTPFields = [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"]
                let refused: [(HTTPFields, String)] = [
                    ([:], ""),
                    ([.cookie: cookie], ""),
                    (form, "a=1"),
                    (form, "_csrf="),
                    (form, "_csrf=" + other.csrfToken),
                    (form, "_csrf=" + session.csrfToken + "%3Cscript%3E"),
                    (
                        [.cookie: "trailpack_session=\(other.id)", .contentType: "application/x-www-form-urlencoded"],
                        "_csrf=" + session.csrfToken
                    ),
                    ([.cookie: "trailpack_session=<script>", HTTPField.Name("X-CSRF-Token")!: session.csrfToken], ""),
                ]
                for (headers, body) in refused {
                    try await client.execute(
                        uri: "/logout", method: .post, headers: headers, body: ByteBuffer(string: body)
                    ) { response in
                        // A script's request with a session that is no longer live: 401, saying the
                        // page keeps what was typed (nothing is done either way).
                        let ended = headers[.cookie] == "trailpack_session=<script>"
                        #expect(response.status == (ended ? .unauthorized : .forbidden), "\(headers) \(body)")
                        #expect(String(buffer: response.body).contains(ended ? "sessionEnded" : "reload the page"))
                    }
                }
                // A form of ours (its token field) with no live session: the sign-in page, keeping the form.
                try await client.execute(
                    uri: "/logout", method: .post,
                    headers: [.cookie: "trailpack_session=gone", .contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "_csrf=" + session.csrfToken)
                ) { response in
                    #expect(response.status == .unauthorized)
                    #expect(String(buffer: response.body).contains("name=\"password\""))
                }
                #expect(try await panel.sessions.session(id: session.id) != nil)
                try await client.execute(
                    uri: "/logout", method: .post, headers: form,
                    body: ByteBuffer(string: "x=1&_csrf=" + session.csrfToken)
                ) { response in
                    #expect(response.status == .seeOther)
                    #expect(response.headers[.setCookie]?.contains("Max-Age=0") == true)
                    #expect(response.headers[HTTPField.Name("Content-Security-Policy")!] != nil)
                }
                #expect(try await panel.sessions.session(id: session.id) == nil)
                try await client.execute(
                    uri: "/logout", method: .post,
                    headers: [
                        .cookie: "trailpack_session=\(other.id)", HTTPField.Name("X-CSRF-Token")!: other.csrfToken,
                    ]
                ) { response in
                    #expect(response.status == .seeOther)
                }
            }
        }
    }
}
