import Foundation
import Synchronization
import Testing
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

/// Issue #28's findings on the server's side, each reproduced against a real `trailpack serve`:
/// racing uploads of one version, version aliases, refusals that are not crashes, client faults,
/// a blob that shrinks while it is sent, damaged versions brought back, unfinished backups, a
/// locked catalog, and the options that were accepted when they should not be.
@Suite(
    "trust at the edges: versions, refusals, client faults, damage, backups, a busy catalog", .ownThreads, .serialized)
struct EdgeTrustTests {
    static let token = "edge-admin-token-0123456789abcdef"
    static let id = "gov.usda.fs.willamette.family-hikes"

    /// A server releasing at once (approvals 0), no scanner, logging JSON to `dir/server.log`.
    static func launch(_ dir: String, _ extra: [String] = []) throws -> ServeProcess.Running {
        try token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
        return try ServeProcess.launch(
            [
                "--data", dir + "/data", "--admin-token-file", dir + "/token", "--approvals", "0", "--no-malware-scan",
                "--log-format", "json",
            ] + extra,
            logFile: dir + "/server.log")
    }

    /// The publisher `ranger` with a panel password, in `dir/data` (made by `trailpack admin`).
    static func addRanger(_ dir: String, password: String) throws {
        let data = dir + "/data"
        let added = try Support.trailpack(
            "admin", "--data", data, "--create", "user", "add", "ranger", "--role", "publisher")
        #expect(added.status == 0, "\(added.stderr)")
        try (password + "\n").write(toFile: dir + "/pw", atomically: true, encoding: .utf8)
        let set = try Support.trailpack(
            "admin", "--data", data, "user", "password", "ranger", "--password-file", dir + "/pw")
        #expect(set.status == 0, "\(set.stderr)")
    }

    /// curl with the admin token: the HTTP status, the headers and the body.
    static func request(
        _ base: String, _ method: String, _ path: String, file: String? = nil, body: String? = nil,
        token: String? = EdgeTrustTests.token
    ) throws -> (status: Int, headers: String, body: String) {
        var args = ["-s", "-X", method, "-D", "-", "--max-time", "60", "-H", "Expect:"]
        if let token { args += ["-H", "Authorization: Bearer \(token)"] }
        if let file { args += ["--data-binary", "@" + file] }
        if let body { args += ["-H", "Content-Type: application/json", "-d", body] }
        let out = try Support.run("curl", args + [base + path])
        #expect(out.status == 0, "curl \(method) \(path): exit \(out.status) \(out.stderr)")
        let parts = out.stdout.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, head, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// `trailpack serve` expected to refuse its arguments: stopped after 10 s if it starts instead
    /// (exit 124), so a server that wrongly starts fails the test rather than holding it.
    static func serveBriefly(_ arguments: [String]) throws -> Support.Output {
        try Support.run("timeout", ["10", Support.binary, "serve", "--port", "0"] + arguments)
    }

    /// The log's JSON lines.
    static func log(_ dir: String) throws -> [JSONValue] {
        try String(contentsOfFile: dir + "/server.log", encoding: .utf8).split(separator: "\n").compactMap {
            try? JSON.parse($0)
        }
    }

    /// family-hikes as version `version` with its own description (so each variant has other bytes).
    static func variant(_ dir: String, version: String, tag: String) throws -> String {
        let tour = dir + "/tour-\(tag)"
        try Support.copyTree(Support.fixture("family-hikes"), tour)
        try Support.editJSON(tour + "/tour.json") {
            $0["version"] = version
            $0["description"] = "Short hikes for families (variant \(tag))."
        }
        let out = dir + "/fh-\(tag).zip"
        let build = try Support.trailpack("build", tour, "-o", out, "-q")
        #expect(build.status == 0, "\(build.stderr)")
        return out
    }

    @Test(
        "eight uploads of 4.0 and 4.0.0 at once: one is stored, seven are refused before anything is stored (no orphans for gc); 4.0 and 4.0.0 name it on every route; the refusal says what the version is",
        .needs(.curl))
    func versionRace() throws {
        try Support.withTemporaryDirectory { dir in
            let packages = try (0..<8).map {
                try Self.variant(dir, version: $0 % 2 == 0 ? "4.0" : "4.0.0", tag: "\($0)")
            }
            let server = try Self.launch(dir, ["--approvals", "1"])
            let collected = Collected()
            let base = server.base
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                let r = try? Self.request(base, "POST", "/v1/admin/packages", file: packages[index])
                collected.add("\(r?.status ?? -1)", r?.body ?? "")
            }
            let statuses = collected.items.map { Int($0.0) ?? 0 }
            #expect(statuses.filter { $0 == 201 }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0 == 409 }.count == 7, "\(statuses)")
            for body in collected.items.map(\.1) where !body.contains("\"stored\"") {
                #expect(ServerLimitsTests.errorCode(body) == "version-exists", "\(body)")
            }
            // Every alias names the one stored version, on the admin and the public routes.
            for alias in ["4", "4.0", "4.0.0"] {
                let state = try Self.request(server.base, "GET", "/v1/admin/packages/\(Self.id)/versions/\(alias)")
                #expect(state.status == 200, "\(alias): \(state.body)")
            }
            // One more upload with other bytes: the refusal says it waits to be sent for review.
            let late = try Self.request(
                server.base, "POST", "/v1/admin/packages", file: try Self.variant(dir, version: "4", tag: "late"))
            #expect(late.status == 409)
            #expect(try WorkflowTests.message(late.body).contains("not yet sent for review"), "\(late.body)")
            #expect(!late.body.contains("already published"))
            server.stop()
            // Nothing but the winner was stored: gc finds no orphan.
            let gc = try Support.trailpack("admin", "--data", dir + "/data", "gc", "--dry-run")
            #expect(gc.status == 0, "gc --dry-run found orphans: \(gc.stdout) \(gc.stderr)")
            let blobs = try FileManager.default.subpathsOfDirectory(atPath: dir + "/data/blobs").filter {
                $0.hasSuffix(".zip")
            }
            #expect(blobs.count == 1, "\(blobs)")
        }
    }

