import Foundation
import Testing
import TrailPackClient
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

/// `trailpack fetch` against a real `trailpack serve`, through a loopback proxy that drops the
/// connection or slows it down (scripts/flaky_proxy.py). The client library on its own is tested
/// in TrailPackClientTests.
@Suite("client: fetch against a real server", .ownThreads, .needs(.curl, .clamscan), .serialized)
struct ClientTests {
    static let id = ClientServer.id

    /// A server holding santiam 1.0.0 and 1.1.0, both released (approvals 0).
    typealias Setup = ClientServer.Setup

    static func setUp(_ dir: String, upload names: [String] = ["santiam-wagon-road", "santiam-v2"]) throws -> Setup {
        try ClientServer.setUp(dir, upload: names)
    }

    /// The proxy, started on a free port; its request log is `log`, its standard error `log + ".err"`.
    /// It runs until `stop()`, or until this process ends (it reads its standard input, a pipe whose
    /// other end only this process holds).
    final class Proxy {
        let process: Process
        let port: Int
        let log: String
        /// Held, never written: the proxy ends when it closes.
        private let lifeline = Pipe()
        init(upstream: Int, log: String, arguments: [String]) throws {
            self.log = log
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments =
                ["python3", Support.root + "/scripts/flaky_proxy.py", String(upstream), log] + arguments
            let out = Pipe()
            process.standardOutput = out
            process.standardInput = lifeline
            FileManager.default.createFile(atPath: log + ".err", contents: nil)
            process.standardError = FileHandle(forWritingAtPath: log + ".err")
            try process.run()
            let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        var base: String { "http://127.0.0.1:\(port)" }
        /// Whether the proxy still runs, and what it wrote to its standard error: for a failing test's message.
        var state: String {
            let errors = (try? String(contentsOfFile: log + ".err", encoding: .utf8)) ?? ""
            let running = process.isRunning ? "running" : "exited with status \(process.terminationStatus)"
            return "the proxy is \(running); its standard error: \(errors.isEmpty ? "(empty)" : errors)"
        }
        var requests: [String] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        /// Once only: a second kill could reach another process that got the reaped proxy's pid.
        private var stopped = false
        func stop() {
            guard !stopped else { return }
            stopped = true
            // SIGKILL: a child of the test runner may inherit a mask that blocks SIGTERM.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    @Test(
        "fetch installs the newest released version, checks it, confirms it; a second fetch does nothing; --list lists it"
    )
    func installs() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try Self.setUp(dir)
            defer { s.server.stop() }
            let first = try s.fetch(Self.id, "--into", s.library, "--json")
            #expect(first.status == 0, "\(first.stderr)")
            let report = try s.json(first)
            #expect(report["ok"] == .bool(true))
            #expect(report["version"] == .string("1.1.0"))
            #expect(report["confirmed"] == .bool(true))
            #expect(report["alreadyInstalled"] == .bool(false))
            let file = s.library + "/\(Self.id)/1.1.0.zip"
            #expect(try Support.read(file) == Support.read(s.packages["santiam-v2"]!))
            #expect(try Support.trailpack("verify", file).status == 0)
            // Nothing is left in .partial/.
            #expect(try FileManager.default.contentsOfDirectory(atPath: s.library + "/.partial").isEmpty)
            let again = try s.fetch(Self.id, "--into", s.library, "--json")
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try s.json(again)["alreadyInstalled"] == .bool(true))
            // The server counted the confirmation.
            let counts = try ServeProcess.curl([
                "-H", "Authorization: Bearer \(ServeProcess.token)", s.base + "/v1/admin/confirmations",
            ])
            #expect(counts.status == 0, "\(counts.stderr)")
            let confirmations = try #require(try JSON.parse(counts.stdout)["confirmations"]?.array, "\(counts.stdout)")
            #expect(confirmations.contains { $0["match"]?.int == 1 }, "\(counts.stdout)")
            let list = try s.fetch("--list", "--json")
            #expect(list.status == 0)
            let listed = try s.json(list)["sites"]?.array?.flatMap { $0["packages"]?.array ?? [] } ?? []
            #expect(
                listed.contains { $0["id"] == .string(Self.id) && $0["version"] == .string("1.1.0") }, "\(list.stdout)")
            // An unknown package: exit 1 with the server's reason.
            let missing = try s.fetch("gov.example.nothing", "--into", s.library)
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("404"))
        }
    }

    @Test("a download cut half-way resumes with Range and If-Range and installs the same bytes", .needs(.python3))
    func resumesAfterCut() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try Self.setUp(dir)
            defer { s.server.stop() }
            let proxy = try Proxy(
                upstream: s.server.port, log: dir + "/proxy.log", arguments: ["--cut-after", "20000"])
            defer { proxy.stop() }
            let result = try s.fetch(Self.id, "--into", s.library, "--package-version", "1.0.0", through: proxy.base)
            #expect(result.status == 0, "\(result.stderr)")
            let blobs = proxy.requests.filter { $0.contains("/v1/blobs/") }
            #expect(blobs.count == 2, "\(proxy.requests)")
            #expect(blobs.last?.contains("range=bytes=20000-") == true, "\(blobs)")
            #expect(
                try Support.read(s.library + "/\(Self.id)/1.0.0.zip") == Support.read(s.packages["santiam-wagon-road"]!)
            )
        }
    }

    @Test("a blob altered on the server is refused, deleted and nothing is installed", .needs(.sha256sum))
    func alteredBlob() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try Self.setUp(dir, upload: ["santiam-wagon-road"])
            defer { s.server.stop() }
            let sha = try ServerFixtures.sha(s.packages["santiam-wagon-road"]!)
            let blob = dir + "/data/blobs/\(sha.prefix(2))/\(sha).zip"
            var bytes = try Support.read(blob)
            bytes[bytes.count / 2] ^= 0x01  // same length, other bytes
            try Support.write(bytes, to: blob)
            let result = try s.fetch(Self.id, "--into", s.library, "--json")
            #expect(result.status == 1 || result.status == 3, "\(result.stdout) \(result.stderr)")
            let report = try s.json(result)
            #expect(report["ok"] == .bool(false))
            #expect(!FileManager.default.fileExists(atPath: s.library + "/\(Self.id)"), "nothing installed")
            let partial = (try? FileManager.default.contentsOfDirectory(atPath: s.library + "/.partial")) ?? []
            #expect(partial.isEmpty, "the damaged download was deleted: \(partial)")
        }
    }

    @Test("an older version, or the installed version with other bytes, is refused as a rollback")
    func rollback() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try Self.setUp(dir)
            defer { s.server.stop() }
            #expect(try s.fetch(Self.id, "--into", s.library).status == 0)
            let older = try s.fetch(Self.id, "--into", s.library, "--package-version", "1.0.0", "--json")
            #expect(older.status == 1)
            let report = try s.json(older)
            #expect(report["reason"] == .string("rollback"))
            guard case .object(let error)? = report["error"] else { Issue.record("no error object"); return }
            #expect(error.first { $0.key == "kind" }?.value == .string("invalid"))
            #expect(
                try Support.read(s.library + "/\(Self.id)/1.1.0.zip") == Support.read(s.packages["santiam-v2"]!),
                "the installed version is untouched")
            // The library's state says 1.1.0 was installed with these bytes: another 1.1.0 is refused.
            let statePath = s.library + "/\(Self.id)/installed.json"
            var state = try JSONDecoder().decode(
                InstalledPackage.self, from: Data(contentsOf: URL(fileURLWithPath: statePath)))
            state.sha256 = String(repeating: "0", count: 64)
            try JSONEncoder().encode(state).write(to: URL(fileURLWithPath: statePath))
            let same = try s.fetch(Self.id, "--into", s.library)
            #expect(same.status == 1)
            #expect(same.stderr.contains("other bytes"), "\(same.stderr)")
        }
    }

    @Test(
        "kill -9 during a download leaves the installed version intact; the next run resumes and installs",
        .needs(.python3))
    func killedMidDownload() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try Self.setUp(dir)
            defer { s.server.stop() }
            #expect(try s.fetch(Self.id, "--into", s.library, "--package-version", "1.0.0").status == 0)
            let installed = try Support.read(s.library + "/\(Self.id)/1.0.0.zip")
            // 4 KB/s: the 42 KB package takes ten seconds; kill it after three.
            let slow = try Proxy(upstream: s.server.port, log: dir + "/slow.log", arguments: ["--rate", "4096"])
            defer { slow.stop() }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Support.binary)
            // --full: the resumable whole download is what this is about (an update by part starts afresh).
            process.arguments = ["fetch", slow.base, Self.id, "--into", s.library, "--full"]
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: 3)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            slow.stop()
            #expect(process.terminationReason == .uncaughtSignal)
            #expect(
                try Support.read(s.library + "/\(Self.id)/1.0.0.zip") == installed, "the installed version is intact")
            let partial = s.library + "/.partial/\(Self.id)-1.1.0.zip"
            let kept = try #require(try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int)
            #expect(kept > 0 && kept < 42_000, "a part was downloaded: \(kept)")
            // The next run resumes from there.
            let proxy = try Proxy(upstream: s.server.port, log: dir + "/proxy.log", arguments: [])
            defer { proxy.stop() }
            let result = try s.fetch(Self.id, "--into", s.library, "--full", through: proxy.base)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                proxy.requests.contains { $0.contains("/v1/blobs/") && $0.contains("range=bytes=\(kept)-") },
                "\(proxy.requests)")
            #expect(try Support.read(s.library + "/\(Self.id)/1.1.0.zip") == Support.read(s.packages["santiam-v2"]!))
            #expect(
                !FileManager.default.fileExists(atPath: s.library + "/\(Self.id)/1.0.0.zip"),
                "the old version goes once the new one is in")
        }
    }

    @Test("two reviewers' signatures pass a threshold of two; one trusted key is not enough")
    func signatureThreshold() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try WorkflowTests.setUp(dir)
            defer { s.server.stop() }
            let pkg = try Support.buildFixture("family-hikes", into: dir)
            #expect(try s.curl("POST", "/v1/admin/packages", as: "maria", file: pkg).0 == 201)
            #expect(try s.curl("POST", WorkflowTests.versionPath + "/start", as: "maria").0 == 200)
            for reviewer in ["ken", "lee"] {
                #expect(
                    try Support.trailpack(
                        "sign", pkg, "-s", dir + "/\(reviewer).key", "-o", dir + "/\(reviewer).minisig"
                    ).status == 0)
                let sig = try String(contentsOfFile: dir + "/\(reviewer).minisig", encoding: .utf8)
                let body = String(
                    decoding: JSONWriter.bytes(.object(["signature": .string(sig)]), pretty: false), as: UTF8.self)
                #expect(try s.curl("POST", WorkflowTests.versionPath + "/approve", as: reviewer, body: body).0 == 200)
            }
            #expect(try s.curl("POST", WorkflowTests.versionPath + "/push", as: "maria").0 == 200)
            let library = dir + "/library"
            let two = try Support.run(
                Support.binary,
                [
                    "fetch", s.base, WorkflowTests.id, "--into", library, "--trusted-key", dir + "/keys", "--threshold",
                    "2", "--json",
                ])
            #expect(two.status == 0, "\(two.stdout) \(two.stderr)")
            guard case .array(let signers)? = try JSONParser.parse(Array(two.stdoutBytes)).value["signers"] else {
                Issue.record("no signers"); return
            }
            #expect(signers.count == 2)
            // Only ken's key trusted: one valid signer, two needed.
            try FileManager.default.createDirectory(atPath: dir + "/one", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: dir + "/keys/ken.pub", toPath: dir + "/one/ken.pub")
            let one = try Support.run(
                Support.binary,
                [
                    "fetch", s.base, WorkflowTests.id, "--into", dir + "/library2", "--trusted-key", dir + "/one",
                    "--threshold", "2",
                ])
            #expect(one.status == 1)
            #expect(one.stderr.contains("2 needed"), "\(one.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/library2/\(WorkflowTests.id)"))
            // Already installed is no way around the keys: the installed copy is checked against them too.
            let again = try Support.run(
                Support.binary,
                [
                    "fetch", s.base, WorkflowTests.id, "--into", library, "--trusted-key", dir + "/one", "--threshold",
                    "2",
                ])
            #expect(again.status == 1, "\(again.stdout) \(again.stderr)")
            #expect(
                again.stderr.contains("2 needed") && again.stderr.contains("installed copy is kept"), "\(again.stderr)")
            let good = try Support.run(
                Support.binary,
                [
                    "fetch", s.base, WorkflowTests.id, "--into", library, "--trusted-key", dir + "/keys", "--threshold",
                    "2", "--json",
                ])
            #expect(good.status == 0, "\(good.stderr)")
            let goodReport = try JSONParser.parse(Array(good.stdoutBytes)).value
            #expect(goodReport["alreadyInstalled"] == .bool(true))
            guard case .array(let goodSigners)? = goodReport["signers"] else { Issue.record("no signers"); return }
            #expect(goodSigners.count == 2)
        }
    }
}
