import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackS3

/// Reads `Authorization: Bearer …` on every request that carries one: the bootstrap admin token
/// (`--admin-token-file`) or a token issued with `trailpack admin token issue`. A request without
/// the header goes on anonymous (public routes); one with a token that is not valid is refused
/// with 401 — never served as if anonymous. Routes that need a user say so with `context.require`.
struct BearerAuthMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let catalog: any CatalogStore
    /// The bootstrap admin token's SHA-256 (`--admin-token-file`), if any.
    let adminTokenHash: SHA256Digest?

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization] else { return try await next(request, context) }
        guard header.hasPrefix("Bearer ") else {
            var e = ServerError(.unauthorized, .unauthorized, "send 'Authorization: Bearer <token>'")
            e.headers[.wwwAuthenticate] = "Bearer"
            throw e
        }
        let token = String(header.dropFirst(7))
        if let bootstrap = adminTokenHash, SHA256.hash(Array(token.utf8)) == bootstrap {
            context.user = Catalog.User(name: "admin", role: .admin, publicKey: nil)
            context.isBootstrap = true
        } else if let user = try await catalog.authenticate(token: token) {
            context.user = user
        } else {
            var e = ServerError(.unauthorized, .unauthorized, "the token is not valid (or was revoked)")
            e.headers[.wwwAuthenticate] = "Bearer error=\"invalid_token\""
            throw e
        }
        return try await next(request, context)
    }
}

/// Every admin route needs a signed-in user (the role is checked by each handler).
struct RequireUserMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        _ = try context.require(Set(Catalog.Role.allCases))
        return try await next(request, context)
    }
}

/// Turns every error into the documented JSON error (Hummingbird's own 404 and 413 included),
/// answers a known path with the wrong method with 405 and `Allow`, logs every 5xx with its cause,
/// and sets the headers every response carries: `nosniff`, and no caching of errors.
struct ErrorResponseMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let routes: RouteTable
    let logger: Logger

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            let serverError = classify(error, request: request)
            if serverError.code == .busy || serverError.code == .clientClosed {
                logger.info(
                    serverError.code == .busy ? "catalog busy; answered 503" : "the client ended its request early",
                    metadata: [
                        "method": "\(request.method)", "path": "\(ServerError.short(request.uri.path))",
                        "status": "\(serverError.status.code)",
                        "error": "\(TerminalText.escaped(String(describing: error)))",
                    ])
            } else if serverError.status.code >= 500 {
                logger.error(
                    "request failed",
                    metadata: [
                        "method": "\(request.method)", "path": "\(ServerError.short(request.uri.path))",
                        "status": "\(serverError.status.code)",
                        "error": "\(TerminalText.escaped(String(describing: error)))",
                    ])
            }
            response = try serverError.response(from: request, context: context)
            response.headers[.cacheControl] = "no-store"
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }

    private func classify(_ error: any Error, request: Request) -> ServerError {
        if CatalogError.isBusy(error) || S3BlobStore.isUnavailable(error) { return ServerError.busy(error) }
        if let fault = ServerError.clientFault(error) { return fault }
        switch error {
        case let error as ServerError:
            return error
        case let error as HTTPError where error.status.code == 404:
            let allowed = routes.methods(for: request.uri.path)
            if !allowed.isEmpty, !allowed.contains(request.method) {
                var e = ServerError(
                    .methodNotAllowed, .methodNotAllowed,
                    "\(request.method) is not allowed here; use \(allowed.map(\.rawValue).sorted().joined(separator: " or "))"
                )
                e.headers[.allow] = allowed.map(\.rawValue).sorted().joined(separator: ", ")
                return e
            }
            return ServerError.notFound(error.body ?? "no such resource: \(ServerError.short(request.uri.path))")
        case let error as any HTTPResponseError where error.status.code == 413:
            return ServerError(.contentTooLarge, .tooLarge, "the request body is larger than this route accepts")
        case let error as HTTPError:
            return ServerError(error.status, .http(error.status.code), error.body ?? error.status.reasonPhrase)
        case let error as any HTTPResponseError:
            return ServerError(error.status, .http(error.status.code), error.status.reasonPhrase)
        default:
            return ServerError.internal("the server could not answer this request; the operator's log has the cause")
        }
    }
}

