import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import SystemPackage
import TrailPackFileIO

/// What ``S3Client/head(key:)`` tells of a stored object.
public struct S3ObjectInfo: Sendable, Hashable {
    /// Its size in bytes.
    public var size: Int64
    /// Its ETag, without the quotes (for a multipart upload, `<hash>-<parts>`), when the store sent one.
    public var eTag: String?

    /// An object's size and ETag.
    public init(size: Int64, eTag: String?) {
        self.size = size
        self.eTag = eTag
    }
}

/// An object's body as it arrives: an `AsyncSequence` of `ByteBuffer`s, to be read once. Reading
/// it to the end releases the connection; dropping it early closes the connection.
public struct S3ObjectBody: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = ByteBuffer

    let body: HTTPClientResponse.Body
    let operation: S3Client.Operation
    let client: S3Client

    /// Iterates over the chunks; errors are ``S3Error``s (a broken connection, a read timeout).
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPClientResponse.Body.AsyncIterator
        let operation: S3Client.Operation
        let client: S3Client

        /// The next chunk, or nil at the end.
        public mutating func next() async throws -> ByteBuffer? {
            do {
                return try await base.next()
            } catch {
                throw client.transportError(error, operation)
            }
        }
    }

    /// An iterator over the body.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: body.makeAsyncIterator(), operation: operation, client: client)
    }
}

/// The answer to ``S3Client/get(key:range:)``: its status and headers, and the body as it arrives.
public struct S3GetResponse: Sendable {
    /// 200 for a whole object, 206 for a range.
    public var status: Int
    /// The number of bytes the body holds (`Content-Length`), when the store said.
    public var contentLength: Int64?
    /// `bytes 0-9/1234` for a range (`Content-Range`), else nil.
    public var contentRange: String?
    /// The object's ETag, without the quotes, when the store sent one.
    public var eTag: String?
    /// The body: read it (to the end, or drop it) — it is not collected here.
    public var body: S3ObjectBody
}

extension S3Client {
    /// The size and ETag of the object at `key`, or nil when there is none (404).
    public func head(key: String) async throws(S3Error) -> S3ObjectInfo? {
        let operation = Operation(name: "head", key: key)
        try checkKey(key, operation.name)
        let response = try await send(operation, method: .HEAD, objectKey: key)
        switch response.status.code {
        case 200:
            guard let length = response.headers.first(name: "content-length").flatMap({ Int64($0) }), length >= 0 else {
                throw S3Error.invalidResponse(
                    "\(context(operation)): the answer has no Content-Length", operation: operation.name, key: key,
                    status: 200)
            }
            return S3ObjectInfo(size: length, eTag: Self.unquoted(response.headers.first(name: "etag")))
        case 404:
            return nil
        default:
            throw await failure(response, operation)
        }
    }

    /// The object at `key`, or bytes `range` of it (both ends included, as HTTP's `Range`), as a
    /// stream: the call returns when the answer's head arrives, and the body comes as it is read.
    ///
    /// A missing object is an ``S3Error`` with code ``S3Error/Code/notFound``; a range outside the
    /// object (416) one with ``S3Error/Code/rejected``. A store that answers a range with the whole
    /// object (200) is an error unless the whole object is what the range asked for.
    public func get(key: String, range: ClosedRange<Int64>? = nil) async throws(S3Error) -> S3GetResponse {
        let operation = Operation(name: "get", key: key)
        try checkKey(key, operation.name)
        var headers: [(name: String, value: String)] = []
        if let range {
            guard range.lowerBound >= 0 else {
                throw S3Error.invalidArgument(
                    "\(context(operation)): a range starts at byte 0 or later, not \(range.lowerBound)",
                    operation: operation.name, key: key)
            }
            headers.append(("range", "bytes=\(range.lowerBound)-\(range.upperBound)"))
        }
        let response = try await send(operation, method: .GET, objectKey: key, headers: headers, streamsBody: false)
        let status = Int(response.status.code)
        let length = response.headers.first(name: "content-length").flatMap { Int64($0) }
        switch status {
        case 200:
            if let range, range.lowerBound != 0 || (length.map { $0 > range.upperBound + 1 } ?? true) {
                throw S3Error.invalidResponse(
                    "\(context(operation)): the store ignored the range \(range.lowerBound)-\(range.upperBound) and "
                        + "answered with the whole object", operation: operation.name, key: key, status: status)
            }
        case 206 where range != nil:
            break
        default:
            throw await failure(response, operation)
        }
        return S3GetResponse(
            status: status, contentLength: length, contentRange: response.headers.first(name: "content-range"),
            eTag: Self.unquoted(response.headers.first(name: "etag")),
            body: S3ObjectBody(body: response.body, operation: operation, client: self))
    }

