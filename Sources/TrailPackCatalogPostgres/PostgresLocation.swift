import Foundation
import PostgresNIO

/// Where a shared catalog lives: `postgres://USER@HOST:PORT/DB` (or `postgresql://`; the port
/// defaults to 5432; `?sslmode=` one of `disable`, `prefer` (the default on this machine),
/// `require` (the default elsewhere), `verify-ca`, `verify-full`, as libpq reads them, and
/// `sslrootcert=/path/ca.pem` for the authorities a verified certificate is checked against), with
/// the password from a file or from `PGPASSWORD`.
///
/// A password written into the URL is refused: a command line shows in `ps` and in logs. Nothing
/// here prints the password: ``description`` is the URL without it, and the password's
/// ``passwordSource`` is named instead.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// How the connection uses TLS (libpq's `sslmode`).
    public enum TLSMode: String, Sendable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, its certificate not checked (libpq's default; trailpack's
        /// only for a catalog on this machine).
        case prefer
        /// TLS always, its certificate not checked (trailpack's default for a catalog elsewhere).
        case require
        /// TLS always, the certificate checked against the system's authorities (not its name).
        case verifyCA = "verify-ca"
        /// TLS always, the certificate checked against the system's authorities and the host's name.
        case verifyFull = "verify-full"
    }

    /// The server's host name or address.
    public let host: String
    /// The server's port.
    public let port: Int
    /// The PostgreSQL role trailpack signs in as.
    public let user: String
    /// The database holding the catalog.
    public let database: String
    /// How the connection uses TLS.
    public let tls: TLSMode
    /// `sslrootcert`: a PEM file of the authorities the server's certificate must be signed by
    /// (with `verify-ca` or `verify-full`); nil: the system's.
    public let rootCertificates: String?
    /// Where the password came from, for messages: `the password file '/etc/trailpack/pg'`,
    /// `PGPASSWORD`, or `no password`.
    public let passwordSource: String
    /// The password, kept out of every description.
    let password: Secret?

    /// Reads `url` (`postgres://USER@HOST:PORT/DB?sslmode=disable`) and the password: from the first
    /// line of `passwordFile` when given, else from `PGPASSWORD` in `environment`, else none.
    ///
    /// - Throws: ``PostgresCatalogError`` (``PostgresCatalogError/Code/location``) naming the part
    ///   of the URL, or the file, and the rule it breaks.
    public init(
        url: String, passwordFile: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        let form = "write it as postgres://USER@HOST:PORT/DATABASE"
        guard let schemeEnd = url.range(of: "://") else {
            throw PostgresCatalogError.location("the catalog URL has no scheme; \(form)")
        }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw PostgresCatalogError.location(
                "the catalog URL's scheme is '\(Self.shown(scheme))'; it must be postgres:// or postgresql://")
        }
        var rest = Substring(url[schemeEnd.upperBound...])
        if rest.contains("#") {
            throw PostgresCatalogError.location("the catalog URL has a fragment ('#…'); \(form)")
        }
        var query = Substring("")
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        let slash = rest.firstIndex(of: "/")
        let authority = rest[..<(slash ?? rest.endIndex)]
        let at = authority.lastIndex(of: "@")
        // Checked first, so that no other message about this URL is ever next to a password.
        if let at, authority[..<at].contains(":") { throw Self.passwordInURL }
        guard let slash else {
            throw PostgresCatalogError.location("the catalog URL names no database; \(form)")
        }
        let path = rest[rest.index(after: slash)...]
        guard let at else {
            throw PostgresCatalogError.location("the catalog URL names no user; \(form)")
        }
        let userInfo = authority[..<at], hostPort = authority[authority.index(after: at)...]
        guard let user = userInfo.removingPercentEncoding, !user.isEmpty else {
            throw PostgresCatalogError.location("the catalog URL's user is empty or badly %-encoded; \(form)")
        }
        let (host, port) = try Self.hostAndPort(hostPort, form: form)
        guard let database = path.removingPercentEncoding, !database.isEmpty, !database.contains("/") else {
            throw PostgresCatalogError.location(
                "the catalog URL's database '\(Self.shown(path))' is empty, badly %-encoded or holds a '/'; \(form)")
        }
        // Off this machine, TLS is required unless the URL asks otherwise: with libpq's `prefer`,
        // anything that answers on the catalog's address and refuses TLS is handed the password
        // in clear text when it asks for it so.
        var tls = Self.isOnThisMachine(host) ? TLSMode.prefer : .require
        var rootCertificates: String?
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]), value = parts.count > 1 ? String(parts[1]) : ""
            if name == "password" { throw Self.passwordInURL }
            if name == "sslrootcert" {
                guard let path = value.removingPercentEncoding, path.hasPrefix("/") else {
                    throw PostgresCatalogError.location(
                        "the catalog URL's sslrootcert '\(Self.shown(value))' is not an absolute path to a PEM file of the authorities that sign the catalog's certificate"
                    )
                }
                guard FileManager.default.isReadableFile(atPath: path) else {
                    throw PostgresCatalogError.location(
                        "the catalog URL's sslrootcert '\(Self.shown(path))' cannot be read (missing, or not readable by this user)"
                    )
                }
                rootCertificates = path
                continue
            }
            guard name == "sslmode" else {
                throw PostgresCatalogError.location(
                    "the catalog URL's parameter '\(Self.shown(name))' is not one trailpack reads; only sslmode and sslrootcert are"
                )
            }
            guard let mode = TLSMode(rawValue: value) else {
                throw PostgresCatalogError.location(
                    "the catalog URL's sslmode '\(Self.shown(value))' is not one of "
                        + TLSMode.allCases.map(\.rawValue).joined(separator: ", "))
            }
            tls = mode
        }
        self.host = host
        self.port = port
        self.user = user
        self.database = database
        if rootCertificates != nil, tls != .verifyCA, tls != .verifyFull {
            throw PostgresCatalogError.location(
                "the catalog URL's sslrootcert is read only to check the server's certificate: add sslmode=verify-full (or verify-ca)"
            )
        }
        self.tls = tls
        self.rootCertificates = rootCertificates
        if let passwordFile {
            password = Secret(try Self.readPassword(passwordFile))
            passwordSource = "the password file '\(passwordFile)'"
        } else if let variable = environment["PGPASSWORD"] {
            password = Secret(variable)
            passwordSource = "PGPASSWORD"
        } else {
            password = nil
            passwordSource = "no password"
        }
    }

    /// The URL, without any password: `postgres://trailpack@db.example.org:5432/catalog`.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let user = user.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? user
        let database = database.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? database
        var query: [String] = []
        if tls != (Self.isOnThisMachine(host) ? .prefer : .require) { query.append("sslmode=\(tls.rawValue)") }
        if let rootCertificates {
            query.append(
                "sslrootcert="
                    + (rootCertificates.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)
                        ?? rootCertificates))
        }
        return "postgres://\(user)@\(shownHost):\(port)/\(database)"
            + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// The same as ``description``, and the password's source: never the password.
    public var debugDescription: String { "PostgresLocation(\(description), password from \(passwordSource))" }

    /// Two locations are the same when they name the same catalog as the same user with the same password.
    public static func == (a: PostgresLocation, b: PostgresLocation) -> Bool {
        a.description == b.description && a.password?.value == b.password?.value
    }

    private static let passwordInURL = PostgresCatalogError.location(
        "the catalog URL holds a password, which would show in `ps` and in logs; take it out of the URL and "
            + "put it in a password file (its first line) or in PGPASSWORD")

    /// Whether `host` is this machine: `localhost`, a loopback address (127.0.0.0/8, ::1) or a
    /// Unix socket's folder.
    static func isOnThisMachine(_ host: String) -> Bool {
        let name = host.lowercased()
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" || name.hasPrefix("/") { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    private static func hostAndPort(_ text: Substring, form: String) throws -> (String, Int) {
        var host: Substring, portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw PostgresCatalogError.location(
                    "the catalog URL's host '\(shown(text))' opens a '[' it never closes")
            }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else {
                    throw PostgresCatalogError.location(
                        "the catalog URL's host '\(shown(text))' has text after its ']' that is not a :PORT")
                }
                portText = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = text
        }
        guard !host.isEmpty else { throw PostgresCatalogError.location("the catalog URL names no host; \(form)") }
        var port = 5432
        if let portText {
            guard portText.allSatisfy(\.isASCII), let number = Int(portText), (1...65535).contains(number) else {
                throw PostgresCatalogError.location(
                    "the catalog URL's port '\(shown(portText))' is not a number from 1 to 65535")
            }
            port = number
        }
        return (String(host), port)
    }

    /// The first line of the password file, its line end dropped.
    private static func readPassword(_ path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw PostgresCatalogError.location(
                "the password file '\(path)' cannot be read (missing, or not readable by this user)")
        }
        defer { try? handle.close() }
        // A password is a line: a file far longer than one is the wrong file.
        let bytes: Data
        do {
            bytes = try handle.read(upToCount: 4097) ?? Data()
        } catch {
            throw PostgresCatalogError.location("the password file '\(path)' cannot be read: \(error)")
        }
        guard bytes.count <= 4096 else {
            throw PostgresCatalogError.location(
                "the password file '\(path)' is longer than 4 KiB; it must hold the password on its first line")
        }
        let firstLine = bytes.prefix { $0 != UInt8(ascii: "\n") }
        let line = firstLine.last == UInt8(ascii: "\r") ? firstLine.dropLast() : firstLine
        guard let password = String(bytes: line, encoding: .utf8), !password.isEmpty else {
            throw PostgresCatalogError.location(
                "the password file '\(path)' has no password on its first line (empty, or not UTF-8)")
        }
        return password
    }

    /// Text from the URL as a message shows it: control characters escaped, at most 80 characters.
    private static func shown(_ text: some StringProtocol) -> String {
        let escaped = text.unicodeScalars.map { scalar -> String in
            scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
                ? scalar.escaped(asASCII: true) : String(scalar)
        }.joined()
        return escaped.count > 80 ? String(escaped.prefix(80)) + "…" : escaped
    }
}

/// A password: its description and its reflection never show it.
struct Secret: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let value: String
    init(_ value: String) { self.value = value }
    var description: String { "(password)" }
    var debugDescription: String { "(password)" }
    var customMirror: Mirror { Mirror(self, children: [:]) }
}
