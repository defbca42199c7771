import Foundation
import Testing
import TrailPackCore
import TrailPackTestSupport

/// `trailpack diff` and the server's diff route (the comparison itself is tested in
/// TrailPackDiffTests).
@Suite("diff: the command and the server route", .ownThreads)
struct DiffCommandTests {
    static func editJSON(_ path: String, _ change: (inout [String: Any]) -> Void) throws {
        try Support.editJSON(path, change)
    }

    static func stop(_ tour: String, _ folder: String) -> String { "\(tour)/waypoints/\(folder)/waypoint.json" }

    @Test("trailpack diff prints the changes in words, and --json the report with the diff")
    func command() throws {
        try Support.withTemporaryDirectory { dir in
            try Support.copyTree(Support.fixture("santiam-wagon-road"), dir + "/v1")
            try Support.copyTree(Support.fixture("santiam-wagon-road"), dir + "/v2")
            try Self.editJSON(Self.stop(dir + "/v2", "05-tombstone-prairie")) {
                $0["name"] = "Tombstone <b>Prairie</b>"
            }
            for v in ["v1", "v2"] {
                #expect(try Support.trailpack("build", dir + "/" + v, "-o", dir + "/\(v).zip", "-q").status == 0)
            }
            let text = try Support.trailpack("diff", dir + "/v1.zip", dir + "/v2.zip")
            #expect(
                text.status == 0 && text.stdout.contains("renamed from \"Tombstone Prairie\""),
                "\(text.stdout)\(text.stderr)")
            let json = try Support.trailpack("diff", dir + "/v1.zip", dir + "/v2.zip", "--json")
            #expect(json.status == 0, "\(json.stderr)")
            let report = try JSONParser.parse(Array(json.stdout.utf8)).value
            #expect(
                report["command"] == .string("diff") && report["changed"] == .bool(true) && report["ok"] == .bool(true))
            guard case .array(let stops)? = report["diff"]?["stops"] else {
                Issue.record("no stops in \(json.stdout)")
                return
            }
            #expect(stops.count == 1 && stops[0]["oldName"] == .string("Tombstone Prairie"))
            let missing = try Support.trailpack("diff", dir + "/v1.zip", dir + "/nothing.zip")
            #expect(missing.status == 3, "\(missing.stderr)")
            let notZip = try Support.trailpack("diff", dir + "/v1.zip", dir + "/v1/tour.json")
            #expect(notZip.status == 1 || notZip.status == 3, "\(notZip.status) \(notZip.stderr)")
        }
    }

    @Test(
        "GET /v1/admin/packages/{id}/versions/{v}/diff compares with the latest released version (or ?against=) and needs a token",
        .needs(.curl))
    func serverRoute() throws {
        try Support.withTemporaryDirectory { dir in
            try Support.copyTree(Support.fixture("santiam-wagon-road"), dir + "/v1")
            try Support.copyTree(Support.fixture("santiam-wagon-road"), dir + "/v2")
            try Self.editJSON(dir + "/v2/tour.json") { $0["version"] = "1.1.0" }
            try Self.editJSON(Self.stop(dir + "/v2", "05-tombstone-prairie")) {
                $0["name"] = "Tombstone Prairie Meadow"
            }
            for v in ["v1", "v2"] {
                #expect(try Support.trailpack("build", dir + "/" + v, "-o", dir + "/\(v).zip", "-q").status == 0)
            }
            let server = try ServerLimitsTests.launch(dir, [])
            defer { server.stop() }
            let auth = "Authorization: Bearer \(ServerLimitsTests.token)"
            let id = "gov.usda.fs.willamette.santiam-wagon-road"
            func get(_ path: String, token: Bool = true) throws -> (String, JSONValue?) {
                let out = try ServeProcess.curl(
                    (token ? ["-H", auth] : []) + ["-s", "-w", "\n%{http_code}", server.base + path])
                let body = out.stdout.split(separator: "\n").dropLast().joined(separator: "\n")
                return (
                    String(out.stdout.split(separator: "\n").last ?? ""), try? JSONParser.parse(Array(body.utf8)).value
                )
            }
            for v in ["v1", "v2"] {
                let up = try ServeProcess.curl([
                    "-o", "/dev/null", "-w", "%{http_code}", "-H", auth, "--data-binary", "@\(dir)/\(v).zip",
                    server.base + "/v1/admin/packages",
                ])
                #expect(up.stdout == "201")
            }
            let (status, diff) = try get("/v1/admin/packages/\(id)/versions/1.1.0/diff")
            #expect(status == "200")
            #expect(
                diff?["old"]?["version"] == .string("1.0.0") && diff?["new"]?["version"] == .string("1.1.0")
                    && diff?["firstRelease"] == .bool(false))
            guard case .array(let stops)? = diff?["stops"] else {
                Issue.record("no stops: \(String(describing: diff))")
                return
            }
            #expect(stops.count == 1 && stops[0]["oldName"] == .string("Tombstone Prairie"))
            let (firstStatus, first) = try get("/v1/admin/packages/\(id)/versions/1.0.0/diff?against=1.1.0")
            #expect(firstStatus == "200" && first?["old"]?["version"] == .string("1.1.0"))
            let (_, only) = try get("/v1/admin/packages/\(id)/versions/1.0.0/diff")
            #expect(only?["old"]?["version"] == .string("1.1.0"), "the latest released version other than this one")
            #expect(try get("/v1/admin/packages/\(id)/versions/1.1.0/diff?against=9.9.9").0 == "404")
            #expect(try get("/v1/admin/packages/\(id)/versions/1.1.0/diff", token: false).0 == "401")
        }
    }
}
