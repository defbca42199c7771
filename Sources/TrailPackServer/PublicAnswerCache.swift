import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import TrailPackCrypto

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
    private struct Kept {
        var answers: [String: Answer] = [:]
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
        var headers: HTTPFields = [.contentType: answer.contentType, .eTag: answer.etag, .cacheControl: "no-cache"]
        if let match = request.headers[.ifNoneMatch],
            match == "*"
                || match.split(separator: ",").contains(where: {
                    $0.trimmingCharacters(in: .whitespaces) == answer.etag
                })
        {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(answer.body.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: answer.body))
    }
}
