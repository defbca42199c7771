import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import TrailPackCore
import TrailPackCrypto

/// `POST /v1/packages/{id}/versions/{version}/confirm`: a client says which SHA-256 it received.
/// Always answered (the client learns whether its copy is intact); counted at most once per client
/// address and download, and at most `confirmationsPerMinute` per address — so the counters are
/// estimates an anonymous client cannot inflate cheaply, not exact figures.
struct ConfirmationController {
    let server: TrailPackServer

    func addRoutes(to routes: Routes) {
        routes.post("/v1/packages/:id/versions/:version/confirm") { request, context in
            try await confirm(request, context)
        }
    }

    func confirm(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id = try context.parameters.require("id"), version = try context.parameters.require("version")
        var body = try await request.body.collect(upTo: 4096)
        guard let bytes = body.readBytes(length: body.readableBytes),
            let doc = try? JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 4096)).value,
            case .string(let hex)? = doc["sha256"], SHA256Digest(hex: hex) != nil
        else {
            throw ServerError.badRequest("send {\"sha256\": \"<64 hex digits>\"}: the SHA-256 of the file you received")
        }
        let count = server.confirmationLimiter.shouldCount(
            address: context.clientAddress, key: "\(id)\u{0}\(version)\u{0}\(hex.lowercased())")
        guard
            let result = try await server.catalogStore.confirm(package: id, version: version, sha256: hex, count: count)
        else {
            throw ServerError.notFound(
                "no released version \(ServerError.short(version)) of '\(ServerError.short(id))'")
        }
        return try .json(
            ConfirmResponse(
                match: result.match, expected: result.expected, counted: count,
                message: result.match
                    ? "the download is complete and intact" : "the download is damaged: delete it and download again"))
    }
}

/// Decides whether a confirmation is counted: not when the same address already confirmed the same
/// download in the last day, nor past `perMinute` confirmations from one address in a minute.
/// Memory is bounded: past `maxKeys` remembered downloads the oldest day is forgotten at once.
final class ConfirmationLimiter: Sendable {
    private struct State {
        var seen: [String: ContinuousClock.Instant] = [:]
        var minute: [String: (start: ContinuousClock.Instant, count: Int)] = [:]
    }
    private let state = NIOLockedValueBox(State())
    let perMinute: Int
    let maxKeys = 200_000

    init(perMinute: Int) { self.perMinute = perMinute }

    func shouldCount(address: String, key: String, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLockedValue { state in
            if state.seen.count >= maxKeys || state.minute.count >= maxKeys {
                state.seen = state.seen.filter { now - $0.value < .seconds(86_400) }
                state.minute = state.minute.filter { now - $0.value.start < .seconds(60) }
                if state.seen.count >= maxKeys { state.seen.removeAll() }
                if state.minute.count >= maxKeys { state.minute.removeAll() }
            }
            let download = address + "\u{0}" + key
            if let last = state.seen[download], now - last < .seconds(86_400) { return false }
            var window = state.minute[address] ?? (now, 0)
            if now - window.start >= .seconds(60) { window = (now, 0) }
            guard window.count < perMinute else { return false }
            window.count += 1
            state.minute[address] = window
            state.seen[download] = now
            return true
        }
    }
}
