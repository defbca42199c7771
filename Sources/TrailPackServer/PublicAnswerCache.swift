import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization
import TrailPackCrypto

#if canImport(Glibc)
import Glibc
#endif

/// The public catalog answers (`/v1/sites`, a site's package list, a package's versions, a released
/// manifest) kept as the bytes they are, each with a strong ETag, until the catalog's public change
/// count moves: a list is then served like a static file (no database, no JSON writing), and a
/// client that holds it gets 304.
final class PublicAnswerCache: Sendable {
    struct Answer: Sendable {
        let changeCount: UInt64
        let body: ByteBuffer
        let etag: String
        let contentType: String
    }

    /// Enough for every site's first pages and every package's versions of a large catalog; past
    /// either bound the cache starts again (answers are cheap to make once), so memory stays bounded
    /// whatever the requests ask for.
    static let maxAnswers = 8192
    static let maxBytes = 64 << 20
    /// The longest request target remembered for `PublicAnswerHandler`.
    static let maxTargetBytes = 512
    private struct Kept {
        var answers: [String: Answer] = [:]
        /// The same answers by the request target they were made for (path and query as sent), for
        /// `PublicAnswerHandler`, which answers a repeated target before routing.
        var targets: [String: Answer] = [:]
        var bytes = 0
    }
    private let kept = Mutex(Kept())

    /// The answer for `key` (a path and its query), made by `make` only when the catalog changed
    /// since it was kept (or was never kept). `make` returns the body and its Content-Type.
    func answer(
        key: String, request: Request, changeCount: UInt64,
        make: () async throws -> (ByteBuffer, String)
    ) async throws -> Response {
        let found = kept.withLock { $0.answers[key] }
        let answer: Answer
        if let found, found.changeCount == changeCount {
            answer = found
        } else {
            let (body, contentType) = try await make()
            let digest = SHA256.hash(Array(body.readableBytesView))
            answer = Answer(
                changeCount: changeCount, body: body, etag: "\"\(digest.hex.prefix(32))\"", contentType: contentType)
            kept.withLock {
                if $0.answers.count >= Self.maxAnswers || $0.bytes + body.readableBytes > Self.maxBytes {
                    $0 = Kept()
                }
                $0.bytes += body.readableBytes - ($0.answers[key]?.body.readableBytes ?? 0)
                $0.answers[key] = answer
            }
        }
        // The answer depends on the target only through `key`: the same target gets it again. A
        // client can vary a target at will (`?limit=50&x=1`, `&x=2`, …): targets are short and
        // bounded apart, and too many only start the targets again, never the answers.
        if let target = request.head.path, target.utf8.count <= Self.maxTargetBytes {
            kept.withLock {
                if $0.targets.count >= Self.maxAnswers { $0.targets = [:] }
                $0.targets[target] = answer
            }
        }
        let (status, headers) = Self.head(of: answer, ifNoneMatch: request.headers[.ifNoneMatch])
        return status == .notModified
            ? Response(status: status, headers: headers)
            : Response(status: status, headers: headers, body: .init(byteBuffer: answer.body))
    }

    /// The answer kept for this request target (path and query, as sent), if the catalog has not
    /// changed since it was made.
    func current(target: String, changeCount: UInt64) -> Answer? {
        guard let found = kept.withLock({ $0.targets[target] }), found.changeCount == changeCount else { return nil }
        return found
    }

    /// The status and headers of `answer` for a request with this `If-None-Match`: 304 without a
    /// body when it names the answer's ETag (or is `*`), else 200 with its length.
    static func head(of answer: Answer, ifNoneMatch: String?) -> (HTTPResponse.Status, HTTPFields) {
        var headers: HTTPFields = [.contentType: answer.contentType, .eTag: answer.etag, .cacheControl: "no-cache"]
        if let match = ifNoneMatch,
            match == "*"
                || match.split(separator: ",").contains(where: {
                    $0.trimmingCharacters(in: .whitespaces) == answer.etag
                })
        {
            return (.notModified, headers)
        }
        headers[.contentLength] = String(answer.body.readableBytes)
        return (.ok, headers)
    }
}

