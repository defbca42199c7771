import Foundation
import Testing
import TrailPackTestFixtures
import TrailPackTestSupport

/// The public catalog answers kept as bytes (issue 34, item 5): a strong ETag and 304 for a client
/// that has the answer; a release changes the answers at once; a confirmation does not.
@Suite("public catalog answers: kept as bytes, 304, changed by releases only", .serialized)
struct PublicAnswerTests {
    /// The status, the ETag and the body of a GET (with `If-None-Match` when given).
    static func get(_ url: String, ifNoneMatch: String? = nil) throws -> (status: String, etag: String, body: String) {
        var args = ["-s", "-D", "-", url]
        if let ifNoneMatch { args += ["-H", "If-None-Match: \(ifNoneMatch)"] }
        let out = try ServeProcess.curl(args)
        let parts = out.stdout.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let etag =
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }
            .map { String($0.dropFirst(5)).trimmingCharacters(in: .whitespaces) } ?? ""
        return (status, etag, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    @Test(
        "the sites, a site's list, a package's versions and a released manifest: strong ETags, 304 with If-None-Match, a new release seen at once, a confirmation changes nothing"
    )
    func keptAnswers() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try ClientServer.setUp(dir, upload: ["santiam-wagon-road"])
            defer { s.server.stop() }
            let id = ClientServer.id
            let urls = [
                "/v1/sites", "/v1/sites/willamette-sweet-home/packages", "/v1/packages/\(id)",
                "/v1/packages/\(id)/versions/1.0.0/manifest",
            ].map { s.base + $0 }
            var first: [String: String] = [:]
            for url in urls {
                let a = try Self.get(url)
                #expect(a.status == "200" && a.etag.hasPrefix("\"") && a.etag.count == 34, "\(url): \(a)")
                let again = try Self.get(url)
                #expect(again.etag == a.etag && again.body == a.body, "\(url): the same bytes again")
                let unchanged = try Self.get(url, ifNoneMatch: a.etag)
                #expect(unchanged.status == "304" && unchanged.body.isEmpty, "\(url): \(unchanged.status)")
                #expect(try Self.get(url, ifNoneMatch: "\"other\"").status == "200")
                first[url] = a.etag
            }
            // A made-up query is the same answer (it cannot fill the cache with copies).
            #expect(try Self.get(urls[0] + "?junk=\(UUID().uuidString)").etag == first[urls[0]])
            // A confirmation counts a download; no public answer changes.
            let confirm = try ServeProcess.curl([
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-d",
                "{\"sha256\": \"\(try ServerFixtures.sha(s.packages["santiam-wagon-road"]!))\"}",
                s.base + "/v1/packages/\(id)/versions/1.0.0/confirm",
            ])
            #expect(confirm.stdout == "200" || confirm.stdout == "202", "\(confirm.stdout)")
            for url in urls { #expect(try Self.get(url).etag == first[url], "\(url) changed after a confirmation") }
            // A new release: the lists and the versions change at once; the old manifest stays the same.
            let up = try ServeProcess.curl([
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(ServeProcess.token)",
                "--data-binary", "@" + s.packages["santiam-v2"]!, s.base + "/v1/admin/packages",
            ])
            #expect(up.stdout == "201")
            let versions = try Self.get(urls[2])
            #expect(versions.etag != first[urls[2]] && versions.body.contains("\"1.1.0\""), "\(versions)")
            #expect(try Self.get(urls[1]).body.contains("\"1.1.0\""))
            #expect(try Self.get(urls[3]).body.contains("\"1.0.0\""))
            #expect(try Self.get(urls[3], ifNoneMatch: first[urls[3]]).status == "304")
        }
    }
}
