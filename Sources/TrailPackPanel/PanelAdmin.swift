import Foundation
import HTTPTypes
import Hummingbird
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackMap
import TrailPackServer

/// Administration in the browser, for admins: people (add with a role and a first password, change
/// a role, set a new password, end their sessions, remove), sites (add, rename), which sites each
/// publisher makes tours for, reviewers' signing keys (given, replaced or taken away), and API
/// tokens (issued and shown once, revoked). Each change goes through the same catalog call as
/// `trailpack admin`, is audited under the admin's name ("NAME (panel)"), and is a CSRF-checked form
/// answered with a redirect, except a new token, whose page shows it the one time it can be seen.
extension AdminController {
    func addAdminRoutes(panel: RouterGroup<AppRequestContext>, guarded: RouterGroup<AppRequestContext>) {
        panel.get("/admin") { request, context in
            await signedIn(request, context) { visitor in
                try requireAdmin(visitor)
                var issued: AdminPage.Issued?
                if request.uri.queryParameters.get("issued") != nil,
                    let sealed = try await sessions.takeSealed(id: visitor.session.id)
                {
                    let parts = sealed.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                    if parts.count == 3 { issued = AdminPage.Issued(user: parts[0], token: parts[2], id: parts[1]) }
                }
                return try await adminPage(visitor, request: request, issued: issued)
            }
        }
        typealias Action = @Sendable (Visitor, PanelForm, AppRequestContext) async throws -> String
        let actions: [(String, Action)] = [
            ("/admin/users", { v, f, _ in try await self.addUser(v, f) }),
            ("/admin/users/:user/role", { v, f, c in try await self.setRole(v, f, c) }),
            ("/admin/users/:user/password", { v, f, c in try await self.setPassword(v, f, c) }),
            ("/admin/users/:user/key", { v, f, c in try await self.setPublicKey(v, f, c) }),
            ("/admin/users/:user/email", { v, f, c in try await self.setEmail(v, f, c) }),
            ("/admin/users/:user/sessions", { v, _, c in try await self.endSessions(v, c) }),
            ("/admin/users/:user/remove", { v, f, c in try await self.removeUser(v, f, c) }),
            ("/admin/sites", { v, f, _ in try await self.addSite(v, f) }),
            ("/admin/sites/:site/name", { v, f, c in try await self.renameSite(v, f, c) }),
            ("/admin/sites/:site/frame", { v, f, c in try await self.setSiteFrame(v, f, c) }),
            ("/admin/sites/:site/map/remove", { v, f, c in try await self.removeSiteMap(v, f, c) }),
            ("/admin/grants", { v, f, _ in try await self.grant(v, f) }),
            ("/admin/grants/remove", { v, f, _ in try await self.revokeGrant(v, f) }),
            ("/admin/tokens/:token/revoke", { v, _, c in try await self.revokeToken(v, c) }),
        ]
        for (path, action) in actions {
            guarded.post(RouterPath(path)) { request, context in
                await signedIn(request, context) { visitor in
                    try requireAdmin(visitor)
                    let form = try await PanelForm.read(request)
                    let said = try await Catalog.$auditActor.withValue("\(visitor.user.name) (panel)") {
                        try await action(visitor, form, context)
                    }
                    return await redirect(visitor, to: "/admin", saying: said)
                }
            }
        }
        // A region map comes as a file (multipart, its CSRF token in the address): streamed to disk, checked, put in place.
        guarded.post("/admin/sites/:site/map") { request, context in
            await signedIn(request, context) { visitor in
                try requireAdmin(visitor)
                let said = try await Catalog.$auditActor.withValue("\(visitor.user.name) (panel)") {
                    try await self.uploadSiteMap(request, context)
                }
                return await redirect(visitor, to: "/admin", saying: said, fragment: "#sites-heading")
            }
        }
        // A new token is shown on the page that answers the form: it is never stored where it could be read again.
        guarded.post("/admin/tokens") { request, context in
            await signedIn(request, context) { visitor in
                try requireAdmin(visitor)
                let form = try await PanelForm.read(request)
                let user = try await existingUser(form.text("user"))
                let issued = try await Catalog.$auditActor.withValue("\(visitor.user.name) (panel)") {
                    try await catalog.issueToken(user: user.name)
                }
                // A redirect (303) like every form: the token waits, sealed with the session's own id,
                // for the one page that shows it; a reload of that page issues nothing.
                try await sessions.seal(
                    id: visitor.session.id, [user.name, issued.id, issued.token].joined(separator: "\n"))
                return Self.redirect("/admin?issued=1#issued-token")
            }
        }
    }

