import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TrailPackCatalog
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackPanel
import TrailPackServer
import TrailPackTestFixtures
import TrailPackTestSupport

/// A package's files as the review page serves them: the type read from their bytes, never from
/// the manifest; only media and plain text inline; every response sandboxed (issue #28).
@Suite("panel: package files are served by their bytes, sandboxed", .ownThreads)
struct PanelAssetServingTests {
    static let id = "gov.usda.fs.willamette.santiam-wagon-road"
    static let csp = "default-src 'none'; sandbox"

    /// A stored version of the sample tour holding `extra` assets (path, kind, media type, bytes) that
    /// verify would refuse: put in the blob store and the catalog directly, as an older trailpack's
    /// upload would be, so that only the serving is on trial. Waiting for review.
    static func storeHostile(
        _ server: TrailPackServer, dir: String, _ extra: [(String, String, String, [UInt8])]
    ) async throws {
        var forge = try ZipForge.from(package: Support.read(Support.buildFixture("santiam-wagon-road", into: dir)))
        var manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(forge.entries[0].data)) as? [String: Any])
        var waypoints = try #require(manifest["waypoints"] as? [[String: Any]])
        var assets = waypoints[0]["assets"] as? [[String: Any]] ?? []
        for (path, kind, type, bytes) in extra {
            assets.append([
                "path": path, "kind": kind, "mediaType": type, "size": bytes.count, "sha256": SHA256.hash(bytes).hex,
            ])
            forge.entries.append(ZipForge.Entry(path, bytes))
        }
        waypoints[0]["assets"] = assets
        manifest["waypoints"] = waypoints
        let manifestBytes = Array(try JSONSerialization.data(withJSONObject: manifest))
        forge.entries[0].data = manifestBytes
        let bytes = forge.bytes()
        let digest = SHA256.hash(bytes)
        let blob = try await server.store.localFile(for: digest)
        try FileManager.default.createDirectory(
            atPath: (blob as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Support.write(bytes, to: blob)
        let parsed = try #require(ManifestReader.read(manifestBytes).manifest)
        _ = try await server.catalog.register(
            manifest: parsed, manifestJSON: String(decoding: manifestBytes, as: UTF8.self), sha256: digest.hex,
            size: Int64(bytes.count), actor: "ranger", status: .draft)
    }

    static let html = Array("<!DOCTYPE html><html><body><script src=\"x\"></script></body></html>\n".utf8)
    static let svg = Array("<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"/>\n".utf8)
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 40)

    @Test(
        "HTML named .png and declared text/html, SVG, script and a PNG/HTML polyglot: only the real PNG is inline, each with the sandboxing policy and nosniff"
    )
    func hostileAssets() async throws {
        try await PanelDraftTests.withPanel(approvals: 1) { server, panel, client in
            let dir = NSTemporaryDirectory() + "panel-assets-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            do {
                let slugDir = "waypoints/sweet-home/"
                try await Self.storeHostile(
                    server, dir: dir,
                    [
                        (slugDir + "page.png", "image", "text/html", Self.html),
                        (slugDir + "drawing.svg", "image", "image/svg+xml", Self.svg),
                        (slugDir + "run.js", "other", "text/javascript", Array("fetch('/x')\n".utf8)),
                        (slugDir + "polyglot.png", "image", "image/png", Self.png + Self.html),
                        (slugDir + "notes.html", "text", "text/html", Self.html),
                    ])
                let reviewer = try await PanelFlow.signIn(server, panel, user: "rita", role: .reviewer, site: nil)
                let expected: [(String, String, String?)] = [
                    ("page.png", "application/octet-stream", "attachment"),
                    ("drawing.svg", "application/octet-stream", "attachment"),
                    ("run.js", "text/plain; charset=utf-8", nil),
                    ("polyglot.png", "image/png", nil),
                    ("notes.html", "application/octet-stream", "attachment"),
                    ("view.png", "image/png", nil),
                ]
                for (name, type, disposition) in expected {
                    let uri =
                        "/packages/\(Self.id)/versions/1.0.0/asset?path="
                        + (slugDir + name).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                    for range in [nil, "bytes=0-3"] {
                        var headers = reviewer.headers
                        if let range { headers[.range] = range }
                        try await client.execute(uri: uri, method: .get, headers: headers) { r in
                            #expect(r.status == (range == nil ? .ok : .partialContent), "\(name): \(r.status)")
                            #expect(r.headers[.contentType] == type, "\(name)")
                            #expect(r.headers[.contentDisposition] == disposition, "\(name)")
                            #expect(r.headers[.contentSecurityPolicy] == Self.csp, "\(name)")
                            #expect(r.headers[.xContentTypeOptions] == "nosniff", "\(name)")
                        }
                    }
                }
                // The review page itself keeps the panel's own policy.
                try await client.execute(
                    uri: "/packages/\(Self.id)/versions/1.0.0", method: .get, headers: reviewer.headers
                ) { r in
                    #expect(r.status == .ok)
                    #expect(r.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
                }
            }
        }
    }
}
