import HTTPTypes
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The limits that keep one client from holding the server: how long a request's headers, its
/// body and its response may take, how long a kept-alive connection may sit idle, and how many
/// connections one address may hold. `trailpack serve --help` lists the flags; docs/OPERATORS.md the defaults.
public struct ServerLimits: Sendable, Equatable {
    /// A new connection must send a complete request head (line and headers) within this time.
    public var headerTimeout: TimeAmount = .seconds(30)
    /// After a response, the next request's head must arrive within this time, or the connection is closed.
    public var keepAliveTimeout: TimeAmount = .seconds(15)
    /// While a body is being read, each window of this length must bring at least
    /// `minimumBodyBytesPerSecond × window` bytes (when the server asked for more).
    public var bodyTimeout: TimeAmount = .seconds(30)
    /// The slowest upload rate accepted, averaged over `bodyTimeout` (1 byte every 2 s is not an upload).
    public var minimumBodyBytesPerSecond: Int = 256
    /// A client that stops reading the response is dropped when nothing could be sent for this long.
    public var sendTimeout: TimeAmount = .seconds(60)
    /// Connections one client address may hold at once (further ones are closed at once).
    public var maxConnectionsPerAddress: Int = 64
    /// How long a graceful shutdown (SIGTERM, SIGINT) waits for requests in flight before it cancels them.
    public var shutdownTimeout: Duration = .seconds(30)

    public init() {}

    /// The limits in words, for the start-up banner.
    public var summary: String {
        func s(_ t: TimeAmount) -> String { "\(t.nanoseconds / 1_000_000_000) s" }
        return
            "headers \(s(headerTimeout)), keep-alive \(s(keepAliveTimeout)), body \(minimumBodyBytesPerSecond) B/s over \(s(bodyTimeout)), "
            + "send \(s(sendTimeout)), \(maxConnectionsPerAddress) connections per address, shutdown \(shutdownTimeout.components.seconds) s"
    }
}

/// Counts the open connections of each client address, for `ServerLimits.maxConnectionsPerAddress`.
public final class ConnectionCounter: Sendable {
    private let counts = NIOLockedValueBox<[String: Int]>([:])
    let limit: Int
    /// Addresses never capped: the trusted proxies (`--trusted-proxy`), whose connections carry
    /// every client's requests.
    let exempt: Set<String>

    public init(limit: Int, exempt: Set<String> = []) {
        self.limit = limit
        self.exempt = exempt
    }

    /// Takes a place for `address`; false when it already holds `limit` connections.
    func acquire(_ address: String) -> Bool {
        if exempt.contains(address) { return true }
        return counts.withLockedValue { counts in
            let n = counts[address, default: 0]
            guard n < limit else { return false }
            counts[address] = n + 1
            return true
        }
    }

    /// Takes a place for the connection of `context`: its address, or nil when that address holds
    /// `limit` connections already (the refusal is logged and the connection closed).
    func admit(_ context: ChannelHandlerContext, logger: Logger) -> String? {
        let address = Self.address(of: context)
        guard acquire(address) else {
            logger.notice(
                "too many connections from one address; closed",
                metadata: ["client": "\(address)", "limit": "\(limit)"])
            context.close(promise: nil)
            return nil
        }
        return address
    }

