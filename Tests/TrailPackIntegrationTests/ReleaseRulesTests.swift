import Foundation
import Testing
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

/// What the public sees changes only by a release; package ids belong to sites; versions are unique.
@Suite("server: release rules", .ownThreads, .needs(.curl, .clamscan), .serialized)
struct ReleaseRulesTests {
    static let id = WorkflowTests.id
    static let path = WorkflowTests.versionPath

    /// family-hikes with another version and, optionally, another site name or site id; built into `dir`.
    static func variant(
        _ dir: String, version: String, siteName: String? = nil, siteID: String? = nil,
        fixture: String = "family-hikes", tag: String
    ) throws -> String {
        let tour = dir + "/" + tag
        try Support.copyTree(Support.fixture(fixture), tour)
        var text = try String(contentsOfFile: tour + "/tour.json", encoding: .utf8)
        let doc = try JSONParser.parse(Array(text.utf8)).value
        guard case .string(let oldVersion)? = doc["version"], case .string(let oldName)? = doc["site"]?["name"],
            case .string(let oldSite)? = doc["site"]?["id"]
        else {
            throw ServeProcess.CLIFailure("unexpected tour.json")
        }
        text = text.replacingOccurrences(of: "\"version\": \"\(oldVersion)\"", with: "\"version\": \"\(version)\"")
        if let siteName {
            text = text.replacingOccurrences(of: "\"name\": \"\(oldName)\"", with: "\"name\": \"\(siteName)\"")
        }
        if let siteID { text = text.replacingOccurrences(of: "\"id\": \"\(oldSite)\"", with: "\"id\": \"\(siteID)\"") }
        try text.write(toFile: tour + "/tour.json", atomically: true, encoding: .utf8)
        let out = dir + "/" + tag + ".zip"
        let build = try Support.trailpack("build", tour, "-o", out, "-q")
        #expect(build.status == 0, "\(build.stderr)")
        return out
    }

