import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TrailPackBuilder
@_spi(Testing) import TrailPackCatalog
import TrailPackCatalogModel
import TrailPackCore
import TrailPackServer
import TrailPackTestFixtures
import TrailPackTestSupport

@Suite("server: routes", .ownThreads, .needs(.clamscan))
struct ServerRouteTests {
    static let token = "test-admin-token-0123456789"

    func withServer(
        _ body: @Sendable @escaping (TrailPackServer, [String: String], any TestClientProtocol) async throws -> Void
    ) async throws {
        let dir = NSTemporaryDirectory() + "trailpack-server-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let packages = try ServerFixtures.packages(dir)
        let server = try await TrailPackServer(
            configuration: ServerConfiguration(
                dataDirectory: dir + "/data", adminToken: Self.token, maxUploadBytes: 4 << 20,
                approvals: 0, scanner: .clamscan(database: TestClamAV.database)))
        let app = Application(router: server.buildRouter())
        try await app.test(.router) { client in try await body(server, packages, client) }
    }

    func upload(
        _ client: some TestClientProtocol, _ path: String, token: String = ServerRouteTests.token
    ) async throws -> (HTTPResponse.Status, String) {
        let bytes = try Support.read(path)
        return try await client.execute(
            uri: "/v1/admin/packages", method: .post, headers: [.authorization: "Bearer \(token)"],
            body: ByteBuffer(bytes: bytes)
        ) { r in
            (r.status, String(buffer: r.body))
        }
    }

