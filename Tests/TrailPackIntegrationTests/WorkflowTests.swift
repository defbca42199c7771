import Foundation
import Testing
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

@Suite("publish workflow, roles and malware scanning", .ownThreads, .serialized)
struct WorkflowTests {
    struct Setup {
        let dir: String
        let server: ServeProcess.Running
        var tokens: [String: String] = [:]
        var base: String { server.base }

        func curl(
            _ method: String, _ path: String, as user: String?, body: String? = nil, file: String? = nil
        ) throws -> (Int, String) {
            var args = ["-s", "-X", method, "-w", "\n%{http_code}"]
            if let user { args += ["-H", "Authorization: Bearer \(tokens[user]!)"] }
            if let body { args += ["-d", body] }
            if let file { args += ["--data-binary", "@" + file] }
            let out = try Support.run("curl", args + [base + path])
            #expect(out.status == 0, "curl \(method) \(path): exit \(out.status), \(out.stderr)")
            let lines = out.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
        }

        /// The site ids the public list shows.
        func sites() throws -> [String] { try ServeProcess.siteIDs(curl("GET", "/v1/sites", as: nil).1) }

        /// The entries of the audit log: their actions and details.
        func audit() throws -> [(action: String, detail: String)] {
            let body = try curl("GET", "/v1/admin/audit", as: "root").1
            let entries = try #require(try JSON.parse(body)["entries"]?.array, "no audit entries: \(body)")
            return entries.map { ($0["action"]?.string ?? "", $0["detail"]?.string ?? "") }
        }
    }

    /// The `error.message` of a JSON error body ("" when there is none).
    static func message(_ body: String) throws -> String { try JSON.parse(body)["error"]?["message"]?.string ?? "" }

    /// The workflow state (`status`) of a version-state answer.
    static func status(_ body: String) throws -> JSONValue? { try JSON.parse(body)["status"] }

    /// A server with approvals = 2 and the test ClamAV database, and users maria (publisher),
    /// ken and lee (reviewers, with signing keys), root (admin).
    static func setUp(_ dir: String, extra: [String] = []) throws -> Setup {
        let data = dir + "/data"
        func admin(_ args: String...) throws -> Support.Output {
            let out = try Support.run(
                Support.binary,
                ["admin"] + Array(args.prefix(2)) + ["--data", data, "--create"] + Array(args.dropFirst(2)))
            #expect(out.status == 0, "admin \(args): \(out.stderr)")
            return out
        }
        try FileManager.default.createDirectory(atPath: dir + "/keys", withIntermediateDirectories: true)
        for reviewer in ["ken", "lee"] {
            #expect(
                try Support.trailpack(
                    "keygen", "-s", dir + "/\(reviewer).key", "-p", dir + "/keys/\(reviewer).pub", "--unencrypted"
                ).status == 0)
        }
        _ = try admin("user", "add", "maria", "--role", "publisher")
        _ = try admin("user", "add", "ken", "--role", "reviewer", "--public-key", dir + "/keys/ken.pub")
        _ = try admin("user", "add", "lee", "--role", "reviewer", "--public-key", dir + "/keys/lee.pub")
        _ = try admin("user", "add", "root", "--role", "admin")
        for site in ["willamette-mckenzie-river", "willamette-sweet-home", "colorado-peak-checklists"] {
            #expect(try Support.run(Support.binary, ["admin", "--data", data, "site", "add", site]).status == 0)
            #expect(try Support.run(Support.binary, ["admin", "--data", data, "grant", "maria", site]).status == 0)
        }
        var tokens: [String: String] = [:]
        for user in ["maria", "ken", "lee", "root"] {
            tokens[user] = try admin("token", "issue", user).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // (--no-malware-scan in `extra` goes alone: scanner options with it are refused.)
        let scanning = extra.contains("--no-malware-scan") ? [] : ["--clamav-db", TestClamAV.database]
        let server = try ServeProcess.launch(["--data", data, "--approvals", "2"] + scanning + extra)
        return Setup(dir: dir, server: server, tokens: tokens)
    }

    static let id = "gov.usda.fs.willamette.family-hikes"
    static let versionPath = "/v1/admin/packages/\(id)/versions/3"

