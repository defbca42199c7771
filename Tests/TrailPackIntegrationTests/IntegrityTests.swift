import Foundation
import Testing
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

/// What is served is what was stored: damaged blobs are noticed, taken out of service and reported.
@Suite("server: integrity of what is served", .ownThreads, .needs(.curl, .sha256sum), .serialized)
struct IntegrityTests {
    static let token = ServeProcess.token

    static func start(_ dir: String, data: String, logFile: String? = nil) throws -> ServeProcess.Running {
        try token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
        return try ServeProcess.launch(
            ["--data", data, "--admin-token-file", dir + "/token", "--approvals", "0", "--no-malware-scan"],
            logFile: logFile)
    }

    static func upload(_ server: ServeProcess.Running, _ path: String) throws -> String {
        try ServeProcess.curl([
            "-w", "%{http_code}", "-o", "/dev/null", "-H", "Authorization: Bearer \(token)", "--data-binary",
            "@" + path,
            server.base + "/v1/admin/packages",
        ]).stdout
    }

    static func blobPath(_ data: String, _ sha: String) -> String { "\(data)/blobs/\(sha.prefix(2))/\(sha).zip" }

    @Test(
        "a truncated blob is never sent: a logged 500, the blob quarantined, the version marked damaged and unlisted, an audit entry"
    )
    func truncatedBlob() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data", log = dir + "/server.log"
            let package = try Support.buildFixture("family-hikes", into: dir)
            let sha = try ServerFixtures.sha(package)
            let server = try Self.start(dir, data: data, logFile: log)
            defer { server.stop() }
            #expect(try Self.upload(server, package) == "201")
            let blob = Self.blobPath(data, sha)
            let size = try Support.read(blob).count
            #expect(truncate(blob, off_t(size - 100)) == 0)
            let get = try ServeProcess.curl([
                "--max-time", "30", "-w", "\n%{http_code}", server.base + "/v1/blobs/\(sha).zip",
            ])
            #expect(get.status == 0, "curl: \(get.stderr)")
            let lines = get.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.last == "500", "\(get.stdout)")
            let body = try #require(try? JSONParser.parse(Array(lines.dropLast().joined(separator: "\n").utf8)).value)
            #expect(body["error"]?["code"] == .string("internal"))
            #expect(!FileManager.default.fileExists(atPath: blob))
            #expect(FileManager.default.fileExists(atPath: data + "/quarantine/\(sha).zip"))
            #expect(
                try ServeProcess.siteIDs(ServeProcess.curl([server.base + "/v1/sites"]).stdout) == [],
                "a damaged version is no longer listed")
            let state = try ServeProcess.curl([
                "-H", "Authorization: Bearer \(Self.token)",
                server.base + "/v1/admin/packages/gov.usda.fs.willamette.family-hikes/versions/3",
            ]).stdout
            #expect(try JSONParser.parse(Array(state.utf8)).value["status"] == .string("damaged"), "\(state)")
            let audit = try ServeProcess.curl([
                "-H", "Authorization: Bearer \(Self.token)", server.base + "/v1/admin/audit",
            ]).stdout
            guard case .array(let entries)? = try JSONParser.parse(Array(audit.utf8)).value["entries"] else {
                Issue.record("\(audit)"); return
            }
            #expect(entries.contains { $0["action"] == .string("damaged") && $0["sha256"] == .string(sha) }, "\(audit)")
            let again = try ServeProcess.curl([
                "--max-time", "30", "-o", "/dev/null", "-w", "%{http_code}", server.base + "/v1/blobs/\(sha).zip",
            ])
            #expect(again.stdout == "404", "out of service: \(again.stdout)")
            let text = try String(contentsOfFile: log, encoding: .utf8)
            #expect(text.contains("damaged") && text.contains(sha), "the server log says nothing: \(text)")
        }
    }

    @Test("scrub finds a flipped byte (same size), quarantines that blob, exits 1; the intact one stays served")
    func scrubFlippedByte() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            let packages = try ServerFixtures.packages(dir)
            let damagedSHA = try ServerFixtures.sha(packages["family-hikes"]!),
                intactSHA = try ServerFixtures.sha(packages["santiam-wagon-road"]!)
            var server = try Self.start(dir, data: data)
            #expect(try Self.upload(server, packages["family-hikes"]!) == "201")
            #expect(try Self.upload(server, packages["santiam-wagon-road"]!) == "201")
            // While the server runs, scrub (which moves files) is refused.
            #expect(try Support.trailpack("admin", "--data", data, "scrub").status == 3)
            server.stop()
            let blob = Self.blobPath(data, damagedSHA)
            var bytes = try Support.read(blob)
            bytes[bytes.count / 2] ^= 0x01
            try Support.write(bytes, to: blob)
            let scrub = try Support.trailpack("admin", "--data", data, "scrub")
            #expect(scrub.status == 1, "\(scrub.status) \(scrub.stderr)")
            #expect(
                scrub.stdout.contains("damaged \(damagedSHA)") && !scrub.stdout.contains(intactSHA), "\(scrub.stdout)")
            #expect(scrub.stderr.contains("2 packages checked, 1 damaged"), "\(scrub.stderr)")
            #expect(FileManager.default.fileExists(atPath: data + "/quarantine/\(damagedSHA).zip"))
            let second = try Support.trailpack("admin", "--data", data, "scrub")
            #expect(
                second.status == 0 && second.stderr.contains("1 package checked, 0 damaged"),
                "what is out of service is not checked again: \(second.stderr)")
            server = try Self.start(dir, data: data)
            defer { server.stop() }
            let sites = try ServeProcess.siteIDs(ServeProcess.curl([server.base + "/v1/sites"]).stdout)
            #expect(sites.contains("willamette-sweet-home") && !sites.contains("willamette-mckenzie-river"), "\(sites)")
        }
    }

    @Test("backup while serving: a snapshot that 'serve --data' starts from, serving the same bytes")
    func backupRestores() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            let package = try Support.buildFixture("santiam-wagon-road", into: dir)
            let sha = try ServerFixtures.sha(package)
            var server = try Self.start(dir, data: data)
            #expect(try Self.upload(server, package) == "201")
            let backup = try Support.trailpack("admin", "--data", data, "backup", dir + "/snapshot")
            #expect(backup.status == 0, "\(backup.stderr)")
            #expect(backup.stdout.contains("1 packages hard-linked"), "\(backup.stdout)")
            #expect(
                try Support.trailpack("admin", "--data", data, "backup", dir + "/snapshot").status == 2,
                "an existing backup is never overwritten")
            server.stop()
            server = try Self.start(dir, data: dir + "/snapshot")
            defer { server.stop() }
            #expect(try ServeProcess.curl(["-o", dir + "/got.zip", server.base + "/v1/blobs/\(sha).zip"]).status == 0)
            #expect(try ServerFixtures.sha(dir + "/got.zip") == sha)
        }
    }
}
