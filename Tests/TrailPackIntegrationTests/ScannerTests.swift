import Foundation
import Testing
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

/// A scanner the operator can run: checked at start, its real error kept, held versions rescanned.
@Suite("server: malware scanner operations", .ownThreads, .serialized)
struct ScannerTests {
    static func json(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)).value }

    @Test(
        "a scanner without a signature database refuses the start with clamscan's own words and the fix",
        .needs(.clamscan, .timeout))
    func noDatabase() throws {
        try Support.withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir + "/empty-db", withIntermediateDirectories: true)
            let out = try Support.run(
                "timeout",
                [
                    "60", Support.binary, "serve", "--port", "0", "--data", dir + "/data", "--clamav-db",
                    dir + "/empty-db",
                ])
            #expect(out.status == 3, "\(out.status) \(out.stderr)")
            #expect(out.stderr.contains("No supported database files found"), "the real cause is kept: \(out.stderr)")
            #expect(
                out.stderr.contains("freshclam") && out.stderr.contains("--clamav-db")
                    && out.stderr.contains("--no-malware-scan"), "\(out.stderr)")
        }
    }

    @Test(
        "--no-malware-scan --approvals 0 releases an upload at once; the audit log says it was not scanned by the operator's choice",
        .needs(.curl))
    func noScanReleases() throws {
        try Support.withTemporaryDirectory { dir in
            let token = ServeProcess.token
            try token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let server = try ServeProcess.launch([
                "--data", dir + "/data", "--admin-token-file", dir + "/token", "--approvals", "0", "--no-malware-scan",
            ])
            defer { server.stop() }
            let pkg = try Support.buildFixture("family-hikes", into: dir)
            let up = try ServeProcess.curl([
                "-w", "\n%{http_code}", "-H", "Authorization: Bearer \(token)", "--data-binary", "@" + pkg,
                server.base + "/v1/admin/packages",
            ])
            let lines = up.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.last == "201", "\(up.stdout)")
            let answer = try Self.json(lines.dropLast().joined(separator: "\n"))
            #expect(answer["state"]?["status"] == .string("released"))
            #expect(answer["state"]?["scan"]?["status"] == .string("not-scanned"))
            #expect(
                try ServeProcess.siteIDs(ServeProcess.curl([server.base + "/v1/sites"]).stdout).contains(
                    "willamette-mckenzie-river"))
            let audit = try ServeProcess.curl(["-H", "Authorization: Bearer \(token)", server.base + "/v1/admin/audit"])
                .stdout
            let entries = try #require(try Self.json(audit)["entries"]?.array, "\(audit)")
            #expect(
                entries.contains { ($0["detail"]?.string ?? "").contains("not scanned (operator's choice") }, "\(audit)"
            )
        }
    }

    @Test(
        "a held version keeps clamscan's real error; the same bytes again, admin rescan --held, and the rescan action scan it again",
        .needs(.curl, .clamscan))
    func heldAndRescanned() throws {
        try Support.withTemporaryDirectory { dir in
            try Support.copyTree(TestClamAV.database, dir + "/db")
            let s = try WorkflowTests.setUp(dir, extra: ["--clamav-db", dir + "/db"])
            defer { s.server.stop() }
            let dbFiles = try FileManager.default.contentsOfDirectory(atPath: dir + "/db")
            for name in dbFiles {
                try FileManager.default.moveItem(atPath: dir + "/db/" + name, toPath: dir + "/" + name)
            }
            func restoreDB() throws {
                for name in dbFiles {
                    try FileManager.default.copyItem(atPath: dir + "/" + name, toPath: dir + "/db/" + name)
                }
            }
            func removeDB() throws {
                for name in dbFiles { try FileManager.default.removeItem(atPath: dir + "/db/" + name) }
            }
            // Held, with the scanner's own words and the way out.
            let pkg = try Support.buildFixture("family-hikes", into: dir)
            let first = try s.curl("POST", "/v1/admin/packages", as: "maria", file: pkg)
            #expect(first.0 == 201, "\(first)")
            let held = try Self.json(first.1)
            #expect(held["state"]?["scan"]?["status"] == .string("held"))
            guard case .string(let detail)? = held["state"]?["scan"]?["detail"],
                case .array(let next)? = held["state"]?["next"]
            else { Issue.record("\(first.1)"); return }
            #expect(detail.contains("No supported database files found"), "\(detail)")
            #expect(next.contains { if case .string(let t) = $0 { t.contains("rescan") } else { false } }, "\(next)")
            // The scanner works again: the same bytes again are scanned again.
            try restoreDB()
            let again = try s.curl("POST", "/v1/admin/packages", as: "maria", file: pkg)
            #expect(again.0 == 200, "\(again)")
            #expect(try Self.json(again.1)["state"]?["scan"]?["status"] == .string("clean"), "\(again.1)")
            // Another version held, then rescanned by the admin command.
            try removeDB()
            let v4 = try ReleaseRulesTests.variant(dir, version: "4", tag: "v4")
            #expect(
                try Self.json(try s.curl("POST", "/v1/admin/packages", as: "maria", file: v4).1)["state"]?["scan"]?[
                    "status"] == .string("held"))
            let rescan = try Support.trailpack(
                "admin", "--data", dir + "/data", "rescan", "--held", "--clamav-db", TestClamAV.database)
            #expect(rescan.status == 0, "\(rescan.stdout) \(rescan.stderr)")
            #expect(rescan.stdout.contains("gov.usda.fs.willamette.family-hikes 4: held → clean"), "\(rescan.stdout)")
            // And a third through the API's rescan action (admins only).
            let v5 = try ReleaseRulesTests.variant(dir, version: "5", tag: "v5")
            #expect(try s.curl("POST", "/v1/admin/packages", as: "maria", file: v5).0 == 201)
            try restoreDB()
            let path = "/v1/admin/packages/\(WorkflowTests.id)/versions/5/rescan"
            #expect(try s.curl("POST", path, as: "maria").0 == 403)
            let api = try s.curl("POST", path, as: "root")
            let apiScan = try Self.json(api.1)["scan"]?["status"]
            #expect(api.0 == 200 && apiScan == .string("clean"), "\(api)")
            let audit = try s.curl("GET", "/v1/admin/audit", as: "root").1
            #expect(
                try Self.json(audit)["entries"]?.array?.contains { $0["action"] == .string("rescan") } == true,
                "\(audit)")
        }
    }
}