    @Test("upload, list, preview, download with ranges and validators, confirm", .needs(.sha256sum))
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
                #expect(
                    (try? ServeProcess.siteIDs(String(buffer: r.body)))?.contains("willamette-sweet-home") == true,
                    "\(String(buffer: r.body))")
            }
            try await client.execute(uri: "/v1/sites/willamette-sweet-home/packages", method: .get) { r in
                let text = String(buffer: r.body)
                let versions = (try? JSON.parse(text))?["packages"]?.array?.compactMap { $0["version"]?.string } ?? []
                #expect(
                    versions.contains("1.1.0") && !versions.contains("1.0.0"), "the newest version is listed: \(text)")
            }
            try await client.execute(
                uri: "/v1/packages/gov.usda.fs.willamette.santiam-wagon-road/versions/1.0.0/manifest", method: .get
            ) { r in
                #expect(r.status == .ok)
                #expect(ManifestReader.read(Array(buffer: r.body)).isValid)
            }
            try await client.execute(uri: "/v1/blobs/\(sha).zip", method: .get) { r in
                #expect(r.status == .ok)
                #expect(Array(buffer: r.body) == bytes)
                #expect(r.headers[.eTag] == "\"\(sha)\"")
                #expect(
                    r.headers[HTTPField.Name("Repr-Digest")!]
                        == "sha-256=:\(Data(hexBytes(sha)).base64EncodedString()):")
                #expect(r.headers[.cacheControl]?.contains("immutable") == true)
                #expect(r.headers[.acceptRanges] == "bytes")
            }
            try await client.execute(uri: "/v1/blobs/\(sha).zip", method: .get, headers: [.range: "bytes=100-199"]) {
                r in
                #expect(r.status == .partialContent)
                #expect(Array(buffer: r.body) == Array(bytes[100...199]))
                #expect(r.headers[.contentRange] == "bytes 100-199/\(bytes.count)")
            }
            try await client.execute(uri: "/v1/blobs/\(sha).zip", method: .get, headers: [.range: "bytes=-10"]) { r in
                #expect(Array(buffer: r.body) == Array(bytes.suffix(10)))
            }
            try await client.execute(
                uri: "/v1/blobs/\(sha).zip", method: .get, headers: [.range: "bytes=100-", .ifRange: "\"\(sha)\""]
            ) { r in
                #expect(r.status == .partialContent)
                #expect(Array(buffer: r.body) == Array(bytes[100...]))
            }
            try await client.execute(
                uri: "/v1/blobs/\(sha).zip", method: .get, headers: [.range: "bytes=100-", .ifRange: "\"stale\""]
            ) { r in
                #expect(r.status == .ok, "If-Range that does not match sends the whole package")
                #expect(Array(buffer: r.body) == bytes)
            }
            try await client.execute(
                uri: "/v1/blobs/\(sha).zip", method: .get, headers: [.range: "bytes=\(bytes.count)-"]
            ) { r in
                #expect(r.status == .rangeNotSatisfiable)
                #expect(r.headers[.contentRange] == "bytes */\(bytes.count)")
            }
            try await client.execute(uri: "/v1/blobs/\(sha).zip", method: .get, headers: [.ifNoneMatch: "\"\(sha)\""]) {
                r in
                #expect(r.status == .notModified)
            }
            for (hash, expected) in [(sha, true), (String(repeating: "0", count: 64), false)] {
                try await client.execute(
                    uri: "/v1/packages/gov.usda.fs.willamette.santiam-wagon-road/versions/1.0.0/confirm", method: .post,
                    body: ByteBuffer(string: "{\"sha256\": \"\(hash)\"}")
                ) { r in
                    #expect(r.status == .ok)
                    #expect(
                        (try? JSON.parse(String(buffer: r.body)))?["match"] == .bool(expected),
                        "\(String(buffer: r.body))")
                }
            }
            // The right bytes refused by the app's signatures check, and a refusal by the hash: both failures.
            for (hash, refused) in [(sha, "signatures"), (String(repeating: "1", count: 64), "hash")] {
                try await client.execute(
                    uri: "/v1/packages/gov.usda.fs.willamette.santiam-wagon-road/versions/1.0.0/confirm", method: .post,
                    body: ByteBuffer(string: "{\"sha256\": \"\(hash)\", \"refused\": \"\(refused)\"}")
                ) { r in
                    #expect(r.status == .ok)
                    let answer = try? JSON.parse(String(buffer: r.body))
                    #expect(answer?["match"] == .bool(false), "\(String(buffer: r.body))")
                    #expect(answer?["counted"] == .bool(true), "\(String(buffer: r.body))")
                    #expect(
                        answer?["message"]?.string?.contains("refused by its \(refused)") == true,
                        "\(String(buffer: r.body))")
                }
            }
            let counts = try await server.catalog.confirmations().first { $0.version == "1.0.0" }
            #expect(counts?.match == 1 && counts?.mismatch == 3, "\(String(describing: counts))")
        }
    }

    @Test(
        "bad input gets 4xx with a message: unknown ids, bad ranges, path tricks, malformed JSON, no or wrong token, oversize, invalid packages, replaced versions"
    )
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
                (
                    "/v1/packages/gov.usda.fs.willamette.family-hikes/versions/3/confirm", .post, [:],
                    "{\"sha256\": 5}", .badRequest
                ),
                (
                    "/v1/packages/gov.usda.fs.willamette.family-hikes/versions/3/confirm", .post, [:], "{oops",
                    .badRequest
                ),
                (
                    "/v1/packages/gov.usda.fs.willamette.family-hikes/versions/3/confirm", .post, [:],
                    "{\"sha256\": \"\(String(repeating: "a", count: 64))\", \"refused\": \"bored\"}", .badRequest
                ),
                (
                    "/v1/packages/gov.usda.fs.willamette.family-hikes/versions/3/confirm", .post, [:],
                    "{\"sha256\": \"\(String(repeating: "a", count: 64))\", \"refused\": true}", .badRequest
                ),
                (
                    "/v1/packages/gov.usda.fs.willamette.family-hikes/versions/4/confirm", .post, [:],
                    "{\"sha256\": \"\(String(repeating: "a", count: 64))\"}", .notFound
                ),
                ("/v1/admin/packages", .post, [:], "x", .unauthorized),
                ("/v1/admin/packages", .post, [.authorization: "Bearer wrong-token-wrong-token"], "x", .unauthorized),
                ("/v1/admin/audit", .get, [:], nil, .unauthorized),
            ]
            for (uri, method, headers, body, status) in cases {
                try await client.execute(
                    uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }
                ) { r in
                    #expect(r.status == status, "\(method) \(uri): \(r.status)")
                    if r.status.code >= 400 {
                        #expect(
                            (try? JSON.parse(String(buffer: r.body)))?["error"]?["message"]?.string?.isEmpty == false,
                            "\(uri) has no message")
                    }
                }
            }
            // Oversize (the test server's limit is 4 MiB).
            try await client.execute(
                uri: "/v1/admin/packages", method: .post, headers: [.authorization: "Bearer \(Self.token)"],
                body: ByteBuffer(bytes: [UInt8](repeating: 0, count: 8 << 20))
            ) { r in #expect(r.status == .contentTooLarge) }
            // An invalid package: refused with the verifier's findings, nothing stored.
            var broken = try Support.read(packages["colorado-fourteeners"]!)
            broken[broken.count / 2] ^= 0xFF
            try await client.execute(
                uri: "/v1/admin/packages", method: .post, headers: [.authorization: "Bearer \(Self.token)"],
                body: ByteBuffer(bytes: broken)
            ) { r in
                #expect(r.status == .unprocessableContent)
                #expect(
                    (try? JSON.parse(String(buffer: r.body)))?["error"]?["findings"]?.array?.isEmpty == false,
                    "\(String(buffer: r.body))")
            }
            #expect(try await server.catalog.sites().map(\.id) == ["willamette-mckenzie-river"])
            // A published version cannot be replaced by other bytes.
            let tour = NSTemporaryDirectory() + "trailpack-hikes-" + UUID().uuidString
            try Support.copyTree(Support.fixture("family-hikes"), tour)
            defer { try? FileManager.default.removeItem(atPath: tour) }
            try "changed notes\n".write(
                toFile: tour + "/waypoints/01-sahalie-and-koosah-falls/notes.txt", atomically: true, encoding: .utf8)
            #expect(try Support.trailpack("build", tour, "-o", tour + ".zip", "-q").status == 0)
            defer {
                try? FileManager.default.removeItem(atPath: tour + ".zip");
                try? FileManager.default.removeItem(atPath: tour + ".zip.sha256")
            }
            let (status, body) = try await upload(client, tour + ".zip")
            #expect(
                try status == .conflict
                    && (JSON.parse(body)["error"]?["message"]?.string ?? "").contains("new version number"),
                "\(body)")
        }
    }

    @Test(
        "an upload whose asset is an HTML page named page.png and declared text/html is refused (422, asset.type-mismatch), nothing stored",
        .needs(.sha256sum))
    func typeMismatchUpload() async throws {
        try await withServer { server, packages, client in
            var forge = try ZipForge.from(package: Support.read(packages["family-hikes"]!))
            var manifest = try #require(
                try JSONSerialization.jsonObject(with: Data(forge.entries[0].data)) as? [String: Any])
            var waypoints = try #require(manifest["waypoints"] as? [[String: Any]])
            let slug = try #require(waypoints[0]["slug"] as? String)
            let html = Array("<!DOCTYPE html><html><script src=\"x\"></script></html>\n".utf8)
            let htmlFile = NSTemporaryDirectory() + "trailpack-page-" + UUID().uuidString
            try Support.write(html, to: htmlFile)
            defer { try? FileManager.default.removeItem(atPath: htmlFile) }
            var assets = waypoints[0]["assets"] as? [[String: Any]] ?? []
            assets.append([
                "path": "waypoints/\(slug)/page.png", "kind": "image", "mediaType": "text/html", "size": html.count,
                "sha256": try ServerFixtures.sha(htmlFile),
            ])
            waypoints[0]["assets"] = assets
            manifest["waypoints"] = waypoints
            forge.entries[0].data = Array(try JSONSerialization.data(withJSONObject: manifest))
            forge.entries.append(ZipForge.Entry("waypoints/\(slug)/page.png", html))
            try await client.execute(
                uri: "/v1/admin/packages", method: .post, headers: [.authorization: "Bearer \(Self.token)"],
                body: ByteBuffer(bytes: forge.bytes())
            ) { r in
                #expect(r.status == .unprocessableContent)
                let findings = (try? JSON.parse(String(buffer: r.body)))?["error"]?["findings"]?.array ?? []
                #expect(findings.contains { $0["code"] == .string("asset.type-mismatch") }, "\(String(buffer: r.body))")
            }
            #expect(try await server.catalog.sites().isEmpty)
        }
    }

    @Test(
        "a package that still holds trailpack init's template text is refused at upload (422 template-text), naming the fields"
    )
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
            #expect(
                message.contains("id") && message.contains("park")
                    && message.contains("the description of 'Trailhead'"), "\(message)")
        }
    }

    @Test("the audit log records uploads and refusals, and refuses to be changed", .needs(.sha256sum))
    func auditLog() async throws {
        try await withServer { server, packages, client in
            #expect(try await upload(client, packages["family-hikes"]!).0 == .created)
            _ = try await client.execute(
                uri: "/v1/admin/packages", method: .post, headers: [.authorization: "Bearer \(Self.token)"],
                body: ByteBuffer(string: "junk")
            ) { _ in }
            let log = try await server.catalog.auditLog(after: 0, limit: 100)
            #expect(log.map(\.action) == ["upload", "upload-refused"])
            #expect(log[0].sha256 == (try ServerFixtures.sha(packages["family-hikes"]!)))
            let sqlite = try #require(server.catalog as? SQLiteCatalog)
            await #expect(throws: (any Error).self) {
                try await sqlite.execute("UPDATE auditLog SET actor = 'mallory'")
            }
            await #expect(throws: (any Error).self) { try await sqlite.execute("DELETE FROM auditLog") }
            #expect(try await server.catalog.auditLog(after: 0, limit: 100).count == 2)
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
