import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TrailPackBuilder
@_spi(Testing) import TrailPackCatalog
import TrailPackCore
import TrailPackServer

/// Packages to upload: the fixtures, and a second version of one.
enum ServerFixtures {
    static func packages(_ dir: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for name in Support.fixtureNames { out[name] = try Support.buildFixture(name, into: dir) }
        let tour = dir + "/santiam-v2"
        try Support.copyTree(Support.fixture("santiam-wagon-road"), tour)
        let tourJSON = tour + "/tour.json"
        try (try String(contentsOfFile: tourJSON, encoding: .utf8)).replacingOccurrences(of: "\"1.0.0\"", with: "\"1.1.0\"")
            .write(toFile: tourJSON, atomically: true, encoding: .utf8)
        #expect(try Support.trailpack("build", tour, "-o", dir + "/santiam-v2.zip", "-q").status == 0)
        out["santiam-v2"] = dir + "/santiam-v2.zip"
        return out
    }

    static func sha(_ path: String) throws -> String { String(try Support.run("sha256sum", [path]).stdout.prefix(64)) }
}

@Suite("server: routes")
struct ServerRouteTests {
    static let token = "test-admin-token-0123456789"

    func withServer(_ body: @Sendable @escaping (TrailPackServer, [String: String], any TestClientProtocol) async throws -> Void) async throws {
        let dir = NSTemporaryDirectory() + "trailpack-server-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let packages = try ServerFixtures.packages(dir)
        let server = try TrailPackServer(configuration: ServerConfiguration(dataDirectory: dir + "/data", adminToken: Self.token, maxUploadBytes: 1 << 20,
                                                                            approvals: 0, scanner: .clamscan(database: TestClamAV.database)))
        let app = Application(router: server.buildRouter())
        try await app.test(.router) { client in try await body(server, packages, client) }
    }

    func upload(_ client: some TestClientProtocol, _ path: String, token: String = ServerRouteTests.token) async throws -> (HTTPResponse.Status, String) {
        let bytes = try Support.read(path)
        return try await client.execute(uri: "/v1/admin/packages", method: .post, headers: [.authorization: "Bearer \(token)"], body: ByteBuffer(bytes: bytes)) { r in
            (r.status, String(buffer: r.body))
        }
    }

