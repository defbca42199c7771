import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Mustache
import NIOCore
import TrailPackBlocking
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackServer

/// What every room of the panel shares, and nothing else: its settings, its pages (the templates),
/// the signed-in sessions, and the catalog only to find who is signed in and what waits for them.
struct PanelShell: Sendable {
    let configuration: PanelConfiguration
    let library: MustacheLibrary
    let sessions: PanelSessions
    /// Read only to find who is signed in (their user, sites and badges); a room that works on the
    /// catalog is given it by itself.
    let catalog: any CatalogStore
    let logger: Logger

    /// What a session remembers of the password it was opened with: a digest of the stored hash
    /// ("" for a user without one). A different one later means the password changed.
    static func credential(_ passwordHash: String?) -> String {
        guard let passwordHash else { return "" }
        return String(SHA256.hash(Array(passwordHash.utf8)).hex.prefix(32))
    }

    static func wantsJSON(_ request: Request) -> Bool {
        request.headers[.accept]?.contains("application/json") == true
    }

    /// Who sent `request`: their session (from its cookie) and user, with their sites and badges;
    /// nil when nobody is signed in (a removed user, or a changed password, ends their sessions).
    func visitor(_ request: Request) async throws -> PanelVisitor? {
        guard let id = PanelCookies.sessionID(request.headers[.cookie]),
            let session = try await sessions.session(id: id)
        else { return nil }
        let name = session.user
        let record = try await catalog.signInRecord(name: name)
        // A removed user, or one whose password changed since this session began, is signed out.
        guard let record, Self.credential(record.passwordHash) == session.credential else {
            try await sessions.endAll(user: name)
            return nil
        }
        let user = record.user
        // A site added without a name yet (its first release names it) goes by its id meanwhile.
        let sites = try await catalog.workableSites(for: user)
            .map { (id: $0.id, name: $0.name.isEmpty ? $0.id : $0.name) }
        var visitor = PanelVisitor(session: session, user: user, sites: sites)
        if user.role != .publisher {
            visitor.reviewCount = try await catalog.waitingCount(for: user.name)
        }
        // The badge of what needs this publisher (pages only: an autosave or an upload does not ask).
        if user.role != .reviewer, request.method == .get, !PanelShell.wantsJSON(request) {
            visitor.noticeCount = try await PanelNotices(catalog: catalog).notices(for: user).count
        }
        return visitor
    }
}

/// Who is signed in: the session and its user (still present in the catalog).
struct PanelVisitor: Sendable {
    var session: PanelSessions.Session
    var user: Catalog.User
    var sites: [(id: String, name: String)]
    /// Versions waiting for this reviewer (the badge on every page).
    var reviewCount = 0
    /// Versions of theirs that need them (sent back, or approved and waiting to be released).
    var noticeCount = 0
    var canEdit: Bool { user.role != .reviewer }
    /// Who saves, as a draft records it (the session as a digest, never its id).
    var saver: DraftStore.Saver {
        DraftStore.Saver(user: user.name, session: String(SHA256.hash(Array(session.id.utf8)).hex.prefix(12)))
    }
}

/// One room of the panel: a controller for one concern (drafts and stops, imports, review,
/// administration, maps), given the shell and only what else it uses. Its pages, errors,
/// redirects and confirmations are drawn the same way in every room, here.
protocol PanelRoom: Sendable {
    var shell: PanelShell { get }
}

/// A room that reads or writes files: its blocking work runs on the pool, off the cooperative threads.
protocol PanelFileRoom: PanelRoom {
    var pool: BlockingPool { get }
}

/// A room that works on drafts: it finds the draft a URL names, says who changed it, and counts a
/// site's room.
protocol PanelDraftRoom: PanelFileRoom {
    var drafts: DraftStore { get }
}

/// A room that shows stored versions: it finds one a visitor may see.
protocol PanelVersionRoom: PanelRoom {
    var catalog: any CatalogStore { get }
}

extension PanelFileRoom {
    /// Runs blocking work (file reads and writes, fsyncs, parsing) on the pool, off the cooperative threads.
    func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.run(body)
    }
}

extension PanelRoom {
    typealias Visitor = PanelVisitor
    var configuration: PanelConfiguration { shell.configuration }
    var sessions: PanelSessions { shell.sessions }
    var logger: Logger { shell.logger }

    static func wantsJSON(_ request: Request) -> Bool { PanelShell.wantsJSON(request) }

    func visitor(_ request: Request) async throws -> Visitor? { try await shell.visitor(request) }