    static func address(of context: ChannelHandlerContext) -> String {
        context.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    func release(_ address: String) {
        if exempt.contains(address) { return }
        counts.withLockedValue { counts in
            let n = counts[address, default: 0] - 1
            counts[address] = n > 0 ? n : nil
        }
    }

    /// The connections `address` holds now (for tests and the log).
    public func count(_ address: String) -> Int { counts.withLockedValue { $0[address, default: 0] } }
}

/// One connection's guard: enforces `ServerLimits` on the HTTP parts passing through, and answers
/// `Expect: 100-continue` so a client sends its body without waiting. It sits after the HTTP/1
/// codec, so it sees whole request heads: a client that trickles header bytes never produces one
/// and is closed when `headerTimeout` runs out, however slowly it sends.
///
/// Over TLS (``ServerTLS``) it is added once the handshake is done, and without a counter: the
/// `TLSConnectionGuard` below the TLS handler counts the connection and limits the handshake to
/// `headerTimeout`. On HTTP/1.1 over TLS every limit then holds as on plain HTTP (the head's time
/// limit starts after the handshake). On HTTP/2 the same guard is added to each *stream*, which is
/// one request; there:
/// - the body's minimum rate and the send timeout hold per stream (a stream that cannot be written
///   is one whose flow-control window the client does not open); a stream closed by a limit is
///   reset, its connection stays;
/// - the head's time limit is moot: a stream exists only once its whole header block has come
///   (NIOHTTP2 bounds a header block's size, not its time); the time a connection may have no
///   stream open is the TLS guard's, which this guard tells when its stream opens and closes;
/// - the keep-alive limit is the connection's, not this guard's (a stream ends with its response):
///   Hummingbird sends an idle connection a GOAWAY after `keepAliveTimeout`, and the TLS guard
///   closes it after twice that if the client has not;
/// - connections per address count TCP connections; each may carry up to NIOHTTP2's default of
///   100 concurrent streams, so one address may have `maxConnectionsPerAddress` × 100 requests in flight.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ServerLimits
    /// nil: the connection is counted below (`TLSConnectionGuard`), not per HTTP/2 stream.
    private let counter: ConnectionCounter?
    private let maxBodyBytes: Int64
    private let logger: Logger
    private var address: String?
    /// What the connection is waiting for, and until when: a request head (`reason` says which
    /// kind of wait closes it) or the body's next window. nil: the handler has the request.
    private var phase: (deadline: NIODeadline, kind: PhaseKind)?
    private enum PhaseKind {
        case head(reason: String)
        case bodyWindow
    }
    /// The one timer behind `phase`, with when it fires. Moving the deadline later (every request
    /// does) leaves it alone: when it fires early it only arms itself again for the deadline. A
    /// timer scheduled and cancelled twice per request was 2–3 % of a cached list's CPU.
    private var phaseTimer: (task: Scheduled<Void>, fires: NIODeadline)?
    private var sendTimer: Scheduled<Void>?
    private var readingBody = false
    /// The current request's response has been written to its end (sent, not only queued).
    private var responseEnded = false
    /// Counts request heads, so that a response finishing late does not touch a newer request's timers.
    private var requestNumber = 0
    private var bodyBytesInWindow = 0
    private var readRequestedInWindow = false
    private var started = false
    private let zeroCopy: Bool
    /// On an HTTP/2 stream: its connection's guard, told when this stream opens and closes.
    private var connectionGuard: TLSConnectionGuard?

    /// Told when a blob being sent shrank under the server (see `SendfileHandler`).
    private let onShortFile: @Sendable (_ path: String, _ reason: String) -> Void

    init(
        limits: ServerLimits, counter: ConnectionCounter?, maxBodyBytes: Int64, zeroCopy: Bool, logger: Logger,
        onShortFile: @escaping @Sendable (_ path: String, _ reason: String) -> Void = { _, _ in }
    ) {
        self.onShortFile = onShortFile
        self.zeroCopy = zeroCopy
        self.limits = limits
        self.counter = counter
        self.maxBodyBytes = maxBodyBytes
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Below the HTTP-types codec, where the HTTP/1 encoder still takes file regions.
        if zeroCopy, let codec = try? context.pipeline.syncOperations.handler(type: HTTP1ToHTTPServerCodec.self) {
            try? context.pipeline.syncOperations.addHandler(
                SendfileHandler(onShortFile: onShortFile), position: .before(codec))
        }
        if context.channel.isActive { start(context) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is SendProgressEvent {
            // A file region went out: the client is reading; the send timeout starts again.
            if sendTimer != nil {
                sendTimer?.cancel()
                sendTimer = nil
                armSendTimer(context)
            }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        // Under TLS the connection's place is held by its TLSConnectionGuard (counter nil here).
        let address: String
        if let counter {
            guard let admitted = counter.admit(context, logger: logger) else { return }
            address = admitted
        } else {
            address = ConnectionCounter.address(of: context)
        }
        self.address = address
        // Over TLS, an HTTP/2 stream's parent is its connection, with the TLS guard, on this event
        // loop; an HTTP/1.1 connection's parent is the listening socket, maybe on another loop.
        if counter == nil, let parent = context.channel.parent, parent.eventLoop.inEventLoop,
            let connectionGuard = try? parent.pipeline.syncOperations.handler(type: TLSConnectionGuard.self)
        {
            self.connectionGuard = connectionGuard
            connectionGuard.streamOpened()
        }
        arm(context, after: limits.headerTimeout, reason: "no complete request head")
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        if let address { counter?.release(address) }
        address = nil
        connectionGuard?.streamClosed()
        connectionGuard = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
        if let address { counter?.release(address) }
        address = nil
        connectionGuard?.streamClosed()
        connectionGuard = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            readingBody = true
            responseEnded = false
            requestNumber += 1
            bodyBytesInWindow = 0
            readRequestedInWindow = true
            scheduleBodyWindow(context)
            if head.headerFields[.expect]?.lowercased() == "100-continue" {
                let declared = head.headerFields[.contentLength].flatMap(Int64.init) ?? 0
                // Too large: no 100; the handler answers 413 at once and the client sends nothing.
                if declared <= maxBodyBytes {
                    context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
                }
            }
        case .body(let buffer):
            bodyBytesInWindow += buffer.readableBytes
        case .end:
            readingBody = false
            phase = nil
            // Answered before its body was read (a 401, a 413): the connection now waits for the next request.
            if responseEnded { arm(context, after: limits.keepAliveTimeout, reason: "idle keep-alive") }
        }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        readRequestedInWindow = true
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        // The keep-alive limit starts when the response's end has gone out — after every file
        // region queued before it (a download by sendfile is queued whole, then sent for minutes).
        let number = requestNumber
        let sent = context.eventLoop.makePromise(of: Void.self)
        sent.futureResult.assumeIsolated().whenComplete { [self] result in
            guard case .success = result, number == requestNumber else { return }
            responseEnded = true
            if !readingBody { arm(context, after: limits.keepAliveTimeout, reason: "idle keep-alive") }
        }
        if let promise { sent.futureResult.cascade(to: promise) }
        context.write(data, promise: sent)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            sendTimer?.cancel()
            sendTimer = nil
        } else if sendTimer == nil {
            armSendTimer(context)
        }
        context.fireChannelWritabilityChanged()
    }

