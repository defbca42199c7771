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

/// The reproductions of issue #28's first two findings, against the panel's router: names that
/// come from a draft's own files, a sheet or a form never lead out of the draft.
@Suite(
    "panel: every file a stop holds has one checked name; nothing outside a draft is read, moved or made", .ownThreads)
struct PanelFileNameTests {
    static let site = "willamette-sweet-home"

    /// A zip of `entries` (name, bytes), stored.
    static func zip(_ entries: [(String, [UInt8])]) -> [UInt8] {
        ZipForge(entries.map { ZipForge.Entry($0.0, $0.1) }).bytes()
    }

    static func tourJSON(_ name: String) -> [UInt8] {
        Array(
            """
            {"id": "\(site).\(TourDraft.slug(name))", "version": "1.0.0", "name": "\(name)", "park": "Willamette National Forest",
             "site": {"id": "\(site)", "name": "Sweet Home"}, "mapName": "x", "description": "A tour."}
            """.utf8)
    }

    static func waypointJSON(assets: [String]) -> [UInt8] {
        let list = assets.map { "\"\($0.replacingOccurrences(of: "\\", with: "\\\\"))\"" }.joined(separator: ", ")
        return Array(
            """
            {"name": "Start", "coordinate": {"latitude": 44.4, "longitude": -122.1}, "description": "The start.", "assets": [\(list)]}
            """.utf8)
    }

    /// The data folder's parent (the test's own folder), where the sentinels live.
    static func parent(_ server: TrailPackServer) -> String {
        (server.folder.root as NSString).deletingLastPathComponent
    }

    static func sha(_ path: String) throws -> String { SHA256.hash(try Support.read(path)).hex }