    /// A token for `user`, issued by the admin command (which must succeed).
    static func issueToken(_ user: String, data: String) throws -> String {
        let issued = try Support.trailpack("admin", "--data", data, "token", "issue", user)
        #expect(issued.status == 0, "token issue \(user): \(issued.stderr)")
        return issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func release(_ s: WorkflowTests.Setup, _ versionPath: String) throws {
        #expect(try s.curl("POST", versionPath + "/start", as: "maria").0 == 200)
        #expect(try s.curl("POST", versionPath + "/approve", as: "ken").0 == 200)
        #expect(try s.curl("POST", versionPath + "/approve", as: "lee").0 == 200)
        let push = try s.curl("POST", versionPath + "/push", as: "maria")
        #expect(push.0 == 200, "\(push)")
    }

    static func siteName(_ s: WorkflowTests.Setup, _ site: String) throws -> String? {
        let doc = try JSONParser.parse(Array(try s.curl("GET", "/v1/sites", as: nil).1.utf8)).value
        guard case .array(let sites)? = doc["sites"] else { return nil }
        for entry in sites where entry["id"] == .string(site) {
            if case .string(let name)? = entry["name"] { return name }
        }
        return nil
    }

    @Test("a draft's site name is invisible until it is released; an admin's site name is never replaced by a release")
    func draftSiteName() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try WorkflowTests.setUp(dir)
            defer { s.server.stop() }
            let pkg = try Support.buildFixture("family-hikes", into: dir)
            #expect(try s.curl("POST", "/v1/admin/packages", as: "maria", file: pkg).0 == 201)
            try Self.release(s, Self.path)
            #expect(try Self.siteName(s, "willamette-mckenzie-river") == "McKenzie River Ranger District")
            let hacked = try Self.variant(dir, version: "4", siteName: "HACKED by a draft", tag: "hacked")
            #expect(try s.curl("POST", "/v1/admin/packages", as: "maria", file: hacked).0 == 201)
            #expect(
                try Self.siteName(s, "willamette-mckenzie-river") == "McKenzie River Ranger District",
                "a draft changed a public name")
            try Self.release(s, "/v1/admin/packages/\(Self.id)/versions/4")
            #expect(
                try Self.siteName(s, "willamette-mckenzie-river") == "HACKED by a draft", "a release names the site")
            // An admin's name stands.
            let rename = try Support.trailpack(
                "admin", "--data", dir + "/data", "site", "rename", "willamette-mckenzie-river", "McKenzie River RD")
            #expect(rename.status == 0, "\(rename.stderr)")
            let v5 = try Self.variant(dir, version: "5", siteName: "Another name", tag: "v5")
            #expect(try s.curl("POST", "/v1/admin/packages", as: "maria", file: v5).0 == 201)
            try Self.release(s, "/v1/admin/packages/\(Self.id)/versions/5")
            #expect(try Self.siteName(s, "willamette-mckenzie-river") == "McKenzie River RD")
        }
    }

    @Test(
        "versions are unique after normalisation: 3.0 after 3 is 409 naming the existing one; the list shows the package once"
    )
    func normalisedVersions() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try WorkflowTests.setUp(dir)
            defer { s.server.stop() }
            let pkg = try Support.buildFixture("family-hikes", into: dir)
            #expect(try s.curl("POST", "/v1/admin/packages", as: "maria", file: pkg).0 == 201)
            let same = try Self.variant(dir, version: "3.0.0", tag: "three")
            let r = try s.curl("POST", "/v1/admin/packages", as: "maria", file: same)
            #expect(
                try r.0 == 409 && WorkflowTests.message(r.1).contains("version 3 (the same version number as 3.0.0)"),
                "\(r)")
            try Self.release(s, Self.path)
            let list = try JSONParser.parse(
                Array(try s.curl("GET", "/v1/sites/willamette-mckenzie-river/packages", as: nil).1.utf8)
            ).value
            guard case .array(let packages)? = list["packages"] else { Issue.record("no list"); return }
            #expect(packages.count == 1)
        }
    }

    @Test("package ids belong to granted sites: an ungranted publisher, and another site's package id, get 403")
    func grants() throws {
        try Support.withTemporaryDirectory { dir in
            let s = try WorkflowTests.setUp(dir)
            defer { s.server.stop() }
            let data = dir + "/data"
            #expect(
                try Support.trailpack("admin", "--data", data, "user", "add", "nina", "--role", "publisher").status == 0
            )
            #expect(
                try Support.trailpack("admin", "--data", data, "grant", "nina", "colorado-peak-checklists").status == 0)
            var t = s
            t.tokens["nina"] = try Self.issueToken("nina", data: data)
            let pkg = try Support.buildFixture("family-hikes", into: dir)
            let refused = try t.curl("POST", "/v1/admin/packages", as: "nina", file: pkg)
            #expect(
                try refused.0 == 403
                    && WorkflowTests.message(refused.1).contains("admin grant nina willamette-mckenzie-river"),
                "\(refused)")
            #expect(try t.curl("POST", "/v1/admin/packages", as: "maria", file: pkg).0 == 201)
            // nina's own site, but maria's package id: it cannot move sites.
            let moved = try Self.variant(dir, version: "4", siteID: "colorado-peak-checklists", tag: "moved")
            let r = try t.curl("POST", "/v1/admin/packages", as: "nina", file: moved)
            #expect(
                try r.0 == 403 && WorkflowTests.message(r.1).contains("belongs to site 'willamette-mckenzie-river'"),
                "\(r)")
            // Revoked grant: refused again.
            #expect(
                try Support.trailpack("admin", "--data", data, "revoke", "maria", "willamette-mckenzie-river").status
                    == 0)
            let v4 = try Self.variant(dir, version: "4", tag: "v4")
            #expect(try t.curl("POST", "/v1/admin/packages", as: "maria", file: v4).0 == 403)
        }
    }

    @Test(
        "a second approval is 409 unless it adds a signature, which is then stored; the bootstrap admin token cannot approve"
    )
    func reapproval() throws {
        try Support.withTemporaryDirectory { dir in
            let token = "bootstrap-admin-token-0123456789"
            try token.write(toFile: dir + "/admin.token", atomically: true, encoding: .utf8)
            var s = try WorkflowTests.setUp(dir, extra: ["--admin-token-file", dir + "/admin.token"])
            defer { s.server.stop() }
            s.tokens["bootstrap"] = token
            let pkg = try Support.buildFixture("family-hikes", into: dir)
            #expect(try s.curl("POST", "/v1/admin/packages", as: "maria", file: pkg).0 == 201)
            #expect(try s.curl("POST", Self.path + "/start", as: "maria").0 == 200)
            let boot = try s.curl("POST", Self.path + "/approve", as: "bootstrap")
            #expect(try boot.0 == 403 && WorkflowTests.message(boot.1).contains("bootstrap admin token"), "\(boot)")
            #expect(try s.curl("POST", Self.path + "/approve", as: "ken").0 == 200)
            let again = try s.curl("POST", Self.path + "/approve", as: "ken")
            #expect(try again.0 == 409 && WorkflowTests.message(again.1).contains("already approved"), "\(again)")
            #expect(try Support.trailpack("sign", pkg, "-s", dir + "/ken.key", "-o", dir + "/ken.minisig").status == 0)
            let sig = try String(contentsOfFile: dir + "/ken.minisig", encoding: .utf8)
            let body = String(
                decoding: JSONWriter.bytes(.object(["signature": .string(sig)]), pretty: false), as: UTF8.self)
            let signed = try s.curl("POST", Self.path + "/approve", as: "ken", body: body)
            #expect(signed.0 == 200, "\(signed)")
            #expect(try s.curl("POST", Self.path + "/approve", as: "ken", body: body).0 == 409, "signed twice")
            #expect(try s.curl("POST", Self.path + "/approve", as: "lee").0 == 200)
            #expect(try s.curl("POST", Self.path + "/push", as: "maria").0 == 200)
            let sigs = try JSONParser.parse(
                Array(try s.curl("GET", "/v1/packages/\(Self.id)/versions/3/signatures", as: nil).1.utf8)
            ).value
            guard case .array(let list)? = sigs["signatures"] else { Issue.record("no signatures"); return }
            #expect(
                list.count == 1 && list.first?["reviewer"] == .string("ken") && list.first?["minisig"] == .string(sig))
        }
    }

    @Test(
        "reviewers and the publisher download and preview a version under review with their token, never publicly cached; others get 404/403",
        .needs(.sha256sum))
    func reviewAccess() throws {
        try Support.withTemporaryDirectory { dir in
            var s = try WorkflowTests.setUp(dir)
            defer { s.server.stop() }
            let data = dir + "/data"
            #expect(
                try Support.trailpack("admin", "--data", data, "user", "add", "nina", "--role", "publisher").status == 0
            )
            s.tokens["nina"] = try Self.issueToken("nina", data: data)
            let pkg = try Support.buildFixture("family-hikes", into: dir)
            let sha = try ServerFixtures.sha(pkg)
            #expect(try s.curl("POST", "/v1/admin/packages", as: "maria", file: pkg).0 == 201)
            #expect(try s.curl("POST", Self.path + "/start", as: "maria").0 == 200)
            for user in ["ken", "maria"] {
                let out = try Support.run(
                    "curl",
                    [
                        "-s", "-D", dir + "/headers", "-o", dir + "/got.zip", "-w", "%{http_code}", "-H",
                        "Authorization: Bearer \(s.tokens[user]!)",
                        s.base + "/v1/blobs/\(sha).zip",
                    ])
                #expect(out.status == 0 && out.stdout == "200", "\(user): \(out.status) \(out.stdout)")
                #expect(try ServerFixtures.sha(dir + "/got.zip") == sha)
                #expect(
                    try String(contentsOfFile: dir + "/headers", encoding: .utf8).lowercased().contains(
                        "cache-control: private, no-store"))
                let manifest = try s.curl("GET", "/v1/packages/\(Self.id)/versions/3/manifest", as: user)
                #expect(
                    try manifest.0 == 200 && JSON.parse(manifest.1)["id"] == .string(Self.id), "\(user): \(manifest)")
            }
            #expect(try s.curl("GET", "/v1/blobs/\(sha).zip", as: nil).0 == 404)
            #expect(try s.curl("GET", "/v1/packages/\(Self.id)/versions/3/manifest", as: nil).0 == 404)
            #expect(try s.curl("GET", "/v1/blobs/\(sha).zip", as: "nina").0 == 403, "another publisher")
        }
    }
}
