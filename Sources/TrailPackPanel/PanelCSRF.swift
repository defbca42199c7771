import Foundation
import HTTPTypes
import Hummingbird
import TrailPackCatalogModel

/// Every state-changing panel request (POST, PUT, PATCH, DELETE) needs a live session and its CSRF token:
/// in the `X-CSRF-Token` header (fetch), the `_csrf` field of a urlencoded form, or `?_csrf=` on a multipart
/// form's action (its body is streamed to disk, never read here). Anything else is 403.
///
/// A request whose session has ended (idle too long, signed out elsewhere, the server's sessions
/// reset) is not a forgery: a browser's form gets `sessionEnded` (the sign-in page, keeping what was
/// typed), a script's request 401 with a message saying the page still holds it.
struct PanelCSRFMiddleware<Context: RequestContext>: RouterMiddleware {
    let sessions: PanelSessions
    /// The answer to a browser's urlencoded form whose session has ended, given the form's body.
    let sessionEnded: @Sendable (Request, String) async throws -> Response
    /// The largest urlencoded form read here, in bytes (forms carry text fields; files go multipart).
    static var maxFormBytes: Int { 1 << 20 }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard [.post, .put, .patch, .delete].contains(request.method) else { return try await next(request, context) }
        var request = request
        let isForm =
            request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        let id = PanelCookies.sessionID(request.headers[.cookie])
        guard let id, try await sessions.session(id: id) != nil else {
            // Only a form from one of our pages (its token field present) is kept; anything else is refused.
            if isForm, request.headers[.accept]?.contains("application/json") != true {
                let body = String(buffer: try await request.collectBody(upTo: Self.maxFormBytes))
                if PanelCookies.formField("_csrf", in: body) != nil { return try await sessionEnded(request, body) }
            }
            // A file form (multipart, its token in the address): the files cannot be kept; the sign-in page says so.
            if !isForm, request.uri.queryParameters["_csrf"] != nil,
                request.headers[HTTPField.Name("X-CSRF-Token")!] == nil
            {
                return try await sessionEnded(request, "")
            }
            if request.headers[HTTPField.Name("X-CSRF-Token")!] != nil {
                let body = #"{"message":"\#(Self.endedMessage)","sessionEnded":true}"#
                return Response(
                    status: .unauthorized, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: body)))
            }
            throw Self.refused
        }
        var token =
            request.headers[HTTPField.Name("X-CSRF-Token")!] ?? request.uri.queryParameters["_csrf"].map(String.init)
        if token == nil, isForm {
            let body = try await request.collectBody(upTo: Self.maxFormBytes)
            token = PanelCookies.formField("_csrf", in: String(buffer: body))
        }
        guard try await sessions.checkCSRF(id: id, token: token) else { throw Self.refused }
        return try await next(request, context)
    }

    /// What a page's script is told when its session has ended.
    static var endedMessage: String {
        "Your session has ended, so this was not saved. What you typed is still on this page: sign in again in another tab (open the panel's address there), then come back and save."
    }

    static var refused: HTTPError {
        HTTPError(
            .forbidden,
            message:
                "this form was not sent from a signed-in panel page (its security token is missing or out of date): reload the page, sign in if asked, and send it again"
        )
    }
}

enum PanelCookies {
    static let sessionName = "trailpack_session"

    /// The session id in a Cookie header, or nil.
    static func sessionID(_ header: String?) -> String? {
        guard let header else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces)
            if pair.hasPrefix(sessionName + "=") {
                let value = String(pair.dropFirst(sessionName.count + 1))
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// A field of a urlencoded form body (the first one of that name), decoded.
    static func formField(_ name: String, in body: String) -> String? {
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, decode(parts[0]) == name else { continue }
            return decode(parts[1])
        }
        return nil
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