    private func armSendTimer(_ context: ChannelHandlerContext) {
        let loop = context.eventLoop.assumeIsolated()
        sendTimer = loop.scheduleTask(in: limits.sendTimeout) { [self] in
            sendTimer = nil
            close(context, reason: "the client stopped reading the response")
        }
    }

    /// Waits `timeout` for the next request head, then closes the connection for `reason`.
    private func arm(_ context: ChannelHandlerContext, after timeout: TimeAmount, reason: String) {
        setPhase(.head(reason: reason), after: timeout, context)
    }

    /// Every `bodyTimeout`, the body must have brought its minimum — unless the server was not
    /// reading (a handler busy before it reads the body is not the client's slowness).
    private func scheduleBodyWindow(_ context: ChannelHandlerContext) {
        setPhase(.bodyWindow, after: limits.bodyTimeout, context)
    }

    private func setPhase(_ kind: PhaseKind, after timeout: TimeAmount, _ context: ChannelHandlerContext) {
        let deadline = NIODeadline.now() + timeout
        phase = (deadline, kind)
        if let timer = phaseTimer, timer.fires <= deadline { return }
        schedulePhaseTimer(at: deadline, context)
    }

    private func schedulePhaseTimer(at deadline: NIODeadline, _ context: ChannelHandlerContext) {
        phaseTimer?.task.cancel()
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            phaseTimer = nil
            phaseDue(context)
        }
        phaseTimer = (task, deadline)
    }

    private func phaseDue(_ context: ChannelHandlerContext) {
        guard let phase else { return }
        guard NIODeadline.now() >= phase.deadline else {
            schedulePhaseTimer(at: phase.deadline, context)
            return
        }
        self.phase = nil
        switch phase.kind {
        case .head(let reason):
            close(context, reason: reason)
        case .bodyWindow:
            guard readingBody else { return }
            let seconds = Int(limits.bodyTimeout.nanoseconds / 1_000_000_000)
            let minimum = max(1, limits.minimumBodyBytesPerSecond * max(1, seconds))
            if readRequestedInWindow && bodyBytesInWindow < minimum {
                // The handler reading the body learns why it ended (a 408 in the log, not a 500).
                context.fireErrorCaught(RequestBodyTimeout(bytes: bodyBytesInWindow, seconds: seconds))
                close(context, reason: "the request body came too slowly (\(bodyBytesInWindow) bytes in \(seconds) s)")
                return
            }
            bodyBytesInWindow = 0
            readRequestedInWindow = false
            scheduleBodyWindow(context)
        }
    }

    private func close(_ context: ChannelHandlerContext, reason: String) {
        logger.info(
            connectionGuard == nil ? "connection closed by a time limit" : "HTTP/2 stream reset by a time limit",
            metadata: ["client": "\(address ?? "unknown")", "reason": "\(reason)"])
        cancelTimers()
        context.close(promise: nil)
    }

    private func cancelTimers() {
        phase = nil
        phaseTimer?.task.cancel()
        phaseTimer = nil
        sendTimer?.cancel()
        sendTimer = nil
    }
}

/// The request's body came slower than `ServerLimits.minimumBodyBytesPerSecond`: the connection
/// guard closed the connection, and the handler reading the body gets this error.
public struct RequestBodyTimeout: Error, Sendable, CustomStringConvertible {
    public var bytes: Int
    public var seconds: Int
    public var description: String { "the request body came too slowly (\(bytes) bytes in \(seconds) s)" }
}