    @Test("upload, list, preview, download with ranges and validators, confirm")
    func happyPath() async throws {
        try await withServer { server, packages, client in
            let santiam = packages["santiam-wagon-road"]!
            let sha = try ServerFixtures.sha(santiam)
            let bytes = try Support.read(santiam)
            #expect(try await upload(client, santiam).0 == .created)
            #expect(try await upload(client, santiam).0 == .ok, "the same bytes again change nothing")
            #expect(try await upload(client, packages["santiam-v2"]!).0 == .created)
            try await client.execute(uri: "/v1/sites", method: .get) { r in
                #expect(r.status == .ok)
                #expect(String(buffer: r.body).contains("\"willamette-sweet-home\""))
            }
            try await client.execute(uri: "/v1/sites/willamette-sweet-home/packages", method: .get) { r in
                let text = String(buffer: r.body)
                #expect(text.contains("\"version\": \"1.1.0\"") && !text.contains("\"version\": \"1.0.0\""), "the newest version is listed")
            }
            try await client.execute(uri: "/v1/packages/gov.usda.fs.willamette.santiam-wagon-road/versions/1.0.0/manifest", method: .get) { r in
                #expect(r.status == .ok)
                #expect(ManifestReader.read(Array(buffer: r.body)).isValid)
            }
            try await client.execute(uri: "/v1/blobs/\(sha).zip", method: .get) { r in
                #expect(r.status == .ok)
                #expect(Array(buffer: r.body) == bytes)
                #expect(r.headers[.eTag] == "\"\(sha)\"")
                #expect(r.headers[HTTPField.Name("Repr-Digest")!] == "sha-256=:\(Data(hexBytes(sha)).base64EncodedString()):")
                #expect(r.headers[.cacheControl]?.contains("immutable") == true)
                #expect(r.headers[.acceptRanges] == "bytes")
            }
            try await client.execute(uri: "/v1/blobs/\(sha).zip", method: .get, headers: [.range: "bytes=100-199"]) { r in
                #expect(r.status == .partialContent)
                #expect(Array(buffer: r.body) == Array(bytes[100...199]))
                #expect(r.headers[.contentRange] == "bytes 100-199/\(bytes.count)")
            }
            try await client.execute(uri: "/v1/blobs/\(sha).zip", method: .get, headers: [.range: "bytes=-10"]) { r in
                #expect(Array(buffer: r.body) == Array(bytes.suffix(10)))
            }
            try await client.execute(uri: "/v1/blobs/\(sha).zip", method: .get, headers: [.range: "bytes=100-", .ifRange: "\"\(sha)\""]) { r in
                #expect(r.status == .partialContent)
                #expect(Array(buffer: r.body) == Array(bytes[100...]))
            }
            try await client.execute(uri: "/v1/blobs/\(sha).zip", method: .get, headers: [.range: "bytes=100-", .ifRange: "\"stale\""]) { r in
                #expect(r.status == .ok, "If-Range that does not match sends the whole package")
                #expect(Array(buffer: r.body) == bytes)
            }
            try await client.execute(uri: "/v1/blobs/\(sha).zip", method: .get, headers: [.range: "bytes=\(bytes.count)-"]) { r in
                #expect(r.status == .rangeNotSatisfiable)
                #expect(r.headers[.contentRange] == "bytes */\(bytes.count)")
            }
            try await client.execute(uri: "/v1/blobs/\(sha).zip", method: .get, headers: [.ifNoneMatch: "\"\(sha)\""]) { r in
                #expect(r.status == .notModified)
            }
            for (hash, expected) in [(sha, true), (String(repeating: "0", count: 64), false)] {
                try await client.execute(uri: "/v1/packages/gov.usda.fs.willamette.santiam-wagon-road/versions/1.0.0/confirm", method: .post,
                                         body: ByteBuffer(string: "{\"sha256\": \"\(hash)\"}")) { r in
                    #expect(r.status == .ok)
                    #expect(String(buffer: r.body).contains("\"match\": \(expected)"))
                }
            }
            let counts = try server.catalog.confirmations().first { $0.version == "1.0.0" }
            #expect(counts?.match == 1 && counts?.mismatch == 1)
        }
    }