    func requireAdmin(_ visitor: Visitor) throws {
        guard visitor.user.role == .admin else {
            throw PanelError(
                status: .forbidden,
                message: "Only an administrator can manage people, sites and tokens. Ask one of them for the change.")
        }
    }

    func adminPage(_ visitor: Visitor, request: Request, issued: AdminPage.Issued? = nil) async throws -> Response {
        let catalog = catalog
        let users = try await catalog.users()
        // Every site (an admin may work on all), with its released tours counted where it has any.
        let released = Dictionary(
            try await catalog.sites().map { ($0.id, $0.packages) }, uniquingKeysWith: { first, _ in first })
        let sites = try await catalog.workableSites(for: visitor.user).map {
            (id: $0.id, name: $0.name, packages: released[$0.id] ?? 0)
        }
        let grants = try await catalog.grants()
        let tokens = try await catalog.tokens().filter { $0.revokedAt == nil }
        let addresses = try await catalog.emailAddresses()
        let roles = Catalog.Role.allCases.map(\.rawValue)
        // Each site's home frame and region map, as the sites section shows them.
        var places: [AdminPage.Site] = []
        for site in sites {
            var place = AdminPage.Site(id: site.id, name: site.name, packages: site.packages)
            place.frame = try await catalog.siteFrame(id: site.id).map(FrameView.init)
            let path = drafts.siteMapPath(site.id)
            if let header = try await blocking({ Self.siteMapHeader(path) }) {
                place.regionMap =
                    "zoom \(header.minZoom) to \(header.maxZoom), \(header.tileType?.name ?? "raster") tiles"
            }
            places.append(place)
        }
        let people: [AdminPage.Person] = users.map { user in
            let granted = grants.filter { $0.user == user.name }.map(\.site).sorted()
            return AdminPage.Person(
                name: user.name, role: Self.roleWords(user.role), slug: Self.pathSegment(user.name),
                isSelf: user.name == visitor.user.name, signingKey: user.publicKey != nil,
                email: addresses[user.name] ?? "", isPublisher: user.role == .publisher,
                roles: roles.map {
                    ChoiceView(
                        value: $0, label: Self.roleWords(Catalog.Role(rawValue: $0)!),
                        selected: $0 == user.role.rawValue)
                },
                grants: granted.map { AdminPage.Person.Grant(site: $0, user: user.name) }, hasGrants: !granted.isEmpty,
                tokens: tokens.filter { $0.user == user.name }.map {
                    AdminPage.Person.Token(id: $0.id, created: PanelController.shortTime($0.createdAt))
                })
        }
        let body = AdminPage(
            people: people, sites: places, hasSites: !sites.isEmpty,
            publishers: users.filter { $0.role == .publisher }.map { AdminPage.Publisher(name: $0.name) },
            roles: roles.map { AdminPage.Role(value: $0, label: Self.roleWords(Catalog.Role(rawValue: $0)!)) },
            issued: issued, notice: await notice(visitor, request))
        return try page(body, title: "People, sites and tokens", visitor: visitor)
    }

    /// A role in the words the page uses.
    static func roleWords(_ role: Catalog.Role) -> String {
        switch role {
        case .publisher: "publisher (makes tours)"
        case .reviewer: "reviewer (approves versions)"
        case .admin: "administrator"
        }
    }

    // MARK: the changes (each returns what the page then says)

    static func userName(_ text: String) throws -> String {
        let name = text.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 64,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        else {
            throw PanelError(
                message:
                    "A name is letters, digits, dots, hyphens and underscores (such as jane.doe), at most 64; '\(TerminalText.escaped(name))' is not one."
            )
        }
        return name
    }

    func existingUser(_ text: String) async throws -> Catalog.User {
        let name = try Self.userName(text)
        guard let user = try await catalog.user(name: name) else {
            throw PanelError(status: .notFound, message: "There is no one called '\(name)'.")
        }
        return user
    }

    func pathUser(_ context: AppRequestContext) async throws -> Catalog.User {
        try await existingUser(try context.parameters.require("user"))
    }

    static func role(_ text: String) throws -> Catalog.Role {
        guard let role = Catalog.Role(rawValue: text) else {
            throw PanelError(message: "Choose a role: publisher, reviewer or administrator.")
        }
        return role
    }