/// The admin command line, as docs/OPERATORS.md shows it.
@Suite("admin command line", .ownThreads)
struct AdminCLITests {
    @Test(
        "users: a repeated name, a secret key as public key, a bad role are usage errors in plain words; role changes; removal revokes tokens; token list"
    )
    func users() throws {
        try Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            func admin(_ args: String...) throws -> Support.Output {
                try Support.run(Support.binary, ["admin", "--data", data] + args)
            }
            /// What a listing that must succeed prints.
            func listing(_ args: String...) throws -> String {
                let out = try Support.run(Support.binary, ["admin", "--data", data] + args)
                #expect(out.status == 0, "admin \(args): exit \(out.status), \(out.stderr)")
                return out.stdout
            }
            #expect(
                try Support.trailpack(
                    "admin", "--data", data, "--create", "user", "add", "maria", "--role", "publisher"
                ).status == 0)
            let twice = try admin("user", "add", "maria", "--role", "reviewer")
            #expect(
                twice.status == 2 && twice.stderr.contains("already a user 'maria'")
                    && !twice.stderr.contains("SQLite"), "\(twice.stderr)")
            let badRole = try admin("user", "add", "x", "--role", "boss")
            #expect(badRole.status == 2, "\(badRole.stderr)")
            #expect(
                try Support.trailpack("keygen", "-s", dir + "/k.key", "-p", dir + "/k.pub", "--unencrypted").status == 0
            )
            let secret = try admin("user", "add", "ken", "--role", "reviewer", "--public-key", dir + "/k.key")
            #expect(
                secret.status == 2 && secret.stderr.contains("is a secret key"), "\(secret.status) \(secret.stderr)")
            #expect(try admin("user", "add", "ken", "--role", "reviewer", "--public-key", dir + "/k.pub").status == 0)
            #expect(try admin("user", "role", "ken", "admin").status == 0)
            #expect(try listing("user", "list").contains("ken\tadmin"))
            let issued = try admin("token", "issue", "maria")
            #expect(issued.status == 0)
            let id = String(issued.stdout.split(separator: "_")[1])
            #expect(try listing("token", "list").contains("\(id)\tmaria"))
            #expect(try admin("user", "remove", "maria").status == 0)
            #expect(try listing("token", "list").contains("revoked"))
            #expect(!(try listing("user", "list").contains("maria")))
            let gone = try admin("user", "remove", "maria")
            #expect(gone.status == 2 && gone.stderr.contains("there is no user 'maria'"), "\(gone.stderr)")
            let site = try admin("site", "rename", "nowhere", "Name")
            #expect(site.status == 2 && site.stderr.contains("no site 'nowhere'"), "\(site.stderr)")
        }
    }
}