    @Test(
        "a tour-folder zip whose waypoint.json names ../../../../../../secret.txt and ../../../../../catalog.sqlite is refused at import, naming the stop and the name; no draft is made and the files stay"
    )
    func importRefusesOutsideNames() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let secret = Self.parent(server) + "/secret.txt"
            try "not for rangers".write(toFile: secret, atomically: true, encoding: .utf8)
            let catalog = server.folder.root + "/catalog.sqlite"
            let before = try Self.sha(catalog)
            let zip = Self.zip([
                ("escape/tour.json", Self.tourJSON("Escape")),
                (
                    "escape/waypoints/01-start/waypoint.json",
                    Self.waypointJSON(assets: [
                        "view.png", "../../../../../../secret.txt", "../../../../../catalog.sqlite",
                    ])
                ),
                ("escape/waypoints/01-start/view.png", PanelFlow.png),
            ])
            let (status, body) = try await PanelDraftTests.importFile(client, ranger, name: "escape.zip", bytes: zip)
            let message = try PanelFlow.message(body)
            #expect(status == .unprocessableContent, "\(body)")
            #expect(
                message.contains("stop 1") && message.contains("'../../../../../../secret.txt'")
                    && message.contains("(and 1 more)") && message.contains("without folders"), "\(message)")
            #expect(!FileManager.default.fileExists(atPath: server.folder.root + "/drafts/\(Self.site)/escape"))
            #expect(try String(contentsOfFile: secret, encoding: .utf8) == "not for rangers")
            #expect(try Self.sha(catalog) == before)
            // An upload's own name that trapped Foundation's path methods (and stopped the server).
            for given in ["%2F%2F.%E2%80%AE", "a%2F%2Fe%CC%81.csv", "%2F%2Fx.zip%E2%80%AE"] {
                let (s, b) = try await client.execute(
                    uri: "/drafts/import?site=\(Self.site)&name=\(given)", method: .put,
                    headers: [.cookie: ranger.cookie, HTTPField.Name("X-CSRF-Token")!: ranger.csrf],
                    body: ByteBuffer(bytes: zip)
                ) { ($0.status, String(buffer: $0.body)) }
                #expect(s.code >= 400 && s.code < 500, "\(given): \(s) \(b)")
            }
            // A name with a backslash, a device name or a hidden file is refused the same way.
            for bad in ["..\\..\\catalog.sqlite", "con.png", ".htaccess", "waypoint.json", "a/view.png"] {
                let other = Self.zip([
                    ("t/tour.json", Self.tourJSON("Other")),
                    ("t/waypoints/01-start/waypoint.json", Self.waypointJSON(assets: [bad])),
                ])
                let (s, b) = try await PanelDraftTests.importFile(client, ranger, name: "t.zip", bytes: other)
                let said = try PanelFlow.message(b)
                #expect(s == .unprocessableContent && said.contains("stop 1"), "\(bad): \(b)")
            }
        }
    }

    @Test(
        "a draft on disk whose waypoint.json names an outside file (made before the check) is never opened: its pages and file actions answer 422 naming the stop and the name, and the catalog stays where it is"
    )
    func plantedDraftIsRefused() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let folder = server.folder.root + "/drafts/\(Self.site)/planted"
            try FileManager.default.createDirectory(
                atPath: folder + "/waypoints/01-start", withIntermediateDirectories: true)
            try Support.write(Self.tourJSON("Planted"), to: folder + "/tour.json")
            try Support.write(
                Self.waypointJSON(assets: ["../../../../../catalog.sqlite"]),
                to: folder + "/waypoints/01-start/waypoint.json")
            let catalog = server.folder.root + "/catalog.sqlite"
            let before = try Self.sha(catalog)
            let page = try await PanelFlow.get(client, ranger, "/drafts/\(Self.site)/planted/stops/1")
            #expect(page.0 == .unprocessableContent && page.1.contains("../../../../../catalog.sqlite"), "\(page)")
            let revision = TourDraft.revision(folder: folder)
            for action in ["remove-file", "rename-file"] {
                let (status, _, body) = try await PanelFlow.post(
                    client, ranger, "/drafts/\(Self.site)/planted/stops/1/\(action)",
                    [("revision", revision), ("file", "../../../../../catalog.sqlite"), ("newName", "stolen.sqlite")])
                #expect(status == .unprocessableContent, "\(action): \(body)")
            }
            let file = try await PanelFlow.get(
                client, ranger, "/drafts/\(Self.site)/planted/stops/1/files/..%2F..%2F..%2F..%2F..%2Fcatalog.sqlite")
            #expect(file.0 == .notFound || file.0 == .unprocessableContent, "\(file.0)")
            #expect(try Self.sha(catalog) == before)
            #expect(!FileManager.default.fileExists(atPath: server.folder.root + "/drafts-removed"))
        }
    }

    @Test(
        "file actions take checked names only: a form's '../' or '/etc/passwd' is refused with the rule; a link planted in a stop's folder is neither served nor renamed (remove moves the link itself aside)"
    )
    func actionsAndLinks() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let draft = try await PanelFlow.draftWithStop(client, ranger, name: "Links", stop: "Start")
            let up = try await PanelFlow.upload(
                client, ranger, draft + "/stops/1/files", name: "view.png", bytes: PanelFlow.png)
            #expect(up.0 == .created, "\(up.1)")
            let folder = server.folder.root + draft + "/waypoints/01-start"
            let catalog = server.folder.root + "/catalog.sqlite"
            let before = try Self.sha(catalog)
            func revision() -> String { TourDraft.revision(folder: server.folder.root + draft) }
            for bad in [
                "../../../../../catalog.sqlite", "/etc/passwd", "..", ".", "", "a/b.png", "con.png", "x\u{0}.png",
            ] {
                let removed = try await PanelFlow.post(
                    client, ranger, draft + "/stops/1/remove-file", [("revision", revision()), ("file", bad)])
                #expect(removed.0 == .unprocessableContent, "remove \(bad.debugDescription): \(removed)")
                let renamed = try await PanelFlow.post(
                    client, ranger, draft + "/stops/1/rename-file",
                    [("revision", revision()), ("file", bad), ("newName", "new.png")])
                #expect(renamed.0 == .unprocessableContent, "rename \(bad.debugDescription): \(renamed)")
            }
            // A new name is made safe, and must still be a stop file name.
            let device = try await PanelFlow.post(
                client, ranger, draft + "/stops/1/rename-file",
                [("revision", revision()), ("file", "view.png"), ("newName", "CON.png")])
            #expect(device.0 == .badRequest && device.2.contains("no usable name"), "\(device)")
            // A link planted in the stop folder and listed in its waypoint.json.
            #expect(symlink("../../../../../catalog.sqlite", folder + "/link.png") == 0)
            try Support.editJSON(folder + "/waypoint.json") { json in
                json["assets"] = ["view.png", "link.png"]
            }
            let served = try await client.execute(
                uri: draft + "/stops/1/files/link.png", method: .get, headers: ranger.headers
            ) { ($0.status, Array(buffer: $0.body)) }
            #expect(served.0 == .unprocessableContent, "\(served.0)")
            #expect(!(try Support.read(catalog)).starts(with: served.1) || served.1.count < 16)
            let renamed = try await PanelFlow.post(
                client, ranger, draft + "/stops/1/rename-file",
                [("revision", revision()), ("file", "link.png"), ("newName", "stolen.png")])
            #expect(renamed.0 == .unprocessableContent && renamed.2.contains("not a plain file"), "\(renamed)")
            let removed = try await PanelFlow.post(
                client, ranger, draft + "/stops/1/remove-file",
                [("revision", revision()), ("file", "link.png"), ("confirmed", "yes")])
            #expect(removed.0 == .seeOther, "\(removed)")
            let aside = server.folder.root + "/drafts-removed/\(Self.site)/links"
            // (Beside it, a hidden note of ours for "Bring back".)
            let kept = try FileManager.default.contentsOfDirectory(atPath: aside).filter { !$0.hasPrefix(".") }
            #expect(kept.count == 1 && kept[0].hasSuffix("-link.png"))
            var info = stat()
            #expect(
                lstat(aside + "/" + kept[0], &info) == 0 && info.st_mode & S_IFMT == S_IFLNK,
                "the link moved, not its target")
            var catalogInfo = stat()
            #expect(lstat(catalog, &catalogInfo) == 0 && catalogInfo.st_mode & S_IFMT == S_IFREG)
            #expect(try Self.sha(catalog) == before)
            // A plain file is served by its content, sandboxed.
            let view = try await client.execute(
                uri: draft + "/stops/1/files/view.png", method: .get, headers: ranger.headers
            ) {
                ($0.status, $0.headers[.contentType], $0.headers[.contentSecurityPolicy])
            }
            #expect(view.0 == .ok && view.1 == "image/png" && view.2 == "default-src 'none'; sandbox", "\(view)")
            // The link set aside is not offered back (only plain files are); a plain file removed is
            // listed under "Removed files", and "Bring back" puts it back with its alt text.
            var page = try await PanelFlow.get(client, ranger, draft + "/stops/1").1
            #expect(!page.contains("Bring back link.png"), "\(page)")
            try Support.editJSON(folder + "/waypoint.json") { json in
                json["assets"] = [["file": "view.png", "alt": "The lake from the dam"]]
            }
            let gone = try await PanelFlow.post(
                client, ranger, draft + "/stops/1/remove-file",
                [("revision", revision()), ("file", "view.png"), ("confirmed", "yes")])
            #expect(gone.0 == .seeOther && gone.1 == draft + "/stops/1?saved=1#removed-files", "\(gone)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/view.png"))
            page = try await PanelFlow.get(client, ranger, draft + "/stops/1?saved=1").1
            #expect(page.contains("id=\"removed-files\"") && page.contains("Bring back view.png"), "\(page)")
            let note = String(try #require(page.firstMatch(of: #/name="removed" value="([^"]+)"/#)?.1))
            let forged = try await PanelFlow.post(
                client, ranger, draft + "/stops/1/bring-back-file", [("removed", "../../../catalog.sqlite")])
            #expect(forged.0 == .notFound, "only a note of ours is taken: \(forged)")
            let back = try await PanelFlow.post(
                client, ranger, draft + "/stops/1/bring-back-file", [("removed", note)])
            #expect(back.0 == .seeOther, "\(back)")
            #expect(try Support.read(folder + "/view.png") == PanelFlow.png, "the same bytes came back")
            let assets = try TourDraft.read(folder: server.folder.root + draft).stops[0].assets
            #expect(assets.contains { $0.file == "view.png" && $0.alt == "The lake from the dam" }, "\(assets)")
            page = try await PanelFlow.get(client, ranger, draft + "/stops/1?saved=1").1
            #expect(page.contains("view.png is back in stop 1.") && !page.contains("Bring back view.png"), "\(page)")
            let again = try await PanelFlow.post(
                client, ranger, draft + "/stops/1/bring-back-file", [("removed", note)])
            #expect(again.0 == .notFound, "\(again)")
        }
    }

    @Test(
        "hostile structures answer 4xx, never a crash or a 500: a zip with one name twice, a file and a folder of one name, a stop numbered 2^63-1, a long name imported twice, a 250-byte file name set aside"
    )
    func hostileStructures() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let twice = Self.zip([
                ("t/tour.json", Self.tourJSON("Twice")), ("t/tour.json", Self.tourJSON("Twice")),
                ("t/waypoints/01-start/waypoint.json", Self.waypointJSON(assets: [])),
            ])
            var (status, body) = try await PanelDraftTests.importFile(client, ranger, name: "twice.zip", bytes: twice)
            #expect(status == .unprocessableContent, "\(body)")
            let clash = Self.zip([
                ("t/tour.json", Self.tourJSON("Clash")), ("t/waypoints", [1]),
                ("t/waypoints/01-start/waypoint.json", Self.waypointJSON(assets: [])),
            ])
            (status, body) = try await PanelDraftTests.importFile(client, ranger, name: "clash.zip", bytes: clash)
            #expect(status == .unprocessableContent, "\(body)")
            // 57 letters, a hyphen and more: the second draft of that name must not end in "--2".
            let long = String(repeating: "a", count: 57) + "-bbbbbb.csv"
            let csv = Array("name,latitude,longitude\nA,44.1,-122.1\n".utf8)
            for _ in 0..<2 {
                (status, body) = try await PanelDraftTests.importFile(
                    client, ranger, name: long, bytes: csv, again: true)
                #expect(status == .created, "\(body)")
            }
            let draft = try await PanelFlow.draftWithStop(client, ranger, name: "Numbers", stop: "Start")
            let revision = TourDraft.revision(folder: server.folder.root + draft)
            for number in ["9223372036854775807", "10001", "0", "-1"] {
                let moved = try await PanelFlow.post(
                    client, ranger, draft + "/stops/\(number)/down", [("revision", revision)])
                #expect(moved.0 == .notFound, "\(number): \(moved)")
            }
            // A name of 250 bytes is a stop file name (an imported folder may hold one); set aside, its
            // name is cut to fit 255 bytes.
            let name = String(repeating: "n", count: 246) + ".png"
            let stop = server.folder.root + draft + "/waypoints/01-start"
            try Support.write(PanelFlow.png, to: stop + "/" + name)
            try Support.editJSON(stop + "/waypoint.json") { $0["assets"] = [name] }
            let removed = try await PanelFlow.post(
                client, ranger, draft + "/stops/1/remove-file",
                [
                    ("revision", TourDraft.revision(folder: server.folder.root + draft)), ("file", name),
                    ("confirmed", "yes"),
                ])
            #expect(removed.0 == .seeOther, "\(removed)")
            let aside = try FileManager.default.contentsOfDirectory(
                atPath: server.folder.root + "/drafts-removed/\(Self.site)/numbers")
            let files = aside.filter { !$0.hasPrefix(".") }
            #expect(files.count == 1 && files[0].utf8.count <= 255 && files[0].hasSuffix("nnn.png"), "\(aside)")
        }
    }

    @Test(
        "imports take what rangers have: a sheet zipped with its media in a subfolder (or all in one top folder) finds each file by name; a sheet alone lists the files it names by row; a GPX comment is the rangers' note, its HTML plain text; no message names a server folder or a flag"
    )
    func importsTakeWhatRangersHave() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let drafts = server.folder.root + "/drafts/\(Self.site)"
            let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 3, count: 64)
            let csv = """
                name,latitude,longitude,description,photo
                House Rock,44.3922,-122.2441,A rock shelter,house.jpg
                Fish Lake,44.4031,-121.9939,The lake bed,lake.png
                """
            for (zipName, top) in [("trail.zip", ""), ("santiam.zip", "Santiam/")] {
                let zip = Self.zip([
                    (top + "trail stops.csv", Array(csv.utf8)),
                    (top + "media/house.jpg", jpeg),
                    (top + "media/lake/lake.png", PanelFlow.png),
                ])
                let (status, body) = try await PanelDraftTests.importFile(client, ranger, name: zipName, bytes: zip)
                #expect(status == .created, "\(body)")
                let location = try #require(try PanelFlow.location(body)).replacingOccurrences(of: "?saved=1", with: "")
                let draft = try TourDraft.read(folder: server.folder.root + location)
                #expect(draft.stops.map { $0.assets.map(\.file) } == [["house.jpg"], ["lake.png"]], "\(zipName)")
                let first = server.folder.root + location + "/waypoints/01-" + draft.stops[0].slug + "/house.jpg"
                #expect(try Support.read(first) == jpeg)
            }
            // A file the sheet names that the zip lacks, and one in two places: said by row, in the zip's words.
            let broken = Self.zip([
                ("stops.csv", Array(csv.utf8)),
                ("a/house.jpg", jpeg), ("b/house.jpg", jpeg),
            ])
            var (status, body) = try await PanelDraftTests.importFile(client, ranger, name: "broken.zip", bytes: broken)
            var message = try PanelFlow.message(body)
            #expect(status == .unprocessableContent, "\(body)")
            #expect(message.contains("row 2, column E (photo)") && message.contains("'a/house.jpg', 'b/house.jpg'"))
            #expect(message.contains("row 3, column E (photo)") && message.contains("'lake.png' is not in the zip"))
            for leak in [server.folder.root, ".import-", "upload-", "--"] {
                #expect(!message.contains(leak), "\(leak) in: \(message)")
            }
            // The sheet alone: the draft is made, and the ranger learns which files to add, by row.
            (status, body) = try await PanelDraftTests.importFile(
                client, ranger, name: "alone.csv", bytes: Array(csv.utf8), again: true)
            message = try PanelFlow.message(body)
            #expect(status == .created, "\(body)")
            #expect(
                message.contains("2 files that did not come with it")
                    && message.contains("row 2, column E (photo): 'house.jpg'")
                    && message.contains("row 3, column E (photo): 'lake.png'"), "\(message)")
            // GPX: the geocache code is the stop's note for rangers (never packaged, never a detail
            // visitors see); the HTML description is plain text.
            (status, body) = try await PanelDraftTests.importFile(
                client, ranger, name: "html-descriptions.gpx",
                bytes: try Support.read(Support.root + "/fixtures/gpx/html-descriptions.gpx"))
            #expect(status == .created, "\(body)")
            let gpx = try TourDraft.read(folder: drafts + "/html-descriptions")
            #expect(!gpx.stops[0].properties.contains { $0.key == "comment" } && gpx.stops[0].rangerNote == "GC12AB")
            let noteFile = drafts + "/html-descriptions/waypoints/\(gpx.stops[0].folder ?? "")/.ranger-note.txt"
            #expect(try String(contentsOfFile: noteFile, encoding: .utf8) == "GC12AB\n")
            let notePage = try await PanelFlow.get(
                client, ranger, "/drafts/willamette-sweet-home/html-descriptions/stops/1"
            ).1
            #expect(notePage.contains("id=\"stop-ranger-note\" name=\"rangerNote\" rows=\"2\">GC12AB</textarea>"))
            #expect(gpx.stops[0].description.hasPrefix("A huge overhanging boulder gave wagon parties shelter"))
            #expect(!gpx.stops.contains { $0.description.contains("<") || $0.description.contains("GC12AB") })
            // A GPX file that cannot be read is named as the ranger gave it, not by the server's copy.
            (status, body) = try await PanelDraftTests.importFile(
                client, ranger, name: "empty.gpx", bytes: Array("<gpx version=\"1.1\"></gpx>".utf8))
            message = try PanelFlow.message(body)
            #expect(status == .unprocessableContent && message.contains("'empty.gpx'"), "\(message)")
            #expect(!message.contains(server.folder.root) && !message.contains("upload-"), "\(message)")
        }
    }

    @Test(
        "a zipped sheet reads only what was zipped with it: an absolute path, a drive letter or a ../ in a cell is refused with its row and column, and no suggestion names a file outside the zip"
    )
    func sheetStaysInTheZip() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let outside = Self.parent(server) + "/secret-photo.jpg"
            try Support.write([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 1, count: 64), to: outside)
            let csv = """
                name,latitude,longitude,photo
                House Rock,44.3922,-122.2441,\(outside)
                Fish Lake,44.4031,-121.9939,../../../../secret-photo.jpg
                Tombstone,44.40,-122.0,C:\\Users\\ranger\\view.jpg
                Lost Prairie,44.41,-122.01,photos/veiw.jpg
                """
            let zip = Self.zip([
                ("stops.csv", Array(csv.utf8)),
                ("photos/view.jpg", [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 2, count: 64)),
            ])
            let (status, body) = try await PanelDraftTests.importFile(client, ranger, name: "sheet.zip", bytes: zip)
            let message = try PanelFlow.message(body)
            #expect(status == .unprocessableContent, "\(body)")
            #expect(message.contains("row 2, column D") && message.contains("outside the uploaded zip"), "\(message)")
            #expect(message.contains("row 3, column D") && message.contains("row 4, column D"), "\(message)")
            #expect(message.contains("did you mean 'view.jpg'"), "\(message)")
            #expect(!message.contains("secret-photo.jpg'?"), "a hint never names an outside file: \(message)")
            let drafts =
                (try? FileManager.default.contentsOfDirectory(atPath: server.folder.root + "/drafts/\(Self.site)"))
                ?? []
            #expect(drafts.isEmpty, "\(drafts)")
        }
    }

    @Test(
        "start-up removes the panel's own interrupted uploads (.upload-<UUID>, .import-<UUID>) and nothing else; a site's drafts are held to their quota (said without a flag) before anything is written"
    )
    func leftoversAndQuota() async throws {
        try await PanelTests.withAssets { root in
            var configuration = PanelConfiguration(webAssets: root)
            configuration.maxMediaBytes = 1 << 20
            configuration.draftQuotaBytes = 300 << 10
            let settings = configuration
            try await PanelTests.withPanelServer(settings) { server, panel, client in
                let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
                let draft = try await PanelFlow.draftWithStop(client, ranger, name: "Full", stop: "Start")
                let photo = PanelFlow.png + Array(repeating: 7, count: 200 << 10)
                var up = try await PanelFlow.upload(
                    client, ranger, draft + "/stops/1/files", name: "a.png", bytes: photo)
                #expect(up.0 == .created, "\(up.1)")
                up = try await PanelFlow.upload(client, ranger, draft + "/stops/1/files", name: "b.png", bytes: photo)
                #expect(up.0 == .contentTooLarge && up.1.contains("room left") && !up.1.contains("--"), "\(up.1)")
                let folder = server.folder.root + draft + "/waypoints/01-start"
                #expect(!FileManager.default.fileExists(atPath: folder + "/b.png"))
                // An import counted by its unpacked size: refused before a byte is written.
                let zip = Self.zip([
                    ("big/tour.json", Self.tourJSON("Big")),
                    ("big/waypoints/01-start/waypoint.json", Self.waypointJSON(assets: ["a.png"])),
                    ("big/waypoints/01-start/a.png", photo),
                ])
                let (status, body) = try await PanelDraftTests.importFile(client, ranger, name: "big.zip", bytes: zip)
                #expect(status == .contentTooLarge && body.contains("room"), "\(body)")
                let hidden = try FileManager.default.contentsOfDirectory(atPath: server.folder.root + "/drafts")
                #expect(!hidden.contains { $0.hasPrefix(".import-") }, "\(hidden)")

                // What a stopped server leaves, and what is not ours.
                let upload = folder + "/.upload-" + UUID().uuidString
                let notOurs = folder + "/.upload-notes"
                let staging = server.folder.root + "/drafts/.import-" + UUID().uuidString
                try Support.write([1, 2, 3], to: upload)
                try Support.write([1, 2, 3], to: notOurs)
                try FileManager.default.createDirectory(atPath: staging + "/t", withIntermediateDirectories: true)
                _ = try PanelController(configuration: settings, server: server)
                #expect(!FileManager.default.fileExists(atPath: upload))
                #expect(!FileManager.default.fileExists(atPath: staging))
                #expect(FileManager.default.fileExists(atPath: notOurs), "a name the panel did not make stays")
                #expect(FileManager.default.fileExists(atPath: folder + "/a.png"))
            }
        }
    }
}
