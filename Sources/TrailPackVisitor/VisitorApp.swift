import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TrailPackCore
import TrailPackCrypto
import TrailPackServer
import TrailPackVerifier

/// What `trailpack serve` tells the visitor app: where its files are, the reviewers' keys phones
/// trust, how many of them must have signed, and where downloads may come from.
public struct VisitorAppConfiguration: Sendable {
    /// A folder holding the app's own files (`index.html`, `js/`, …) to serve instead of the copy
    /// compiled into the program (for working on the app without building); nil: the compiled copy.
    public var appFolder: String?
    /// Debian's web libraries (`leaflet/`; `tweetnacl/` from node-tweetnacl when installed).
    public var webAssets: String
    /// Files (or folders of `*.pub`) holding the reviewers' minisign public keys the app trusts.
    public var trustedKeyFiles: [String]
    /// How many distinct trusted keys must have signed a version (the release rule's number).
    public var threshold: Int
    /// `--download-base-url`: downloads are redirected there, so the app must be allowed to fetch from it.
    public var downloadBaseURL: String?

    public static let defaultWebAssets = "/usr/share/javascript"
    /// Where Debian's node-tweetnacl puts its browser build (a fallback for browsers without WebCrypto Ed25519).
    public static let defaultTweetNaCl = "/usr/share/nodejs/tweetnacl"

    public init(
        appFolder: String? = nil, webAssets: String = VisitorAppConfiguration.defaultWebAssets,
        trustedKeyFiles: [String] = [], threshold: Int = 1, downloadBaseURL: String? = nil
    ) {
        self.appFolder = appFolder
        self.webAssets = webAssets
        self.trustedKeyFiles = trustedKeyFiles
        self.threshold = threshold
        self.downloadBaseURL = downloadBaseURL
    }
}

/// Why the visitor app cannot be served, in words naming the option and the fix.
public struct VisitorAppError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}

/// The visitor app at `/visit/`: static files only (held in memory, each with a strong ETag), a
/// configuration document (`/visit/config.json`: the trusted keys and the threshold), and the Debian
/// libraries it uses. Every answer carries a Content-Security-Policy with no inline script and no
/// other origin: what a package holds is shown as text, images and media from `blob:` URLs, and
/// never runs as script in this origin.
public struct VisitorController: Sendable {
    struct File: Sendable {
        let bytes: ByteBuffer
        let contentType: String
        let etag: String
    }

    let files: [String: File]
    let contentSecurityPolicy: String

    /// Takes the app's files (compiled in, or from `appFolder`), loads Leaflet and (when installed)
    /// tweetnacl, and the trusted keys; refuses to start with words naming what is missing.
    public init(configuration: VisitorAppConfiguration) throws(VisitorAppError) {
        var files: [String: File] = [:]
        if let folder = configuration.appFolder {
            for relative in Self.listFiles(folder) {
                guard let file = Self.load(folder + "/" + relative) else {
                    throw VisitorAppError(message: "cannot read the visitor app's file '\(folder)/\(relative)'")
                }
                files[relative] = file
            }
            guard files["index.html"] != nil, files["sw.js"] != nil else {
                throw VisitorAppError(message: "'\(folder)' is not the visitor app (no index.html or sw.js)")
            }
        } else {
            for (path, bytes) in EmbeddedApp.files {
                files[path] = Self.file(ByteBuffer(bytes: bytes), contentType: Self.contentType(path))
            }
        }
        for name in ["leaflet.js", "leaflet.css", "images/marker-icon.png", "images/marker-shadow.png"] {
            let path = configuration.webAssets + "/leaflet/" + name
            guard let file = Self.load(path) else {
                throw VisitorAppError(
                    message:
                        "the visitor app needs Leaflet: '\(path)' is missing (install the Debian package libjs-leaflet, "
                        + "or name the folder holding leaflet/ with --web-assets)")
            }
            files["vendor/leaflet/" + name] = file
        }
        if let nacl = Self.load(VisitorAppConfiguration.defaultTweetNaCl + "/nacl-fast.min.js")
            ?? Self.load(VisitorAppConfiguration.defaultTweetNaCl + "/nacl-fast.js")
        {
            files["vendor/tweetnacl/nacl-fast.js"] = nacl
        }
        let keys: [Minisign.PublicKey]
        do { keys = try SignatureCheck.loadTrustedKeys(configuration.trustedKeyFiles) } catch {
            throw VisitorAppError(message: "--visitor-trusted-key: \(error)")
        }
        // Phones need that many distinct trusted keys to have signed: fewer keys make every tour uninstallable.
        if !keys.isEmpty, Set(keys.map(\.key)).count < max(1, configuration.threshold) {
            throw VisitorAppError(
                message:
                    "--visitor-trusted-key names \(Set(keys.map(\.key)).count) distinct key(s) but --approvals asks for "
                    + "\(configuration.threshold) signatures: name every reviewer's key, or phones could install no tour"
            )
        }
        let config = VisitorConfigDocument(
            trustedKeys: keys.map { .init(keyId: $0.keyIDHex, publicKey: $0.base64) },
            threshold: keys.isEmpty ? 0 : max(1, configuration.threshold),
            tweetnacl: files["vendor/tweetnacl/nacl-fast.js"] != nil)
        files["config.json"] = Self.file(
            ByteBuffer(bytes: JSONWriter.bytes((try? JSONValueEncoder().encode(config)) ?? .object([]))),
            contentType: "application/json")
        // The service worker carries the app's version (all files' hashes): a changed app is a changed
        // sw.js, which browsers take as an update and cache whole.
        let version = SHA256.hash(
            Array(files.keys.sorted().filter { $0 != "sw.js" }.map { "\($0) \(files[$0]!.etag)\n" }.joined().utf8))
        if let worker = files["sw.js"] {
            let text = String(decoding: worker.bytes.readableBytesView, as: UTF8.self)
                .replacingOccurrences(of: "__APP_VERSION__", with: String(version.hex.prefix(16)))
            files["sw.js"] = Self.file(ByteBuffer(string: text), contentType: worker.contentType)
        }
        self.files = files
        var connect = "'self'"
        if let base = configuration.downloadBaseURL, let url = URL(string: base), let scheme = url.scheme,
            let host = url.host
        {
            // An IPv6 address keeps its brackets in a CSP source.
            let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            connect += " \(scheme)://\(shownHost)\(url.port.map { ":\($0)" } ?? "")"
        }
        contentSecurityPolicy =
            "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' blob: data:; "
            + "media-src 'self' blob:; connect-src \(connect); worker-src 'self'; manifest-src 'self'; "
            + "font-src 'self'; base-uri 'none'; form-action 'none'; object-src 'none'; frame-ancestors 'self'"
    }

