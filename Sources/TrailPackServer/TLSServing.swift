import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL
import NIOTLS
import TrailPackFileIO

/// The certificate chain and private key the server speaks TLS with (`trailpack serve
/// --tls-certificate FILE --tls-key FILE`). With it, the server answers HTTPS only: HTTP/1.1 or
/// HTTP/2 as the client's ALPN offer chooses, and downloads go through buffers, since `sendfile`
/// cannot encrypt (see `ZeroCopy`).
public struct ServerTLS: Sendable {
    /// The server's certificate first, then the intermediates a client needs to reach its root.
    public var certificateChain: [NIOSSLCertificate]
    /// The private key of the first certificate.
    public var privateKey: NIOSSLPrivateKey

    /// A chain and key already loaded. The key is not checked against the certificate here: the
    /// server fails to start when they do not belong together; ``load(certificateFile:keyFile:)`` checks.
    public init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }

    /// PEM files are small; a larger file is not one (a package given by mistake, say).
    static let fileLimit = 1 << 20

    /// Reads a PEM certificate chain and its PEM private key, and checks that TLS can be set up
    /// with them (the key belongs to the first certificate). Every failure names the option, the
    /// file and the fix.
    public static func load(certificateFile: String, keyFile: String) throws(ServerTLSError) -> ServerTLS {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(try read(certificateFile, option: "--tls-certificate"))
        } catch let error as ServerTLSError {
            throw error
        } catch {
            chain = []
        }
        guard !chain.isEmpty else {
            throw ServerTLSError(
                .invalid,
                "--tls-certificate: '\(certificateFile)' holds no PEM certificate (a '-----BEGIN CERTIFICATE-----' block); give the server's certificate chain in PEM, its own certificate first"
            )
        }
        let keyBytes = try read(keyFile, option: "--tls-key")
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem) } catch {
            throw ServerTLSError(
                .invalid,
                "--tls-key: '\(keyFile)' holds no PEM private key that can be read (a passphrase-protected key is not supported); give the certificate's private key in PEM, unencrypted (openssl pkey -in KEY -out KEY.pem)"
            )
        }
        let tls = ServerTLS(certificateChain: chain, privateKey: key)
        // BoringSSL refuses a key that is not the first certificate's when the context is made.
        do { _ = try NIOSSLContext(configuration: tls.configuration) } catch NIOSSLError.failedToLoadPrivateKey {
            throw ServerTLSError(
                .invalid,
                "--tls-key: the private key in '\(keyFile)' does not belong to the certificate in '\(certificateFile)'; give the key the certificate was made for"
            )
        } catch {
            throw ServerTLSError(
                .invalid,
                "--tls-certificate: TLS cannot be set up with the certificate in '\(certificateFile)' and the key in '\(keyFile)' (\(error)); give a certificate chain and key in PEM that OpenSSL accepts"
            )
        }
        return tls
    }

    private static func read(_ path: String, option: String) throws(ServerTLSError) -> [UInt8] {
        do { return try FileOperations.readAll(path, limit: fileLimit) } catch {
            if error.code == .tooLarge {
                throw ServerTLSError(
                    .invalid, "\(option): '\(path)' is larger than \(fileLimit >> 20) MiB, which no PEM file is")
            }
            throw ServerTLSError(.unreadable, "\(option): \(error); give a PEM file this user can read")
        }
    }

    /// The server's TLS settings: TLS 1.2 at least (what browsers require), NIOSSL's default
    /// ciphers. The ALPN protocols (h2, http/1.1) are set by Hummingbird's upgrade channel.
    var configuration: TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificateChain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}

/// A `--tls-certificate` or `--tls-key` that cannot be used; the message names the option, the file and the fix.
public struct ServerTLSError: Error, Sendable, CustomStringConvertible {
    /// Why the file cannot be used.
    public enum Kind: Sendable {
        /// It cannot be read (missing, not allowed, not a regular file).
        case unreadable
        /// It was read but is not what it must be (no PEM, a key of another certificate).
        case invalid
    }
    /// Why the file cannot be used.
    public var kind: Kind
    /// What is wrong and the fix, for people.
    public var message: String
    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    /// The message.
    public var description: String { message }
}

