import AsyncHTTPClient
import NIOHTTP1

/// One object in a listing.
public struct S3ObjectSummary: Sendable, Hashable {
    /// Its key, without the location's prefix.
    public var key: String
    /// Its size in bytes.
    public var size: Int64
    /// Its ETag, without the quotes, when the store sent one.
    public var eTag: String?

    /// An object's key, size and ETag.
    public init(key: String, size: Int64, eTag: String?) {
        self.key = key
        self.size = size
        self.eTag = eTag
    }
}

/// One page of a listing (`ListObjectsV2`).
public struct S3ListPage: Sendable, Hashable {
    /// The objects of this page, in the store's order (by key, in UTF-8 byte order).
    public var objects: [S3ObjectSummary]
    /// The token for the next page, or nil when this is the last.
    public var nextContinuationToken: String?

    /// A page of objects and the token for the next one.
    public init(objects: [S3ObjectSummary], nextContinuationToken: String?) {
        self.objects = objects
        self.nextContinuationToken = nextContinuationToken
    }
}

extension S3Client {
    /// One page of the objects whose keys start with `prefix` (after the location's prefix): at
    /// most `maxKeys` (1 to 1,000), from where `continuationToken` (a previous page's
    /// ``S3ListPage/nextContinuationToken``) says, or from the start.
    ///
    /// The answer is read up to 16 MiB and parsed here (keys with `&`, `<`, numeric character
    /// references decoded); keys come back without the location's prefix.
    public func list(
        prefix: String = "", continuationToken: String? = nil, maxKeys: Int = 1_000
    ) async throws(S3Error)
        -> S3ListPage
    {
        let operation = Operation(name: "list", key: nil)
        guard (1...1_000).contains(maxKeys) else {
            throw S3Error.invalidArgument(
                "\(context(operation)): maxKeys is from 1 to 1000, not \(maxKeys)", operation: operation.name)
        }
        guard !prefix.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw S3Error.invalidArgument(
                "\(context(operation)): a prefix has no control characters", operation: operation.name)
        }
        var query: [(name: String, value: String)] = [
            ("list-type", "2"), ("prefix", location.keyPrefix + prefix), ("max-keys", String(maxKeys)),
        ]
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        let response = try await send(operation, method: .GET, objectKey: nil, query: query)
        guard response.status.code == 200 else { throw await failure(response, operation) }
        let root = try await xml(response, operation)
        return try page(from: root, operation)
    }

    /// Reads a `ListBucketResult`.
    func page(from root: XMLElement, _ operation: Operation) throws(S3Error) -> S3ListPage {
        func fail(_ what: String) -> S3Error {
            S3Error.invalidResponse("\(context(operation)): \(what)", operation: operation.name, key: nil, status: 200)
        }
        guard root.name == "ListBucketResult" else {
            throw fail("the answer is <\(printable(root.name))>, not a listing")
        }
        let urlEncoded = root.text(of: "EncodingType") == "url"
        var objects: [S3ObjectSummary] = []
        for contents in root.children("Contents") {
            guard var key = contents.text(of: "Key") else { throw fail("an object in the listing has no <Key>") }
            if urlEncoded {
                do {
                    key = try S3Location.percentDecoded(Substring(key), part: "a key")
                } catch {
                    throw fail("a key in the listing is not percent-encoded UTF-8")
                }
            }
            guard key.hasPrefix(location.keyPrefix) else {
                throw fail("the key '\(printable(key))' is outside the prefix '\(printable(location.keyPrefix))'")
            }
            guard let sizeText = contents.text(of: "Size"), let size = Int64(sizeText), size >= 0 else {
                throw fail("the object '\(printable(key))' in the listing has no valid <Size>")
            }
            objects.append(
                S3ObjectSummary(
                    key: String(key.dropFirst(location.keyPrefix.count)), size: size,
                    eTag: Self.unquoted(contents.text(of: "ETag"))))
        }
        let truncated = root.text(of: "IsTruncated") == "true"
        let next = root.text(of: "NextContinuationToken")
        if truncated, next?.isEmpty ?? true { throw fail("the listing is truncated but has no NextContinuationToken") }
        return S3ListPage(objects: objects, nextContinuationToken: truncated ? next : nil)
    }

    /// Every object whose key starts with `prefix`, page after page (each page fetched when the
    /// one before is used up): `for try await object in client.listAll(prefix: "blobs/")`.
    public func listAll(prefix: String = "", pageSize: Int = 1_000) -> S3ListSequence {
        S3ListSequence(client: self, prefix: prefix, pageSize: pageSize)
    }
}

/// Every object under a prefix, fetched a page at a time: see ``S3Client/listAll(prefix:pageSize:)``.
public struct S3ListSequence: AsyncSequence, Sendable {
    /// One object.
    public typealias Element = S3ObjectSummary

    let client: S3Client
    let prefix: String
    let pageSize: Int

    /// Iterates over the objects; errors are ``S3Error``s.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let sequence: S3ListSequence
        var buffered: [S3ObjectSummary] = []
        var token: String?
        var finished = false

        /// The next object, or nil after the last page.
        public mutating func next() async throws -> S3ObjectSummary? {
            while buffered.isEmpty {
                if finished { return nil }
                let page = try await sequence.client.list(
                    prefix: sequence.prefix, continuationToken: token, maxKeys: sequence.pageSize)
                buffered = page.objects.reversed()
                token = page.nextContinuationToken
                finished = token == nil
            }
            return buffered.removeLast()
        }
    }

    /// An iterator starting at the first page.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(sequence: self) }
}