    @Test(
        "a released version answers to its aliases on the public routes: manifest, signatures and confirm by 3.0 and 3.0.0 as by 3",
        .needs(.curl, .sha256sum))
    func publicAliases() throws {
        try Support.withTemporaryDirectory { dir in
            let package = try Support.buildFixture("family-hikes", into: dir)
            let sha = try ServerFixtures.sha(package)
            let server = try Self.launch(dir)
            defer { server.stop() }
            #expect(try Self.request(server.base, "POST", "/v1/admin/packages", file: package).status == 201)
            for alias in ["3", "3.0", "3.0.0"] {
                let manifest = try Self.request(
                    server.base, "GET", "/v1/packages/\(Self.id)/versions/\(alias)/manifest", token: nil)
                #expect(manifest.status == 200, "\(alias): \(manifest.body)")
                let signatures = try Self.request(
                    server.base, "GET", "/v1/packages/\(Self.id)/versions/\(alias)/signatures", token: nil)
                #expect(signatures.status == 200, "\(alias): \(signatures.body)")
                let confirm = try Self.request(
                    server.base, "POST", "/v1/packages/\(Self.id)/versions/\(alias)/confirm",
                    body: "{\"sha256\":\"\(sha)\"}",
                    token: nil)
                #expect(confirm.status == 200 || confirm.status == 429, "\(alias): \(confirm.body)")
            }
        }
    }

    @Test(
        "an upload whose only fault is an asset path leading outside is refused 422 with the verifier's findings, not as a verifier crash, and nothing is logged as an error",
        .needs(.curl, .python3))
    func refusedNotCrashed() throws {
        try Support.withTemporaryDirectory { dir in
            let package = try Support.buildFixture("family-hikes", into: dir)
            // The manifest's first asset renamed to leave the package; the entries stay as they were.
            let script = """
                import json, sys, zipfile
                src = zipfile.ZipFile(sys.argv[1]); out = zipfile.ZipFile(sys.argv[2], 'w')
                m = json.loads(src.read('manifest.json'))
                m['waypoints'][0]['assets'][0]['path'] = '../outside.txt'
                for i in src.infolist():
                    out.writestr(i, json.dumps(m).encode() if i.filename == 'manifest.json' else src.read(i.filename))
                out.close()
                """
            let made = try Support.run("python3", ["-c", script, package, dir + "/bad.zip"])
            #expect(made.status == 0, "\(made.stderr)")
            let server = try Self.launch(dir)
            let refused = try Self.request(server.base, "POST", "/v1/admin/packages", file: dir + "/bad.zip")
            server.stop()
            #expect(refused.status == 422)
            #expect(ServerLimitsTests.errorCode(refused.body) == "invalid-package", "\(refused.body)")
            let codes =
                try JSON.parse(refused.body)["error"]?["findings"]?.array?.compactMap { $0["code"]?.string } ?? []
            #expect(codes.contains("asset.path"), "\(codes)")
            #expect(!codes.contains("server.verifier-failed"), "\(codes)")
            let errors = try Self.log(dir).filter { $0["level"]?.string == "error" }
            #expect(errors.isEmpty, "\(errors)")
        }
    }

