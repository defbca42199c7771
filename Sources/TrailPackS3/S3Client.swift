import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import TrailPackBlocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A client for one bucket of an S3-compatible object store (AWS S3, SeaweedFS, MinIO, Garage, …):
/// every request signed with AWS Signature Version 4, sent by one AsyncHTTPClient `HTTPClient`.
///
/// Everything streams: ``put(key:file:sha256:size:contentType:)`` reads the file from disk in
/// chunks, ``get(key:range:)`` hands back the body as it arrives, and no call holds a whole object
/// in memory. Responses that are read whole (listings, error bodies) are read up to a bound.
///
/// Call ``shutdown()`` when done (before the client is released).
///
/// ```swift
/// let location = try S3Location(parsing: "s3://trailpack-blobs?endpoint=http://127.0.0.1:8333")
/// let client = try S3Client(location: location, credentials: try .standard())
/// try await client.createBucketIfMissing()
/// let result = try await client.put(key: "blobs/ab/abcd….zip", file: path, sha256: hex, size: size)
/// try await client.shutdown()
/// ```
public final class S3Client: Sendable {
    /// How the client behaves: multipart sizes, timeouts, chunk sizes, local checks.
    public struct Configuration: Sendable {
        /// Files of this size or more are sent by multipart upload: 5 GiB (the most one `PUT` may
        /// carry on AWS) unless set lower (tests use a few MiB).
        public var multipartThreshold: Int64
        /// The size of each part but the last: 64 MiB, at least 5 MiB (AWS's least), at most 5 GiB;
        /// raised as needed so that no upload has more than 10,000 parts.
        public var partSize: Int64
        /// How long to wait for a connection: 10 seconds.
        public var connectTimeout: Duration
        /// How long to wait for the store between two reads of an answer (and, once a request is
        /// sent, for its first byte): 60 seconds.
        public var readTimeout: Duration
        /// How long a write to the store may stall: 60 seconds.
        public var writeTimeout: Duration
        /// How long a request without a body to stream (everything but uploads) may take until its
        /// answer's head arrives: 5 minutes.
        public var requestTimeout: Duration
        /// How long a read (`GET`, `HEAD`, a listing) may take until its answer's head arrives:
        /// 10 seconds. These are what a visitor's download or a reviewer's page waits on; a bucket
        /// that stalls (its processes stopped, its packets dropped) is then reported at once, and
        /// the server answers 503 within the time it promises, not after ``readTimeout``.
        public var answerTimeout: Duration = .seconds(10)
        /// The size of the chunks a file is read and sent in: 256 KiB.
        public var chunkSize: Int
        /// Whether ``S3Client/put(key:file:sha256:size:contentType:)`` hashes the bytes as it sends
        /// them and stops before the last one when they do not have the declared SHA-256 (true).
        /// The store checks too (`x-amz-content-sha256`, `x-amz-checksum-sha256`); this makes sure
        /// of it with a store that does not. Multipart uploads always check the whole file before
        /// completing.
        public var checksUploadsLocally: Bool

        /// The defaults, or the values given.
        public init(
            multipartThreshold: Int64 = 5 << 30, partSize: Int64 = 64 << 20, connectTimeout: Duration = .seconds(10),
            readTimeout: Duration = .seconds(60), writeTimeout: Duration = .seconds(60),
            requestTimeout: Duration = .seconds(300), chunkSize: Int = 256 << 10, checksUploadsLocally: Bool = true
        ) {
            self.multipartThreshold = multipartThreshold
            self.partSize = partSize
            self.connectTimeout = connectTimeout
            self.readTimeout = readTimeout
            self.writeTimeout = writeTimeout
            self.requestTimeout = requestTimeout
            self.chunkSize = chunkSize
            self.checksUploadsLocally = checksUploadsLocally
        }

        func check() throws(S3Error) {
            func fail(_ rule: String) -> S3Error { .invalidArgument("S3 client configuration: \(rule)") }
            guard multipartThreshold >= 1 else { throw fail("multipartThreshold is at least 1 byte") }
            guard partSize >= S3Client.minimumPartSize, partSize <= 5 << 30 else {
                throw fail("partSize is from 5 MiB (5242880 bytes) to 5 GiB, not \(partSize) bytes")
            }
            guard chunkSize >= 4_096, chunkSize <= 16 << 20 else {
                throw fail("chunkSize is from 4 KiB to 16 MiB, not \(chunkSize) bytes")
            }
            for (name, duration) in [
                ("connectTimeout", connectTimeout), ("readTimeout", readTimeout), ("writeTimeout", writeTimeout),
                ("answerTimeout", answerTimeout),
                ("requestTimeout", requestTimeout),
            ] where duration <= .zero {
                throw fail("\(name) is more than zero")
            }
        }
    }

