import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import TrailPackCatalogModel

/// The server's request context: Hummingbird's core storage, the client's address (for rate limits
/// and the access log), and the user the bearer token named, once `BearerAuthMiddleware` ran.
public struct AppRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's address; nil in router tests.
    public let remoteAddress: SocketAddress?
    /// The authenticated user, if the request carried a valid token.
    public var user: Catalog.User? {
        get { identity.user }
        nonmutating set { identity.user = newValue }
    }
    /// Whether the token was the bootstrap admin token (`--admin-token-file`), which cannot vouch for a package.
    public var isBootstrap: Bool {
        get { identity.isBootstrap }
        nonmutating set { identity.isBootstrap = newValue }
    }
    /// The user signed in to the Web Control Panel (by its session cookie): for the access log only,
    /// never an API identity.
    public var signedIn: String? {
        get { identity.signedIn }
        nonmutating set { identity.signedIn = newValue }
    }
    /// Shared with the access log, which runs outside the middleware that sets it.
    let identity = Identity()

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The client's IP address in words (through a trusted proxy, the address it forwarded for),
    /// or "local" in router tests: what sign-in throttles, rate limits and the access log count.
    public var clientAddress: String { identity.forwardedFor ?? remoteAddress?.ipAddress ?? "local" }

    /// The address a trusted proxy forwarded this request for (set by ``ForwardedForMiddleware``).
    public var forwardedFor: String? {
        get { identity.forwardedFor }
        nonmutating set { identity.forwardedFor = newValue }
    }

    /// The user, who must hold one of `roles` (401 without a token, 403 without the role).
    func require(_ roles: Set<Catalog.Role>) throws -> Catalog.User {
        guard let user else {
            var e = ServerError(.unauthorized, .unauthorized, "send 'Authorization: Bearer <token>'")
            e.headers[.wwwAuthenticate] = "Bearer"
            throw e
        }
        guard roles.contains(user.role) else {
            throw ServerError(
                .forbidden, .forbidden,
                "'\(user.name)' is a \(user.role.rawValue); this needs the \(roles.map(\.rawValue).sorted().joined(separator: " or ")) role"
            )
        }
        return user
    }
}

/// Who a request is, set once by the authentication middleware and read by the access log.
final class Identity: Sendable {
    private let state = NIOLockedValueBox<
        (user: Catalog.User?, bootstrap: Bool, signedIn: String?, forwardedFor: String?)
    >((nil, false, nil, nil))
    var forwardedFor: String? {
        get { state.withLockedValue { $0.forwardedFor } }
        set { state.withLockedValue { $0.forwardedFor = newValue } }
    }
    var signedIn: String? {
        get { state.withLockedValue { $0.signedIn } }
        set { state.withLockedValue { $0.signedIn = newValue } }
    }
    var user: Catalog.User? {
        get { state.withLockedValue { $0.user } }
        set { state.withLockedValue { $0.user = newValue } }
    }
    var isBootstrap: Bool {
        get { state.withLockedValue { $0.bootstrap } }
        set { state.withLockedValue { $0.bootstrap = newValue } }
    }
}
