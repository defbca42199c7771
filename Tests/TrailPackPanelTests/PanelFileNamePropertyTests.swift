import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TrailPackBuilder
import TrailPackCore
import TrailPackCrypto
import TrailPackPanel
import TrailPackServer
import TrailPackTestSupport

/// Random sequences of imports and file actions with hostile names (and links and names planted in
/// a draft's own files), against a draft whose surroundings hold sentinel files: nothing outside the
/// draft (and the folder removed files go to) is ever read, moved or made.
///
/// Bounded by time: `TRAILPACK_PROPERTY_SECONDS` (15 by default, what `make test` runs); the seed is
/// printed and can be given back with `TRAILPACK_PROPERTY_SEED` to replay a run.
@Suite("panel: property — hostile names never reach outside a draft", .ownThreads)
struct PanelFileNamePropertyTests {
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {  // SplitMix64
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let hostile = [
        "../../../../../catalog.sqlite", "../../../../../../secret.txt", "../../../other/tour.json", "/etc/passwd",
        "..", ".", "", "a/b.png", "a\\b.png", "..\\..\\secret.txt", "C:secret.png", ".upload-x", ".hidden.png",
        "waypoint.json", "con.png", "x\u{0}.png", "x\n.png", "x.png.", "x.png ", "e\u{301}.png", "%2e%2e%2fsecret.txt",
        "x\u{202E}gnp.exe", String(repeating: "a", count: 300) + ".png", "~/secret.txt",
        String(repeating: "n", count: 251) + ".png", String(repeating: "é", count: 125) + ".png", "a//.\u{202E}",
    ]
    static let fine = ["view.png", "b.png", "Trail map.png", "café.png"]
    static let parts = [
        "..", ".", "a", "/", "\\", "%2e", "\u{0}", "\u{202E}", "con", "x.png", "é", "e\u{301}", " ", ":", "~",
    ]

    static func name(_ rng: inout Generator) -> String {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0..<4: return hostile.randomElement(using: &rng)!
        case 4..<7: return fine.randomElement(using: &rng)!
        default: return (0..<Int.random(in: 1...5, using: &rng)).map { _ in parts.randomElement(using: &rng)! }.joined()
        }
    }