    /// The scrypt hash of a new password given twice, checked as `trailpack admin user password` checks it.
    func passwordHash(_ form: PanelForm) async throws -> String {
        let password = form["password"] ?? "", again = form["password2"] ?? ""
        guard password == again else {
            throw PanelError(message: "The two passwords differ: type the same password in both fields.")
        }
        guard password.count >= 10 else {
            throw PanelError(
                message:
                    "The password is \(password.count) characters long; it needs at least 10 (a short sentence is easy to remember)."
            )
        }
        return try await blocking { try PasswordHash.make(password) }
    }

    func addUser(_ visitor: Visitor, _ form: PanelForm) async throws -> String {
        let name = try Self.userName(form.text("name")), role = try Self.role(form.text("role"))
        let key = try Self.pastedPublicKey(form.text("publicKey"))
        let hash = (form["password"] ?? "").isEmpty ? nil : try await passwordHash(form)
        // The site first: a person is never made without the grant the form asked for.
        let site = form.text("site")
        if role == .publisher, !site.isEmpty {
            guard Slug.isValid(site), try await catalog.siteExists(site) else {
                throw PanelError(
                    code: .unprocessable,
                    message:
                        "There is no site \"\(site)\": choose one of the sites listed, or add the site first. Nobody was added."
                )
            }
        }
        do {
            try await catalog.addUser(name: name, role: role, publicKey: key)
        } catch let error as CatalogError where error.code == .userExists {
            throw PanelError(
                status: .conflict,
                message:
                    "There is already someone called \(name) (the names of people who were removed are not given again): choose another name."
            )
        }
        if let hash { try await catalog.setPassword(name: name, hash: hash) }
        if role == .publisher, !site.isEmpty {
            try await catalog.grant(user: name, site: site)
        }
        return "Added \(name) as \(Self.roleWords(role))"
            + (role == .publisher && !site.isEmpty ? ", making tours for \(site)" : "")
            + (hash == nil ? ". Set a password below so they can sign in." : ". They can sign in now.")
    }

    /// A `.pub` file's text as pasted, checked (nil when nothing was pasted): a secret key or anything
    /// else is refused in words that say what to paste instead.
    static func pastedPublicKey(_ text: String) throws -> String? {
        let pasted = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !pasted.isEmpty else { return nil }
        do { _ = try Minisign.PublicKey(fileText: pasted) } catch {
            throw PanelError(
                message: Minisign.looksLikeSecretKey(pasted)
                    ? "That is a secret key: never give it to the server. Paste the public key (the .pub file) instead."
                    : "That is not a signing public key: paste the whole .pub file that 'trailpack keygen' made.")
        }
        return pasted + "\n"
    }

    /// A reviewer's new signing key (a lost or replaced key), or none ("remove" ticked): the approvals
    /// they sign from now on are checked against it; those already recorded keep their signatures.
    func setPublicKey(_ visitor: Visitor, _ form: PanelForm, _ context: AppRequestContext) async throws -> String {
        let user = try await pathUser(context)
        if form.text("remove") == "yes" {
            guard user.publicKey != nil else { return "\(user.name) has no signing key; nothing changed." }
            try await catalog.setPublicKey(name: user.name, publicKey: nil)
            return "\(user.name) no longer has a signing key."
        }
        guard let key = try Self.pastedPublicKey(form.text("publicKey")) else {
            throw PanelError(
                message: "Paste \(user.name)'s public key (the whole .pub file that 'trailpack keygen' made), then Set."
            )
        }
        try await catalog.setPublicKey(name: user.name, publicKey: key)
        return "\(user.name) signs approvals with the new key from now on."
    }

    /// Where a person's review notices are mailed (`serve --smtp`); an empty box sends them none.
    func setEmail(_ visitor: Visitor, _ form: PanelForm, _ context: AppRequestContext) async throws -> String {
        let user = try await pathUser(context)
        let address = form.text("email").trimmingCharacters(in: .whitespacesAndNewlines)
        guard address.isEmpty || SMTPMail.isAddress(address) else {
            throw PanelError(
                message:
                    "'\(TerminalText.escaped(String(address.prefix(100))))' is not a mail address: write it as name@example.org, or leave the box empty for no mail."
            )
        }
        try await catalog.setEmail(name: user.name, email: address.isEmpty ? nil : address)
        let mailed = mailConfigured
        if address.isEmpty { return "\(user.name) gets no review mail now." }
        return "\(user.name)'s review notices go to \(address)"
            + (mailed ? "." : " once the server is started with mail (--smtp); until then they are on the panel only.")
    }