/// HTTPS: Hummingbird's `HTTP2UpgradeChannel` (TLS by NIOSSL, then HTTP/1.1 or HTTP/2 as ALPN
/// chose), with a ``TLSConnectionGuard`` put right after the TLS handler of each connection.
///
/// The upgrade channel adds the same `additionalChannelHandlers` to an HTTP/1.1 connection and to
/// each HTTP/2 stream, and only once the handshake is done, so per-connection limits cannot live
/// there: the connection cap and the handshake's time limit are the TLS guard's; the
/// `ConnectionGuard` added after the HTTP codec does the rest (see its notes on HTTP/2).
struct GuardedHTTPSChannel: HTTPChannelHandler {
    typealias Value = HTTP2UpgradeChannel.Value
    let upgrade: HTTP2UpgradeChannel
    let limits: ServerLimits
    let counter: ConnectionCounter
    let logger: Logger

    var responder: HTTPChannelHandler.Responder { upgrade.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        // The upgrade channel adds the TLS handler and the ALPN handler synchronously (setup runs
        // on the channel's event loop); the guard goes between them, where it sees the handshake end.
        let ready = upgrade.setup(channel: channel, logger: logger)
        do {
            let operations = channel.pipeline.syncOperations
            let tls = try operations.handler(type: NIOSSLServerHandler.self)
            try operations.addHandler(
                TLSConnectionGuard(limits: limits, counter: counter, logger: self.logger), position: .after(tls))
        } catch {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(error)
        }
        return ready
    }

    func handle(value: Value, logger: Logger) async {
        await upgrade.handle(value: value, logger: logger)
    }
}

/// One TLS connection's guard, between the TLS handler and the HTTP handlers: holds the
/// connection's place in `ServerLimits.maxConnectionsPerAddress` from the moment it is accepted
/// (an HTTP/2 connection counts once, however many streams it carries), and closes a connection
/// whose TLS handshake is not done within `ServerLimits.headerTimeout`. Bytes pass through untouched.
///
/// On HTTP/2 it also closes a connection that has had no stream open for twice
/// `keepAliveTimeout`, or for a second once the server is shutting down: Hummingbird's connection
/// manager sends such a connection a GOAWAY and a PING (after `keepAliveTimeout`, or at shutdown),
/// but closes it only when the client answers the PING. The streams' `ConnectionGuard`s report
/// their streams here (`streamOpened`, `streamClosed`).
final class TLSConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let limits: ServerLimits
    private let counter: ConnectionCounter
    private let logger: Logger
    private var address: String?
    private var handshakeTimer: Scheduled<Void>?
    private var started = false
    private var context: ChannelHandlerContext?
    /// ALPN chose HTTP/2.
    private var http2 = false
    private var openStreams = 0
    private var idleTimer: Scheduled<Void>?
    /// The server is shutting down (`ChannelShouldQuiesceEvent`).
    private var quiescing = false

    init(limits: ServerLimits, counter: ConnectionCounter, logger: Logger) {
        self.limits = limits
        self.counter = counter
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        guard let address = counter.admit(context, logger: logger) else { return }
        self.address = address
        let loop = context.eventLoop.assumeIsolated()
        handshakeTimer = loop.scheduleTask(in: limits.headerTimeout) { [self] in
            handshakeTimer = nil
            close(context, reason: "no complete TLS handshake")
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted(let negotiated) = event as? TLSUserEvent {
            handshakeTimer?.cancel()
            handshakeTimer = nil
            http2 = negotiated == "h2"
            if http2 && openStreams == 0 { armIdleTimer(context) }
        } else if event is ChannelShouldQuiesceEvent {
            quiescing = true
            if http2 && openStreams == 0 { armIdleTimer(context) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// An HTTP/2 stream of this connection opened (called by its `ConnectionGuard`, on this event loop).
    func streamOpened() {
        openStreams += 1
        idleTimer?.cancel()
        idleTimer = nil
    }

    /// An HTTP/2 stream of this connection closed.
    func streamClosed() {
        openStreams = max(0, openStreams - 1)
        if openStreams == 0, http2, let context, address != nil { armIdleTimer(context) }
    }

    private func armIdleTimer(_ context: ChannelHandlerContext) {
        idleTimer?.cancel()
        let loop = context.eventLoop.assumeIsolated()
        idleTimer = loop.scheduleTask(in: quiescing ? .seconds(1) : limits.keepAliveTimeout * 2) { [self] in
            idleTimer = nil
            close(context, reason: "idle HTTP/2 connection (its GOAWAY was not answered)")
        }
    }

    private func close(_ context: ChannelHandlerContext, reason: String) {
        logger.info(
            "connection closed by a time limit", metadata: ["client": "\(address ?? "unknown")", "reason": "\(reason)"])
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release()
        self.context = nil
    }

    private func release() {
        handshakeTimer?.cancel()
        handshakeTimer = nil
        idleTimer?.cancel()
        idleTimer = nil
        if let address { counter.release(address) }
        address = nil
    }
}
