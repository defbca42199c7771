import Crypto

/// AWS Signature Version 4 for S3, as the S3 documentation's "Authenticating Requests (AWS
/// Signature Version 4)" specifies it: the canonical request, the string to sign, the signing key
/// derived by a chain of HMAC-SHA256 (swift-crypto), and the result either as an `Authorization`
/// header or as query parameters (a presigned URL).
///
/// Paths are given unencoded (`/bucket/a b+c.zip`) and encoded here once, segment by segment, as
/// S3 wants: every byte but `A–Z a–z 0–9 - . _ ~` as `%XX`, `/` kept. Query names and values are
/// encoded the same way, `/` included, spaces as `%20`, and sorted.
public struct SignatureV4: Sendable {
    /// The credentials that sign.
    public let credentials: S3Credentials
    /// The region in the credential scope (`us-east-1`).
    public let region: String
    /// The service in the credential scope: `s3`.
    public let service: String

    /// The payload hash of a request without a body: the SHA-256 of nothing.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// The payload hash of a presigned URL, or of a body not hashed in advance.
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// The longest a presigned URL may live: 7 days.
    public static let maximumPresignedExpiry: Int64 = 604_800

    /// A signer for `credentials` in `region`.
    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// A request to sign: what the canonical request is made of.
    public struct Request: Sendable {
        /// `GET`, `PUT`, …
        public var method: String
        /// The path, not encoded (`/bucket/a b.zip`); encoded by ``SignatureV4/uriEncode(_:encodeSlash:)``.
        public var path: String
        /// The query parameters, not encoded, in any order (a parameter without a value has value "").
        public var query: [(name: String, value: String)]
        /// The headers to sign besides those the signer adds (`host`, `x-amz-date`,
        /// `x-amz-content-sha256`, `x-amz-security-token`): names in any case.
        public var headers: [(name: String, value: String)]
        /// The hex SHA-256 of the body, ``SignatureV4/emptyPayloadHash`` or ``SignatureV4/unsignedPayload``.
        public var payloadHash: String
        /// The `Host` header's value: the host and, when not the scheme's own, the port.
        public var host: String

        /// A request with its parts.
        public init(
            method: String, host: String, path: String, query: [(name: String, value: String)] = [],
            headers: [(name: String, value: String)] = [], payloadHash: String = SignatureV4.emptyPayloadHash
        ) {
            self.method = method
            self.host = host
            self.path = path
            self.query = query
            self.headers = headers
            self.payloadHash = payloadHash
        }

        /// The path as sent and signed: each segment encoded, `/` kept.
        public var encodedPath: String { SignatureV4.uriEncode(path, encodeSlash: false) }

        /// The query string as sent and signed: names and values encoded, sorted by name then value.
        public var encodedQuery: String { SignatureV4.canonicalQuery(query) }
    }

    /// What signing a request produced: the headers to send (the request's own, plus `Host`,
    /// `X-Amz-Date`, `X-Amz-Content-SHA256`, `X-Amz-Security-Token` and `Authorization`), and the
    /// steps, for tests and for diagnosing a `SignatureDoesNotMatch`.
    public struct Signed: Sendable {
        /// Every header to send, signed ones first, `authorization` last; names in lowercase.
        public var headers: [(name: String, value: String)]
        /// The canonical request that was hashed.
        public var canonicalRequest: String
        /// The string that was signed.
        public var stringToSign: String
        /// The hex signature.
        public var signature: String
        /// The `Authorization` header's value.
        public var authorization: String
    }