    /// Runs `body` for a signed-in visitor; otherwise sends them to the sign-in page. Errors become pages.
    func signedIn(
        _ request: Request, _ context: AppRequestContext, json: Bool = false, _ body: (Visitor) async throws -> Response
    ) async -> Response {
        do {
            guard let visitor = try await visitor(request) else {
                if json {
                    return Self.jsonMessage(.unauthorized, "your session has ended: sign in again (reload the page)")
                }
                let next = request.uri.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/"
                return Response(status: .seeOther, headers: [.location: "/login?next=\(next)"])
            }
            context.signedIn = visitor.user.name
            return try await body(visitor)
        } catch {
            return errorPage(error, json: json)
        }
    }

    /// A page: `body` drawn by its template inside the layout, for `visitor` (nil: nobody signed in).
    func page(_ body: some PanelView, title: String, visitor: Visitor? = nil, map: Bool = false) throws -> Response {
        var layout = PanelLayout(title: title, map: map)
        if let tileURL = configuration.tileURL {
            layout.tileURL = tileURL
            layout.tileAttribution = configuration.tileAttribution ?? ""
        }
        if let visitor {
            layout.user = .init(
                name: visitor.user.name, role: visitor.user.role.rawValue,
                reviewCount: ShownCount(visitor.reviewCount), noticeCount: ShownCount(visitor.noticeCount),
                isAdmin: visitor.user.role == .admin)
            layout.csrf = visitor.session.csrfToken
        }
        return try render(PageContext(layout: layout, body: body))
    }

    func render<Body: PanelView>(_ context: PageContext<Body>) throws -> Response {
        guard let html = shell.library.render(context, withTemplate: Body.template) else {
            throw PanelError(status: .internalServerError, message: "the panel has no page '\(Body.template)'")
        }
        return Self.text(html, type: "text/html; charset=utf-8")
    }

    func errorPage(_ error: Error, json: Bool = false) -> Response {
        let (status, message): (HTTPResponse.Status, String) =
            switch error {
            case let e where CatalogError.isBusy(e) || S3BlobStore.isUnavailable(e):
                (
                    .serviceUnavailable,
                    "The server is busy right now and could not do this; nothing was changed. Wait a few seconds and try again."
                )
            case let e as PanelError: (e.status, e.message)
            case let e as ServerError: (e.status, e.message)
            case let e as HTTPError: (e.status, e.body ?? "the request could not be handled")
            default:
                (
                    .internalServerError,
                    "something went wrong on the server (\(error)); try again, and tell the administrator if it keeps happening"
                )
            }
        if status.code >= 500 && status != .serviceUnavailable {
            logger.error(
                "panel request failed", metadata: ["error": "\(TerminalText.escaped(String(describing: error)))"])
        }
        if json {
            var response = Self.jsonMessage(status, message)
            if status == .serviceUnavailable { response.headers[.retryAfter] = "5" }
            return response
        }
        var response =
            (try? page(
                ErrorPage(message: message, status: status.code),
                title: status.code == 409 ? "Not saved" : "Something is wrong"))
            ?? Self.text(message, type: "text/plain; charset=utf-8")
        response.status = status
        if status == .serviceUnavailable { response.headers[.retryAfter] = "5" }
        return response
    }

    static func jsonMessage(_ status: HTTPResponse.Status, _ message: String, extra: [JSONMember] = []) -> Response {
        let body = JSONWriter.string(.object([JSONMember("message", .string(message))] + extra), pretty: false)
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func text(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }

    /// For a removal: nil when the form says `confirmed=yes` (the page's script asked in a dialog, or
    /// the ranger pressed the confirmation page's button), else that page, resending the same form.
    func confirmation(
        _ visitor: Visitor, form: PanelForm, action: String, question: String, detail: String,
        confirmLabel: String, back: String, backLabel: String
    ) throws -> Response? {
        guard form.text("confirmed") != "yes" else { return nil }
        let fields = form.fields.filter { $0.name != "_csrf" && $0.name != "confirmed" }.map {
            ResumePage.Field(name: $0.name, value: $0.value)
        }
        return try page(
            ConfirmPage(
                question: question, detail: detail, action: action, fields: fields, confirmLabel: confirmLabel,
                back: back, backLabel: backLabel),
            title: question, visitor: visitor)
    }

    /// A redirect to `path` whose page then says `text` (kept in the session; the URL says only `saved=1`).
    func redirect(_ visitor: Visitor, to path: String, saying text: String, fragment: String = "") async -> Response {
        // A note that cannot be kept only loses the message: the change itself is made.
        try? await sessions.flash(id: visitor.session.id, text)
        return Self.redirect(path + (path.contains("?") ? "&" : "?") + "saved=1" + fragment)
    }

    /// The message for a page reached by a redirect after a change: the session's, or "Saved.".
    func notice(_ visitor: Visitor, _ request: Request) async -> String? {
        guard request.uri.queryParameters.get("saved") != nil else { return nil }
        return (try? await sessions.takeFlash(id: visitor.session.id)) ?? "Saved."
    }
}
