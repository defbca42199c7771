import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TrailPackMap
import TrailPackServer
import TrailPackTestSupport

@Suite("server: map tiles", .ownThreads, .needs(.clamscan))
struct MapTileRouteTests {
    static let base = "/v1/packages/gov.usda.fs.willamette.santiam-wagon-road/versions/1.0.0/tiles"

    @Test(
        "tiles come out of the stored package's map: the right bytes and Content-Type, a strong ETag, immutable caching, 304, and 4xx for what is not there"
    )
    func tiles() async throws {
        let routes = ServerRouteTests()
        try await routes.withServer { _, packages, client in
            #expect(try await routes.upload(client, packages["santiam-wagon-road"]!).0 == .created)
            #expect(try await routes.upload(client, packages["family-hikes"]!).0 == .created)
            let archive = try PMTilesArchive(source: try MapFile(path: MapFixtures.baseMap))
            let tile = TileID(z: 13, x: 1310, y: 2965)
            let expected = try #require(try archive.tile(tile))
            var etag = ""
            try await client.execute(uri: "\(Self.base)/13/1310/2965", method: .get) { r in
                #expect(r.status == .ok)
                #expect(Array(buffer: r.body) == expected)
                #expect(r.headers[.contentType] == "image/png")
                #expect(r.headers[.contentEncoding] == nil, "PNG tiles are not gzip-compressed")
                #expect(r.headers[.contentSecurityPolicy] == "default-src 'none'; sandbox")
                #expect(r.headers[.contentDisposition] == nil, "a PNG tile is inline")
                #expect(r.headers[.cacheControl] == "public, max-age=31536000, immutable")
                etag = r.headers[.eTag] ?? ""
            }
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"))
            try await client.execute(uri: "\(Self.base)/13/1310/2965", method: .get, headers: [.ifNoneMatch: etag]) {
                r in
                #expect(r.status == .notModified)
            }
            try await client.execute(uri: "\(Self.base)/13/1311/2965", method: .get) { r in
                #expect(r.status == .ok)
                #expect(r.headers[.eTag] != etag, "each tile has its own validator")
            }
            let cases: [(String, HTTPResponse.Status)] = [
                ("\(Self.base)/13/0/0", .notFound),  // outside the map
                ("\(Self.base)/3/9/0", .badRequest),  // not a tile
                ("\(Self.base)/40/0/0", .badRequest),
                ("\(Self.base)/a/b/c", .badRequest),
                ("/v1/packages/gov.usda.fs.willamette.family-hikes/versions/3/tiles/10/160/365", .notFound),  // no map
                (
                    "/v1/packages/gov.usda.fs.willamette.santiam-wagon-road/versions/9.9/tiles/13/1310/2965",
                    .unauthorized
                ),  // not released: needs a token
            ]
            for (uri, status) in cases {
                try await client.execute(uri: uri, method: .get) { r in
                    #expect(r.status == status, "\(uri): \(String(buffer: r.body))")
                    if status != .notModified {
                        #expect(
                            (try? JSON.parse(String(buffer: r.body)))?["error"]?["message"]?.string?.isEmpty == false,
                            "\(uri)")
                    }
                }
            }
            try await client.execute(
                uri: "/v1/packages/gov.usda.fs.willamette.santiam-wagon-road/versions/9.9/tiles/13/1310/2965",
                method: .get,
                headers: [.authorization: "Bearer \(ServerRouteTests.token)"]
            ) { r in
                #expect(r.status == .notFound)
            }
        }
    }

    @Test(
        "an unreleased version's tiles follow its manifest's rule: its publisher, reviewers and admins see them (never cached); another publisher is refused; no token is asked for one"
    )
    func unreleasedTilesFollowTheManifest() async throws {
        try await Support.withTemporaryDirectory { dir in
            let packages = try ServerFixtures.packages(dir)
            let server = try await TrailPackServer(
                configuration: ServerConfiguration(
                    dataDirectory: dir + "/data", adminToken: nil, maxUploadBytes: 4 << 20, approvals: 1, scanner: .off
                ))
            let catalog = server.catalog
            try await catalog.addSite(id: "willamette-sweet-home", name: nil)
            try await catalog.addSite(id: "elsewhere", name: nil)
            try await catalog.addUser(name: "maria", role: .publisher, publicKey: nil)
            try await catalog.addUser(name: "paul", role: .publisher, publicKey: nil)
            try await catalog.addUser(name: "ken", role: .reviewer, publicKey: nil)
            try await catalog.addUser(name: "ada", role: .admin, publicKey: nil)
            try await catalog.grant(user: "maria", site: "willamette-sweet-home")
            try await catalog.grant(user: "paul", site: "elsewhere")
            var tokens: [String: String] = [:]
            for name in ["maria", "paul", "ken", "ada"] {
                tokens[name] = try await catalog.issueToken(user: name).token
            }
            let issued = tokens
            let app = Application(router: server.buildRouter())
            try await app.test(.router) { client in
                let upload = try await ServerRouteTests().upload(
                    client, packages["santiam-wagon-road"]!, token: issued["maria"]!)
                #expect(upload.0 == .created, "\(upload.1)")
                let version = "/v1/packages/gov.usda.fs.willamette.santiam-wagon-road/versions/1.0.0"
                for (who, status) in [
                    ("maria", HTTPResponse.Status.ok), ("ken", .ok), ("ada", .ok), ("paul", .forbidden),
                ] {
                    let headers: HTTPFields = [.authorization: "Bearer \(issued[who]!)"]
                    let manifest = try await client.execute(uri: version + "/manifest", method: .get, headers: headers)
                    {
                        $0.status
                    }
                    #expect(manifest == status, "\(who): the manifest")
                    try await client.execute(uri: version + "/tiles/13/1310/2965", method: .get, headers: headers) {
                        r in
                        #expect(r.status == manifest, "\(who): the tile as the manifest: \(String(buffer: r.body))")
                        if r.status == .ok { #expect(r.headers[.cacheControl] == "private, no-store", "\(who)") }
                    }
                }
                try await client.execute(uri: version + "/tiles/13/1310/2965", method: .get) { r in
                    #expect(r.status == .unauthorized)
                }
            }
        }
    }
}