    @Test("bad input gets 4xx with a message: unknown ids, bad ranges, path tricks, malformed JSON, no or wrong token, oversize, invalid packages, replaced versions")
    func badInput() async throws {
        try await withServer { server, packages, client in
            #expect(try await upload(client, packages["family-hikes"]!).0 == .created)
            let cases: [(String, HTTPRequest.Method, HTTPFields, String?, HTTPResponse.Status)] = [
                ("/v1/sites/nowhere/packages", .get, [:], nil, .notFound),
                ("/v1/sites/willamette-mckenzie-river/packages?limit=9999", .get, [:], nil, .badRequest),
                ("/v1/packages/nope/manifest", .get, [:], nil, .notFound),
                ("/v1/blobs/..%2F..%2Fcatalog.sqlite", .get, [:], nil, .notFound),
                ("/v1/blobs/../catalog.sqlite", .get, [:], nil, .notFound),
                ("/v1/blobs/\(String(repeating: "a", count: 64)).zip", .get, [:], nil, .notFound),
                ("/v1/packages/gov.usda.fs.willamette.family-hikes/versions/3/confirm", .post, [:], "{\"sha256\": 5}", .badRequest),
                ("/v1/packages/gov.usda.fs.willamette.family-hikes/versions/3/confirm", .post, [:], "{oops", .badRequest),
                ("/v1/packages/gov.usda.fs.willamette.family-hikes/versions/4/confirm", .post, [:], "{\"sha256\": \"\(String(repeating: "a", count: 64))\"}", .notFound),
                ("/v1/admin/packages", .post, [:], "x", .unauthorized),
                ("/v1/admin/packages", .post, [.authorization: "Bearer wrong-token-wrong-token"], "x", .unauthorized),
                ("/v1/admin/audit", .get, [:], nil, .unauthorized),
            ]
            for (uri, method, headers, body, status) in cases {
                try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { r in
                    #expect(r.status == status, "\(method) \(uri): \(r.status)")
                    if r.status.code >= 400 { #expect(String(buffer: r.body).contains("\"message\""), "\(uri) has no message") }
                }
            }
            // Oversize (the test server's limit is 1 MiB).
            try await client.execute(uri: "/v1/admin/packages", method: .post, headers: [.authorization: "Bearer \(Self.token)"],
                                     body: ByteBuffer(bytes: [UInt8](repeating: 0, count: 2 << 20))) { r in #expect(r.status == .contentTooLarge) }
            // An invalid package: refused with the verifier's findings, nothing stored.
            var broken = try Support.read(packages["colorado-fourteeners"]!)
            broken[broken.count / 2] ^= 0xFF
            try await client.execute(uri: "/v1/admin/packages", method: .post, headers: [.authorization: "Bearer \(Self.token)"], body: ByteBuffer(bytes: broken)) { r in
                #expect(r.status == .unprocessableContent)
                #expect(String(buffer: r.body).contains("\"findings\""))
            }
            #expect(try server.catalog.sites().map(\.id) == ["willamette-mckenzie-river"])
            // A published version cannot be replaced by other bytes.
            let tour = NSTemporaryDirectory() + "trailpack-hikes-" + UUID().uuidString
            try Support.copyTree(Support.fixture("family-hikes"), tour)
            defer { try? FileManager.default.removeItem(atPath: tour) }
            try "changed notes\n".write(toFile: tour + "/waypoints/01-sahalie-and-koosah-falls/notes.txt", atomically: true, encoding: .utf8)
            #expect(try Support.trailpack("build", tour, "-o", tour + ".zip", "-q").status == 0)
            defer { try? FileManager.default.removeItem(atPath: tour + ".zip"); try? FileManager.default.removeItem(atPath: tour + ".zip.sha256") }
            let (status, body) = try await upload(client, tour + ".zip")
            #expect(status == .conflict && body.contains("publish a new version number"), "\(body)")
        }
    }

    @Test("a package that still holds trailpack init's template text is refused at upload (422 template-text), naming the fields")
    func templateText() async throws {
        try await withServer { _, _, client in
            let dir = NSTemporaryDirectory() + "trailpack-template-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: dir) }
            #expect(try Support.trailpack("init", dir + "/tour").status == 0)
            let build = try Support.trailpack("build", dir + "/tour", "-o", dir + "/tour.zip")
            #expect(build.status == 0, "template text is only a warning at build: \(build.stderr)")
            let (status, body) = try await upload(client, dir + "/tour.zip")
            #expect(status == .unprocessableContent)
            let error = try JSONParser.parse(Array(body.utf8)).value["error"]
            #expect(error?["code"] == .string("template-text"), "\(body)")
            guard case .string(let message)? = error?["message"] else { Issue.record("no message"); return }
            #expect(message.contains("id") && message.contains("park") && message.contains("the description of 'Trailhead'"), "\(message)")
        }
    }

    @Test("the audit log records uploads and refusals, and refuses to be changed")
    func auditLog() async throws {
        try await withServer { server, packages, client in
            #expect(try await upload(client, packages["family-hikes"]!).0 == .created)
            _ = try await client.execute(uri: "/v1/admin/packages", method: .post, headers: [.authorization: "Bearer \(Self.token)"], body: ByteBuffer(string: "junk")) { _ in }
            let log = try server.catalog.auditLog()
            #expect(log.map(\.action) == ["upload", "upload-refused"])
            #expect(log[0].sha256 == (try ServerFixtures.sha(packages["family-hikes"]!)))
            #expect(throws: (any Error).self) { try server.catalog.execute("UPDATE auditLog SET actor = 'mallory'") }
            #expect(throws: (any Error).self) { try server.catalog.execute("DELETE FROM auditLog") }
            #expect(try server.catalog.auditLog().count == 2)
        }
    }
}

func hexBytes(_ hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var i = hex.startIndex
    while i < hex.endIndex {
        let j = hex.index(i, offsetBy: 2)
        out.append(UInt8(hex[i..<j], radix: 16)!)
        i = j
    }
    return out
}

extension Array where Element == UInt8 {
    init(buffer: ByteBuffer) { self = buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes) ?? [] }
}

/// The real `trailpack serve`, driven with curl.
@Suite("server: end to end", .serialized)
struct ServerEndToEndTests {
    static let token = "e2e-admin-token-0123456789abcdef"

