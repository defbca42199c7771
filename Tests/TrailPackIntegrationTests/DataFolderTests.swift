import Foundation
import Testing
import TrailPackCatalog
import TrailPackCatalogModel
import TrailPackTestFixtures
import TrailPackTestSupport

/// The data folder is never emptied of what trailpack did not make, and one server holds it at a time.
@Suite("server: data-folder safety", .ownThreads, .serialized)
struct DataFolderTests {
    static let token = ServeProcess.token

    /// `trailpack serve` that is expected to refuse to start: run under `timeout`, so a server that
    /// wrongly starts ends the test (status 124) instead of hanging it.
    static func serveRefused(_ data: String, _ extra: [String] = []) throws -> Support.Output {
        try Support.run(
            "timeout",
            [
                "20", Support.binary, "serve", "--port", "0", "--data", data, "--approvals", "0", "--clamav-db",
                TestClamAV.database,
            ] + extra)
    }

    static func upload(_ server: ServeProcess.Running, _ path: String) throws -> String {
        try ServeProcess.curl([
            "-w", "%{http_code}", "-o", "/dev/null", "-H", "Authorization: Bearer \(token)", "--data-binary",
            "@" + path,
            server.base + "/v1/admin/packages",
        ]).stdout
    }

    static func blobs(_ data: String) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: data + "/blobs").filter { $0.hasSuffix(".zip") }.sorted()
    }

    @Test(
        "blobs without a catalog: the start is refused naming the fix, every blob is kept; gc moves them to quarantine/",
        .needs(.curl, .clamscan, .timeout))
    func missingCatalog() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            let package = try Support.buildFixture("family-hikes", into: dir)
            try Self.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let server = try ServeProcess.start(data: data, tokenFile: dir + "/token")
            #expect(try Self.upload(server, package) == "201")
            server.stop()
            let stored = try Self.blobs(data)
            #expect(stored.count == 1)
            for name in try FileManager.default.contentsOfDirectory(atPath: data) where name.hasPrefix("catalog.sqlite")
            {
                try FileManager.default.removeItem(atPath: data + "/" + name)
            }
            let refused = try Self.serveRefused(data)
            #expect(refused.status == 3, "\(refused.status) \(refused.stderr)")
            #expect(
                refused.stderr.contains("no '\(data)/catalog.sqlite'") && refused.stderr.contains("admin gc"),
                "\(refused.stderr)")
            #expect(try Self.blobs(data) == stored, "a start deleted packages")
            // gc lists, then moves; nothing is deleted.
            let dry = try Support.trailpack("admin", "--data", data, "gc", "--dry-run")
            #expect(
                dry.status == 1 && dry.stdout.contains(stored[0].split(separator: "/").last!),
                "\(dry.status) \(dry.stdout) \(dry.stderr)")
            #expect(try Self.blobs(data) == stored)
            let gc = try Support.trailpack("admin", "gc", "--data", data)
            #expect(gc.status == 0, "\(gc.stderr)")
            #expect(try Self.blobs(data).isEmpty)
            let quarantined = try FileManager.default.contentsOfDirectory(atPath: data + "/quarantine").filter {
                $0.hasSuffix(".zip")
            }
            #expect(quarantined == [String(stored[0].split(separator: "/").last!)])
            let again = try ServeProcess.start(data: data, tokenFile: dir + "/token")
            again.stop()
        }
    }

    @Test(
        "an upload replacing a stored version is refused before its bytes are stored or scanned; a recorded blob no version refers to is listed by gc --dry-run and moved to quarantine/ by gc",
        .needs(.curl, .clamscan, .sha256sum))
    func unusedBlob() async throws {
        try await Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            let first = try Support.buildFixture("family-hikes", into: dir)
            try FileManager.default.createDirectory(atPath: dir + "/other", withIntermediateDirectories: true)
            let other = try Support.buildFixture("family-hikes", into: dir + "/other", timestamp: 1_700_000_000)
            let otherSHA = try ServerFixtures.sha(other)
            #expect(try ServerFixtures.sha(first) != otherSHA)
            try Self.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            var server = try ServeProcess.start(data: data, tokenFile: dir + "/token")
            #expect(try Self.upload(server, first) == "201")
            #expect(try Self.upload(server, other) == "409")
            server.stop()
            // Refused before anything was stored: one blob, nothing in tmp/, nothing for gc.
            #expect(try Self.blobs(data).count == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: data + "/tmp").isEmpty)
            #expect(try Support.trailpack("admin", "--data", data, "gc", "--dry-run").status == 0, "nothing to collect")
            // A blob the catalog records but no version refers to (an upload that lost a race).
            try await SQLiteCatalog(path: data + "/catalog.sqlite").recordBlob(
                sha256: otherSHA, size: Int64(try Data(contentsOf: URL(fileURLWithPath: other)).count))
            let shard = data + "/blobs/" + String(otherSHA.prefix(2))
            try FileManager.default.createDirectory(atPath: shard, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: other, toPath: shard + "/\(otherSHA).zip")
            let dry = try Support.trailpack("admin", "--data", data, "gc", "--dry-run")
            #expect(
                dry.status == 1 && dry.stdout.contains(otherSHA)
                    && dry.stdout.contains("no package version refers to it"), "\(dry.stdout) \(dry.stderr)")
            #expect(try Support.trailpack("admin", "--data", data, "gc").status == 0)
            #expect(FileManager.default.fileExists(atPath: data + "/quarantine/\(otherSHA).zip"))
            #expect(try Self.blobs(data).count == 1)
            #expect(
                try Support.trailpack("admin", "--data", data, "gc", "--dry-run").status == 0, "nothing left to collect"
            )
            server = try ServeProcess.start(data: data, tokenFile: dir + "/token")
            server.stop()
        }
    }

    @Test("an older catalog next to newer blobs refuses the start; the blobs stay", .needs(.curl, .clamscan, .timeout))
    func olderCatalog() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            let packages = try ServerFixtures.packages(dir)
            try Self.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            var server = try ServeProcess.start(data: data, tokenFile: dir + "/token")
            #expect(try Self.upload(server, packages["family-hikes"]!) == "201")
            server.stop()
            try FileManager.default.createDirectory(atPath: dir + "/old", withIntermediateDirectories: true)
            let catalogFiles = try FileManager.default.contentsOfDirectory(atPath: data).filter {
                $0.hasPrefix("catalog.sqlite")
            }
            for name in catalogFiles {
                try FileManager.default.copyItem(atPath: data + "/" + name, toPath: dir + "/old/" + name)
            }
            server = try ServeProcess.start(data: data, tokenFile: dir + "/token")
            #expect(try Self.upload(server, packages["santiam-wagon-road"]!) == "201")
            server.stop()
            for name in try FileManager.default.contentsOfDirectory(atPath: data) where name.hasPrefix("catalog.sqlite")
            {
                try FileManager.default.removeItem(atPath: data + "/" + name)
            }
            for name in catalogFiles {
                try FileManager.default.copyItem(atPath: dir + "/old/" + name, toPath: data + "/" + name)
            }
            let refused = try Self.serveRefused(data)
            #expect(
                refused.status == 3 && refused.stderr.contains("1 packages in")
                    && refused.stderr.contains("gc --dry-run"), "\(refused.status) \(refused.stderr)")
            #expect(try Self.blobs(data).count == 2)
        }
    }

    @Test(
        "start-up removes only its own temporary files: a stranger's file in tmp/ survives; a non-empty folder that is not a data folder is refused",
        .needs(.clamscan, .timeout))
    func ownFilesOnly() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            try Self.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            var server = try ServeProcess.start(data: data, tokenFile: dir + "/token")
            server.stop()
            let stranger = data + "/tmp/notes.txt", lookalike = data + "/tmp/upload-notes.part"
            let own = data + "/tmp/upload-\(UUID().uuidString).part"
            for path in [stranger, lookalike, own] { try "x".write(toFile: path, atomically: true, encoding: .utf8) }
            server = try ServeProcess.launch(
                [
                    "--data", data, "--admin-token-file", dir + "/token", "--approvals", "0", "--clamav-db",
                    TestClamAV.database,
                ],
                logFile: dir + "/server.log")
            server.stop()
            #expect(
                FileManager.default.fileExists(atPath: stranger) && FileManager.default.fileExists(atPath: lookalike))
            #expect(!FileManager.default.fileExists(atPath: own), "an interrupted upload's file is removed")
            let log = try String(contentsOfFile: dir + "/server.log", encoding: .utf8)
            #expect(
                log.contains("removed what an interrupted upload left") && log.contains(own),
                "every removal is logged: \(log)")
            // A folder such as /var: not empty, not marked.
            let foreign = dir + "/var"
            try FileManager.default.createDirectory(atPath: foreign + "/tmp", withIntermediateDirectories: true)
            try "keep".write(
                toFile: foreign + "/tmp/upload-\(UUID().uuidString).part", atomically: true, encoding: .utf8)
            let refused = try Self.serveRefused(foreign)
            #expect(
                refused.status == 3 && refused.stderr.contains("is not a trailpack data folder"),
                "\(refused.status) \(refused.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: foreign + "/tmp").count == 1)
            #expect(!FileManager.default.fileExists(atPath: foreign + "/trailpack-data-folder"))
        }
    }

    @Test(
        "a second server on the same data folder, and gc while a server runs, are refused naming the first one's PID",
        .needs(.curl, .clamscan, .timeout))
    func oneServerPerFolder() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            try Self.token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let server = try ServeProcess.start(data: data, tokenFile: dir + "/token")
            defer { server.stop() }
            let pid = server.process.processIdentifier
            let second = try Self.serveRefused(data)
            #expect(
                second.status == 3 && second.stderr.contains("in use by PID \(pid)"),
                "\(second.status) \(second.stderr)")
            let gc = try Support.trailpack("admin", "--data", data, "gc")
            #expect(gc.status == 3 && gc.stderr.contains("in use by PID \(pid)"), "\(gc.status) \(gc.stderr)")
            // The first server goes on serving.
            #expect(try ServeProcess.curl([server.base + "/healthz"]).stdout == "ok\n")
        }
    }

    @Test(
        "admin refuses a --data folder that does not exist unless --create; it never makes an empty catalog by mistake")
    func adminMistypedData() throws {
        try Support.withTemporaryDirectory { dir in
            let typo = dir + "/dtaa"
            let refused = try Support.trailpack("admin", "--data", typo, "user", "list")
            #expect(
                refused.status == 3 && refused.stderr.contains("does not exist") && refused.stderr.contains("--create"),
                "\(refused.status) \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: typo))
            let created = try Support.trailpack(
                "admin", "--data", typo, "--create", "user", "add", "maria", "--role", "publisher")
            #expect(created.status == 0, "\(created.stderr)")
            #expect(FileManager.default.fileExists(atPath: typo + "/trailpack-data-folder"))
        }
    }

    @Test(
        "a refused store leaves nothing recorded: a catalog URL with a password and an unreachable bucket write no stores.json, and no message repeats the password; a secret file others can read is warned of, with the fix"
    )
    func refusedStoresLeaveNothing() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data", stores = dir + "/data/stores.json"
            let secret = "hunter2-never-in-a-file"
            let withPassword = try Support.trailpack(
                "admin", "--data", data, "--create", "--catalog", "postgres://ranger:\(secret)@127.0.0.1:5432/trails",
                "user", "list")
            #expect(withPassword.status != 0 && withPassword.stderr.contains("password"), "\(withPassword.stderr)")
            #expect(!withPassword.stderr.contains(secret) && !withPassword.stdout.contains(secret))
            #expect(!FileManager.default.fileExists(atPath: stores), "a refused catalog was recorded")
            let credentials = dir + "/aws-credentials"
            try Support.write(
                Array("[default]\naws_access_key_id = trails\naws_secret_access_key = \(secret)\n".utf8),
                to: credentials)
            chmod(credentials, 0o644)
            let closed = try PostgresServer.freePort()
            let bucket = try Support.trailpack(
                "admin", "--data", data, "--create", "--blobs", "s3://trails?endpoint=http://127.0.0.1:\(closed)",
                "--blobs-credentials", credentials, "user", "list")
            #expect(bucket.status != 0, "\(bucket.stderr)")
            #expect(!bucket.stderr.contains(secret))
            #expect(!FileManager.default.fileExists(atPath: stores), "a refused bucket was recorded")
            // The credentials file was readable by everyone (the umask's 0644): said, with the fix.
            #expect(
                bucket.stderr.contains("warning:") && bucket.stderr.contains("--blobs-credentials")
                    && bucket.stderr.contains("chmod 600 '\(credentials)'"), "\(bucket.stderr)")
            chmod(credentials, 0o600)
            let quiet = try Support.trailpack(
                "admin", "--data", data, "--create", "--blobs", "s3://trails?endpoint=http://127.0.0.1:\(closed)",
                "--blobs-credentials", credentials, "user", "list")
            #expect(!quiet.stderr.contains("warning:"), "\(quiet.stderr)")
            // Accepted stores are recorded, as before.
            let plain = try Support.trailpack("admin", "--data", data, "--create", "user", "list")
            #expect(plain.status == 0, "\(plain.stderr)")
            let recorded = try String(contentsOfFile: stores, encoding: .utf8)
            #expect(recorded.contains("catalog.sqlite") && !recorded.contains(secret), "\(recorded)")
        }
    }

    @Test(
        "option values out of range are usage errors (exit 2): a port above 65535, an upload limit that would overflow",
        .needs(.timeout))
    func optionRanges() throws {
        try Support.withTemporaryDirectory { dir in
            for extra in [
                ["--port", "70000"], ["--port", "-1"], ["--max-upload-mb", "17592186044416"], ["--max-upload-mb", "0"],
            ] {
                let out = try Support.run("timeout", ["20", Support.binary, "serve", "--data", dir + "/data"] + extra)
                #expect(out.status == 2, "\(extra): \(out.status) \(out.stderr)")
            }
        }
    }
}
