import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto

/// `POST /v1/packages/{id}/versions/{version}/confirm`: a client says which SHA-256 it received,
/// and whether it refused the download (`"refused": "hash"` or `"signatures"`; a refusal is counted
/// as a mismatch whatever the SHA-256: the operators see every download a client threw away).
/// Always answered (the client learns whether its copy is intact); counted at most once per client
/// address and download, and at most `confirmationsPerMinute` per address — so the counters are
/// estimates an anonymous client cannot inflate cheaply, not exact figures.
struct ConfirmationController {
    let catalog: any CatalogStore
    /// Confirmations counted per client address and minute (more are answered, not counted).
    let perMinute: Int

    /// Why a client refused a download it received.
    enum Refusal: String, CaseIterable {
        /// The bytes did not hash to the catalog's SHA-256 (or the server's Repr-Digest).
        case hash
        /// The reviewers' signatures did not reach the client's threshold of trusted keys.
        case signatures
    }

    static let usage =
        "send {\"sha256\": \"<64 hex digits>\"}: the SHA-256 of the file you received, with \"refused\": "
        + Refusal.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ") + " if you threw it away"

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
            throw ServerError.badRequest(Self.usage)
        }
        var refusal: Refusal?
        switch doc["refused"] {
        case nil, .null?: break
        case .string(let word)?:
            guard let known = Refusal(rawValue: word) else { throw ServerError.badRequest(Self.usage) }
            refusal = known
        default: throw ServerError.badRequest(Self.usage)
        }
        // Counted once per address and download (and refusal) a day, and at most `perMinute` an
        // address — across every server sharing the catalog.
        let count = try await catalog.admitConfirmation(
            address: context.clientAddress,
            download: "\(id)\u{0}\(version)\u{0}\(hex.lowercased())\u{0}\(refusal?.rawValue ?? "")",
            perMinute: perMinute, now: Date())
        guard
            let result = try await catalog.confirm(
                package: id, version: version, sha256: hex, refused: refusal != nil, count: count)
        else {
            throw ServerError.notFound(
                "no released version \(ServerError.short(version)) of '\(ServerError.short(id))'")
        }
        let message =
            switch (refusal, result.match) {
            case (.hash?, _): "the download was refused by its hash: counted as a failure"
            case (.signatures?, _): "the download was refused by its signatures: counted as a failure"
            case (nil, true): "the download is complete and intact"
            case (nil, false): "the download is damaged: delete it and download again"
            }
        return try .json(
            ConfirmResponse(match: result.match, expected: result.expected, counted: count, message: message))
    }
}