    /// The smallest part of a multipart upload but the last, as AWS requires: 5 MiB.
    public static let minimumPartSize: Int64 = 5 << 20
    /// The most parts a multipart upload may have: 10,000.
    public static let maximumPartCount: Int64 = 10_000
    /// The longest key, in UTF-8 bytes, with the location's prefix: 1,024.
    public static let maximumKeyLength = 1_024
    /// The most of an error body read for its `<Code>` and `<Message>`: 64 KiB.
    static let errorBodyLimit = 64 << 10
    /// The most of a listing or a multipart answer read: 16 MiB (1,000 keys of 1 KiB are 1.5 MB).
    static let xmlBodyLimit = 16 << 20

    /// Where the objects are.
    public let location: S3Location
    /// How the client behaves.
    public let configuration: Configuration
    /// The access key id requests are signed with (named in errors; the secret never is).
    public var accessKeyId: String { signer.credentials.accessKeyId }

    let signer: SignatureV4
    let http: HTTPClient
    /// Where opening, reading, writing and fsyncing files runs, never on the cooperative pool.
    let pool: BlockingPool

    /// A client for `location`, signing with `credentials`. It owns an `HTTPClient` on the shared
    /// event loop group: call ``shutdown()`` when done. Its file work (opening, reading, writing,
    /// fsync) runs on `pool`: the server hands it its own, so that one pool bounds all blocking work;
    /// without one the client makes its own.
    public init(
        location: S3Location, credentials: S3Credentials, configuration: Configuration = Configuration(),
        pool: BlockingPool? = nil
    )
        throws(S3Error)
    {
        try configuration.check()
        self.pool = pool ?? BlockingPool(name: "s3-files")
        self.location = location
        self.configuration = configuration
        self.signer = SignatureV4(credentials: credentials, region: location.region)
        var http = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(
                connect: TimeAmount(configuration.connectTimeout), read: TimeAmount(configuration.readTimeout),
                write: TimeAmount(configuration.writeTimeout)),
            // Below the idle timeouts of the stores (SeaweedFS 30 s, AWS about 20 s), so that a
            // pooled connection is not reused just as the store closes it.
            connectionPool: .init(idleTimeout: .seconds(15)))
        http.decompression = .disabled
        self.http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: http)
    }

    /// Closes the connections and releases the `HTTPClient`. Requests under way fail.
    public func shutdown() async throws {
        try await http.shutdown()
    }

    // MARK: - Requests

    /// What one request is about, for its errors.
    struct Operation: Sendable {
        /// `put`, `get`, `list`, …
        var name: String
        /// The key as the caller gave it, or nil for the bucket.
        var key: String?

        /// `put 'blobs/ab/x.zip'` or `list`.
        var subject: String { key.map { "\(name) '\(printable($0))'" } ?? name }
    }

    /// `put 'k' in bucket 'b' at http://host:port`: how every error message starts.
    func context(_ operation: Operation) -> String {
        "\(operation.subject) in bucket '\(location.bucket)' at \(location.endpoint)"
    }

    /// Signs and sends one request for `operation`, returning the answer whatever its status.
    /// `objectKey` is the key (without the location's prefix), or nil for the bucket itself.
    func send(
        _ operation: Operation, method: HTTPMethod, objectKey: String?, query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [], payloadHash: String = SignatureV4.emptyPayloadHash,
        body: HTTPClientRequest.Body? = nil, streamsBody: Bool = false
    ) async throws(S3Error) -> HTTPClientResponse {
        let request = SignatureV4.Request(
            method: method.rawValue, host: location.host, path: location.path(forKey: objectKey), query: query,
            headers: headers, payloadHash: payloadHash)
        let signed = signer.sign(request, date: .now())
        let query = request.encodedQuery
        var http = HTTPClientRequest(
            url: "\(location.endpoint.scheme)://\(location.host)\(request.encodedPath)"
                + (query.isEmpty ? "" : "?\(query)")
        )
        http.method = method
        for (name, value) in signed.headers { http.headers.add(name: name, value: value) }
        if let body { http.body = body }
        // An upload's answer comes after its last byte, however long sending takes: the
        // configuration's idle timeouts (connect, read, write) bound it instead.
        // A read's head must come within `answerTimeout` (a download's body then flows under the
        // idle timeouts).
        let reads = method == .GET || method == .HEAD
        let deadline: NIODeadline =
            streamsBody
            ? .distantFuture
            : .now()
                + TimeAmount(
                    reads
                        ? min(configuration.answerTimeout, configuration.requestTimeout) : configuration.requestTimeout)
        do {
            return try await self.http.execute(http, deadline: deadline)
        } catch {
            throw transportError(error, operation)
        }
    }

    /// An error from sending (no answer from the store): unreachable, timed out, or an error of
    /// the body being sent (a file that changed, a local SHA-256 check) passed on.
    func transportError(_ error: any Error, _ operation: Operation) -> S3Error {
        if var error = error as? S3Error {
            if error.operation == nil {
                error.operation = operation.name
                error.key = operation.key
                error.message = "\(context(operation)): \(error.message)"
            }
            return error
        }
        func fail(_ code: S3Error.Code, _ what: String) -> S3Error {
            S3Error(
                code: code, message: "\(context(operation)): \(what)", operation: operation.name, key: operation.key,
                cause: error)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return fail(
                    .timeout,
                    "no connection to the S3 endpoint within \(configuration.connectTimeout); check the endpoint and "
                        + "that the store is running")
            case .readTimeout, .writeTimeout, .deadlineExceeded:
                return fail(.timeout, "the S3 endpoint did not answer in time (\(error))")
            case .remoteConnectionClosed:
                return fail(.unreachable, "the S3 endpoint closed the connection before answering")
            default: break
            }
        }
        let reason: String
        if let error = error as? NIOConnectionError {
            let reasons =
                error.connectionErrors.map { Self.reason($0.error) }
                + [error.dnsAError, error.dnsAAAAError].compactMap { $0.map(Self.reason) }
            reason = reasons.isEmpty ? "\(error)" : reasons.joined(separator: "; ")
        } else {
            reason = Self.reason(error)
        }
        return fail(
            .unreachable,
            "cannot reach the S3 endpoint: \(printable(reason)); check the endpoint and that the store runs")
    }

    /// "Connection refused" for a system call's error, rather than NIO's description of its structure.
    static func reason(_ error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        return "\(error)"
    }

    /// The error for an answer with an unexpected status: its `<Code>` and `<Message>` (from at most
    /// 64 KiB of its body), the operation, the key, the status, and a hint where one helps.
    func failure(_ response: HTTPClientResponse, _ operation: Operation) async -> S3Error {
        let bytes = await Self.prefix(of: response.body, limit: Self.errorBodyLimit)
        let xml = try? S3XML.parse(bytes)
        let error = xml?.name == "Error" ? xml : nil
        return failure(
            status: Int(response.status.code), reason: response.status.reasonPhrase, s3Code: error?.text(of: "Code"),
            s3Message: error?.text(of: "Message"), isHead: bytes.isEmpty, operation)
    }

    func failure(
        status: Int, reason: String, s3Code: String?, s3Message: String?, isHead: Bool, _ operation: Operation
    ) -> S3Error {
        var text = "\(context(operation)): HTTP \(status)"
        if let s3Code { text += " \(printable(s3Code))" } else { text += " \(reason)" }
        if let s3Message, !s3Message.isEmpty {
            // Without its final period: a hint may follow after a semicolon.
            text += ": " + printable(s3Message.hasSuffix(".") ? String(s3Message.dropLast()) : s3Message)
        }
        if s3Code == nil, isHead { text += " (no error body)" }
        let code: S3Error.Code
        switch (status, s3Code) {
        case (_, "BadDigest"?), (_, "XAmzContentSHA256Mismatch"?), (_, "InvalidDigest"?):
            code = .badDigest
            text += "; the bytes sent do not have the SHA-256 declared, and the store kept nothing"
        case (401, _), (403, _):
            code = .accessDenied
            text += "; the access key id is '\(printable(accessKeyId))': "
            switch s3Code {
            case "SignatureDoesNotMatch"?: text += "check that the secret access key is the one that goes with it"
            case "InvalidAccessKeyId"?: text += "the store does not know it"
            case "RequestTimeTooSkewed"?: text += "check this machine's clock"
            default: text += "check the credentials and that they may do this"
            }
        case (404, "NoSuchBucket"?):
            code = .notFound
            text += "; create the bucket first (createBucketIfMissing)"
        case (404, _):
            code = .notFound
        default:
            code = .rejected
        }
        return S3Error(
            code: code, message: text, operation: operation.name, key: operation.key, status: status, s3Code: s3Code,
            s3Message: s3Message)
    }

    /// At most `limit` bytes of `body`; the rest is not read (the connection is then closed).
    static func prefix(of body: HTTPClientResponse.Body, limit: Int) async -> [UInt8] {
        var bytes: [UInt8] = []
        do {
            for try await buffer in body {
                bytes.append(contentsOf: buffer.readableBytesView.prefix(limit - bytes.count))
                if bytes.count >= limit { break }
            }
        } catch {
            // What arrived before the failure is all there is to read.
        }
        return bytes
    }

    /// The whole of `body`, or an error when it holds more than `limit` bytes or breaks off.
    func collect(_ response: HTTPClientResponse, limit: Int, _ operation: Operation) async throws(S3Error) -> [UInt8] {
        var bytes: [UInt8] = []
        do {
            for try await buffer in response.body {
                guard bytes.count + buffer.readableBytes <= limit else {
                    throw S3Error.invalidResponse(
                        "\(context(operation)): the answer is larger than \(limit) bytes", operation: operation.name,
                        key: operation.key, status: Int(response.status.code))
                }
                bytes.append(contentsOf: buffer.readableBytesView)
            }
        } catch {
            throw transportError(error, operation)
        }
        return bytes
    }

    /// The XML answer of `response`, read whole (up to 16 MiB) and parsed; an `<Error>` root (which
    /// S3 may send with status 200, after a long `CompleteMultipartUpload`) is thrown as a failure.
    func xml(_ response: HTTPClientResponse, _ operation: Operation) async throws(S3Error) -> XMLElement {
        let bytes = try await collect(response, limit: Self.xmlBodyLimit, operation)
        let root: XMLElement
        do {
            root = try S3XML.parse(bytes)
        } catch {
            throw S3Error(
                code: .invalidResponse,
                message: "\(context(operation)): the answer is not XML that can be read: \(error)",
                operation: operation.name, key: operation.key, status: Int(response.status.code), cause: error)
        }
        if root.name == "Error" {
            throw failure(
                status: Int(response.status.code), reason: response.status.reasonPhrase, s3Code: root.text(of: "Code"),
                s3Message: root.text(of: "Message"), isHead: false, operation)
        }
        return root
    }

    /// Checks a key: 1 to 1,024 UTF-8 bytes with the prefix; no control characters; not starting
    /// with `/`; no empty, `.` or `..` path segment (which HTTP stacks may rewrite on the way).
    func checkKey(_ key: String, _ operation: String) throws(S3Error) {
        func fail(_ rule: String) -> S3Error {
            .invalidArgument("\(operation) '\(printable(key))': \(rule)", operation: operation, key: key)
        }
        guard !key.isEmpty else { throw fail("a key is not empty") }
        guard location.keyPrefix.utf8.count + key.utf8.count <= Self.maximumKeyLength else {
            throw fail("a key (with the location's prefix) has at most \(Self.maximumKeyLength) UTF-8 bytes")
        }
        guard !key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw fail("a key has no control characters")
        }
        guard !key.hasPrefix("/") else { throw fail("a key does not start with '/'") }
        for segment in key.split(separator: "/", omittingEmptySubsequences: false).dropLast() {
            guard !segment.isEmpty else { throw fail("a key has no empty path segment ('//')") }
        }
        for segment in key.split(separator: "/") where segment == "." || segment == ".." {
            throw fail("a key has no '.' or '..' path segment")
        }
    }

    /// `etag` without its quotes.
    static func unquoted(_ etag: String?) -> String? {
        guard var etag else { return nil }
        if etag.hasPrefix("W/") { etag.removeFirst(2) }
        if etag.count >= 2, etag.hasPrefix("\""), etag.hasSuffix("\"") { etag = String(etag.dropFirst().dropLast()) }
        return etag
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
