import Foundation
import Testing
import TrailPackTestFixtures
import TrailPackTestSupport

/// The public catalog answers kept as bytes (issue 34, item 5): a strong ETag and 304 for a client
/// that has the answer; a release changes the answers at once; a confirmation does not.
@Suite("public catalog answers: kept as bytes, 304, changed by releases only", .ownThreads, .serialized)
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

    /// A response's head as sorted lines, with the Date header left out (it moves by the second).
    static func headLines(_ url: String, _ extra: [String] = []) throws -> [String] {
        let out = try ServeProcess.curl(["-s", "-o", "/dev/null", "-D", "-"] + extra + [url])
        return out.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty && !$0.lowercased().hasPrefix("date:") }
            .sorted()
    }

    @Test(
        "a kept answer notices a change made by another process: trailpack admin site rename beside the running server reaches /v1/sites, kept and routed alike"
    )
    func anotherProcessChanges() throws {
        try Support.withTemporaryDirectory { dir in
            let packages = try ServerFixtures.packages(dir)
            try ServeProcess.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let server = try ServeProcess.launch([
                "--data", dir + "/data", "--admin-token-file", dir + "/token", "--approvals", "0", "--no-malware-scan",
            ])
            defer { server.stop() }
            let upload = try ServeProcess.curl([
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(ServeProcess.token)",
                "--data-binary", "@" + packages["santiam-wagon-road"]!, server.base + "/v1/admin/packages",
            ])
            #expect(upload.stdout == "201")
            let sites = server.base + "/v1/sites"
            let before = try Self.get(sites)
            #expect(try Self.get(sites).body == before.body, "kept: the same bytes again")
            let renamed = try Support.trailpack(
                "admin", "--data", dir + "/data", "site", "rename", "willamette-sweet-home", "Sweet Home Ranger Station"
            )
            #expect(renamed.status == 0, "\(renamed.stderr)")
            // The server notices on its own (within a quarter of a second); this waits for it,
            // at most 200 looks, so a server that never notices fails here.
            var now = before
            for _ in 0..<200 where !now.body.contains("Sweet Home Ranger Station") {
                Thread.sleep(forTimeInterval: 0.1)
                now = try Self.get(sites)
            }
            #expect(now.body.contains("Sweet Home Ranger Station"), "never seen: \(now.body)")
            #expect(now.etag != before.etag)
            #expect(try Self.get(sites, ifNoneMatch: before.etag).status == "200", "the old validator no longer holds")
        }
    }

    @Test(
        "answered before routing: the same head and bytes as the routed answer, in order behind a routed request on the same connection, never for a token, a cookie or after a change"
    )
    func answeredBeforeRouting() throws {
        try Support.withTemporaryDirectory { dir in
            let packages = try ServerFixtures.packages(dir)
            try ServeProcess.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let log = dir + "/server.log"
            let server = try ServeProcess.launch(
                [
                    "--data", dir + "/data", "--admin-token-file", dir + "/token", "--approvals", "0",
                    "--no-malware-scan",
                ], logFile: log)
            defer { server.stop() }
            let upload = try ServeProcess.curl([
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(ServeProcess.token)",
                "--data-binary", "@" + packages["santiam-wagon-road"]!, server.base + "/v1/admin/packages",
            ])
            #expect(upload.stdout == "201")
            let list = server.base + "/v1/sites/willamette-sweet-home/packages?limit=50"
            let routed = try Self.headLines(list), routedBody = try Self.get(list)
            let kept = try Self.headLines(list), keptBody = try Self.get(list)
            #expect(routed == kept, "routed \(routed), kept \(kept)")
            #expect(routedBody.body == keptBody.body && !keptBody.body.isEmpty)
            let etag = keptBody.etag
            #expect(try Self.headLines(list, ["-I"]) == Self.headLines(list, ["-I"]))
            #expect(try Self.headLines(list, ["-H", "If-None-Match: \(etag)"]).contains("HTTP/1.1 304 Not Modified"))
            // The log says which were answered before routing (and logs them as every request).
            let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                .filter { $0.contains("path=/v1/sites/willamette-sweet-home/packages") }
            #expect(lines.count >= 6, "\(lines)")
            #expect(
                !lines[0].contains("kept=yes") && lines.dropFirst().contains { $0.contains("kept=yes") }, "\(lines)")
            #expect(lines.allSatisfy { $0.contains("status=") && $0.contains("client=127.0.0.1") })

            // Pipelined on one connection: a routed request, then a kept target, then a bad token
            // on the kept target: the answers come in the order asked, and the token is refused.
            let script = """
                import re, socket, sys
                s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
                path = sys.argv[2]
                s.sendall((f"GET {path} HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"
                           f"GET /healthz HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"
                           f"GET {path} HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"
                           f"GET {path} HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: Bearer not-a-token\\r\\n\\r\\n"
                           f"GET {path} HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n").encode())
                data = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
                found = re.findall(r"HTTP/1\\.1 (\\d{3}) |Content-Type: ([a-z/]+)", data.decode(errors="replace"))
                print(" ".join(a or b for a, b in found))
                """
            let pipelined = try Support.run(
                "python3", ["-c", script, String(server.port), "/v1/sites/willamette-sweet-home/packages?limit=50"])
            // Kept, routed, then the kept target again (routed: the answer before it is not out yet
            // when it is read), a bad token (refused), and a close (routed).
            let json = "200 application/json"
            #expect(
                pipelined.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    == "\(json) 200 text/plain \(json) 401 application/json \(json)", "\(pipelined)")
            // A request with a cookie is routed (the log names the panel's user).
            _ = try ServeProcess.curl(["-s", "-o", "/dev/null", "-H", "Cookie: a=b", list])
            let last = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                .last { $0.contains("path=/v1/sites/willamette-sweet-home/packages") }
            #expect(last.map { !$0.contains("kept=yes") } == true, "\(last ?? "")")

            // A change to the catalog: the next request is routed and gets the new answer.
            let up = try ServeProcess.curl([
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(ServeProcess.token)",
                "--data-binary", "@" + packages["santiam-v2"]!, server.base + "/v1/admin/packages",
            ])
            #expect(up.stdout == "201")
            let after = try Self.get(list)
            #expect(after.etag != etag && after.body.contains("\"1.1.0\""), "\(after)")
            #expect(try Self.get(list, ifNoneMatch: etag).status == "200")
        }
    }
}
