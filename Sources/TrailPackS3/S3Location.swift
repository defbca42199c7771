/// Where objects go: a bucket at an endpoint in a region, with an optional key prefix — parsed from
/// `s3://BUCKET/PREFIX?endpoint=http://127.0.0.1:8333&region=us-east-1&virtualHost=false`.
///
/// - `endpoint`: the store's base URL, `http` or `https`, a host and an optional port, no path.
///   Without it, AWS's own: `https://s3.REGION.amazonaws.com`.
/// - `region`: the signing region; `us-east-1` when absent.
/// - `virtualHost`: `true` to address the bucket as a host name (`BUCKET.s3.REGION.amazonaws.com`);
///   otherwise path-style (`ENDPOINT/BUCKET/KEY`), which every S3-compatible store understands. (A
///   bucket name with dots does not match an `https` endpoint's certificate as a host name.)
/// - the path after the bucket, when there is one, is a prefix put before every key: `s3://b/tours`
///   keeps `blobs/ab/x.zip` at `tours/blobs/ab/x.zip`. It always ends with `/` (one is added).
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    /// The bucket's name (3–63 lowercase letters, digits, dots and hyphens).
    public let bucket: String
    /// What is put before every key: empty, or a path ending with `/`.
    public let keyPrefix: String
    /// The signing region (`us-east-1`).
    public let region: String
    /// The store's base URL.
    public let endpoint: S3Endpoint
    /// Whether the bucket is addressed as a host name (`BUCKET.HOST`) rather than in the path.
    public let usesVirtualHost: Bool

    /// A location from its parts, each checked as in ``init(parsing:)``. `endpoint` nil means AWS's
    /// own for the region.
    public init(
        bucket: String, region: String = "us-east-1", endpoint: S3Endpoint? = nil, keyPrefix: String = "",
        usesVirtualHost: Bool = false
    ) throws(S3Error) {
        try Self.checkBucket(bucket)
        try Self.checkRegion(region)
        self.bucket = bucket
        self.region = region
        if let endpoint {
            self.endpoint = endpoint
        } else {
            self.endpoint = try S3Endpoint(parsing: "https://s3.\(region).amazonaws.com")
        }
        self.keyPrefix = try Self.normalizedPrefix(keyPrefix)
        self.usesVirtualHost = usesVirtualHost
    }

    /// Parses `s3://BUCKET[/PREFIX][?endpoint=URL&region=NAME&virtualHost=true|false]`. Query values
    /// may be percent-encoded (`endpoint=http%3A%2F%2F127.0.0.1%3A8333`). Each error names the part
    /// and the rule it breaks.
    public init(parsing text: String) throws(S3Error) {
        guard text.hasPrefix("s3://") else {
            throw S3Error(
                code: .invalidLocation,
                message: "location '\(printable(text))' must start with 's3://' (s3://BUCKET?endpoint=http://HOST:PORT)"
            )
        }
        var rest = Substring(text.dropFirst(5))
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        if rest.contains("#") {
            throw S3Error(
                code: .invalidLocation, message: "location '\(printable(text))': a location has no '#' fragment")
        }
        let bucket: String
        var prefix = ""
        if let slash = rest.firstIndex(of: "/") {
            bucket = String(rest[..<slash])
            prefix = try Self.percentDecoded(rest[rest.index(after: slash)...], part: "the key prefix")
        } else {
            bucket = String(rest)
        }
        var endpoint: S3Endpoint?
        var region = "us-east-1"
        var virtualHost = false
        var seen: Set<String> = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let value = try Self.percentDecoded(parts.count > 1 ? parts[1] : "", part: "'\(printable(name))'")
            guard seen.insert(name).inserted else {
                throw S3Error(
                    code: .invalidLocation,
                    message: "location '\(printable(text))': '\(printable(name))' is given twice")
            }
            switch name {
            case "endpoint": endpoint = try S3Endpoint(parsing: value)
            case "region": region = value
            case "virtualHost":
                switch value {
                case "true": virtualHost = true
                case "false": virtualHost = false
                default:
                    throw S3Error(
                        code: .invalidLocation,
                        message:
                            "location '\(printable(text))': virtualHost is 'true' or 'false', not '\(printable(value))'"
                    )
                }
            default:
                throw S3Error(
                    code: .invalidLocation,
                    message: "location '\(printable(text))': unknown setting '\(printable(name))'; "
                        + "the settings are endpoint, region and virtualHost")
            }
        }
        try self.init(
            bucket: bucket, region: region, endpoint: endpoint, keyPrefix: prefix, usesVirtualHost: virtualHost)
    }

    /// `s3://BUCKET/PREFIX?endpoint=…&region=…` (and `&virtualHost=true` when set): parses back to this location.
    public var description: String {
        var text = "s3://\(bucket)"
        if !keyPrefix.isEmpty { text += "/" + SignatureV4.uriEncode(keyPrefix, encodeSlash: false) }
        text += "?endpoint=\(endpoint)&region=\(region)"
        if usesVirtualHost { text += "&virtualHost=true" }
        return text
    }

    /// The host (and port, when not the scheme's own) requests go to: `BUCKET.HOST` with
    /// ``usesVirtualHost``, else the endpoint's.
    public var host: String { usesVirtualHost ? "\(bucket).\(endpoint.authority)" : endpoint.authority }

    /// The request path (not encoded) for `key` (without the prefix), or for the bucket when nil.
    func path(forKey key: String?) -> String {
        switch (usesVirtualHost, key) {
        case (true, nil): "/"
        case (true, let key?): "/" + keyPrefix + key
        case (false, nil): "/" + bucket
        case (false, let key?): "/" + bucket + "/" + keyPrefix + key
        }
    }

    // MARK: Rules

    /// S3's bucket naming rules: 3–63 characters; lowercase letters, digits, dots and hyphens;
    /// starting and ending with a letter or a digit; no two dots in a row; not an IPv4 address.
    static func checkBucket(_ name: String) throws(S3Error) {
        func fail(_ rule: String) -> S3Error {
            S3Error(code: .invalidLocation, message: "bucket '\(printable(name))': \(rule)")
        }
        let bytes = Array(name.utf8)
        guard bytes.count >= 3, bytes.count <= 63 else {
            throw fail("a bucket name has 3 to 63 characters, not \(name.count)")
        }
        for (index, scalar) in name.unicodeScalars.enumerated() {
            switch scalar {
            case "a"..."z", "0"..."9", ".", "-": continue
            default:
                let hint = ("A"..."Z").contains(scalar) ? " (write it in lowercase)" : ""
                throw fail(
                    "a bucket name has only lowercase letters, digits, dots and hyphens; "
                        + "'\(printable(String(scalar)))' at position \(index + 1) is not allowed\(hint)")
            }
        }
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard isAlphanumeric(bytes.first!), isAlphanumeric(bytes.last!) else {
            throw fail("a bucket name starts and ends with a lowercase letter or a digit")
        }
        guard !name.contains("..") else { throw fail("a bucket name has no two dots in a row") }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) }) {
            throw fail("a bucket name is not an IP address")
        }
    }

    /// A region is lowercase letters, digits and hyphens (`us-east-1`, `eu-central-1`, `garage`).
    static func checkRegion(_ region: String) throws(S3Error) {
        guard !region.isEmpty, region.count <= 64,
            region.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
        else {
            throw S3Error(
                code: .invalidLocation,
                message: "region '\(printable(region))': a region is lowercase letters, digits and hyphens (us-east-1)")
        }
    }

    private static func normalizedPrefix(_ prefix: String) throws(S3Error) -> String {
        if prefix.isEmpty || prefix == "/" { return "" }
        func fail(_ rule: String) -> S3Error {
            S3Error(code: .invalidLocation, message: "key prefix '\(printable(prefix))': \(rule)")
        }
        guard !prefix.hasPrefix("/") else { throw fail("a key prefix does not start with '/'") }
        let trimmed = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        for segment in trimmed.split(separator: "/", omittingEmptySubsequences: false) {
            guard !segment.isEmpty else { throw fail("a key prefix has no empty part ('//')") }
            guard segment != "." && segment != ".." else { throw fail("a key prefix has no '.' or '..' part") }
        }
        guard !prefix.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw fail("a key prefix has no control characters")
        }
        guard trimmed.utf8.count < 512 else { throw fail("a key prefix is shorter than 512 bytes") }
        return trimmed + "/"
    }

    static func percentDecoded(_ text: Substring, part: String) throws(S3Error) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw S3Error(
                    code: .invalidLocation,
                    message: "\(part) '\(printable(text))': '%' is followed by two hexadecimal digits (%2F)")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw S3Error(code: .invalidLocation, message: "\(part) '\(printable(text))' is not UTF-8 once decoded")
        }
        return decoded
    }
}