/// Answers a public catalog request from `PublicAnswerCache` on the connection's event loop,
/// before routing, when the cache holds a current answer for its exact target: a site's list is
/// then sent the way a static file server sends a file, without the request's trip through the
/// async handler, the router and the middleware (measured on a site's list under wrk, 32
/// connections: 0.43× nginx's requests/s before; see docs/PERFORMANCE.md).
///
/// Only what the router would answer the same way is answered here: GET and HEAD, with no
/// `Authorization` (a token is checked, and a bad one refused, by the router), no `Cookie` (the
/// access log names the panel's user), no `Connection` and no `Expect` header (Hummingbird's own
/// keep-alive and 100-continue handling stays in charge of those). The response is the router's,
/// header for header: the cache makes both (`PublicAnswerCache.head`), plus what the middleware and
/// Hummingbird add (`X-Content-Type-Options`, `Date`, `Server`). Everything else, and every
/// request while a routed one on the same connection still has its response to finish (answers
/// go out in the order asked), is passed on untouched. The first request for a target, and the
/// first after any catalog change, is routed: that is what makes the answer current again.
///
/// It sits after `ConnectionGuard`, which therefore times and limits these requests as any other.
final class PublicAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let answers: PublicAnswerCache
    private let changeCount: @Sendable () -> UInt64
    private let logger: Logger
    private let serverName: String?
    /// A request was passed on, and its response has not ended yet.
    private var routedInFlight = false
    /// The request answered here has a body or end still to come: dropped.
    private var dropping = false
    /// Answers written here and not yet sent; a shutdown's quiesce event waits for them.
    private var unsent = 0
    private var heldQuiesce = false
    private var client: String?

    init(
        answers: PublicAnswerCache, changeCount: @escaping @Sendable () -> UInt64, serverName: String?, logger: Logger
    ) {
        self.answers = answers
        self.changeCount = changeCount
        self.serverName = serverName
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if !routedInFlight, let answer = eligible(request) {
                dropping = true
                send(answer, for: request, context: context)
                return
            }
            routedInFlight = true
        case .body:
            if dropping { return }
        case .end:
            if dropping {
                dropping = false
                return
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { routedInFlight = false }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Hummingbird closes an idle connection when the server stops; an answer still being sent
        // from here is not idle to this handler: the event waits until it is out.
        if event is ChannelShouldQuiesceEvent, unsent > 0 {
            heldQuiesce = true
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func eligible(_ request: HTTPRequest) -> PublicAnswerCache.Answer? {
        guard request.method == .get || request.method == .head, let target = request.path,
            target.utf8.count <= PublicAnswerCache.maxTargetBytes,
            request.headerFields[.authorization] == nil, request.headerFields[.cookie] == nil,
            request.headerFields[.connection] == nil, request.headerFields[.expect] == nil
        else { return nil }
        return answers.current(target: target, changeCount: changeCount())
    }

    private func send(_ answer: PublicAnswerCache.Answer, for request: HTTPRequest, context: ChannelHandlerContext) {
        let start = ContinuousClock.now
        var (status, headers) = PublicAnswerCache.head(of: answer, ifNoneMatch: request.headerFields[.ifNoneMatch])
        let isHead = request.method == .head
        // What a HEAD route of `Routes.get` says: the GET's headers, with its length.
        if isHead && headers[.contentLength] == nil { headers[.contentLength] = "0" }
        headers[.xContentTypeOptions] = "nosniff"
        headers[.date] = HTTPDate.now()
        if let serverName { headers[.server] = serverName }
        let withBody = status == .ok && !isHead
        context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: headers))), promise: nil)
        if withBody { context.write(wrapOutboundOut(.body(answer.body)), promise: nil) }
        unsent += 1
        let sent = context.eventLoop.makePromise(of: Void.self)
        sent.futureResult.assumeIsolated().whenComplete { [self] _ in
            unsent -= 1
            if unsent == 0 && heldQuiesce {
                heldQuiesce = false
                context.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
            }
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: sent)
        let client = self.client ?? context.channel.remoteAddress?.ipAddress ?? "local"
        self.client = client
        let path = (request.path ?? "").prefix { $0 != "?" }
        AccessLogMiddleware.log(
            logger, method: request.method, path: path, status: Int(status.code),
            bytes: headers[.contentLength] ?? "0", start: start, user: "-", client: client, kept: true)
    }
}

/// The `Date` header's text (RFC 9110's IMF-fixdate), made once a second.
enum HTTPDate {
    private static let kept = TextOfTheSecond<String> { format($0) }

    static func now() -> String { kept.now().text }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` from its UTC calendar fields.
    static func format(_ fields: tm) -> String {
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return
            "\(days[Int(fields.tm_wday)]), \(two(fields.tm_mday)) \(months[Int(fields.tm_mon)]) \(fields.tm_year + 1900) "
            + "\(two(fields.tm_hour)):\(two(fields.tm_min)):\(two(fields.tm_sec)) GMT"
    }
}
