import AsyncHTTPClient
import Crypto
import NIOCore
import NIOHTTP1
import NIOPosix

/// What ``S3Client/put(key:file:sha256:size:contentType:)`` did.
public enum S3PutResult: Sendable, Hashable {
    /// The object was stored.
    case stored
    /// An object was already stored at the key: it was left as it was (keys are content
    /// addresses, so it holds the same bytes).
    case alreadyStored
}

/// What ``S3Client/createBucketIfMissing()`` found.
public enum S3BucketState: Sendable, Hashable {
    /// The bucket was made now.
    case created
    /// The bucket was there already (and these credentials may use it).
    case existed
}

extension S3Client {
    /// Whether the bucket exists (`HEAD` the bucket: 200 yes, 404 no; anything else is an error).
    public func bucketExists() async throws(S3Error) -> Bool {
        let operation = Operation(name: "head bucket")
        let head = try await send(operation, method: .HEAD, objectKey: nil)
        switch head.status.code {
        case 200: return true
        case 404: return false
        default: throw await failure(head, operation)
        }
    }

    /// Makes the bucket unless it exists: `HEAD` the bucket, and `PUT` it on a 404. A bucket that
    /// another request made meanwhile (`BucketAlreadyOwnedByYou`, or any refusal after which a
    /// second `HEAD` finds it) counts as existing; one owned by another account
    /// (`BucketAlreadyExists`) is an error.
    @discardableResult
    public func createBucketIfMissing() async throws(S3Error) -> S3BucketState {
        let operation = Operation(name: "create bucket")
        let head = try await send(Operation(name: "head bucket"), method: .HEAD, objectKey: nil)
        switch head.status.code {
        case 200: return .existed
        case 404: break
        default: throw await failure(head, Operation(name: "head bucket"))
        }
        var body: [UInt8] = []
        if location.region != "us-east-1" {
            body = Array(
                ("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                    + "<LocationConstraint>\(location.region)</LocationConstraint></CreateBucketConfiguration>").utf8)
        }
        let response = try await send(
            operation, method: .PUT, objectKey: nil, payloadHash: SignatureV4.hex(SHA256.hash(data: body)),
            body: .bytes(body))
        switch response.status.code {
        case 200, 204:
            _ = try await collect(response, limit: Self.errorBodyLimit, operation)
            return .created
        default:
            let error = await failure(response, operation)
            if error.s3Code == "BucketAlreadyOwnedByYou" { return .existed }
            // Two servers starting at once both create it: SeaweedFS may answer the loser with an
            // error of its own (404 NoSuchBucket while the other's creation commits). The bucket
            // there now is what was asked for.
            let again = try await send(Operation(name: "head bucket"), method: .HEAD, objectKey: nil)
            if again.status.code == 200 { return .existed }
            throw error
        }
    }

    /// Stores the file at `path` under `key`, unless an object is there already.
    ///
    /// The file is read from disk in chunks as it is sent, never whole. `sha256` (64 hex digits) is
    /// the file's SHA-256, known in advance: it is sent as `x-amz-content-sha256` (signed) and as
    /// `x-amz-checksum-sha256`, so that the store itself checks the bytes and refuses them if they
    /// differ (AWS checks both, SeaweedFS the second); with
    /// ``Configuration/checksUploadsLocally`` the client also stops before the last byte when the
    /// bytes it read do not match. `size` is the file's size: a file of another size is refused.
    ///
    /// `If-None-Match: *` makes the store refuse to replace an existing object (AWS since 2024,
    /// SeaweedFS 4): its 412 is ``S3PutResult/alreadyStored``, not an error.
    ///
    /// Files of ``Configuration/multipartThreshold`` bytes or more go by multipart upload: a `HEAD`
    /// first (an existing object is not sent again), then parts of ``Configuration/partSize``
    /// bytes, each with its own SHA-256 (hashed before it is sent, checked again while it is), the
    /// whole file's SHA-256 compared before completing, and `If-None-Match: *` on the completion.
    /// Any failure aborts the upload, so no part is left behind.
    public func put(
        key: String, file path: String, sha256 hex: String, size: Int64,
        contentType: String = "application/octet-stream"
    ) async throws(S3Error) -> S3PutResult {
        let operation = Operation(name: "put", key: key)
        try checkKey(key, operation.name)
        guard let digest = sha256Bytes(hex: hex) else {
            throw S3Error.invalidArgument(
                "\(context(operation)): the SHA-256 is 64 hexadecimal digits, not '\(printable(hex))'",
                operation: operation.name, key: key)
        }
        let file = try await open(path, operation: operation, context: context(operation))
        guard file.size == size else {
            throw S3Error.invalidArgument(
                "\(context(operation)): '\(path)' has \(file.size) bytes, not the \(size) declared",
                operation: operation.name, key: key)
        }
        if size >= configuration.multipartThreshold {
            return try await putMultipart(operation, file: file, digest: digest, contentType: contentType)
        }
        if size == 0, configuration.checksUploadsLocally, SignatureV4.hex(digest) != SignatureV4.emptyPayloadHash {
            throw S3Error(
                code: .badDigest,
                message: "\(context(operation)): '\(path)' is empty, and the SHA-256 of nothing is not "
                    + "\(SignatureV4.hex(digest))",
                operation: operation.name, key: key)
        }
        let chunks = FileChunks(
            file: file, range: 0..<size, chunkSize: configuration.chunkSize,
            expectedSHA256: configuration.checksUploadsLocally ? digest : nil)
        let response = try await send(
            operation, method: .PUT, objectKey: key,
            headers: [
                ("content-type", contentType), ("if-none-match", "*"), ("x-amz-checksum-sha256", base64(digest)),
            ],
            payloadHash: SignatureV4.hex(digest), body: .stream(chunks, length: .known(size)), streamsBody: true)
        switch response.status.code {
        case 200:
            _ = await Self.prefix(of: response.body, limit: Self.errorBodyLimit)
            return .stored
        case 412:
            _ = await Self.prefix(of: response.body, limit: Self.errorBodyLimit)
            return .alreadyStored
        default:
            throw await failure(response, operation)
        }
    }

    /// Opens `path` for reading (on NIO's thread pool).
    func open(_ path: String, operation: Operation, context: String) async throws(S3Error) -> OpenFile {
        do {
            return try await pool.run { [pool] in try OpenFile(path: path, pool: pool) }
        } catch let error as S3Error {
            throw S3Error(
                code: error.code, message: "\(context): \(error.message)", operation: operation.name,
                key: operation.key,
                cause: error.cause)
        } catch {
            throw S3Error(
                code: .io, message: "\(context): cannot open '\(path)': \(error)", operation: operation.name,
                key: operation.key, cause: error)
        }
    }

    // MARK: - Multipart

    /// The part size for a file of `size` bytes: the configured one, raised to whole MiB so that
    /// there are at most 10,000 parts.
    func partSize(for size: Int64) -> Int64 {
        let least = (size + Self.maximumPartCount - 1) / Self.maximumPartCount
        let roundedUp = ((least + (1 << 20) - 1) >> 20) << 20
        return max(configuration.partSize, roundedUp)
    }

    private func putMultipart(
        _ operation: Operation, file: OpenFile, digest: [UInt8], contentType: String
    )
        async throws(S3Error) -> S3PutResult
    {
        guard let key = operation.key else { preconditionFailure("a multipart upload has a key") }
        // An object that is there already is not sent again (gigabytes for nothing); the
        // completion's If-None-Match still guards against one stored meanwhile.
        if try await head(key: key) != nil { return .alreadyStored }

        let create = Operation(name: "create multipart upload", key: key)
        let created = try await send(
            create, method: .POST, objectKey: key, query: [("uploads", "")],
            headers: [("content-type", contentType), ("x-amz-checksum-algorithm", "SHA256")])
        guard created.status.code == 200 else { throw await failure(created, create) }
        guard let uploadId = try await xml(created, create).text(of: "UploadId"), !uploadId.isEmpty else {
            throw S3Error.invalidResponse(
                "\(context(create)): the answer has no UploadId", operation: create.name, key: key, status: 200)
        }
        do throws(S3Error) {
            let parts = try await uploadParts(key: key, uploadId: uploadId, file: file, digest: digest)
            return try await complete(key: key, uploadId: uploadId, parts: parts)
        } catch {
            // Not inheriting this task's cancellation: a cancelled upload is aborted too.
            let abort = Task { try await self.abortMultipartUpload(key: key, uploadId: uploadId) }
            if case .failure(let abortError) = await abort.result {
                var error = error
                error.message += " (aborting the upload \(uploadId) failed too: \(abortError))"
                throw error
            }
            throw error
        }
    }

    private struct Part {
        var number: Int
        var eTag: String
        var checksum: String
    }

    private func uploadParts(
        key: String, uploadId: String, file: OpenFile, digest: [UInt8]
    ) async throws(S3Error)
        -> [Part]
    {
        let size = file.size
        let partSize = partSize(for: size)
        var whole: SHA256? = SHA256()
        var parts: [Part] = []
        var offset: Int64 = 0
        while offset < size {
            let number = parts.count + 1
            let operation = Operation(name: "upload part \(number)", key: key)
            let range = offset..<min(size, offset + partSize)
            let partDigest: [UInt8]
            do {
                partDigest = try await sha256(
                    of: file, range: range, chunkSize: configuration.chunkSize, feeding: &whole)
            } catch {
                throw transportError(error, operation)
            }
            let chunks = FileChunks(
                file: file, range: range, chunkSize: configuration.chunkSize, expectedSHA256: partDigest)
            let response = try await send(
                operation, method: .PUT, objectKey: key,
                query: [("partNumber", String(number)), ("uploadId", uploadId)],
                headers: [("x-amz-checksum-sha256", base64(partDigest))], payloadHash: SignatureV4.hex(partDigest),
                body: .stream(chunks, length: .known(Int64(range.count))), streamsBody: true)
            guard response.status.code == 200 else { throw await failure(response, operation) }
            _ = await Self.prefix(of: response.body, limit: Self.errorBodyLimit)
            guard let eTag = response.headers.first(name: "etag"), !eTag.isEmpty else {
                throw S3Error.invalidResponse(
                    "\(context(operation)): the answer has no ETag", operation: operation.name, key: key, status: 200)
            }
            parts.append(Part(number: number, eTag: eTag, checksum: base64(partDigest)))
            offset = range.upperBound
        }
        let actual = Array(whole!.finalize())
        guard actual == digest else {
            throw S3Error(
                code: .badDigest,
                message:
                    "\(context(Operation(name: "put", key: key))): '\(file.path)' has SHA-256 "
                    + "\(SignatureV4.hex(actual)), not the \(SignatureV4.hex(digest)) declared; "
                    + "the multipart upload was aborted",
                operation: "put", key: key)
        }
        return parts
    }

    private func complete(key: String, uploadId: String, parts: [Part]) async throws(S3Error) -> S3PutResult {
        let operation = Operation(name: "complete multipart upload", key: key)
        var xml = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for part in parts {
            xml += "<Part><PartNumber>\(part.number)</PartNumber><ETag>\(Self.escaped(part.eTag))</ETag>"
            xml += "<ChecksumSHA256>\(part.checksum)</ChecksumSHA256></Part>"
        }
        xml += "</CompleteMultipartUpload>"
        let body = Array(xml.utf8)
        let response = try await send(
            operation, method: .POST, objectKey: key, query: [("uploadId", uploadId)],
            headers: [("content-type", "application/xml"), ("if-none-match", "*")],
            payloadHash: SignatureV4.hex(SHA256.hash(data: body)), body: .bytes(body), streamsBody: true)
        switch response.status.code {
        case 200:
            // S3 may answer 200 and then an <Error> (the body comes while it assembles the parts).
            _ = try await self.xml(response, operation)
            return .stored
        case 412:
            _ = await Self.prefix(of: response.body, limit: Self.errorBodyLimit)
            // The object stored meanwhile stays; the parts are dropped.
            try await abortMultipartUpload(key: key, uploadId: uploadId)
            return .alreadyStored
        default:
            throw await failure(response, operation)
        }
    }

    /// Abandons a multipart upload and drops its parts (`DELETE ?uploadId=`). An upload that is
    /// gone already (404 `NoSuchUpload`) is not an error.
    func abortMultipartUpload(key: String, uploadId: String) async throws(S3Error) {
        let operation = Operation(name: "abort multipart upload", key: key)
        let response = try await send(operation, method: .DELETE, objectKey: key, query: [("uploadId", uploadId)])
        switch response.status.code {
        case 200, 204, 404:
            _ = await Self.prefix(of: response.body, limit: Self.errorBodyLimit)
        default:
            throw await failure(response, operation)
        }
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` as entities, for an XML body.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}