/// An S3 store's base URL: `http` or `https`, a host, an optional port.
public struct S3Endpoint: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// A host name, an IPv4 address or a bracketed IPv6 address (`[::1]`).
    public let host: String
    /// The port, when the URL gives one.
    public let port: Int?

    /// Parses `http://HOST[:PORT]` or `https://HOST[:PORT]` (a trailing `/` is allowed; a path,
    /// a query, user information are not).
    public init(parsing text: String) throws(S3Error) {
        func fail(_ rule: String) -> S3Error {
            S3Error(code: .invalidLocation, message: "endpoint '\(printable(text))': \(rule)")
        }
        let scheme: String
        var rest: Substring
        if text.hasPrefix("http://") {
            scheme = "http"
            rest = text.dropFirst(7)
        } else if text.hasPrefix("https://") {
            scheme = "https"
            rest = text.dropFirst(8)
        } else {
            throw fail("an endpoint starts with 'http://' or 'https://' (http://127.0.0.1:8333)")
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.contains(where: { "/?#".contains($0) }) {
            throw fail("an endpoint is a scheme, a host and a port only, with no path, query or fragment")
        }
        if rest.contains("@") { throw fail("an endpoint has no user name or password ('@')") }
        var hostPart = rest
        var port: Int?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw fail("an IPv6 address ends with ']'") }
            hostPart = rest[...close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("after an IPv6 address comes ':PORT' or nothing") }
                port = try Self.parsePort(after.dropFirst(), fail)
            }
            let inside = hostPart.dropFirst().dropLast()
            guard !inside.isEmpty, inside.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw fail("'\(printable(hostPart))' is not an IPv6 address")
            }
        } else if let colon = rest.lastIndex(of: ":") {
            hostPart = rest[..<colon]
            port = try Self.parsePort(rest[rest.index(after: colon)...], fail)
        }
        guard !hostPart.isEmpty else { throw fail("an endpoint names a host") }
        if !hostPart.hasPrefix("[") {
            let labels = hostPart.split(separator: ".", omittingEmptySubsequences: false)
            for label in labels {
                guard !label.isEmpty, label.count <= 63,
                    label.unicodeScalars.allSatisfy({
                        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                            || $0 == "_"
                    })
                else {
                    throw fail(
                        "a host is letters, digits, hyphens, underscores and dots ('\(printable(hostPart))' is not)")
                }
            }
        }
        self.scheme = scheme
        self.host = hostPart.lowercased()
        self.port = port
    }

    /// The host and, when not the scheme's own (80, 443), the port: what goes in the `Host` header.
    public var authority: String {
        guard let port, port != (scheme == "https" ? 443 : 80) else { return host }
        return "\(host):\(port)"
    }

    /// `http://127.0.0.1:8333`.
    public var description: String { "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "") }

    private static func parsePort(_ text: Substring, _ fail: (String) -> S3Error) throws(S3Error) -> Int {
        guard let port = Int(text), text.allSatisfy(\.isASCII), (1...65_535).contains(port) else {
            throw fail("a port is a number from 1 to 65535, not '\(printable(text))'")
        }
        return port
    }
}

func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
