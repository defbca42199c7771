import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Mustache
import NIOCore
import TrailPackBlocking
import TrailPackBuilder
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackServer

/// The web control panel, added to the server's router by `trailpack serve` (mounted at `/`). It is
/// the front door (sign-in, the script's and style's files, the page for an address that is no page)
/// and builds the rooms, one controller per concern, each given only what it uses, never the server:
///
/// - `DraftsController`: the tours being edited (drafts, stored as tour folders), their stops,
///   files, languages and route, building a version and asking for its review;
/// - `ImportController`: a tour made from a GPS file, a spreadsheet or a zipped folder;
/// - `ReviewController`: the versions waiting for review, approving or denying exactly those bytes,
///   releasing, the tours' history and what needs a publisher;
/// - `AdminController`: people, sites, grants, tokens and each site's region map;
/// - `MapsController`: the map tiles the pages draw (a draft's, a stored version's, a site's).
///
/// Every state change goes through the same builder, intake and catalog transitions as the API.
public struct PanelController: PanelFileRoom {
    public let configuration: PanelConfiguration
    let shell: PanelShell
    let drafting: DraftsController
    let importing: ImportController
    let reviewing: ReviewController
    let administering: AdminController
    let maps: MapsController
    let catalog: any CatalogStore
    let pool: BlockingPool
    let fileIO = FileIO()
    /// The drafts' folders (tests read and change drafts through it, as the rooms do).
    public let drafts: DraftStore
    /// The signed-in sessions and the sign-in throttle, both kept in the catalog (shared by every server).
    public let sessions: PanelSessions
    public let loginThrottle: LoginThrottle

    /// Fails only with settings the panel cannot use, naming the option and the fix. The server is
    /// read here, once, for the parts each room is given; no room keeps it.
    public init(configuration: PanelConfiguration, server: TrailPackServer) throws {
        let problems = configuration.problems()
        guard problems.isEmpty else { throw PanelError(message: problems.joined(separator: "; ")) }
        self.configuration = configuration
        let catalog = server.catalog, pool = server.pool
        self.catalog = catalog
        self.pool = pool
        sessions = PanelSessions(catalog: catalog)
        loginThrottle = LoginThrottle(catalog: catalog)
        let shell = PanelShell(
            configuration: configuration, library: try PanelPages.library(), sessions: sessions, catalog: catalog,
            logger: server.logger)
        self.shell = shell
        let drafts = DraftStore(dataFolder: configuration.draftsFolder ?? server.folder.root, pool: pool)
        self.drafts = drafts
        // Verifier reports of stored packages: the built page and the review pages share them.
        let reports = PanelReports()
        let mail = server.mail
        let approvals = server.configuration.approvals
        drafting = DraftsController(
            shell: shell, drafts: drafts, catalog: catalog, pool: pool, blobs: server.store, intake: server.intake,
            dataFolder: server.folder, reports: reports, mail: mail, approvals: approvals)
        importing = ImportController(
            shell: shell, drafts: drafts, pool: pool, dataFolder: server.folder)
        let signatures = ApprovalSignatures(catalog: catalog, blobs: server.store, pool: pool)
        reviewing = ReviewController(
            shell: shell, catalog: catalog, blobs: server.store, pool: pool, drafts: drafts,
            dataFolder: server.folder, reports: reports, signatures: signatures, mail: mail, approvals: approvals)
        administering = AdminController(
            shell: shell, catalog: catalog, pool: pool, drafts: drafts,
            mailConfigured: server.configuration.mail != nil)
        maps = MapsController(shell: shell, catalog: catalog, blobs: server.store, pool: pool, drafts: drafts)
        // Drafts another server shares may have uploads under way: only what a day left untouched goes.
        for path in drafts.removeInterrupted(olderThan: configuration.draftsFolder == nil ? nil : 86_400) {
            server.logger.notice("panel: removed an interrupted upload", metadata: ["path": "\(path)"])
        }
    }