    @Test(
        "client faults are the client's: a body shorter than its Content-Length and a malformed chunk are 400, a body slower than the minimum 408, all logged at info",
        .needs(.curl))
    func clientFaults() throws {
        try Support.withTemporaryDirectory { dir in
            let server = try Self.launch(dir, ["--body-timeout", "1", "--min-body-rate", "100"])
            let auth = "Authorization: Bearer \(Self.token)"
            let short = try RawClient(port: server.port)
            short.send(
                "POST /v1/admin/packages HTTP/1.1\r\nHost: a\r\n\(auth)\r\nContent-Length: 1000\r\n\r\n0123456789")
            shutdown(short.fd, Int32(SHUT_WR))
            #expect(short.readUntilClosed(within: 10).text.hasPrefix("HTTP/1.1 400"))
            let chunk = try RawClient(port: server.port)
            chunk.send(
                "POST /v1/admin/packages HTTP/1.1\r\nHost: a\r\n\(auth)\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n"
            )
            #expect(chunk.read(within: 10, until: "\r\n\r\n").hasPrefix("HTTP/1.1 400"))
            let slow = try RawClient(port: server.port)
            slow.send("POST /v1/admin/packages HTTP/1.1\r\nHost: a\r\n\(auth)\r\nContent-Length: 1000\r\n\r\n")
            #expect(slow.trickle("x", every: 0.3, within: 15), "a trickled body is closed")
            server.stop()
            let lines = try Self.log(dir)
            let statuses = lines.filter { $0["msg"]?.string == "request" }.compactMap { $0["status"]?.string }
            #expect(statuses.filter { $0 == "400" }.count == 2, "\(statuses)")
            #expect(statuses.contains("408"), "\(statuses)")
            #expect(!statuses.contains("500"), "\(statuses)")
            let errors = lines.filter { $0["level"]?.string == "error" }
            #expect(errors.isEmpty, "\(errors)")
        }
    }

    /// family-hikes with a video of `megabytes` MB (random bytes after an ISO-media box) at its first
    /// stop, built to `dir/big.zip`: a download that takes a while.
    static func videoPackage(_ dir: String, megabytes: Int) throws -> String {
        let tour = dir + "/big-tour"
        try Support.copyTree(Support.fixture("family-hikes"), tour)
        let stop = try #require(try FileManager.default.contentsOfDirectory(atPath: tour + "/waypoints").sorted().first)
        var video = Data([0, 0, 0, 0x18] + Array("ftypisom".utf8))
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        video.append(random.readData(ofLength: megabytes << 20))
        try random.close()
        try video.write(to: URL(fileURLWithPath: "\(tour)/waypoints/\(stop)/clip.mp4"))
        let waypoint = "\(tour)/waypoints/\(stop)/waypoint.json"
        let text = try String(contentsOfFile: waypoint, encoding: .utf8).replacingOccurrences(
            of: "\"assets\": [", with: "\"assets\": [\"clip.mp4\", ")
        try text.write(toFile: waypoint, atomically: true, encoding: .utf8)
        let build = try Support.trailpack("build", tour, "-o", dir + "/big.zip", "-q")
        #expect(build.status == 0, "\(build.stderr)")
        return dir + "/big.zip"
    }