    /// Downloads the object at `key` to `path` (replaced whole or not at all: written beside it,
    /// flushed and renamed), checking that as many bytes arrived as the store announced. Returns
    /// the number of bytes. For tests and tools: a server streams ``get(key:range:)`` instead.
    @discardableResult
    public func download(key: String, to path: String) async throws(S3Error) -> Int64 {
        let response = try await get(key: key)
        let operation = Operation(name: "download", key: key)
        let file: AtomicFileHandle
        do {
            file = try await pool.run { try AtomicFileHandle(destination: path) }
        } catch {
            throw S3Error(
                code: .io, message: "\(context(operation)): \(error)", operation: operation.name, key: key,
                cause: error)
        }
        var written: Int64 = 0
        do {
            for try await buffer in response.body {
                let offset = written
                try await pool.run { try file.write(buffer, at: offset) }
                written += Int64(buffer.readableBytes)
            }
            if let expected = response.contentLength, expected != written {
                throw S3Error.invalidResponse(
                    "\(context(operation)): \(written) bytes arrived of the \(expected) announced",
                    operation: operation.name, key: key, status: response.status)
            }
            try await pool.run { try file.commit() }
        } catch {
            await (try? pool.run { file.discard() })
            if let error = error as? S3Error { throw error }
            throw S3Error(
                code: .io, message: "\(context(operation)): \(error)", operation: operation.name, key: key,
                cause: error)
        }
        return written
    }

    /// Deletes the object at `key`. A key with no object is not an error (S3 answers 204 either way).
    public func delete(key: String) async throws(S3Error) {
        let operation = Operation(name: "delete", key: key)
        try checkKey(key, operation.name)
        let response = try await send(operation, method: .DELETE, objectKey: key)
        switch response.status.code {
        case 200, 204, 404:
            _ = await Self.prefix(of: response.body, limit: Self.errorBodyLimit)
        default:
            throw await failure(response, operation)
        }
    }

    /// A URL that fetches the object at `key` with a plain `GET` (a browser, curl, a phone) until
    /// `expires` has passed from `date` (1 second to 7 days), signed in the query string. With
    /// `responseContentDisposition` (`attachment; filename="santiam-1.0.0.zip"`), the store sends
    /// that `Content-Disposition` header.
    public func presignedGET(
        key: String, expires: Duration, responseContentDisposition: String? = nil, date: AmzDate = .now()
    ) throws(S3Error) -> String {
        try checkKey(key, "presign")
        let (seconds, attoseconds) = expires.components
        guard attoseconds == 0 else {
            throw S3Error.invalidArgument("presign '\(printable(key))': the expiry is a whole number of seconds")
        }
        var query: [(name: String, value: String)] = []
        if let responseContentDisposition { query.append(("response-content-disposition", responseContentDisposition)) }
        let request = SignatureV4.Request(
            method: "GET", host: location.host, path: location.path(forKey: key), query: query)
        let signedQuery = try signer.presignedQuery(request, expires: seconds, date: date)
        return "\(location.endpoint.scheme)://\(location.host)\(request.encodedPath)?\(signedQuery)"
    }
}

/// An ``AtomicFile`` that the download hands to the blocking pool, one job at a time.
///
/// `@unchecked Sendable` because `AtomicFile` is a class without locks: sound here because
/// ``S3Client/download(key:to:)`` awaits each job before it starts the next, so no two threads
/// ever touch the file at once.
private final class AtomicFileHandle: @unchecked Sendable {
    let file: AtomicFile

    init(destination: String) throws(FileIOError) { file = try AtomicFile(destination: destination) }

    /// Writes the buffer's bytes at `offset`. The corresponding C function is `pwrite`.
    func write(_ buffer: ByteBuffer, at offset: Int64) throws {
        try buffer.withUnsafeReadableBytes { bytes in
            try file.descriptor.writeAll(toAbsoluteOffset: offset, bytes, path: file.temporaryPath)
        }
    }

    func commit() throws(FileIOError) { try file.commit() }

    func discard() { file.discard() }
}