    /// The routes: `/visit` (redirects to `/visit/`), `/visit/` (the app) and its files.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        // The router does not tell `/visit` from `/visit/`: the app's relative URLs need the slash.
        router.get("/visit") { request, _ in
            request.uri.path.hasSuffix("/")
                ? answer("index.html", request) : Response(status: .movedPermanently, headers: [.location: "/visit/"])
        }
        router.get("/visit/**") { request, context in
            let path = context.parameters.getCatchAll().joined(separator: "/")
            return answer(path, request)
        }
    }

    func answer(_ path: String, _ request: Request) -> Response {
        var headers: HTTPFields = [
            .contentSecurityPolicy: contentSecurityPolicy,
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("Permissions-Policy")!: "geolocation=(self), camera=(), microphone=()",
        ]
        guard let file = files[path] else {
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(
                status: .notFound, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: "no such page in the visitor app\n")))
        }
        headers[.contentType] = file.contentType
        headers[.eTag] = file.etag
        // The service worker keeps the app for offline use; online, each start asks whether it changed.
        headers[.cacheControl] = "no-cache"
        if path == "sw.js" { headers[HTTPField.Name("Service-Worker-Allowed")!] = "/visit/" }
        if let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: .whitespaces) == file.etag
            })
        {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(file.bytes.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: file.bytes))
    }

    /// Every regular file under `folder`, as relative paths (no hidden files).
    static func listFiles(_ folder: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var out: [String] = []
        while let relative = walker.nextObject() as? String {
            if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + relative, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                out.append(relative)
            }
        }
        return out.sorted()
    }

    static func load(_ path: String) -> File? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return file(ByteBuffer(bytes: data), contentType: contentType(path))
    }

    static func file(_ bytes: ByteBuffer, contentType: String) -> File {
        let digest = SHA256.hash(Array(bytes.readableBytesView))
        return File(bytes: bytes, contentType: contentType, etag: "\"\(digest.hex.prefix(32))\"")
    }

    static func contentType(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let ext = name.split(separator: ".").count > 1 ? String(name.split(separator: ".").last!).lowercased() : ""
        switch ext {
        case "html": return "text/html; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "json": return "application/json"
        case "webmanifest": return "application/manifest+json"
        case "wasm": return "application/wasm"
        case "png": return "image/png"
        case "svg": return "image/svg+xml"
        default: return "application/octet-stream"
        }
    }
}

/// `/visit/config.json`: what the app checks downloads against.
struct VisitorConfigDocument: Codable, Sendable {
    struct Key: Codable, Sendable {
        /// minisign's key id, as `trailpack keygen` and minisign print it.
        let keyId: String
        /// The key's base64 line (the `.pub` file's second line).
        let publicKey: String
    }
    let trustedKeys: [Key]
    /// How many distinct trusted keys must have signed (0: signatures are not checked).
    let threshold: Int
    /// Whether `/visit/vendor/tweetnacl/nacl-fast.js` is served (browsers without WebCrypto Ed25519).
    let tweetnacl: Bool
}

extension VisitorController {
    /// What of the visitor app is compiled into the program, for `trailpack --version`: how many
    /// files, their bytes, and the first 16 hex digits of the SHA-256 of their paths and hashes (the
    /// same for two programs exactly when they serve the same app).
    public static var compiledIn: (files: Int, bytes: Int, digest: String) {
        var list = ""
        var bytes = 0
        for (path, content) in EmbeddedApp.files.sorted(by: { $0.path < $1.path }) {
            list += "\(path) \(SHA256.hash(content).hex)\n"
            bytes += content.count
        }
        return (EmbeddedApp.files.count, bytes, String(SHA256.hash(Array(list.utf8)).hex.prefix(16)))
    }
}