    @Test(
        "the full path with N = 2: upload, start, two signed approvals, release; clients check the reviewers' signatures offline",
        .needs(.curl, .clamscan))
    func happyPath() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try Self.setUp(dir)
            defer { s.server.stop() }
            let pkg = try Support.buildFixture("family-hikes", into: dir)
            #expect(try s.curl("POST", "/v1/admin/packages", as: "maria", file: pkg).0 == 201)
            #expect(try s.sites() == [], "a draft is not listed")
            var r = try s.curl("POST", Self.versionPath + "/start", as: "maria")
            #expect(try r.0 == 200 && Self.status(r.1) == .string("pending"), "\(r)")
            for (i, reviewer) in ["ken", "lee"].enumerated() {
                #expect(
                    try Support.trailpack(
                        "sign", pkg, "-s", dir + "/\(reviewer).key", "-o", dir + "/\(reviewer).minisig"
                    ).status == 0)
                let sig = try String(contentsOfFile: dir + "/\(reviewer).minisig", encoding: .utf8)
                let body = String(
                    decoding: JSONWriter.bytes(.object(["signature": .string(sig)]), pretty: false), as: UTF8.self)
                r = try s.curl("POST", Self.versionPath + "/approve", as: reviewer, body: body)
                #expect(try r.0 == 200 && Self.status(r.1) == .string(i == 0 ? "pending" : "ready"), "\(r)")
            }
            // Only the original publisher releases.
            #expect(try s.curl("POST", Self.versionPath + "/push", as: "ken").0 == 403)
            r = try s.curl("POST", Self.versionPath + "/push", as: "maria")
            #expect(try r.0 == 200 && Self.status(r.1) == .string("released"), "\(r)")
            #expect(try s.sites().contains("willamette-mckenzie-river"))
            // A phone fetches the package and the reviewers' signatures, and checks two distinct reviewers approved these bytes.
            let sigs = try s.curl("GET", "/v1/packages/\(Self.id)/versions/3/signatures", as: nil).1
            let json = try #require(try JSONSerialization.jsonObject(with: Data(sigs.utf8)) as? [String: Any])
            let list = try #require(json["signatures"] as? [[String: String]])
            #expect(list.map { $0["reviewer"] } == ["ken", "lee"])
            var args = ["verify", pkg, "--trusted-key", dir + "/keys", "--threshold", "2"]
            for (i, entry) in list.enumerated() {
                try entry["minisig"]!.write(toFile: dir + "/served\(i).minisig", atomically: true, encoding: .utf8)
                args += ["--signature", dir + "/served\(i).minisig"]
            }
            #expect(try Support.run(Support.binary, args).status == 0)
            // The audit log shows each step.
            let actions = try s.audit().map(\.action)
            for action in ["upload", "start", "approve", "push"] {
                #expect(actions.contains(action), "\(action) is not in the audit log: \(actions)")
            }
            // An admin withdraws it: it leaves the lists.
            #expect(try s.curl("POST", Self.versionPath + "/withdraw", as: "root").0 == 200)
            #expect(try s.sites() == [])
        }
    }

    @Test(
        "a denial after one approval sends the version back to draft and clears the approvals; illegal transitions are 409 naming the state",
        .needs(.curl, .clamscan))
    func denial() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try Self.setUp(dir)
            defer { s.server.stop() }
            let pkg = try Support.buildFixture("family-hikes", into: dir)
            #expect(try s.curl("POST", "/v1/admin/packages", as: "maria", file: pkg).0 == 201)
            let early = try s.curl("POST", Self.versionPath + "/push", as: "maria")
            #expect(try early.0 == 409 && Self.message(early.1).contains("current state: draft"), "\(early)")
            #expect(
                try s.curl("POST", Self.versionPath + "/approve", as: "ken").0 == 409, "nothing to approve on a draft")
            #expect(try s.curl("POST", Self.versionPath + "/start", as: "maria").0 == 200)
            #expect(try s.curl("POST", Self.versionPath + "/approve", as: "ken").0 == 200)
            let denied = try s.curl("POST", Self.versionPath + "/deny", as: "lee")
            #expect(
                try denied.0 == 200 && Self.status(denied.1) == .string("draft")
                    && JSON.parse(denied.1)["approvals"] == .array([]), "\(denied)")
            #expect(
                try Self.message(s.curl("POST", Self.versionPath + "/push", as: "maria").1).contains(
                    "current state: draft"))
            #expect(try s.curl("POST", Self.versionPath + "/dance", as: "maria").0 == 404)
            let actions = try s.audit().map(\.action)
            #expect(actions.contains("deny") && actions.contains("push-refused"), "\(actions)")
        }
    }

    @Test("roles: self-approval, wrong roles, missing, wrong and revoked tokens are refused", .needs(.curl, .clamscan))
    func roles() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try Self.setUp(dir)
            defer { s.server.stop() }
            let pkg = try Support.buildFixture("family-hikes", into: dir)
            #expect(try s.curl("POST", "/v1/admin/packages", as: "ken", file: pkg).0 == 403, "a reviewer cannot upload")
            #expect(try s.curl("POST", "/v1/admin/packages", as: nil, file: pkg).0 == 401)
            // An admin uploads and cannot approve their own request.
            #expect(try s.curl("POST", "/v1/admin/packages", as: "root", file: pkg).0 == 201)
            #expect(try s.curl("POST", Self.versionPath + "/start", as: "root").0 == 200)
            let own = try s.curl("POST", Self.versionPath + "/approve", as: "root")
            #expect(try own.0 == 403 && Self.message(own.1).contains("cannot approve their own"), "\(own)")
            #expect(
                try s.curl("POST", Self.versionPath + "/approve", as: "maria").0 == 403, "a publisher cannot approve")
            #expect(try s.curl("POST", Self.versionPath + "/withdraw", as: "ken").0 == 403)
            var wrong = s
            wrong.tokens["mallory"] = "tp_000000000000_" + String(repeating: "0", count: 48)
            #expect(try wrong.curl("GET", "/v1/admin/audit", as: "mallory").0 == 401)
            let id = String(s.tokens["ken"]!.split(separator: "_")[1])
            #expect(
                try Support.run(Support.binary, ["admin", "token", "revoke", "--data", dir + "/data", id]).status == 0)
            #expect(try s.curl("POST", Self.versionPath + "/approve", as: "ken").0 == 401, "a revoked token")
        }
    }

    @Test(
        "an upload carrying the EICAR test string is refused with the signature's name, and the refusal is audited",
        .needs(.curl, .clamscan))
    func eicar() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try Self.setUp(dir)
            defer { s.server.stop() }
            let tour = dir + "/tour"
            try Support.copyTree(Support.fixture("family-hikes"), tour)
            try TestClamAV.eicar.write(
                toFile: tour + "/waypoints/01-sahalie-and-koosah-falls/notes.txt", atomically: true, encoding: .utf8)
            #expect(try Support.trailpack("build", tour, "-o", dir + "/eicar.zip", "-q").status == 0)
            let r = try s.curl("POST", "/v1/admin/packages", as: "maria", file: dir + "/eicar.zip")
            #expect(try r.0 == 422 && Self.message(r.1).contains("Trailpack.Test.EICAR"), "\(r)")
            #expect(try s.audit().contains { $0.detail.contains("malware: Trailpack.Test.EICAR") })
            #expect(
                try FileManager.default.subpathsOfDirectory(atPath: dir + "/data/blobs").filter { $0.hasSuffix(".zip") }
                    .isEmpty)
        }
    }

    @Test(
        "a version the scanner could not vouch for is held: approvable, never releasable, with the reason shown",
        .needs(.curl, .clamscan))
    func held() throws {
        try Support.withTemporaryDirectory { dir in
            // The scanner works at start (it is checked), then loses its signature database.
            try Support.copyTree(TestClamAV.database, dir + "/db")
            let s = try Self.setUp(dir, extra: ["--clamav-db", dir + "/db"])
            defer { s.server.stop() }
            for name in try FileManager.default.contentsOfDirectory(atPath: dir + "/db") {
                try FileManager.default.removeItem(atPath: dir + "/db/" + name)
            }
            let pkg = try Support.buildFixture("family-hikes", into: dir)
            #expect(try s.curl("POST", "/v1/admin/packages", as: "maria", file: pkg).0 == 201)
            let state = try s.curl("GET", Self.versionPath, as: "maria").1
            #expect(try JSON.parse(state)["scan"]?["status"] == .string("held"), "\(state)")
            #expect(try s.curl("POST", Self.versionPath + "/start", as: "maria").0 == 200)
            #expect(try s.curl("POST", Self.versionPath + "/approve", as: "ken").0 == 200)
            #expect(try s.curl("POST", Self.versionPath + "/approve", as: "lee").0 == 200)
            let push = try s.curl("POST", Self.versionPath + "/push", as: "maria")
            #expect(try push.0 == 409 && Self.message(push.1).contains("held by the malware scan"), "\(push)")
            #expect(try s.sites() == [])
        }
    }

    @Test(
        "/healthz answers while a signed approval of a 300 MB package is being checked (the prehash runs off the request threads)",
        .needs(.curl))
    func healthWhileApproving() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try Self.setUp(dir, extra: ["--no-malware-scan"])
            defer { s.server.stop() }
            // family-hikes with a 300 MB video: the reviewer's signature check reads all of it.
            let tour = dir + "/tour"
            try Support.copyTree(Support.fixture("family-hikes"), tour)
            let stop = try #require(
                try FileManager.default.contentsOfDirectory(atPath: tour + "/waypoints").sorted().first)
            let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
            let video = FileManager.default.createFile(
                atPath: "\(tour)/waypoints/\(stop)/clip.mp4", contents: Data([0, 0, 0, 0x18] + Array("ftypisom".utf8)))
            #expect(video)
            let out = try #require(FileHandle(forWritingAtPath: "\(tour)/waypoints/\(stop)/clip.mp4"))
            out.seekToEndOfFile()
            for _ in 0..<30 { out.write(random.readData(ofLength: 10 << 20)) }
            try out.close()
            try random.close()
            let waypoint = "\(tour)/waypoints/\(stop)/waypoint.json"
            try String(contentsOfFile: waypoint, encoding: .utf8).replacingOccurrences(
                of: "\"assets\": [",
                with: "\"accessibilityWaiver\": \"A clip of noise made for this test: nothing is said or shown.\", "
                    + "\"assets\": [\"clip.mp4\", "
            )
            .write(toFile: waypoint, atomically: true, encoding: .utf8)
            let pkg = dir + "/big.zip"
            #expect(try Support.trailpack("build", tour, "-o", pkg, "-q").status == 0)
            #expect(try s.curl("POST", "/v1/admin/packages", as: "maria", file: pkg).0 == 201)
            #expect(try s.curl("POST", Self.versionPath + "/start", as: "maria").0 == 200)
            #expect(try Support.trailpack("sign", pkg, "-s", dir + "/ken.key", "-o", dir + "/ken.minisig").status == 0)
            let sig = try String(contentsOfFile: dir + "/ken.minisig", encoding: .utf8)
            try JSONWriter.bytes(.object(["signature": .string(sig)]), pretty: false).withUnsafeBytes {
                try Data($0).write(to: URL(fileURLWithPath: dir + "/body.json"))
            }
            let approve = Process()
            approve.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            approve.arguments = [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "120", "-H",
                "Authorization: Bearer \(s.tokens["ken"]!)",
                "--data-binary", "@\(dir)/body.json", s.base + Self.versionPath + "/approve",
            ]
            let approveOut = Pipe()
            approve.standardOutput = approveOut
            try approve.run()
            // While the approval is being checked, /healthz is asked again and again.
            var answeredDuring = 0
            while approve.isRunning {
                let health = try Support.run(
                    "curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", s.base + "/healthz"])
                #expect(
                    health.status == 0 && health.stdout == "200",
                    "/healthz failed while an approval was checked: \(health.stdout) \(health.stderr)")
                if approve.isRunning { answeredDuring += 1 }
            }
            approve.waitUntilExit()
            #expect(approve.terminationStatus == 0, "curl exited \(approve.terminationStatus)")
            #expect(String(decoding: approveOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "200")
            #expect(answeredDuring > 0, "/healthz answered while the approval's signature was being checked")
        }
    }
}