    /// The Content-Security-Policy of every panel response: scripts and styles from this server only
    /// (no 'unsafe-inline'), images also from the tile server when one is configured.
    var contentSecurityPolicy: String {
        var images = "'self' data: blob:"
        // The tile server's origin; a `{s}.` subdomain template ({s}.tile.openstreetmap.org) allows its subdomains.
        if let tileURL = configuration.tileURL {
            let subdomains = tileURL.contains("://{s}.")
            let plain = tileURL.replacingOccurrences(of: "{s}.", with: "").replacingOccurrences(of: "{", with: "")
                .replacingOccurrences(of: "}", with: "")
            if let url = URL(string: plain), let scheme = url.scheme, let host = url.host {
                images += " \(scheme)://\(subdomains ? "*." : "")\(host)\(url.port.map { ":\($0)" } ?? "")"
            }
        }
        return
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src \(images); media-src 'self'; object-src 'none'; base-uri 'none'; "
            + "frame-ancestors 'none'; form-action 'self'"
    }

    public func addRoutes(to router: Router<AppRequestContext>) {
        // An address that is no route (an old /build address from a page reloaded after a POST, a
        // mistyped link): a browser asking for a page gets one, with a way back, not the API's JSON.
        router.add(middleware: PanelNotFoundMiddleware { request in notFoundPage(request) })
        let panel = router.group().add(
            middleware: PanelHeadersMiddleware<AppRequestContext>(contentSecurityPolicy: contentSecurityPolicy))
        panel.get("/login") { request, _ in try await loginPage(request) }
        // The signed-in session's form token, for a page whose token went stale because its session was
        // renewed in another tab (readable by this origin's scripts only: no CORS, SameSite=Strict).
        panel.get("/session") { request, context in
            await signedIn(request, context, json: true) { visitor in
                Self.jsonMessage(
                    .ok, "signed in as \(visitor.user.name)",
                    extra: [
                        JSONMember("csrf", .string(visitor.session.csrfToken)),
                        JSONMember("user", .string(visitor.user.name)),
                    ])
            }
        }
        // Sign-in has no session yet: it is checked by its Origin instead of a token (and SameSite=Strict).
        panel.post("/login") { request, context in
            do { return try await login(request, context) } catch { return errorPage(error) }
        }
        panel.get("/static/panel.css") { _, _ in Self.text(PanelAssets.css, type: "text/css; charset=utf-8") }
        panel.get("/static/js/:module") { _, context in Self.module(context.parameters.get("module"), version: nil) }
        // Under the version the pages name: kept by the browser for a year (another version's address,
        // from a page older than this program, is answered with today's bytes, not to be kept).
        panel.get("/static/v/:version/js/:module") { _, context in
            Self.module(context.parameters.get("module"), version: context.parameters.get("version"))
        }
        panel.get("/static/v/:version/panel.css") { _, context in
            var response = Self.text(PanelAssets.css, type: "text/css; charset=utf-8")
            response.headers[.cacheControl] = Self.assetCaching(context.parameters.get("version"))
            return response
        }
        for vendor in PanelAssets.vendorLibraries {
            panel.get("/static/vendor/\(vendor.folder)/**") { _, context in
                guard
                    let path = PanelAssets.vendorPath(
                        root: configuration.webAssets, library: vendor.folder,
                        segments: context.parameters.getCatchAll())
                else {
                    throw HTTPError(.notFound)
                }
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue
                else { throw HTTPError(.notFound) }
                let body = try await fileIO.loadFile(path: path, context: context)
                return Response(
                    status: .ok,
                    headers: [
                        .contentType: PanelAssets.contentType(path: path), .cacheControl: "public, max-age=3600",
                    ], body: body)
            }
        }

        // State-changing routes: each behind the CSRF check.
        let guarded = panel.group().add(
            middleware: PanelCSRFMiddleware<AppRequestContext>(sessions: sessions) { request, body in
                try await sessionEndedPage(request, form: body)
            })
        guarded.post("/logout") { request, _ in
            if let id = PanelCookies.sessionID(request.headers[.cookie]) { try await sessions.end(id: id) }
            return Response(
                status: .seeOther,
                headers: [
                    .location: "/login", .setCookie: sessions.clearingCookie(secure: configuration.secureCookies),
                ])
        }
        drafting.addRoutes(panel: panel, guarded: guarded)
        importing.addRoutes(panel: panel, guarded: guarded)
        reviewing.addRoutes(panel: panel, guarded: guarded)
        administering.addRoutes(panel: panel, guarded: guarded)
        maps.addRoutes(panel: panel)
    }

