import Foundation
import Testing
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

/// A package that crashes the verifier costs one 422, never the server.
@Suite("server: crash containment", .ownThreads, .serialized)
struct ContainmentTests {
    @Test(
        "a verifier child that traps (test hook): the upload gets 422 with server.verifier-failed and an audit entry; the server goes on serving",
        .needs(.curl, .clamscan))
    func trappingChild() throws {
        try Support.withTemporaryDirectory { dir in
            let token = ServeProcess.token
            try token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let package = try Support.buildFixture("family-hikes", into: dir)
            let server = try ServeProcess.launch(
                [
                    "--data", dir + "/data", "--admin-token-file", dir + "/token", "--approvals", "0", "--clamav-db",
                    TestClamAV.database,
                ],
                environment: ["TRAILPACK_TEST_VERIFY_UPLOAD_TRAP": "1"])
            defer { server.stop() }
            let up = try ServeProcess.curl([
                "-w", "\n%{http_code}", "-H", "Authorization: Bearer \(token)", "--data-binary", "@" + package,
                server.base + "/v1/admin/packages",
            ])
            #expect(up.status == 0, "\(up.stderr)")
            let lines = up.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.last == "422", "\(up.stdout)")
            let body = try #require(try? JSONParser.parse(Array(lines.dropLast().joined(separator: "\n").utf8)).value)
            guard case .array(let findings)? = body["error"]?["findings"] else {
                Issue.record("no findings: \(up.stdout)"); return
            }
            #expect(findings.count == 1)
            #expect(findings.first?["code"] == .string("server.verifier-failed"))
            guard case .string(let message)? = findings.first?["message"] else { Issue.record("no message"); return }
            #expect(message.contains("crashed") && message.contains("SIG"), "\(message)")
            // Still serving, nothing stored, nothing left in tmp/.
            #expect(server.process.isRunning)
            #expect(try ServeProcess.curl([server.base + "/healthz"]).stdout == "ok\n")
            #expect(try ServeProcess.siteIDs(ServeProcess.curl([server.base + "/v1/sites"]).stdout) == [])
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/data/tmp").isEmpty)
            let audit = try ServeProcess.curl(["-H", "Authorization: Bearer \(token)", server.base + "/v1/admin/audit"])
                .stdout
            let entries = try #require(try? JSONParser.parse(Array(audit.utf8)).value)
            guard case .array(let list)? = entries["entries"] else {
                Issue.record("no audit entries: \(audit)"); return
            }
            #expect(
                list.contains {
                    $0["action"] == .string("upload-refused")
                        && ($0["detail"]?.string ?? "").contains("verifier failed")
                }, "\(audit)")
        }
    }

    @Test(
        "a verifier child that never answers (test hook) is stopped at the timeout, its process group killed: 422, and the server goes on serving",
        .needs(.curl, .clamscan, .pgrep))
    func hangingChild() throws {
        try Support.withTemporaryDirectory { dir in
            let token = ServeProcess.token
            try token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let package = try Support.buildFixture("family-hikes", into: dir)
            let server = try ServeProcess.launch(
                [
                    "--data", dir + "/data", "--admin-token-file", dir + "/token", "--approvals", "0", "--clamav-db",
                    TestClamAV.database,
                    "--verify-timeout", "2",
                ], environment: ["TRAILPACK_TEST_VERIFY_UPLOAD_TRAP": "hang"])
            defer { server.stop() }
            let up = try ServeProcess.curl([
                "--max-time", "60", "-w", "\n%{http_code}", "-H", "Authorization: Bearer \(token)", "--data-binary",
                "@" + package, server.base + "/v1/admin/packages",
            ])
            let lines = up.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.last == "422", "\(up.stdout) \(up.stderr)")
            let body = try #require(try? JSONParser.parse(Array(lines.dropLast().joined(separator: "\n").utf8)).value)
            guard case .array(let findings)? = body["error"]?["findings"],
                case .string(let message)? = findings.first?["message"]
            else { Issue.record("\(up.stdout)"); return }
            #expect(findings.first?["code"] == .string("server.verifier-failed"))
            #expect(message.contains("longer than 2 seconds"), "\(message)")
            #expect(try ServeProcess.curl([server.base + "/healthz"]).stdout == "ok\n")
            // No verify-upload child is left running.
            let children = try Support.run("pgrep", ["-P", String(server.process.processIdentifier)])
            #expect(children.status == 1, "children left: \(children.stdout)")
        }
    }

    @Test(
        "verify-upload, the child the server runs, answers with the report and the manifest as JSON; exit 1 for an invalid package"
    )
    func childAnswer() throws {
        try Support.withTemporaryDirectory { dir in
            let package = try Support.buildFixture("family-hikes", into: dir)
            try FileManager.default.createDirectory(atPath: dir + "/work", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: package, toPath: dir + "/work/package.zip")
            let ok = try Support.trailpack("verify-upload", "--directory", dir + "/work", "package.zip")
            #expect(ok.status == 0, "\(ok.stderr)")
            let doc = try #require(try? JSONParser.parse(Array(ok.stdout.utf8)).value)
            #expect(doc["valid"] == .bool(true))
            #expect(doc["manifest"]?["id"] == .string("gov.usda.fs.willamette.family-hikes"))
            try Data("PK\u{5}\u{6}not really".utf8).write(to: URL(fileURLWithPath: dir + "/work/bad.zip"))
            let bad = try Support.trailpack("verify-upload", "--directory", dir + "/work", "bad.zip")
            #expect(bad.status == 1, "\(bad.stderr)")
            #expect(try JSONParser.parse(Array(bad.stdout.utf8)).value["valid"] == .bool(false))
        }
    }
}
