import Foundation
import HTTPTypes
import Hummingbird
import TrailPackCatalogModel

/// Every state-changing panel request (POST, PUT, PATCH, DELETE) needs a live session and its CSRF token:
/// in the `X-CSRF-Token` header (fetch), the `_csrf` field of a urlencoded form, or `?_csrf=` on a multipart
/// form's action (its body is streamed to disk, never read here). Anything else is 403.
struct PanelCSRFMiddleware<Context: RequestContext>: RouterMiddleware {
    let sessions: PanelSessions
    /// The largest urlencoded form read here, in bytes (forms carry text fields; files go multipart).
    static var maxFormBytes: Int { 1 << 20 }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard [.post, .put, .patch, .delete].contains(request.method) else { return try await next(request, context) }
        var request = request
        guard let id = PanelCookies.sessionID(request.headers[.cookie]) else { throw Self.refused }
        var token =
            request.headers[HTTPField.Name("X-CSRF-Token")!] ?? request.uri.queryParameters["_csrf"].map(String.init)
        if token == nil,
            request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        {
            let body = try await request.collectBody(upTo: Self.maxFormBytes)
            token = PanelCookies.formField("_csrf", in: String(buffer: body))
        }
        guard try await sessions.checkCSRF(id: id, token: token) else { throw Self.refused }
        return try await next(request, context)
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