    /// Signs `request` at `date` for an `Authorization` header.
    public func sign(_ request: Request, date: AmzDate) -> Signed {
        var headers: [(name: String, value: String)] = request.headers.map { ($0.name.lowercased(), $0.value) }
        headers.removeAll { ["host", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token"].contains($0.name) }
        headers.append(("host", request.host))
        headers.append(("x-amz-date", date.basic))
        headers.append(("x-amz-content-sha256", request.payloadHash))
        if let token = credentials.sessionToken { headers.append(("x-amz-security-token", token)) }
        let (canonicalHeaders, signedHeaders) = Self.canonicalHeaders(headers)
        let canonical = [
            request.method, request.encodedPath, request.encodedQuery, canonicalHeaders, signedHeaders,
            request.payloadHash,
        ].joined(separator: "\n")
        let toSign = stringToSign(canonicalRequest: canonical, date: date)
        let signature = self.signature(stringToSign: toSign, date: date)
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyId)/\(scope(date)),"
            + "SignedHeaders=\(signedHeaders),Signature=\(signature)"
        headers.append(("authorization", authorization))
        return Signed(
            headers: headers, canonicalRequest: canonical, stringToSign: toSign, signature: signature,
            authorization: authorization)
    }

    /// The query string of a presigned URL for `request` (its method, host, path and query; its
    /// headers and payload hash are not used: only `host` is signed, the payload is
    /// `UNSIGNED-PAYLOAD`), valid from `date` for `expires` seconds (1 to 604,800: 7 days): the
    /// request's own parameters and `X-Amz-Algorithm`, `X-Amz-Credential`, `X-Amz-Date`,
    /// `X-Amz-Expires`, `X-Amz-SignedHeaders`, (`X-Amz-Security-Token`,) `X-Amz-Signature`.
    public func presignedQuery(_ request: Request, expires: Int64, date: AmzDate) throws(S3Error) -> String {
        guard (1...Self.maximumPresignedExpiry).contains(expires) else {
            throw S3Error.invalidArgument(
                "a presigned URL lives from 1 second to 7 days (604800 seconds), not \(expires) seconds",
                operation: "presign")
        }
        var query = request.query
        query.append(("X-Amz-Algorithm", "AWS4-HMAC-SHA256"))
        query.append(("X-Amz-Credential", "\(credentials.accessKeyId)/\(scope(date))"))
        query.append(("X-Amz-Date", date.basic))
        query.append(("X-Amz-Expires", String(expires)))
        if let token = credentials.sessionToken { query.append(("X-Amz-Security-Token", token)) }
        query.append(("X-Amz-SignedHeaders", "host"))
        let encodedQuery = Self.canonicalQuery(query)
        let canonical = [
            request.method, request.encodedPath, encodedQuery, "host:\(request.host)\n", "host", Self.unsignedPayload,
        ].joined(separator: "\n")
        let signature = self.signature(stringToSign: stringToSign(canonicalRequest: canonical, date: date), date: date)
        return encodedQuery + "&X-Amz-Signature=" + signature
    }

    /// `20130524/us-east-1/s3/aws4_request`.
    public func scope(_ date: AmzDate) -> String { "\(date.day)/\(region)/\(service)/aws4_request" }

    /// `AWS4-HMAC-SHA256`, the date, the scope and the hex SHA-256 of the canonical request, one a line.
    public func stringToSign(canonicalRequest: String, date: AmzDate) -> String {
        let hash = Self.hex(SHA256.hash(data: Array(canonicalRequest.utf8)))
        return "AWS4-HMAC-SHA256\n\(date.basic)\n\(scope(date))\n\(hash)"
    }

    /// The signing key for `date`: HMAC-SHA256 of the day keyed by `AWS4` + the secret, then of the
    /// region, the service and `aws4_request`, each keyed by the one before.
    public func signingKey(date: AmzDate) -> SymmetricKey {
        var key = SymmetricKey(data: Array(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [date.day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        return key
    }

    /// The hex HMAC-SHA256 of `stringToSign` keyed by the signing key for `date`.
    public func signature(stringToSign: String, date: AmzDate) -> String {
        Self.hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: signingKey(date: date)))
    }

    // MARK: Encoding

    /// `text` URI-encoded as Signature Version 4 wants: UTF-8, every byte but the unreserved
    /// `A–Z a–z 0–9 - . _ ~` as `%XX` (uppercase hex), and `/` kept unless `encodeSlash`.
    public static func uriEncode(_ text: String, encodeSlash: Bool = true) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        let digits = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where !encodeSlash:
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The canonical query string: each name and value encoded, the pairs sorted by encoded name
    /// then encoded value, joined with `&`.
    public static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        query.map { (uriEncode($0.name), uriEncode($0.value)) }
            .sorted {
                $0.0 != $1.0
                    ? Array($0.0.utf8).lexicographicallyPrecedes($1.0.utf8)
                    : Array($0.1.utf8).lexicographicallyPrecedes($1.1.utf8)
            }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// The canonical headers block (`name:value\n` for each, names lowercase and sorted, values
    /// trimmed with inner runs of spaces made one, repeated names joined with `,`) and the signed
    /// headers list (`host;range;x-amz-date`).
    static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> (String, String) {
        var merged: [String: [String]] = [:]
        for (name, value) in headers {
            let trimmed = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                .trimmingWhitespace()
            merged[name.lowercased(), default: []].append(trimmed)
        }
        let names = merged.keys.sorted { Array($0.utf8).lexicographicallyPrecedes($1.utf8) }
        let block = names.map { "\($0):\(merged[$0]!.joined(separator: ","))\n" }.joined()
        return (block, names.joined(separator: ";"))
    }

    /// Lowercase hex of `bytes`.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