    final class Running {
        let process: Process
        let port: Int
        var base: String { "http://127.0.0.1:\(port)" }
        init(process: Process, port: Int) {
            self.process = process
            self.port = port
        }
        func stop(_ signal: Int32 = SIGTERM) {
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
        }
    }

    static func start(data: String, tokenFile: String) throws -> Running {
        try launch(["--data", data, "--admin-token-file", tokenFile, "--max-upload-mb", "64", "--approvals", "0", "--clamav-db", TestClamAV.database])
    }

    /// Starts `trailpack serve` on a free port with `arguments` and waits for its "listening on" line.
    static func launch(_ arguments: [String], environment: [String: String]? = nil, logFile: String? = nil) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Support.binary)
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.arguments = ["serve", "--port", "0"] + arguments
        let out = Pipe()
        process.standardOutput = out
        if let logFile {
            FileManager.default.createFile(atPath: logFile, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: logFile)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                return Running(process: process, port: Int(text[range].split(separator: ":")[1])!)
            }
        }
        process.terminate()
        throw CLIFailure("the server did not start: \(text)")
    }

    struct CLIFailure: Error { var message: String; init(_ m: String) { message = m } }

    static func curl(_ args: [String]) throws -> Support.Output { try Support.run("curl", ["-s", "-S"] + args) }

    @Test("upload, list, preview, a download interrupted and resumed with Range/If-Range, confirm, and trailpack verify of the bytes; the OpenAPI document matches")
    func endToEnd() throws {
        try Support.withTemporaryDirectory { dir in
            let packages = try ServerFixtures.packages(dir)
            try Self.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let server = try Self.start(data: dir + "/data", tokenFile: dir + "/token")
            defer { server.stop() }
            let santiam = packages["santiam-wagon-road"]!
            let sha = try ServerFixtures.sha(santiam)
            let up = try Self.curl(["-w", "%{http_code}", "-o", "/dev/null", "-H", "Authorization: Bearer \(Self.token)", "--data-binary", "@" + santiam, server.base + "/v1/admin/packages"])
            #expect(up.stdout == "201", "\(up.stdout) \(up.stderr)")
            let list = try Self.curl([server.base + "/v1/sites/willamette-sweet-home/packages"])
            #expect(list.stdout.contains("/v1/blobs/\(sha).zip"))
            let preview = try Self.curl([server.base + "/v1/packages/gov.usda.fs.willamette.santiam-wagon-road/manifest"])
            #expect(preview.stdout.contains("\"Cache Creek Toll Station\""))
            // The signal drops half-way: the first part, then the rest, resumed only if the bytes are the same.
            let url = server.base + "/v1/blobs/\(sha).zip"
            #expect(try Self.curl(["-r", "0-20000", "-o", dir + "/download.zip", url]).status == 0)
            let size = try Support.read(dir + "/download.zip").count
            #expect(size == 20001)
            let resumed = try Self.curl(["-C", "-", "-H", "If-Range: \"\(sha)\"", "-o", dir + "/download.zip", "-w", "%{http_code}", url])
            #expect(resumed.stdout == "206", "\(resumed.stdout) \(resumed.stderr)")
            #expect(try Support.read(dir + "/download.zip") == Support.read(santiam))
            #expect(try Support.trailpack("verify", dir + "/download.zip", "--sha256", sha).status == 0)
            let confirm = try Self.curl(["-X", "POST", "-d", "{\"sha256\": \"\(sha)\"}", server.base + "/v1/packages/gov.usda.fs.willamette.santiam-wagon-road/versions/1.0.0/confirm"])
            #expect(confirm.stdout.contains("\"match\": true"))
            // An invalid upload is refused with its findings.
            try Data("PK\u{5}\u{6}not really".utf8).write(to: URL(fileURLWithPath: dir + "/bad.zip"))
            let bad = try Self.curl(["-w", "\n%{http_code}", "-H", "Authorization: Bearer \(Self.token)", "--data-binary", "@" + dir + "/bad.zip", server.base + "/v1/admin/packages"])
            #expect(bad.stdout.hasSuffix("422") && bad.stdout.contains("\"findings\""), "\(bad.stdout)")
            // The OpenAPI document, checked against this server.
            let check = try Support.run("python3", [Support.root + "/scripts/check_openapi.py", Support.root + "/manifests/openapi.yaml", server.base, Self.token,
                                                     "gov.usda.fs.willamette.santiam-wagon-road", "1.0.0", "willamette-sweet-home", sha, santiam])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }

    @Test("killing the server during an upload and restarting it leaves a consistent catalog and no orphans")
    func killDuringUpload() throws {
        try Support.withTemporaryDirectory { dir in
            let packages = try ServerFixtures.packages(dir)
            try Self.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            var server = try Self.start(data: dir + "/data", tokenFile: dir + "/token")
            // A slow upload (20 KB/s of a 40+ KB package), killed with SIGKILL half-way.
            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            curl.arguments = ["-s", "--limit-rate", "10k", "-H", "Authorization: Bearer \(Self.token)", "--data-binary", "@" + packages["santiam-wagon-road"]!, server.base + "/v1/admin/packages"]
            curl.standardOutput = FileHandle.nullDevice
            curl.standardError = FileHandle.nullDevice
            try curl.run()
            var partial = false
            for _ in 0..<100 {
                usleep(50_000)
                if let files = try? FileManager.default.contentsOfDirectory(atPath: dir + "/data/tmp"), !files.isEmpty { partial = true; break }
            }
            #expect(partial, "the upload never reached the server")
            server.stop(SIGKILL)
            curl.waitUntilExit()
            server = try Self.start(data: dir + "/data", tokenFile: dir + "/token")
            defer { server.stop() }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/data/tmp").isEmpty, "a partial upload was left behind")
            #expect(try Self.curl([server.base + "/v1/sites"]).stdout.contains("\"sites\": []"))
            // The same upload now completes normally.
            let up = try Self.curl(["-w", "%{http_code}", "-o", "/dev/null", "-H", "Authorization: Bearer \(Self.token)", "--data-binary", "@" + packages["santiam-wagon-road"]!, server.base + "/v1/admin/packages"])
            #expect(up.stdout == "201")
        }
    }

    @Test("concurrent uploads of the same and of different packages: each stored once, every answer a legal one")
    func concurrentUploads() throws {
        try Support.withTemporaryDirectory { dir in
            let packages = try ServerFixtures.packages(dir)
            try Self.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let server = try Self.start(data: dir + "/data", tokenFile: dir + "/token")
            defer { server.stop() }
            let names = ["santiam-wagon-road", "santiam-wagon-road", "santiam-wagon-road", "family-hikes", "family-hikes", "colorado-fourteeners", "santiam-v2", "santiam-v2"]
            // Separate processes, not a shell's `wait`: the test runner blocks SIGCHLD, and children inherit that.
            let uploads: [(String, Process, Pipe)] = try names.map { n in
                let p = Process()
                p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                p.arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(Self.token)", "--data-binary", "@" + packages[n]!, server.base + "/v1/admin/packages"]
                let out = Pipe()
                p.standardOutput = out
                p.standardError = FileHandle.nullDevice
                try p.run()
                return (n, p, out)
            }
            var created: [String: Int] = [:]
            for (name, process, out) in uploads {
                let code = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                #expect(code == "201" || code == "200", "\(name): \(code)")
                if code == "201" { created[name, default: 0] += 1 }
            }
            for name in Set(names) { #expect(created[name] == 1, "\(name) was created \(created[name] ?? 0) times") }
            let blobs = try FileManager.default.subpathsOfDirectory(atPath: dir + "/data/blobs").filter { $0.hasSuffix(".zip") }
            #expect(blobs.count == 4)
            let sites = try Self.curl([server.base + "/v1/sites"]).stdout
            #expect(sites.contains("willamette-sweet-home") && sites.contains("colorado-peak-checklists") && sites.contains("willamette-mckenzie-river"))
        }
    }
}
