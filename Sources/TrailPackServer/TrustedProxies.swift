import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The proxies in front of the server whose `X-Forwarded-For` is believed (`--trusted-proxy`),
/// by IP address. Behind nginx, every connection comes from nginx: without this, a sign-in
/// throttle counts nginx's address, and one client's wrong passwords lock every ranger out.
public struct TrustedProxies: Sendable, Equatable {
    /// The addresses in canonical form (`::1`, `127.0.0.1`).
    public private(set) var addresses: Set<String> = []

    /// No proxy is trusted.
    public init() {}

    /// These proxies, each an IPv4 or IPv6 address; a name, a range or a port is refused, naming it.
    public init(_ addresses: [String]) throws(TrustedProxyError) {
        for text in addresses {
            guard let canonical = Self.canonical(text) else { throw TrustedProxyError(address: text) }
            self.addresses.insert(canonical)
        }
    }

    /// Whether no proxy is trusted.
    public var isEmpty: Bool { addresses.isEmpty }

    /// `text` as an IP address in canonical form, or nil when it is not one.
    static func canonical(_ text: some StringProtocol) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // `[::1]` as some proxies write IPv6; never a port.
        let bare = trimmed.hasPrefix("[") && trimmed.hasSuffix("]") ? String(trimmed.dropFirst().dropLast()) : trimmed
        guard !bare.isEmpty, let address = try? SocketAddress(ipAddress: bare, port: 0) else { return nil }
        return address.ipAddress
    }

    /// The client a request from `peer` was made for: the rightmost `X-Forwarded-For` entry (all
    /// of the header's lines, in order) that is not a trusted proxy. Nil when `peer` is not trusted
    /// (its header is anyone's words), when there is no header, or when that entry is not an
    /// address (a proxy that writes something else is misconfigured: the peer stays the client).
    public func client(peer: String?, forwardedFor values: [String]) -> String? {
        guard let peer, addresses.contains(peer), !values.isEmpty else { return nil }
        let hops = values.flatMap { $0.split(separator: ",") }
        for hop in hops.reversed() {
            guard let address = Self.canonical(hop) else { return nil }
            if !addresses.contains(address) { return address }
        }
        // Every hop a trusted proxy: the leftmost is the client (a proxy asking for itself).
        return hops.first.flatMap { Self.canonical($0) }
    }
}

/// A `--trusted-proxy` value that is not an IP address.
public struct TrustedProxyError: Error, Sendable, CustomStringConvertible {
    /// The value as given.
    public var address: String
    public var description: String {
        "--trusted-proxy: '\(address)' is not an IP address; give the proxy's address as the server sees it (such as 127.0.0.1 or ::1), once per proxy"
    }
}

/// Sets the request's ``AppRequestContext/forwardedFor`` from `X-Forwarded-For` when the
/// connection comes from a trusted proxy; added first, so the access log and every rate limit
/// see the client, never the proxy.
struct ForwardedForMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let trusted: TrustedProxies
    static let header = HTTPField.Name("X-Forwarded-For")!

    func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        let values = request.headers[values: Self.header]
        if let client = trusted.client(peer: context.remoteAddress?.ipAddress, forwardedFor: values) {
            context.forwardedFor = client
        }
        return try await next(request, context)
    }
}
