import Foundation
import Testing
import TrailPackBuilder
import TrailPackCore
import TrailPackTestSupport

@testable import TrailPackPanel

/// The editor's and the stop pages' plan of a draft, kept until the folder changes: shown again
/// unchanged, the folder is not planned again; any change to a file the plan reads plans it again.
@Suite("panel: plans kept by the folder's revision", .ownThreads)
struct PanelPlansTests {
    @Test("unchanged: planned once; a stop's file, tour.json replaced, the route file or a new stop: planned again")
    func keptUntilChanged() async throws {
        try await PanelTourDraftLanguageTests.withFixtureDraft { store, key, folder in
            let plans = PanelPlans()
            var planned = 0
            func findings() throws -> [Finding] {
                try plans.folder(key, at: folder).findings {
                    planned += 1
                    return try TourBuilder.plan(folder, budget: .default, hashAssets: false).findings
                }
            }
            let first = try findings()
            #expect(try findings().map(\.message) == first.map(\.message))
            #expect(planned == 1)
            // The route is kept beside the findings, under the same revision.
            var routed = 0
            let draft = try TourDraft.read(folder: folder)
            func keptRoute() -> PanelPlans.RouteView? {
                plans.folder(key, at: folder).route {
                    routed += 1
                    return DraftsController.draftRoute(folder: folder, draft: draft)
                }
            }
            let line = try #require(keptRoute(), "the fixture has a route")
            #expect(keptRoute()?.route.summary.stops.count == line.route.summary.stops.count && routed == 1)

            let stop =
                folder + "/waypoints/"
                + (try #require(
                    try FileManager.default.contentsOfDirectory(atPath: folder + "/waypoints").sorted().first))
            try Data("More about the toll road.\n".utf8).write(to: URL(fileURLWithPath: stop + "/extra.md"))
            _ = try findings()
            #expect(planned == 2, "a file added to a stop")

            try Self.replaceTourJSON(folder)
            _ = try findings()
            #expect(planned == 3, "tour.json replaced with the same bytes")

            try Self.appendToRoute(folder)
            _ = try findings()
            #expect(planned == 4, "the route file changed")
            _ = keptRoute()
            #expect(routed == 2, "the route file changed")

            // Deep in a folder of its own: the plan walks the whole draft (a file no stop lists is a finding).
            try FileManager.default.createDirectory(atPath: folder + "/notes/old", withIntermediateDirectories: true)
            _ = try findings()
            #expect(planned == 5, "a folder made")
            try Data("draft\n".utf8).write(to: URL(fileURLWithPath: folder + "/notes/old/idea.txt"))
            _ = try findings()
            #expect(planned == 6, "a file deep in a folder")
            try FileManager.default.removeItem(atPath: folder + "/notes")

            try Support.copyTree(stop, folder + "/waypoints/99-another")
            _ = try findings()
            #expect(planned == 7, "a stop added (and the folder removed before)")
            _ = try findings()
            #expect(planned == 7)
            _ = store
        }
    }

    @Test("at most 64 drafts are kept, the ones shown last")
    func bounded() throws {
        let plans = PanelPlans()
        let folder = NSTemporaryDirectory() + "plans-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var planned = 0
        let keys = (0..<(PanelPlans.limit + 1)).map { DraftStore.Key(site: "site", tour: "tour-\($0)")! }
        for key in keys {
            _ = plans.folder(key, at: folder).findings {
                planned += 1; return []
            }
        }
        // The first one was let go for the 65th; the last 64 are still kept.
        for key in keys.dropFirst() {
            _ = plans.folder(key, at: folder).findings {
                planned += 1; return []
            }
        }
        #expect(planned == PanelPlans.limit + 1)
        _ = plans.folder(keys[0], at: folder).findings {
            planned += 1; return []
        }
        #expect(planned == PanelPlans.limit + 2)
    }

    @Test(
        "the revision saves are made against: the route, a file deep in a folder and a replaced tour.json change it; a hard link elsewhere (a duplicated draft) and a hidden file do not"
    )
    func revision() async throws {
        try await PanelTourDraftLanguageTests.withFixtureDraft { store, key, folder in
            var last = TourDraft.revision(folder: folder)
            #expect(TourDraft.revision(folder: folder) == last, "nothing changed")
            func changed() -> Bool {
                let now = TourDraft.revision(folder: folder)
                defer { last = now }
                return now != last
            }
            try Self.appendToRoute(folder)
            #expect(changed(), "the route beside tour.json (the old revision left it out)")
            try FileManager.default.createDirectory(atPath: folder + "/notes/old", withIntermediateDirectories: true)
            #expect(changed(), "a folder made")
            try Data("idea\n".utf8).write(to: URL(fileURLWithPath: folder + "/notes/old/idea.txt"))
            #expect(changed(), "a file deep in a folder")
            try Self.replaceTourJSON(folder)
            #expect(changed(), "tour.json replaced by the same bytes (a new inode)")
            // What does not change it: a hard link made elsewhere (its change time moves, not the file).
            let elsewhere = NSTemporaryDirectory() + "revision-link-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: elsewhere) }
            #expect(link(folder + "/tour.json", elsewhere) == 0)
            #expect(!changed(), "a hard link in another folder")
            try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/.DS_Store"))
            #expect(!changed(), "a hidden file")
            _ = store
            _ = key
        }
    }

    /// Adds a line to the route file beside `tour.json` (written in place).
    static func appendToRoute(_ folder: String) throws {
        let route = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("route.") })
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/" + route))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\n".utf8))
        try handle.close()
    }

    /// Replaces `tour.json` by the same bytes the way the panel writes it: a new file renamed over the old one.
    static func replaceTourJSON(_ folder: String) throws {
        let tour = try Data(contentsOf: URL(fileURLWithPath: folder + "/tour.json"))
        try tour.write(to: URL(fileURLWithPath: folder + "/tour.json.new"))
        #expect(rename(folder + "/tour.json.new", folder + "/tour.json") == 0)
    }

    @Test(
        "the builder's advice to cut a map on the command line reads, on the panel's pages, as the operator's task, naming no folder of the server"
    )
    func mapAdviceInRangersWords() throws {
        try Support.withTemporaryDirectory { dir in
            let tour = dir + "/tour"
            try Support.copyTree(Support.fixture("family-hikes"), tour)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: tour + "/map")) ?? []
            where name.hasSuffix(".pmtiles") {
                try FileManager.default.removeItem(atPath: tour + "/map/" + name)
            }
            let none = try #require(
                try TourBuilder.plan(tour, hashAssets: false).findings.first { $0.code == .mapNone })
            #expect(
                none.message.contains(
                    "'mkdir \(tour)/map && trailpack map extract SOURCE.pmtiles -o \(tour)/map/region.pmtiles --tour \(tour)"
                ))
            let words = PanelFinding.rangerWords(none.message)
            #expect(
                words.contains("the server's operator can cut one from a regional map with 'trailpack map extract'")
                    && !words.contains(dir), "\(words)")
        }
    }
}