    func setRole(_ visitor: Visitor, _ form: PanelForm, _ context: AppRequestContext) async throws -> String {
        let user = try await pathUser(context), role = try Self.role(form.text("role"))
        guard user.name != visitor.user.name || role == .admin else {
            throw PanelError(
                message: "You cannot take the administrator role from yourself; ask another administrator.")
        }
        do {
            try await catalog.setRole(name: user.name, role: role)
        } catch let error as CatalogError where error.code == .lastAdministrator {
            throw Self.lastAdministrator(user.name)
        }
        return "\(user.name) is now \(Self.roleWords(role))."
    }

    func setPassword(_ visitor: Visitor, _ form: PanelForm, _ context: AppRequestContext) async throws -> String {
        let user = try await pathUser(context)
        let hash = try await passwordHash(form)
        try await catalog.setPassword(name: user.name, hash: hash)
        // Their sessions began with the old password: they end (this admin's own stays).
        try await sessions.endAll(user: user.name, keeping: user.name == visitor.user.name ? visitor.session.id : nil)
        return "A new password is set for \(user.name); they were signed out everywhere."
    }

    func endSessions(_ visitor: Visitor, _ context: AppRequestContext) async throws -> String {
        let user = try await pathUser(context)
        try await sessions.endAll(user: user.name, keeping: user.name == visitor.user.name ? visitor.session.id : nil)
        return "\(user.name) was signed out everywhere."
    }

    /// The catalog refused to leave nobody who can manage people (another administrator's change came first).
    static func lastAdministrator(_ name: String) -> PanelError {
        PanelError(
            status: .conflict,
            message:
                "\(name) is the only administrator left, so the change was not made: make someone else an administrator first."
        )
    }

    func removeUser(_ visitor: Visitor, _ form: PanelForm, _ context: AppRequestContext) async throws -> String {
        let user = try await pathUser(context)
        guard user.name != visitor.user.name else {
            throw PanelError(message: "You cannot remove yourself; ask another administrator.")
        }
        guard form.text("confirm") == user.name else {
            throw PanelError(
                message: "To remove \(user.name), type their name in the box beside the button (nothing was removed).")
        }
        do {
            try await catalog.removeUser(name: user.name)
        } catch let error as CatalogError where error.code == .lastAdministrator {
            throw Self.lastAdministrator(user.name)
        }
        try await sessions.endAll(user: user.name)
        return "\(user.name) was removed: signed out, their tokens revoked; their name stays in the history."
    }

    func addSite(_ visitor: Visitor, _ form: PanelForm) async throws -> String {
        let id = form.text("id").trimmingCharacters(in: .whitespaces).lowercased()
        guard Slug.isValid(id) else {
            throw PanelError(
                message:
                    "A site's short name is lowercase letters, digits and hyphens (such as willamette-sweet-home); '\(TerminalText.escaped(id))' is not one."
            )
        }
        let name = form.text("name").trimmingCharacters(in: .whitespaces)
        do {
            try await catalog.addSite(id: id, name: name.isEmpty ? nil : name)
        } catch let error as CatalogError where error.code == .siteExists {
            throw PanelError(
                status: .conflict, message: "There is already a site \(id): rename it in the list above instead.")
        }
        return "Added the site \(name.isEmpty ? id : "\(name) (\(id))")."
    }