    @Test(
        "a blob that shrinks during a download: the connection is closed at once (not after the send timeout), the server logs its own fault, the version leaves the lists; uploading the same bytes again brings it back, audited",
        .needs(.curl, .sha256sum))
    func shrinkingBlob() throws {
        try Support.withTemporaryDirectory { dir in
            let package = try Self.videoPackage(dir, megabytes: 24)
            let sha = try ServerFixtures.sha(package)
            let server = try Self.launch(dir, ["--send-timeout", "60"])
            defer { server.stop() }
            #expect(try Self.request(server.base, "POST", "/v1/admin/packages", file: package).status == 201)
            let blob = dir + "/data/blobs/\(sha.prefix(2))/\(sha).zip"
            // A slow reader (1 MB/s), and the blob cut to half a second into it.
            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            curl.arguments = [
                "curl", "-s", "--limit-rate", "1M", "--max-time", "60", "-o", dir + "/got.zip",
                server.base + "/v1/blobs/\(sha).zip",
            ]
            curl.standardOutput = FileHandle.nullDevice
            curl.standardError = FileHandle.nullDevice
            try curl.run()
            usleep(1_500_000)
            let handle = try #require(FileHandle(forWritingAtPath: blob))
            try handle.truncate(atOffset: 1 << 20)
            try handle.close()
            let cut = Date()
            curl.waitUntilExit()
            let waited = Date().timeIntervalSince(cut)
            #expect(curl.terminationStatus != 0, "the client must not see a complete download")
            #expect(waited < 20, "the client waited \(waited) s: the short file was not noticed")
            usleep(500_000)
            let lines = try Self.log(dir)
            #expect(
                lines.contains { $0["level"]?.string == "error" && ($0["msg"]?.string ?? "").contains("shrank") },
                "the server logs the shrink as its own fault")
            #expect(try Self.request(server.base, "GET", "/v1/packages/\(Self.id)", token: nil).status == 404)
            // The intact bytes, uploaded again: back in service, audited.
            let again = try Self.request(server.base, "POST", "/v1/admin/packages", file: package)
            #expect(again.status == 201, "\(again.body)")
            #expect(again.body.contains("stored again"), "\(again.body)")
            #expect(try Self.request(server.base, "GET", "/v1/packages/\(Self.id)", token: nil).status == 200)
            let audit = try Self.request(server.base, "GET", "/v1/admin/audit").body
            #expect(audit.contains("\"restored\""), "\(audit)")
            let whole = try ServeProcess.curl(["-s", "-o", dir + "/whole.zip", server.base + "/v1/blobs/\(sha).zip"])
            #expect(whole.status == 0)
            #expect(try ServerFixtures.sha(dir + "/whole.zip") == sha)
        }
    }

    @Test(
        "admin restore brings a damaged version back from an intact copy (audited); a copy of other bytes is refused",
        .needs(.curl, .sha256sum))
    func adminRestore() throws {
        try Support.withTemporaryDirectory { dir in
            let package = try Support.buildFixture("family-hikes", into: dir)
            let sha = try ServerFixtures.sha(package)
            let data = dir + "/data"
            var server = try Self.launch(dir)
            #expect(try Self.request(server.base, "POST", "/v1/admin/packages", file: package).status == 201)
            server.stop()
            let blob = data + "/blobs/\(sha.prefix(2))/\(sha).zip"
            let handle = try #require(FileHandle(forWritingAtPath: blob))
            try handle.truncate(atOffset: 100)
            try handle.close()
            #expect(try Support.trailpack("admin", "--data", data, "scrub").status == 1)
            let other = try Self.variant(dir, version: "9", tag: "other")
            let wrong = try Support.trailpack("admin", "--data", data, "restore", other)
            #expect(wrong.status == 2, "\(wrong.stderr)")
            #expect(wrong.stderr.contains("no version taken out of service as damaged"), "\(wrong.stderr)")
            let restored = try Support.trailpack("admin", "--data", data, "--json", "restore", package)
            #expect(restored.status == 0, "\(restored.stderr)")
            #expect(
                restored.stdout.contains("\"restored\" : true") || restored.stdout.contains("\"restored\": true"),
                "\(restored.stdout)")
            #expect(try ServerFixtures.sha(blob) == sha)
            server = try Self.launch(dir)
            defer { server.stop() }
            #expect(try Self.request(server.base, "GET", "/v1/packages/\(Self.id)", token: nil).status == 200)
            let audit = try Self.request(server.base, "GET", "/v1/admin/audit").body
            #expect(audit.contains("damaged → released"), "\(audit)")
        }
    }

    @Test(
        "a backup is marked finished last: one whose source lacks a package exits non-zero naming it and no server starts from it; a finished one serves",
        .needs(.curl, .sha256sum, .timeout))
    func backups() throws {
        try Support.withTemporaryDirectory { dir in
            let package = try Support.buildFixture("family-hikes", into: dir)
            let sha = try ServerFixtures.sha(package)
            let data = dir + "/data"
            let server = try Self.launch(dir)
            #expect(try Self.request(server.base, "POST", "/v1/admin/packages", file: package).status == 201)
            server.stop()
            let good = try Support.trailpack("admin", "--data", data, "backup", dir + "/backup-good")
            #expect(good.status == 0, "\(good.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/backup-good/trailpack-backup-unfinished"))
            let blob = data + "/blobs/\(sha.prefix(2))/\(sha).zip"
            try FileManager.default.moveItem(atPath: blob, toPath: dir + "/aside.zip")
            let bad = try Support.trailpack("admin", "--data", data, "backup", dir + "/backup-bad")
            #expect(bad.status != 0, "a backup missing a package must fail")
            #expect(bad.stderr.contains(sha), "the missing package is named: \(bad.stderr)")
            let refused = try Self.serveBriefly(["--data", dir + "/backup-bad", "--no-malware-scan"])
            #expect(refused.status == 3, "\(refused.stderr)")
            #expect(refused.stderr.contains("did not finish"), "\(refused.stderr)")
            let restored = try ServeProcess.launch(["--data", dir + "/backup-good", "--no-malware-scan"])
            defer { restored.stop() }
            let listed = try ServeProcess.curl(["-s", restored.base + "/v1/packages/\(Self.id)"])
            #expect(listed.stdout.contains(sha), "\(listed.stdout)")
        }
    }

    @Test(
        "with the catalog write-locked, 40 waiting confirmations get 200 or 503 with Retry-After (never 500), and /healthz answers within 1 s",
        .needs(.curl, .sha256sum, .python3))
    func healthWhileLocked() throws {
        try Support.withTemporaryDirectory { dir in
            let package = try Support.buildFixture("family-hikes", into: dir)
            let sha = try ServerFixtures.sha(package)
            let server = try Self.launch(dir, ["--confirmations-per-minute", "1000"])
            defer { server.stop() }
            #expect(try Self.request(server.base, "POST", "/v1/admin/packages", file: package).status == 201)
            // Another process holds the catalog's write lock for 12 s.
            let locker = Process()
            locker.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            locker.arguments = [
                "python3", "-c",
                "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); time.sleep(12); c.execute('COMMIT')",
                dir + "/data/catalog.sqlite",
            ]
            let lockOut = Pipe()
            locker.standardOutput = lockOut
            try locker.run()
            _ = lockOut.fileHandleForReading.availableData  // "locked"
            // 40 confirmations at once, from one curl (many threads blocked in this process on
            // child processes would slow the measuring itself, not the server).
            let confirm = server.base + "/v1/packages/\(Self.id)/versions/3/confirm"
            let many = Process()
            many.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            let one = [
                "-w", "%{http_code} %header{retry-after}\n", "-o", "/dev/null", "--max-time", "60", "-H",
                "Content-Type: application/json", "-d", "{\"sha256\":\"\(sha)\"}", confirm,
            ]
            many.arguments =
                ["curl", "-s", "-Z", "--parallel-max", "40", "--no-progress-meter"]
                + Array(repeating: one, count: 40).joined(separator: ["--next"])
            let answers = Pipe()
            many.standardOutput = answers
            try many.run()
            usleep(1_000_000)
            var slowest = 0.0
            for _ in 0..<3 {
                let start = Date()
                let health = try Support.run(
                    "curl",
                    ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", server.base + "/healthz"])
                slowest = max(slowest, Date().timeIntervalSince(start))
                #expect(health.stdout == "200")
                usleep(300_000)
            }
            #expect(slowest < 1, "/healthz took \(slowest) s while the catalog was locked")
            let lines = String(decoding: answers.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .split(separator: "\n")
            many.waitUntilExit()
            locker.waitUntilExit()
            #expect(lines.count == 40, "\(lines)")
            for line in lines {
                let parts = line.split(separator: " ")
                #expect(parts.first == "200" || parts.first == "503", "\(lines)")
                if parts.first == "503" { #expect(parts.count == 2, "a 503 without Retry-After: \(line)") }
            }
            #expect(
                lines.contains { $0.hasPrefix("503") },
                "the locked catalog made some confirmations wait too long: \(lines)")
        }
    }

    @Test(
        "options: a download base URL that is not http(s) with a host, mail options that do not go together, scanner options with --no-malware-scan, a grant to an unknown site and a port in use are refused in plain words",
        .needs(.curl, .timeout))
    func options() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            for url in [
                "javascript:alert(1)//", "ftp://cdn.example", "https://", "https://cdn.example/?x=1", "cdn.example",
            ] {
                let out = try Self.serveBriefly(["--data", data, "--no-malware-scan", "--download-base-url", url])
                #expect(out.status == 2, "\(url): \(out.stderr)")
                #expect(
                    out.stderr.contains("--download-base-url must be an http:// or https:// address"), "\(out.stderr)")
            }
            for (arguments, words) in [
                (["--smtp", "http://mail.example.org"], "must be smtp://HOST or smtp://HOST:PORT"),
                (["--smtp", "smtp://127.0.0.1:25"], "--smtp needs --mail-from ADDRESS"),
                (["--smtp", "smtp://127.0.0.1:25", "--mail-from", "trails"], "--smtp needs --mail-from ADDRESS"),
                (["--mail-from", "trails@example.org"], "give --smtp smtp://HOST:PORT too"),
                (
                    [
                        "--smtp", "smtp://127.0.0.1", "--mail-from", "t@example.org", "--panel-url",
                        "trails.example.org",
                    ],
                    "--panel-url must be an http:// or https:// address"
                ),
            ] {
                let out = try Self.serveBriefly(["--data", data, "--no-malware-scan"] + arguments)
                #expect(out.status == 2 && out.stderr.contains(words), "\(arguments): \(out.stderr)")
            }
            let scan = try Self.serveBriefly(["--data", data, "--no-malware-scan", "--clamav-db", dir])
            #expect(scan.status == 2 && scan.stderr.contains("give one or the other"), "\(scan.stderr)")
            #expect(
                try Support.trailpack(
                    "admin", "--data", data, "--create", "user", "add", "maria", "--role", "publisher"
                ).status == 0)
            let grant = try Support.trailpack("admin", "--data", data, "grant", "maria", "willamette-sweet-hom")
            #expect(grant.status == 2, "\(grant.stderr)")
            #expect(grant.stderr.contains("there is no site 'willamette-sweet-hom'"), "\(grant.stderr)")
            #expect(try Support.trailpack("admin", "--data", data, "site", "add", "willamette-sweet-home").status == 0)
            #expect(
                try Support.trailpack("admin", "--data", data, "grant", "maria", "willamette-sweet-home").status == 0)
            let first = try Self.launch(dir)
            defer { first.stop() }
            let second = try Self.serveBriefly([
                "--data", dir + "/data2", "--no-malware-scan", "--port", String(first.port),
            ])
            #expect(second.status == 3, "\(second.stderr)")
            #expect(second.stderr.contains("another program"), "\(second.stderr)")
            #expect(!second.stderr.contains("errno"), "\(second.stderr)")
        }
    }

    @Test(
        "the panel over a real server: access lines carry the signed-in user; HEAD answers on panel pages; a next of /%09/evil goes home",
        .needs(.curl))
    func panelEdges() throws {
        try Support.withTemporaryDirectory { dir in
            try Self.addRanger(dir, password: "correct horse battery staple")
            let server = try Self.launch(dir)
            let login = try ServeProcess.curl([
                "-s", "-D", "-", "-o", "/dev/null", "-c", dir + "/cookies",
                "--data-urlencode", "name=ranger", "--data-urlencode", "password=correct horse battery staple",
                "--data-urlencode", "next=/\t/evil.example", server.base + "/login",
            ])
            #expect(login.stdout.hasPrefix("HTTP/1.1 303"), "\(login.stdout)")
            let location = login.stdout.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") }
            #expect(location.map { $0.dropFirst(9).trimmingCharacters(in: .whitespaces) } == "/", "\(login.stdout)")
            let home = try ServeProcess.curl([
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-b", dir + "/cookies", server.base + "/",
            ])
            #expect(home.stdout == "200")
            for path in ["/login", "/static/panel.css", "/"] {
                let head = try ServeProcess.curl(["-s", "-I", "-b", dir + "/cookies", server.base + path])
                #expect(head.stdout.hasPrefix("HTTP/1.1 200"), "HEAD \(path): \(head.stdout)")
            }
            server.stop()
            let access = try Self.log(dir).filter { $0["msg"]?.string == "request" && $0["path"]?.string == "/" }
            #expect(access.contains { $0["user"]?.string == "ranger" }, "\(access)")
        }
    }
}

/// What concurrent requests answered, gathered from several threads.
final class Collected: Sendable {
    private let list = Mutex<[(String, String)]>([])
    func add(_ a: String, _ b: String) { list.withLock { $0.append((a, b)) } }
    var items: [(String, String)] { list.withLock { $0 } }
}
