import Foundation
import Testing
import TrailPackCore
import TrailPackPanel
import TrailPackTestSupport

/// The tours page's list of drafts: read from the folders once, then only `stat`ed; any change to a
/// draft's `tour.json` or to its stops' folder is seen on the next list, whoever made it.
@Suite("panel: the list of drafts", .ownThreads)
struct PanelDraftListTests {
    @Test("a changed name, an added stop, a new draft and a removed one show on the next list")
    func listSeesChanges() async throws {
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
            list = store.list(sites: site)
            #expect(list.first?.name == "Santiam Wagon Trail" && list.first?.version == "1.1.0")
            #expect(list.first?.stops == 9)
            // Unchanged: the same answer from the stamps alone.
            #expect(store.list(sites: site).map(\.name) == list.map(\.name))
            let second = (folder as NSString).deletingLastPathComponent + "/second-tour"
            try Support.copyTree(folder, second)
            #expect(store.list(sites: site).map(\.key.tour).sorted() == ["santiam-wagon-road", "second-tour"])
            try FileManager.default.removeItem(atPath: second)
            #expect(store.list(sites: site).map(\.key.tour) == ["santiam-wagon-road"])
        }
    }
}