    func renameSite(_ visitor: Visitor, _ form: PanelForm, _ context: AppRequestContext) async throws -> String {
        let id = try await existingSite(context)
        let name = form.text("name").trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw PanelError(message: "Write the site's name, as visitors see it.") }
        try await catalog.renameSite(id: id, name: name)
        return "The site \(id) is now called \(name)."
    }

    /// The site a `/admin/sites/:site/…` address names, which must exist.
    func existingSite(_ context: AppRequestContext) async throws -> String {
        let id = try context.parameters.require("site")
        guard Slug.isValid(id), try await catalog.siteExists(id) else {
            throw PanelError(status: .notFound, message: "There is no site '\(TerminalText.escaped(id))'.")
        }
        return id
    }

    /// Sets the frame the map opens on for the site's new tours, or (the form's `remove`) takes it away.
    func setSiteFrame(_ visitor: Visitor, _ form: PanelForm, _ context: AppRequestContext) async throws -> String {
        let id = try await existingSite(context)
        if form["remove"] != nil {
            try await catalog.setSiteFrame(id: id, frame: nil)
            return "The site \(id) has no home frame now: a new tour's map opens around the site's other tours."
        }
        let frame = try Self.frame(form, named: "The home frame of \(id)")
        try await catalog.setSiteFrame(id: id, frame: frame)
        return "A new tour of \(id) now opens its map on the home frame you gave."
    }

    /// Receives a region map for a site, streamed to a temporary file beside the region maps (never
    /// held in memory), checked as a raster PMTiles map, then put in place in one step.
    func uploadSiteMap(_ request: Request, _ context: AppRequestContext) async throws -> String {
        let id = try await existingSite(context)
        guard let boundary = Self.multipartBoundary(request.headers[.contentType]) else {
            throw PanelError(
                status: .unsupportedMediaType,
                message: "the map form must be sent as a file upload; reload the page and choose the map again")
        }
        guard let target = drafts.siteMapPath(id) else {
            throw PanelError(status: .notFound, message: "There is no site '\(TerminalText.escaped(id))'.")
        }
        let folder = (target as NSString).deletingLastPathComponent
        try await blocking {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let receiver = MultipartFiles(folder: folder, limit: Self.siteMapLimit, pool: pool)
        defer { receiver.removeLeftovers() }  // ours: the temporary files of parts not kept
        try await Self.receive(request, boundary: boundary, into: receiver)
        guard let file = receiver.files.first else {
            throw PanelError(message: "No map was chosen: choose a .pmtiles file, then press Upload the region map.")
        }
        guard receiver.files.count == 1 else {
            throw PanelError(message: "Choose one map file at a time; nothing was changed.")
        }
        let header: PMTilesHeader
        do {
            header = try await blocking {
                try SiteRegionMap.install(file.temp, shownName: file.name.value, target: target, move: true)
            }
        } catch let refusal as SiteRegionMap.Refusal {
            throw PanelError(
                message: refusal.description.prefix(1).uppercased() + refusal.description.dropFirst() + ".")
        }
        try await catalog.audit(
            actor: Catalog.auditActor, action: .siteMap, id: nil, version: nil, sha256: nil,
            detail: "\(id): region map '\(file.name.value)' (zoom \(header.minZoom) to \(header.maxZoom))")
        return
            "The site \(id) has a region map now (zoom \(header.minZoom) to \(header.maxZoom)): the map editor draws it under tours that have no map of their own."
    }

    /// Takes a site's region map away (a copy this program made when it was given).
    func removeSiteMap(_ visitor: Visitor, _ form: PanelForm, _ context: AppRequestContext) async throws -> String {
        let id = try await existingSite(context)
        guard let target = drafts.siteMapPath(id) else { return "The site \(id) had no region map." }
        // Only the regular file the program put there: a link or folder planted in its place is left alone.
        let removed = try await blocking { Self.regularFile(target).map { unlink($0) == 0 } ?? false }
        guard removed else { return "The site \(id) had no region map." }
        try await catalog.audit(
            actor: Catalog.auditActor, action: .siteMap, id: nil, version: nil, sha256: nil,
            detail: "\(id): region map removed")
        return "The site \(id) has no region map now."
    }

    /// The largest region map taken through the page (a district's raster map to zoom 15 is a few hundred MB).
    static let siteMapLimit: Int64 = 4 << 30

    func grant(_ visitor: Visitor, _ form: PanelForm) async throws -> String {
        let user = try await existingUser(form.text("user")), site = form.text("site")
        guard user.role == .publisher else {
            throw PanelError(
                message: "\(user.name) is not a publisher: only publishers are given sites to make tours for.")
        }
        guard Slug.isValid(site), try await catalog.siteExists(site) else {
            throw PanelError(status: .notFound, message: "Choose one of the sites listed.")
        }
        try await catalog.grant(user: user.name, site: site)
        return "\(user.name) now makes tours for \(site)."
    }

    func revokeGrant(_ visitor: Visitor, _ form: PanelForm) async throws -> String {
        let user = try Self.userName(form.text("user")), site = form.text("site")
        let had = try await catalog.revokeGrant(user: user, site: site)
        return had ? "\(user) no longer makes tours for \(site)." : "\(user) did not make tours for \(site)."
    }

    func revokeToken(_ visitor: Visitor, _ context: AppRequestContext) async throws -> String {
        let id = try context.parameters.require("token")
        guard id.count <= 64, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw PanelError(status: .notFound, message: "There is no such token.")
        }
        let live = try await catalog.revokeToken(id: id)
        return live
            ? "The token \(id) was revoked: programs using it are refused from now on."
            : "That token was already revoked."
    }
}