    func loginPage(
        _ request: Request, message: String? = nil, status: HTTPResponse.Status = .ok, next: String? = nil,
        resume: (action: String, body: String)? = nil
    ) async throws -> Response {
        let body = LoginPage(
            next: Self.safeNext(next ?? request.uri.queryParameters.get("next")), error: message,
            resume: resume.map { LoginPage.Resume(action: $0.action, body: $0.body) })
        var response = try page(body, title: "Sign in")
        response.status = status
        return response
    }

    /// A browser's form sent after its session ended: the sign-in page, holding what the form
    /// carried (all but its old token), so that after signing in the ranger can save it. A form of
    /// files (`form` empty) cannot be kept: the page says to choose them again.
    func sessionEndedPage(_ request: Request, form: String) async throws -> Response {
        let action = Self.safeNext(request.uri.path)
        let page = Self.pagePath(of: action)
        let kept = Self.formPairs(form).filter { $0.name != "_csrf" }
        let ended = "Your session ended (after a while without use, or because the server restarted)"
        guard action.hasPrefix("/drafts/"), !kept.isEmpty else {
            let message =
                form.isEmpty && action.hasPrefix("/drafts/")
                ? "\(ended), so nothing was added. Sign in again, then choose the files again."
                : "\(ended), so that was not done. Sign in again, then do it again."
            return try await loginPage(request, message: message, status: .unauthorized, next: page)
        }
        return try await loginPage(
            request, status: .unauthorized, next: page, resume: (action, Self.formBody(kept)))
    }

    /// The page a form's action belongs to: the draft's or the stop's (what a GET can open).
    static func pagePath(of action: String) -> String {
        let parts = action.split(separator: "/", omittingEmptySubsequences: false)
        // ["", "drafts", SITE, TOUR, "stops", N, ...]
        guard parts.count >= 4, parts[1] == "drafts" else { return "/" }
        if parts.count >= 6, parts[4] == "stops" { return parts[0..<6].joined(separator: "/") }
        return parts[0..<4].joined(separator: "/")
    }

    /// The fields of a urlencoded body, in order, as `PanelForm` reads them (a field without a name left out).
    static func formPairs(_ body: String) -> [(name: String, value: String)] {
        PanelForm(body).fields.filter { !$0.name.isEmpty }
    }