    /// Every path under `root` but the draft's own folder (and its lock and last-save record beside
    /// it), removed files and the server's scratch space, with the bytes' digest of each file
    /// (SQLite's files: only that they are there).
    static func snapshot(_ root: String, draft: String) -> [String: String] {
        var out: [String: String] = [:]
        let beside = (draft as NSString).deletingLastPathComponent + "/." + (draft as NSString).lastPathComponent
        let own = [beside + ".lock", beside + ".saved"]
        func walk(_ rel: String) {
            let path = rel.isEmpty ? root : root + "/" + rel
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                let child = rel.isEmpty ? name : rel + "/" + name
                if child == draft || own.contains(child) || child.hasPrefix("data/drafts-removed")
                    || child.hasPrefix("data/tmp")
                {
                    continue
                }
                var info = stat()
                guard lstat(root + "/" + child, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR: out[child] = "folder"; walk(child)
                case S_IFREG:
                    out[child] =
                        name.hasPrefix("catalog.sqlite")
                        ? "sqlite" : SHA256.hash((try? Support.read(root + "/" + child)) ?? []).hex
                default: out[child] = "other"
                }
            }
        }
        walk("")
        return out
    }

    @Test("random sequences of uploads, renames, removals, downloads, planted names and links, and imports")
    func sequences() async throws {
        let seconds = Double(ProcessInfo.processInfo.environment["TRAILPACK_PROPERTY_SECONDS"] ?? "") ?? 15
        let seed =
            UInt64(ProcessInfo.processInfo.environment["TRAILPACK_PROPERTY_SEED"] ?? "")
            ?? UInt64.random(in: 1...UInt64.max)
        print("property test: seed \(seed), \(seconds) s (TRAILPACK_PROPERTY_SEED=\(seed) replays it)")
        try await PanelDraftTests.withPanel { server, panel, client in
            let site = PanelFileNameTests.site
            let ranger = try await PanelFlow.signIn(server, panel, site: site)
            let top = (server.folder.root as NSString).deletingLastPathComponent
            let secret: [UInt8] = Array("sentinel: not for rangers".utf8)
            try Support.write(secret, to: top + "/secret.txt")
            let other = server.folder.root + "/drafts/\(site)/other"
            try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
            try Support.write(PanelFileNameTests.tourJSON("Other"), to: other + "/tour.json")
            let sentinels = [
                secret, PanelFileNameTests.tourJSON("Other"), try Support.read(server.folder.root + "/catalog.sqlite"),
            ]

            var rng = Generator(state: seed)
            let started = Date()
            var (runs, actions, refused, accepted) = (0, 0, 0, 0)
            while Date().timeIntervalSince(started) < seconds {
                runs += 1
                let draft = try await PanelFlow.draftWithStop(client, ranger, name: "Walk \(runs)", stop: "Start")
                let draftRel = "data" + draft
                let folder = server.folder.root + draft
                let stop = folder + "/waypoints/01-start"
                let before = Self.snapshot(top, draft: draftRel)
                for _ in 0..<Int.random(in: 5...25, using: &rng) {
                    actions += 1
                    let revision = TourDraft.revision(folder: folder)
                    let status: HTTPResponse.Status
                    var served: [UInt8] = []
                    switch Int.random(in: 0..<7, using: &rng) {
                    case 0:
                        status = try await PanelFlow.upload(
                            client, ranger, draft + "/stops/1/files", name: Self.name(&rng), bytes: PanelFlow.png
                        ).0
                    case 1:
                        status = try await PanelFlow.post(
                            client, ranger, draft + "/stops/1/rename-file",
                            [("revision", revision), ("file", Self.name(&rng)), ("newName", Self.name(&rng))]
                        ).0
                    case 2:
                        status = try await PanelFlow.post(
                            client, ranger, draft + "/stops/1/remove-file",
                            [("revision", revision), ("file", Self.name(&rng)), ("confirmed", "yes")]
                        ).0
                    case 3:
                        let raw = Self.name(&rng)
                        let segment =
                            raw.addingPercentEncoding(
                                withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? "x"
                        (status, served) = try await client.execute(
                            uri: draft + "/stops/1/files/" + segment, method: .get, headers: ranger.headers
                        ) { ($0.status, Array(buffer: $0.body)) }
                    case 4:
                        // Hostile content on disk: a link, or a name written into waypoint.json.
                        let planted = Self.fine.randomElement(using: &rng)!
                        if Bool.random(using: &rng) {
                            let target = [
                                "../../../../../catalog.sqlite", top + "/secret.txt", "../../../other/tour.json", "/",
                            ]
                            .randomElement(using: &rng)!
                            unlink(stop + "/" + planted)
                            _ = symlink(target, stop + "/" + planted)
                        }
                        let listed = Bool.random(using: &rng) ? planted : Self.name(&rng)
                        try? Support.editJSON(stop + "/waypoint.json") { json in
                            json["assets"] = ((json["assets"] as? [Any]) ?? []) + [listed]
                        }
                        status = try await PanelFlow.get(client, ranger, draft + "/stops/1").0
                    case 5:
                        let zip = PanelFileNameTests.zip([
                            ("t/tour.json", PanelFileNameTests.tourJSON("Import \(runs)")),
                            (
                                "t/waypoints/01-start/waypoint.json",
                                PanelFileNameTests.waypointJSON(assets: [Self.name(&rng), Self.name(&rng)])
                            ),
                            ("t/waypoints/01-start/view.png", PanelFlow.png),
                        ])
                        status = try await PanelDraftTests.importFile(client, ranger, name: "t.zip", bytes: zip).0
                    default:
                        let csv =
                            "name,latitude,longitude,photo\nA,44.1,-122.1,\(Self.name(&rng))\nB,44.2,-122.2,\(Self.name(&rng))\n"
                        let zip = PanelFileNameTests.zip([("s.csv", Array(csv.utf8)), ("view.png", PanelFlow.png)])
                        status = try await PanelDraftTests.importFile(client, ranger, name: "s.zip", bytes: zip).0
                    }
                    #expect(status.code < 500, "no action is a server error (seed \(seed), run \(runs))")
                    if status.code >= 400 { refused += 1 } else { accepted += 1 }
                    for sentinel in sentinels where served.count >= 16 {
                        #expect(served != sentinel, "a sentinel was served (seed \(seed), run \(runs))")
                    }
                    #expect(try Support.read(top + "/secret.txt") == secret)
                }
                // Imports may add drafts of their own (new folders in drafts/<site>/): ignore what is in
                // those, and nothing else (a change inside an earlier draft or "other" is caught).
                let snapshot = Self.snapshot(top, draft: draftRel)
                let newDrafts = Set(
                    snapshot.keys.filter { path in
                        path.hasPrefix("data/drafts/\(site)/") && before[path] == nil
                            && path.split(separator: "/").count == 4
                    })
                let after = snapshot.filter { path, _ in
                    !newDrafts.contains { path == $0 || path.hasPrefix($0 + "/") }
                }
                #expect(
                    after == before,
                    "outside the draft: \(Set(after.keys).symmetricDifference(before.keys)) (seed \(seed), run \(runs))"
                )
                if after != before { break }
            }
            print(
                "property test: \(runs) sequences, \(actions) actions, \(refused) refused, \(accepted) accepted (seed \(seed))"
            )
            #expect(runs > 0 && actions > 0)
        }
    }
}
