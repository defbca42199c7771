import Foundation
import Testing
import TrailPackBlocking
import TrailPackBuilder
import TrailPackCore
import TrailPackTestSupport

@testable import TrailPackPanel

/// The tours page's list of drafts, kept between requests: the panel's own changes show on the next
/// list; a change made elsewhere shows after the next pass over the folders (every 2 s in the
/// background while the page is in use), which reads only the drafts whose stamps moved.
@Suite("panel: the list of drafts", .ownThreads)
struct PanelDraftListTests {
    @Test("a name, a stop, a draft added or removed by hand: the kept list answers until a pass, which sees them all")
    func passSeesOutsideChanges() async throws {
        try await PanelTourDraftLanguageTests.withFixtureDraft { store, key, folder in
            let site = [key.site]
            var list = store.list(sites: site)
            #expect(list.map(\.name) == ["Santiam Wagon Road"] && list.first?.stops == 8)
            // Edited by hand (or by another instance): the same size would not hide it (the change time moves).
            try Support.editJSON(folder + "/tour.json") { tour in
                tour["name"] = ["en": "Santiam Wagon Trail", "es": "Camino de Carretas de Santiam"]
                tour["version"] = "1.1.0"
            }
            try FileManager.default.copyItem(
                atPath: folder + "/waypoints/08-cache-creek-toll-station", toPath: folder + "/waypoints/09-more")
            // The kept list answers without reading the folders (this is what makes the page fast) …
            #expect(store.list(sites: site).first?.name == "Santiam Wagon Road")
            // … until the pass the background runs every 2 s.
            store.rescan(sites: site)
            list = store.list(sites: site)
            #expect(list.first?.name == "Santiam Wagon Trail" && list.first?.version == "1.1.0")
            #expect(list.first?.stops == 9)
            // Unchanged: the same answer from the stamps alone.
            store.rescan(sites: site)
            #expect(store.list(sites: site).map(\.name) == list.map(\.name))
            let second = (folder as NSString).deletingLastPathComponent + "/second-tour"
            try Support.copyTree(folder, second)
            store.rescan(sites: site)
            #expect(store.list(sites: site).map(\.key.tour) == ["santiam-wagon-road", "second-tour"])
            try FileManager.default.removeItem(atPath: second)
            store.rescan(sites: site)
            #expect(store.list(sites: site).map(\.key.tour) == ["santiam-wagon-road"])
        }
    }

    @Test(
        "the panel's own changes (a save, a new draft, a rename, a copy, a deletion) show on the very next list, without a pass"
    )
    func ownChangesShowAtOnce() async throws {
        try await PanelTourDraftLanguageTests.withFixtureDraft { store, key, _ in
            let site = [key.site]
            #expect(store.list(sites: site).map(\.name) == ["Santiam Wagon Road"])
            let saver = DraftStore.Saver(user: "ranger", session: "s")
            _ = try await store.update(key, revision: nil, by: saver) { draft in draft.version = "2.0.0" }
            #expect(store.list(sites: site).first?.version == "2.0.0")

            let fresh = try #require(DraftStore.Key(site: key.site, tour: "lava-beds"))
            var draft = TourDraft()
            draft.name = "Lava Beds"
            draft.id = "\(key.site).lava-beds"
            draft.version = "1.0.0"
            _ = try await store.create(fresh, draft: draft)
            #expect(store.list(sites: site).map(\.key.tour) == ["lava-beds", "santiam-wagon-road"])

            let renamed = try #require(DraftStore.Key(site: key.site, tour: "wagon-road"))
            try await store.rename(key, to: renamed, name: "The Wagon Road", by: saver)
            #expect(store.list(sites: site).map(\.key.tour) == ["lava-beds", "wagon-road"])
            #expect(store.list(sites: site).last?.name == "The Wagon Road")

            let copy = try #require(DraftStore.Key(site: key.site, tour: "a-copy"))
            try await store.duplicate(renamed, as: copy, name: "A Copy", by: saver)
            #expect(store.list(sites: site).map(\.key.tour) == ["a-copy", "lava-beds", "wagon-road"])

            _ = try await store.delete(fresh)
            let list = store.list(sites: site)
            #expect(list.map(\.key.tour) == ["a-copy", "wagon-road"])
            #expect(list.map(\.name) == ["A Copy", "The Wagon Road"])
            // And a pass over the folders agrees with what the marks gave.
            store.rescan(sites: site)
            #expect(store.list(sites: site).map(\.name) == list.map(\.name))
        }
    }

    @Test(
        "the background pass runs by itself while the list is in use: a folder copied in by hand shows without any write by the panel"
    )
    func backgroundPassRuns() async throws {
        let data = NSTemporaryDirectory() + "draft-list-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: data) }
        let store = DraftStore(
            dataFolder: data, pool: BlockingPool(name: "test-drafts", threads: 2), listFreshness: .milliseconds(20))
        let key = try #require(DraftStore.Key(site: "willamette-sweet-home", tour: "santiam-wagon-road"))
        try FileManager.default.createDirectory(
            atPath: data + "/drafts/willamette-sweet-home", withIntermediateDirectories: true)
        #expect(store.list(sites: [key.site]).isEmpty)
        try Support.copyTree(Support.fixture("santiam-wagon-road"), store.folder(key))
        // Waits for the event (a pass having run), not for a time: the deadline only ends a hung test.
        // The kept list is read as it is (a list could read the folders itself when the kept one is old).
        let deadline = ContinuousClock.now + .seconds(120)
        var kept: [String] = []
        // (A pass during the copy may see the folder before its tour.json: it lists the folder's name,
        // and the next pass the tour's.)
        while kept != ["Santiam Wagon Road"] && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
            kept = store.kept.withLock { $0.sites[key.site]?.drafts.values.map(\.name) ?? [] }
        }
        #expect(kept == ["Santiam Wagon Road"])
        #expect(store.list(sites: [key.site]).map(\.name) == ["Santiam Wagon Road"])
    }

    @Test(
        "a site's usage counts every file of its drafts and of what was set aside, a file with several hard links once"
    )
    func usageCountsLinksOnce() throws {
        let data = NSTemporaryDirectory() + "draft-usage-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: data) }
        let store = DraftStore(dataFolder: data, pool: BlockingPool(name: "test-drafts", threads: 1))
        let site = "willamette-sweet-home"
        let one = data + "/drafts/\(site)/one", two = data + "/drafts/\(site)/two/waypoints/01-start"
        let aside = data + "/drafts-removed/\(site)/old"
        for folder in [one, two, aside, data + "/drafts/other-site"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try Support.write(Array(repeating: 1, count: 1000), to: one + "/a.mp4")
        try Support.write(Array(repeating: 2, count: 300), to: two + "/b.png")
        try Support.write(Array(repeating: 3, count: 20), to: aside + "/c.txt")
        try Support.write(Array(repeating: 4, count: 5000), to: data + "/drafts/other-site/d.bin")
        #expect(store.usage(site: site) == 1320)
        // The same file by three names, one of them set aside: its bytes are on the disk once.
        #expect(link(one + "/a.mp4", two + "/a.mp4") == 0 && link(one + "/a.mp4", aside + "/a.mp4") == 0)
        #expect(store.usage(site: site) == 1320)
        // A link not followed, a copy counted.
        #expect(symlink(data + "/drafts/other-site/d.bin", one + "/d.bin") == 0)
        try FileManager.default.copyItem(atPath: two + "/b.png", toPath: one + "/b.png")
        #expect(store.usage(site: site) == 1620)
        #expect(store.usage(site: "../drafts") == 0 && store.usage(site: "nowhere") == 0)
    }
}
