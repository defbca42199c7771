import Foundation
import Testing
import TrailPackCatalog
import TrailPackCatalogModel
import TrailPackCore
import TrailPackTestSupport

/// `trailpack admin site frame` and `site map`: what the admin page does, from the command line,
/// with the same catalog calls, checks and words.
@Suite("admin: sites and mail addresses from the command line", .ownThreads)
struct SiteAdminTests {
    @Test(
        "a home frame set with --bounds, read back, taken away with --remove; a region map checked and put in place; mistakes refused in words with nothing changed; both audited"
    )
    func frameAndMap() async throws {
        try await Support.withTemporaryDirectory { dir in
            let data = dir + "/data", site = "willamette-sweet-home"
            func admin(_ arguments: String...) throws -> Support.Output {
                try Support.run(Support.binary, ["admin", "--data", data] + arguments)
            }
            #expect(try admin("--create", "site", "add", site, "Sweet Home Ranger District").status == 0)
            let set = try admin("--json", "site", "frame", site, "--bounds=-122.3,44.35,-122.1,44.45")
            #expect(set.status == 0, "\(set.stderr)")
            let said = try JSON.parse(set.stdout)["results"]?.array?.first?["frame"]?.array?.compactMap {
                if case .number(let n) = $0 { n.double } else { nil }
            }
            #expect(said == [-122.3, 44.35, -122.1, 44.45], "\(set.stdout)")
            let frame = try #require(try await SQLiteCatalog(path: data + "/catalog.sqlite").siteFrame(id: site))
            #expect(frame.southwest.latitude == 44.35 && frame.southwest.longitude == -122.3)
            #expect(frame.northeast.latitude == 44.45 && frame.northeast.longitude == -122.1)

            for (arguments, words) in [
                (["site", "frame", site], "--bounds=W,S,E,N, or --remove"),
                (["site", "frame", site, "--bounds=-122.3,44.35,-122.1,44.45", "--remove"], "one of them"),
                (["site", "frame", site, "--bounds=-122.3,44.5,-122.1,44.4"], "south below north"),
                (["site", "frame", site, "--bounds=a,b,c,d"], "four numbers W,S,E,N"),
                (["site", "frame", "no-such-site", "--remove"], "there is no site 'no-such-site'"),
            ] {
                let refused = try Support.run(Support.binary, ["admin", "--data", data] + arguments)
                #expect(refused.status == 2 && refused.stderr.contains(words), "\(arguments): \(refused.stderr)")
            }
            #expect(try await SQLiteCatalog(path: data + "/catalog.sqlite").siteFrame(id: site) == frame)

            let removed = try admin("site", "frame", site, "--remove")
            #expect(removed.status == 0 && removed.stdout.contains("no home frame"), "\(removed.stderr)")
            #expect(try await SQLiteCatalog(path: data + "/catalog.sqlite").siteFrame(id: site) == nil)

            // The region map: a file that is not a map refused and nothing put in place; the fixture taken.
            try "not a map".write(toFile: dir + "/notes.pmtiles", atomically: true, encoding: .utf8)
            let wrong = try admin("site", "map", site, dir + "/notes.pmtiles")
            #expect(
                wrong.status == 2 && wrong.stderr.contains("is not a PMTiles map the panel can read"), "\(wrong.stderr)"
            )
            #expect(!FileManager.default.fileExists(atPath: data + "/site-maps/\(site).pmtiles"))
            let fixture = Support.fixture("santiam-wagon-road") + "/map/santiam-wagon-road.pmtiles"
            let given = try admin("site", "map", site, fixture)
            #expect(given.status == 0 && given.stdout.contains("zoom 8–13"), "\(given.stderr)")
            #expect(try Support.read(data + "/site-maps/\(site).pmtiles") == (try Support.read(fixture)))
            #expect(try FileManager.default.contentsOfDirectory(atPath: data + "/site-maps") == ["\(site).pmtiles"])

            let log = try await SQLiteCatalog(path: data + "/catalog.sqlite").auditLog(after: 0, limit: 100)
                .filter { $0.action == "site-frame" || $0.action == "site-map" }
            #expect(
                log.map(\.detail) == [
                    "\(site): home frame -122.3,44.35,-122.1,44.45 (W,S,E,N)",
                    "\(site): no home frame; the map follows its tours",
                    "\(site): region map 'santiam-wagon-road.pmtiles' (zoom 8 to 13)",
                ], "\(log)")
        }
    }

    @Test("a user's mail address set and taken away from the command line; a text that is not a plain address refused")
    func mailAddress() async throws {
        try await Support.withTemporaryDirectory { dir in
            let data = dir + "/data"
            func admin(_ arguments: String...) throws -> Support.Output {
                try Support.run(Support.binary, ["admin", "--data", data] + arguments)
            }
            #expect(try admin("--create", "user", "add", "ken", "--role", "reviewer").status == 0)
            let set = try admin("user", "email", "ken", "ken@example.org")
            #expect(set.status == 0 && set.stdout.contains("ken has a new mail address"), "\(set.stderr)")
            #expect(
                try await SQLiteCatalog(path: data + "/catalog.sqlite").emailAddresses() == ["ken": "ken@example.org"])
            for (arguments, words) in [
                (["user", "email", "ken", "ken at example.org"], "is not a plain mail address"),
                (["user", "email", "ken"], "either an ADDRESS or --remove"),
                (["user", "email", "ken", "k@example.org", "--remove"], "either an ADDRESS or --remove"),
                (["user", "email", "nobody", "n@example.org"], "nobody"),
            ] {
                let refused = try Support.run(Support.binary, ["admin", "--data", data] + arguments)
                #expect(refused.status == 2 && refused.stderr.contains(words), "\(arguments): \(refused.stderr)")
            }
            let removed = try admin("user", "email", "ken", "--remove")
            #expect(removed.status == 0 && removed.stdout.contains("ken gets no mail"), "\(removed.stderr)")
            #expect(try await SQLiteCatalog(path: data + "/catalog.sqlite").emailAddresses().isEmpty)
        }
    }
}