    static func formBody(_ pairs: [(name: String, value: String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return pairs.map {
            ($0.name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "="
                + ($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }

    /// After signing in again with a kept form: the page that shows what was typed and saves it
    /// with the new session's token (a button the ranger presses: nothing is sent by itself).
    func resumePage(
        action: String, body: String, session: PanelSessions.Session, user: Catalog.User
    ) throws -> Response {
        let pairs = Self.formPairs(body).filter { $0.name != "_csrf" }
        let hidden: Set<String> = ["revision", "stopRevision", "language", "followStops", "confirmed"]
        let shown = pairs.filter { !$0.value.isEmpty && !hidden.contains($0.name) && !$0.name.hasPrefix("was-") }
            .prefix(40).map { ResumePage.Shown(label: Self.fieldLabel($0.name), value: $0.value) }
        let body = ResumePage(
            action: action, back: Self.pagePath(of: action),
            fields: pairs.map { ResumePage.Field(name: $0.name, value: $0.value) }, shown: Array(shown),
            hasShown: !shown.isEmpty)
        // The layout as before the page existed: a new session, counted nothing yet.
        let layout = PanelLayout(
            title: "Save what you typed", map: false,
            user: .init(
                name: user.name, role: user.role.rawValue, reviewCount: ShownCount(0), noticeCount: ShownCount(0),
                isAdmin: false),
            csrf: session.csrfToken)
        return try render(PageContext(layout: layout, body: body))
    }

    /// A form field's name as the ranger saw its label.
    static func fieldLabel(_ name: String) -> String {
        let labels = [
            "name": "Name", "description": "Description", "park": "Park or forest", "siteName": "Site name",
            "id": "Tour id", "version": "Version", "latitude": "Latitude", "longitude": "Longitude",
            "waiver": "Accessibility waiver", "propertyKey": "Detail name", "propertyValue": "Detail value",
            "south": "South edge", "west": "West edge", "north": "North edge", "east": "East edge",
            "newName": "New name", "file": "File",
        ]
        if let label = labels[name] { return label }
        for (prefix, label) in [
            ("title-", "Title of file "), ("alt-", "Alt text of file "),
            ("transcript-", "Transcript of file "), ("captions-", "Captions of file "),
            ("language-", "Language of file "),
        ]
        where name.hasPrefix(prefix) {
            return label + name.dropFirst(prefix.count)
        }
        return name
    }

    func login(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        if let origin = request.headers[.origin], !isOwnOrigin(origin, request: request) {
            return errorPage(PanelError(status: .forbidden, message: foreignOriginWords(origin, request: request)))
        }
        let form = try await PanelForm.read(request)
        let name = form.text("name"), password = form["password"] ?? ""
        let address = context.clientAddress
        let attempt: LoginThrottle.Attempt
        switch try await loginThrottle.begin(address: address, name: name) {
        case .wait(let seconds):
            var page = try await loginPage(
                request,
                message:
                    "Too many failed sign-ins from this computer: wait \(max(1, (seconds + 59) / 60)) minute\(seconds > 60 ? "s" : "") and try again.",
                status: .tooManyRequests)
            page.headers[.retryAfter] = String(seconds)
            return page
        case .allowed(let allowed): attempt = allowed
        }
        let record = name.isEmpty ? nil : try await catalog.signInRecord(name: name)
        // Hashed even for an unknown user, so the answer's time does not tell which names exist; on
        // the catalog's threads, never the cooperative pool (scrypt takes a while on purpose).
        let stored = record?.passwordHash ?? Self.decoyHash
        let matches = try await blocking { PasswordHash.verify(password, against: stored) }
        guard let record, record.passwordHash != nil, matches else {
            logger.notice(
                "panel sign-in refused", metadata: ["user": "\(TerminalText.escaped(name))", "address": "\(address)"])
            // 200 with the form again (the browser shows the message; the status is not an error to the page).
            return try await loginPage(
                request,
                message:
                    "The name or the password is wrong. If you have forgotten your password, ask an administrator to set a new one.",
                next: form["next"], resume: Self.keptForm(form))
        }
        try await loginThrottle.succeeded(attempt)
        let session = try await sessions.start(
            user: record.user.name, credential: PanelShell.credential(record.passwordHash),
            replacing: PanelCookies.sessionID(request.headers[.cookie]))
        let cookie = sessions.cookie(for: session, secure: configuration.secureCookies)
        if let kept = Self.keptForm(form) {
            var response = try resumePage(action: kept.action, body: kept.body, session: session, user: record.user)
            response.headers[.setCookie] = cookie
            return response
        }
        let next = Self.safeNext(form["next"])
        return Response(status: .seeOther, headers: [.location: next, .setCookie: cookie])
    }

    /// The form kept through a sign-in (`resumeAction`, `resume`): only for a draft's own actions.
    static func keptForm(_ form: PanelForm) -> (action: String, body: String)? {
        let action = safeNext(form["resumeAction"]), body = form["resume"] ?? ""
        guard action.hasPrefix("/drafts/"), !action.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }),
            !action.contains("%"), !body.isEmpty, body.utf8.count <= 1 << 20
        else { return nil }
        return (action, body)
    }

    /// A hash no password matches, verified for unknown names (same cost as a real one).
    static let decoyHash = (try? PasswordHash.make(UUID().uuidString)) ?? ""

    /// A path on this site to go to after sign-in: a path of plain URL characters starting with one
    /// `/` — never another site (`//evil`, `/\\evil`, `https:`), never a control character or a space
    /// (browsers drop tabs and newlines from a `Location`, so `/%09/evil` would become `//evil`).
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), next.utf8.count <= 2000,
            next.unicodeScalars.allSatisfy({ allowedInNext.contains($0) })
        else { return "/" }
        return next
    }

    private static let allowedInNext = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/?=&%+:@!$'()*,;#")

    /// Why a sign-in from `origin` was refused. When only the port differs from the address the
    /// server was asked for, the form is most likely the panel's own behind a proxy that dropped
    /// the port (nginx's `Host $host`): the words say what to set, and the log says it to the operator.
    func foreignOriginWords(_ origin: String, request: Request) -> String {
        let asked = request.head.authority ?? ""
        let askedHost = URL(string: "http://\(asked)")?.host
        guard configuration.publicURL == nil, let sent = URL(string: origin), sent.host == askedHost else {
            return "this sign-in form was sent from another site (\(origin)); open the panel's own sign-in page"
        }
        logger.warning(
            "a sign-in was refused: it came from \(origin) but the server was asked for \(asked); behind a proxy, give --public-url \(origin) or pass the port (nginx: proxy_set_header Host $http_host)"
        )
        return
            "this sign-in form was sent from \(origin), but the server was asked for \(asked), so it was refused. "
            + "The administrator can fix this: start the server with --public-url \(origin), or have the proxy pass the port "
            + "(nginx: proxy_set_header Host $http_host)."
    }

    func isOwnOrigin(_ origin: String, request: Request) -> Bool {
        if let publicURL = configuration.publicURL, let a = URL(string: publicURL), let b = URL(string: origin) {
            return a.scheme == b.scheme && a.host == b.host && a.port == b.port
        }
        guard let host = request.head.authority else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }

    /// One of the script's modules, or 404.
    static func module(_ name: String?, version: String?) -> Response {
        guard let name, let bytes = PanelAssets.modules[name] else { return Response(status: .notFound) }
        var headers: HTTPFields = [.contentType: "text/javascript; charset=utf-8"]
        if let version { headers[.cacheControl] = assetCaching(version) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A year for the current version's address; nothing kept for another's.
    static func assetCaching(_ version: String?) -> String {
        version == PanelAssets.version ? "public, max-age=31536000, immutable" : "no-cache"
    }
}

extension PanelController {
    /// The HTML page for an address that is no page: the nearest page above it to go to instead.
    func notFoundPage(_ request: Request) -> Response? {
        let path = request.uri.path
        // The API, the visitor app and files keep their own answers (JSON, the app's shell, 404).
        guard request.method == .get || request.method == .head,
            request.headers[.accept]?.contains("text/html") == true,
            !["/v1/", "/visit", "/static/", "/api/"].contains(where: { path.hasPrefix($0) })
        else { return nil }
        var body = ErrorPage(
            message: "There is no page at this address. It may be an old address (a form's, or a page that was "
                + "removed), or the link was typed with a mistake.",
            status: 404)
        body.lost = true
        let parts = path.split(separator: "/").map(String.init)
        if parts.count > 3, parts[0] == "drafts" {
            (body.backLink, body.backLabel) = ("/drafts/\(parts[1])/\(parts[2])", "the tour's page")
        } else if parts.count > 2, parts[0] == "packages" {
            (body.backLink, body.backLabel) = ("/packages/\(parts[1])", "the tour's versions")
        } else if parts.first == "admin" {
            (body.backLink, body.backLabel) = ("/admin", "People and sites")
        }
        guard var response = try? page(body, title: "No such page") else { return nil }
        response.status = .notFound
        response.headers[.contentSecurityPolicy] = contentSecurityPolicy
        response.headers[.cacheControl] = "no-store"
        return response
    }
}

/// Answers a route that does not exist with the panel's HTML page when the browser asks for one.
struct PanelNotFoundMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let page: @Sendable (Request) -> Response?

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard let response = page(request) else { throw error }
            return response
        }
    }
}

/// The headers every panel response carries: the CSP (unless the route set a stricter one: a package's
/// files), no sniffing, no framing, no referrer to other sites.
struct PanelHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let contentSecurityPolicy: String

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response = try await next(request, context)
        if response.headers[.contentSecurityPolicy] == nil {
            response.headers[.contentSecurityPolicy] = contentSecurityPolicy
        }
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