/// One access-log line per request: method, path, status, bytes, duration, user and client, at
/// `info` (through swift-log, so `--log-format` decides logfmt or JSON).
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let logger: Logger

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(
                request, context: context, status: response.status.code,
                bytes: response.headers[.contentLength] ?? response.body.contentLength.map(String.init) ?? "-",
                start: start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            log(request, context: context, status: status, bytes: "-", start: start)
            throw error
        }
    }

    private func log(_ request: Request, context: Context, status: Int, bytes: String, start: ContinuousClock.Instant) {
        Self.log(
            logger, method: request.method, path: request.uri.path, status: status, bytes: bytes, start: start,
            user: context.user?.name ?? context.signedIn ?? "-", client: context.clientAddress)
    }

    /// Writes one access line; `kept`: answered by `PublicAnswerHandler` before routing (`kept=yes`).
    static func log(
        _ logger: Logger, method: HTTPRequest.Method, path: some StringProtocol, status: Int, bytes: String,
        start: ContinuousClock.Instant, user: String, client: String, kept: Bool = false
    ) {
        // Nothing is made for a line that is not written (`--log-level warning`).
        guard logger.logLevel <= .info else { return }
        let elapsed = ContinuousClock.now - start
        // Tenths of a millisecond, rounded, written without Foundation's `String(format:)` (per request).
        let hundredths = elapsed.components.seconds * 100_000 + elapsed.components.attoseconds / 10_000_000_000_000
        let tenths = (hundredths + 5) / 10
        var metadata: Logger.Metadata = [
            "method": .string(method.rawValue), "path": .string(ServerError.short(path)),
            "status": .string(String(status)), "bytes": .string(bytes),
            "ms": .string("\(tenths / 10).\(tenths % 10)"),
            "user": .string(user),
            "client": .string(client),
        ]
        if kept { metadata["kept"] = "yes" }
        logger.info("request", metadata: metadata)
    }
}

/// The routes the server answers, by pattern and method: for 405 and `Allow`, and for adding HEAD
/// to every GET route.
final class RouteTable: Sendable {
    private let routes = NIOLockedValueBox<[(pattern: [Substring], method: HTTPRequest.Method)]>([])

    func add(_ path: String, _ method: HTTPRequest.Method) {
        routes.withLockedValue { $0.append((path.split(separator: "/"), method)) }
    }

    /// The methods some route answers for `path` (empty: no route has this path).
    func methods(for path: String) -> Set<HTTPRequest.Method> {
        let parts = path.split(separator: "/")
        return routes.withLockedValue { routes in
            Set(
                routes.filter { route in
                    route.pattern.count == parts.count
                        && zip(route.pattern, parts).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
                }.map(\.method))
        }
    }
}

/// Registers routes on a router (or group) and in the `RouteTable`; `get` also answers HEAD with
/// the same status and headers and no body.
struct Routes {
    let router: any RouterMethods<AppRequestContext>
    let table: RouteTable
    /// The group's path prefix, for the table.
    var prefix = ""

    /// The routes under `path`, behind `middleware` (the admin group's authentication).
    func group(_ path: String, middleware: any MiddlewareProtocol<Request, Response, AppRequestContext>) -> Routes {
        Routes(router: router.group(RouterPath(path)).add(middleware: middleware), table: table, prefix: prefix + path)
    }

    typealias Handler = @Sendable (Request, AppRequestContext) async throws -> Response

    func get(_ path: String, _ handler: @escaping Handler) {
        router.get(RouterPath(path), use: handler)
        router.head(RouterPath(path)) { request, context in
            let response = try await handler(request, context)
            var headers = response.headers
            if headers[.contentLength] == nil, let length = response.body.contentLength {
                headers[.contentLength] = String(length)
            }
            return Response(status: response.status, headers: headers, body: .init())
        }
        table.add(prefix + path, .get)
        table.add(prefix + path, .head)
    }

    /// A GET route whose handler answers HEAD itself (downloads: no file is opened for HEAD).
    func getAndHead(_ path: String, get: @escaping Handler, head: @escaping Handler) {
        router.get(RouterPath(path), use: get)
        router.head(RouterPath(path), use: head)
        table.add(prefix + path, .get)
        table.add(prefix + path, .head)
    }

    func post(_ path: String, _ handler: @escaping Handler) {
        router.post(RouterPath(path), use: handler)
        table.add(prefix + path, .post)
    }
}
