import Foundation
import Testing
import TrailPackTestFixtures
import TrailPackTestSupport

/// The real `trailpack serve`, driven with curl.
@Suite("server: end to end", .ownThreads, .needs(.curl, .clamscan), .serialized)
struct ServerEndToEndTests {
    static let token = ServeProcess.token

    static func start(data: String, tokenFile: String) throws -> ServeProcess.Running {
        try ServeProcess.start(data: data, tokenFile: tokenFile)
    }

    static func curl(_ args: [String]) throws -> Support.Output { try ServeProcess.curl(args) }

    @Test(
        "upload, list, preview, a download interrupted and resumed with Range/If-Range, confirm, and trailpack verify of the bytes; the OpenAPI document matches",
        .needs(.sha256sum, .python3, .openAPIChecker))
    func endToEnd() throws {
        try Support.withTemporaryDirectory { dir in
            let packages = try ServerFixtures.packages(dir)
            try Self.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let server = try Self.start(data: dir + "/data", tokenFile: dir + "/token")
            defer { server.stop() }
            let santiam = packages["santiam-wagon-road"]!
            let sha = try ServerFixtures.sha(santiam)
            let up = try Self.curl([
                "-w", "%{http_code}", "-o", "/dev/null", "-H", "Authorization: Bearer \(Self.token)", "--data-binary",
                "@" + santiam, server.base + "/v1/admin/packages",
            ])
            #expect(up.stdout == "201", "\(up.stdout) \(up.stderr)")
            let list = try Self.curl([server.base + "/v1/sites/willamette-sweet-home/packages"])
            let listed = try #require(try JSON.parse(list.stdout)["packages"]?.array, "\(list.stdout)")
            #expect(
                listed.contains { ($0["download"]?.string ?? "").hasSuffix("/v1/blobs/\(sha).zip") }, "\(list.stdout)")
            let preview = try Self.curl([
                server.base + "/v1/packages/gov.usda.fs.willamette.santiam-wagon-road/manifest"
            ])
            let stops = try JSON.parse(preview.stdout)["waypoints"]?.array?.compactMap { $0["name"]?.string } ?? []
            #expect(stops.contains("Cache Creek Toll Station"), "\(preview.stdout)")
            // The signal drops half-way: the first part, then the rest, resumed only if the bytes are the same.
            let url = server.base + "/v1/blobs/\(sha).zip"
            #expect(try Self.curl(["-r", "0-20000", "-o", dir + "/download.zip", url]).status == 0)
            let size = try Support.read(dir + "/download.zip").count
            #expect(size == 20001)
            let resumed = try Self.curl([
                "-C", "-", "-H", "If-Range: \"\(sha)\"", "-o", dir + "/download.zip", "-w", "%{http_code}", url,
            ])
            #expect(resumed.stdout == "206", "\(resumed.stdout) \(resumed.stderr)")
            #expect(try Support.read(dir + "/download.zip") == Support.read(santiam))
            #expect(try Support.trailpack("verify", dir + "/download.zip", "--sha256", sha).status == 0)
            let confirm = try Self.curl([
                "-X", "POST", "-d", "{\"sha256\": \"\(sha)\"}",
                server.base + "/v1/packages/gov.usda.fs.willamette.santiam-wagon-road/versions/1.0.0/confirm",
            ])
            #expect(try JSON.parse(confirm.stdout)["match"] == .bool(true), "\(confirm.stdout)")
            // An invalid upload is refused with its findings.
            try Data("PK\u{5}\u{6}not really".utf8).write(to: URL(fileURLWithPath: dir + "/bad.zip"))
            let bad = try Self.curl([
                "-w", "\n%{http_code}", "-H", "Authorization: Bearer \(Self.token)", "--data-binary",
                "@" + dir + "/bad.zip", server.base + "/v1/admin/packages",
            ])
            let refused = ServeProcess.statusAndBody(bad)
            #expect(refused.status == "422", "\(bad.stdout)")
            #expect(try JSON.parse(refused.body)["error"]?["findings"]?.array?.isEmpty == false, "\(bad.stdout)")
            // The OpenAPI document, checked against this server.
            let check = try Support.run(
                "python3",
                [
                    Support.root + "/scripts/check_openapi.py", Support.root + "/manifests/openapi.yaml", server.base,
                    Self.token,
                    "gov.usda.fs.willamette.santiam-wagon-road", "1.0.0", "willamette-sweet-home", sha, santiam,
                ])
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
            curl.arguments = [
                "-s", "--limit-rate", "10k", "-H", "Authorization: Bearer \(Self.token)", "--data-binary",
                "@" + packages["santiam-wagon-road"]!, server.base + "/v1/admin/packages",
            ]
            curl.standardOutput = FileHandle.nullDevice
            curl.standardError = FileHandle.nullDevice
            try curl.run()
            var partial = false
            for _ in 0..<100 {
                usleep(50_000)
                if let files = try? FileManager.default.contentsOfDirectory(atPath: dir + "/data/tmp"), !files.isEmpty {
                    partial = true; break
                }
            }
            #expect(partial, "the upload never reached the server")
            server.stop(SIGKILL)
            curl.waitUntilExit()
            server = try Self.start(data: dir + "/data", tokenFile: dir + "/token")
            defer { server.stop() }
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: dir + "/data/tmp").isEmpty,
                "a partial upload was left behind")
            #expect(try ServeProcess.siteIDs(Self.curl([server.base + "/v1/sites"]).stdout) == [])
            // The same upload now completes normally.
            let up = try Self.curl([
                "-w", "%{http_code}", "-o", "/dev/null", "-H", "Authorization: Bearer \(Self.token)", "--data-binary",
                "@" + packages["santiam-wagon-road"]!, server.base + "/v1/admin/packages",
            ])
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
            let names = [
                "santiam-wagon-road", "santiam-wagon-road", "santiam-wagon-road", "family-hikes", "family-hikes",
                "colorado-fourteeners", "santiam-v2", "santiam-v2",
            ]
            // Separate processes, not a shell's `wait`: the test runner blocks SIGCHLD, and children inherit that.
            let uploads: [(String, Process, Pipe)] = try names.map { n in
                let p = Process()
                p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                p.arguments = [
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(Self.token)",
                    "--data-binary", "@" + packages[n]!, server.base + "/v1/admin/packages",
                ]
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
                #expect(process.terminationStatus == 0, "curl \(name): exit \(process.terminationStatus)")
                #expect(code == "201" || code == "200", "\(name): \(code)")
                if code == "201" { created[name, default: 0] += 1 }
            }
            for name in Set(names) { #expect(created[name] == 1, "\(name) was created \(created[name] ?? 0) times") }
            let blobs = try FileManager.default.subpathsOfDirectory(atPath: dir + "/data/blobs").filter {
                $0.hasSuffix(".zip")
            }
            #expect(blobs.count == 4)
            let sites = try ServeProcess.siteIDs(Self.curl([server.base + "/v1/sites"]).stdout)
            #expect(
                ["willamette-sweet-home", "colorado-peak-checklists", "willamette-mckenzie-river"].allSatisfy(
                    sites.contains), "\(sites)")
        }
    }
}
