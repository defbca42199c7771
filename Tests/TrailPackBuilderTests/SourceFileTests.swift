import Foundation
import Glibc
import Testing
import TrailPackCore
import TrailPackTestSupport

@testable import TrailPackBuilder

/// The builder's record of one file to package: its texts are held in a box only when
/// waypoint.json gives some, and its paths are made at their exact length.
@Suite("builder: the record of a file to package", .ownThreads)
struct SourceFileTests {
    static func file(title: String? = nil) -> TourSource.SourceFile {
        TourSource.SourceFile(
            folders: .init(real: "/tours/t/", inTour: "waypoints/01-a/", inPackage: "waypoints/a/"), name: "view.jpg",
            type: MediaTypes.byExtension["jpg"]!, size: 10, modified: timespec(), title: title)
    }

    @Test(
        "a file without texts holds no box; setting a text makes one, copies stay apart, and clearing every text lets it go"
    )
    func texts() {
        var a = Self.file()
        #expect(a.extras == nil && a.title == nil && a.alt == nil && a.translations.byLanguage.isEmpty)
        a.title = "The wagon road"
        a.alt = "Ruts in the meadow"
        var b = a
        b.alt = "Ruts, closer"
        b.language = "es"
        b.translations["es", .title] = "El camino"
        #expect(a.title == "The wagon road" && a.alt == "Ruts in the meadow" && a.language == nil)
        #expect(a.translations.byLanguage.isEmpty)
        #expect(b.title == "The wagon road" && b.alt == "Ruts, closer" && b.language == "es")
        #expect(b.translations["es", .title] == "El camino")
        b.captions = "waypoints/a/view.vtt"
        b.transcript = "A voice."
        #expect(b.captions == "waypoints/a/view.vtt" && b.transcript == "A voice." && a.captions == nil)
        (b.title, b.alt, b.language, b.captions, b.transcript) = (nil, nil, nil, nil, nil)
        #expect(b.extras != nil, "a translation is still there")
        b.translations = Translations()
        #expect(b.extras == nil)
        #expect(a.extras != nil && Self.file(title: "Given").title == "Given" && Self.file(title: nil).extras == nil)
    }

    @Test(
        "a record is 48 bytes, and its type, size and time read back as set: every known type, sizes and times at and past what the record holds itself (kept in the box then), before 1970 included"
    )
    func compactFields() {
        #expect(MemoryLayout<TourSource.SourceFile>.stride == 48)
        var f = Self.file()
        #expect(f.extras == nil && f.size == 10 && f.type == MediaTypes.byExtension["jpg"]!)
        for type in MediaTypes.known {
            f.type = type
            #expect(f.type == type && f.size == 10 && f.extras == nil)
        }
        #expect(Set(MediaTypes.known).count == MediaTypes.known.count && MediaTypes.known.count < 255)
        #expect(MediaTypes.known.allSatisfy { MediaTypes.number(of: $0).map { MediaTypes.known[$0] } == $0 })
        // A type none of the extensions has is kept whole, in the box, and let go when set back.
        let odd = MediaTypes.Entry(kind: .other, mediaType: "application/x-odd", compress: true)
        f.type = odd
        #expect(f.type == odd && f.extras != nil && f.size == 10)
        f.type = MediaTypes.byExtension["mp4"]!
        #expect(f.type == MediaTypes.byExtension["mp4"]! && f.extras == nil)
        let sizes: [Int64] = [0, 1, TourSource.maxAssetBytes, (1 << 56) - 2, (1 << 56) - 1, 1 << 56, .max, -1, .min]
        for size in sizes {
            f.size = size
            #expect(f.size == size && f.type == MediaTypes.byExtension["mp4"]!, "\(size)")
            #expect((f.extras != nil) == (size < 0 || size >= (1 << 56) - 1), "\(size)")
        }
        f.size = 5
        #expect(f.extras == nil)
        let times = [
            timespec(), timespec(tv_sec: 1_700_000_000, tv_nsec: 123_456_789),
            timespec(tv_sec: -1, tv_nsec: 999_999_999),
            timespec(tv_sec: -1, tv_nsec: 0), timespec(tv_sec: -86_400 * 365 * 200, tv_nsec: 1),
            timespec(tv_sec: 9_223_372_036, tv_nsec: 854_775_807),
            timespec(tv_sec: 9_223_372_036, tv_nsec: 854_775_808),
            timespec(tv_sec: -9_223_372_037, tv_nsec: 0), timespec(tv_sec: .max, tv_nsec: 999_999_999),
            timespec(tv_sec: .min, tv_nsec: 0), timespec(tv_sec: 7, tv_nsec: 1_000_000_000),
            timespec(tv_sec: 7, tv_nsec: -1),
        ]
        for time in times {
            f.modified = time
            #expect(
                f.modified.tv_sec == time.tv_sec && f.modified.tv_nsec == time.tv_nsec && f.size == 5,
                "\(time.tv_sec) s \(time.tv_nsec) ns")
        }
        f.modified = timespec(tv_sec: 3, tv_nsec: 4)
        #expect(f.extras == nil)
        // A type and a size in the box at once, each read back and let go by itself.
        f.type = odd
        f.size = -3
        #expect(f.type == odd && f.size == -3 && f.modified.tv_sec == 3)
        f.type = MediaTypes.byExtension["png"]!
        #expect(f.type == MediaTypes.byExtension["png"]! && f.size == -3 && f.extras != nil)
        f.size = 5
        #expect(f.extras == nil && f.size == 5)
        // Texts and the rest share the box: clearing one keeps the other.
        f.size = -7
        f.title = "Falls"
        f.size = 7
        #expect(f.extras != nil && f.title == "Falls" && f.size == 7)
        f.title = nil
        #expect(f.extras == nil)
    }

    @Test("joined makes the same string as + for empty, ASCII, non-ASCII and long parts")
    func joined() {
        let parts = [
            "", "/", "waypoints/01-sweet-home", "café-ñ.jpg", "🏞️ trail", String(repeating: "ridge/", count: 400),
        ]
        for a in parts {
            for b in parts {
                for c in parts {
                    let made = Loader.joined(a, b, c)
                    #expect(made == a + b + c && made.utf8.count == a.utf8.count + b.utf8.count + c.utf8.count)
                }
                #expect(Loader.joined(a, b) == a + b)
            }
        }
    }

    @Test(
        "the sample tour's files carry their titles, texts and languages through the box (captions: the integration tests)"
    )
    func sampleTour() throws {
        let loaded = try TourSource.load(Support.fixture("santiam-wagon-road"))
        let source = try #require(loaded.source, "\(loaded.findings)")
        let files = source.waypoints.flatMap(\.assets)
        #expect(files.contains { $0.title != nil } && files.contains { $0.transcript != nil })
        #expect(files.contains { $0.alt != nil } && files.contains { $0.language != nil })
        #expect(files.contains { !$0.translations.byLanguage.isEmpty })
        for file in files {
            let given = [file.title, file.alt, file.transcript, file.captions, file.language].contains { $0 != nil }
            #expect((file.extras != nil) == (given || !file.translations.byLanguage.isEmpty), "\(file.relativePath)")
        }
    }

    @Test(
        "a file's paths are made from its stop's folders and its name: the same as joined whole, sorted by their bytes without being made, and held only when they are not the usual"
    )
    func pathsFromParts() throws {
        let jpg = MediaTypes.byExtension["jpg"]!
        let one = TourSource.SourceFile.Folders(
            real: "/t/", inTour: "waypoints/01-stop-1/", inPackage: "waypoints/stop-1/")
        let ten = TourSource.SourceFile.Folders(
            real: "/t/", inTour: "waypoints/10-stop-10/", inPackage: "waypoints/stop-10/")
        let map = TourSource.SourceFile.Folders(real: "/t/", inTour: "map/", inPackage: "map/")
        func file(
            _ folders: TourSource.SourceFile.Folders, _ name: String, nfc: String? = nil, real: String? = nil
        )
            -> TourSource.SourceFile
        {
            .init(
                folders: folders, name: name, nameInPackage: nfc, realPath: real, type: jpg, size: 1,
                modified: timespec(), title: nil)
        }
        let plain = file(one, "view.jpg")
        #expect(
            plain.relativePath == "waypoints/01-stop-1/view.jpg" && plain.archivePath == "waypoints/stop-1/view.jpg")
        #expect(plain.sourcePath == "/t/waypoints/01-stop-1/view.jpg" && plain.extras == nil)
        let decomposed = "cafe\u{301}.jpg"
        let accented = file(one, decomposed, nfc: decomposed.precomposedStringWithCanonicalMapping)
        #expect(Array(accented.archivePath.utf8) == Array("waypoints/stop-1/caf\u{e9}.jpg".utf8))
        #expect(Array(accented.relativePath.utf8) == Array(("waypoints/01-stop-1/" + decomposed).utf8))
        var linked = file(ten, "a.jpg", real: "/t/shared/a.jpg")
        #expect(linked.sourcePath == "/t/shared/a.jpg" && linked.archivePath == "waypoints/stop-10/a.jpg")
        linked.sourcePath = "/elsewhere/copy.jpg"
        #expect(linked.sourcePath == "/elsewhere/copy.jpg" && linked.archivePath == "waypoints/stop-10/a.jpg")
        // The entries' order: a folder that is a prefix of another's name, names across folders,
        // upper case before lower, a composed name by its own bytes.
        let files = [
            file(ten, "b.jpg"), file(one, "b.jpg"), file(map, "area.pmtiles"), file(one, "B.jpg"), accented,
            file(one, "a b.jpg"), file(ten, "-.jpg"), file(one, "~.jpg"), plain,
        ]
        let byPaths = files.sorted { $0.archivePath.utf8.lexicographicallyPrecedes($1.archivePath.utf8) }.map(
            \.archivePath)
        #expect(files.sorted(by: TourSource.SourceFile.packageOrder).map(\.archivePath) == byPaths)
        #expect(byPaths.first == "map/area.pmtiles" && byPaths.last == "waypoints/stop-10/b.jpg")
    }

    @Test("the files a tour folder lists hold no path of their own: only their names, and their stop's folders shared")
    func loadedFilesShareFolders() throws {
        let loaded = try TourSource.load(Support.fixture("santiam-wagon-road"))
        let source = try #require(loaded.source, "\(loaded.findings)")
        for stop in source.waypoints {
            for file in stop.assets {
                #expect(
                    file.folders === stop.assets[0].folders && file.extras?.realPath == nil
                        && file.extras?.nameInPackage == nil, "\(file.relativePath)")
                #expect(FileManager.default.fileExists(atPath: file.sourcePath), "\(file.sourcePath)")
                #expect(file.archivePath.hasPrefix("waypoints/\(stop.slug)/") && file.archivePath.hasSuffix(file.name))
            }
        }
    }

    @Test(
        "a file is unused when nothing lists it: found among its own stop's files by name (subfolders, another stop's name, NFD against NFC); the map's are all packaged, and one that failed to resolve is said as that"
    )
    func unusedFiles() throws {
        try Support.withTemporaryDirectory { dir in
            let tour = dir + "/tour"
            try Support.copyTree(Support.fixture("family-hikes"), tour)
            let one = tour + "/waypoints/01-sahalie-and-koosah-falls"
            let two = tour + "/waypoints/02-clear-lake-loop"
            try FileManager.default.createDirectory(atPath: one + "/photos", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: tour + "/map/extra", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(
                atPath: tour + "/waypoints/09-no-json", withIntermediateDirectories: true)
            let composed = "caf\u{e9}.txt"  // on disk composed, listed decomposed
            let combining = "\u{301}a.txt"  // '/' and a combining mark make one Character
            for (path, text) in [
                (one + "/photos/listed.txt", "a"), (one + "/photos/stray.txt", "b"), (one + "/" + composed, "c"),
                (one + "/only-in-two.txt", "d"), (two + "/only-in-two.txt", "e"), (one + "/bad.exe", "f"),
                (tour + "/top.txt", "g"), (tour + "/waypoints/loose.txt", "h"),
                (tour + "/waypoints/09-no-json/x.txt", "i"),
                (tour + "/map/extra/notes.txt", "j"), (one + "/" + combining, "k"), (tour + "/map/empty.txt", ""),
            ] {
                try text.write(toFile: path, atomically: false, encoding: .utf8)
            }
            // A link to another stop's file, inside the tour: packaged, and not unused.
            try FileManager.default.createSymbolicLink(
                atPath: one + "/linked.txt", withDestinationPath: "../02-clear-lake-loop/notes.txt")
            func list(_ folder: String, _ names: [String]) throws {
                let file = folder + "/waypoint.json"
                var json =
                    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file)))
                    as! [String: Any]
                json["assets"] = (json["assets"] as! [Any]) + names
                try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: file))
            }
            try list(one, ["photos/listed.txt", "cafe\u{301}.txt", "bad.exe", combining, "linked.txt"])
            try list(two, ["only-in-two.txt"])
            let loaded = try TourSource.load(tour)
            let unused = loaded.findings.filter { $0.code == .sourceUnusedFile }.compactMap(\.file).sorted()
            #expect(
                unused
                    == [
                        "top.txt", "waypoints/01-sahalie-and-koosah-falls/only-in-two.txt",
                        "waypoints/01-sahalie-and-koosah-falls/photos/stray.txt", "waypoints/09-no-json/x.txt",
                        "waypoints/loose.txt",
                    ].sorted(), "\(loaded.findings)")
            // Every file under map/ is a map asset, packaged; an empty one is said as empty.
            #expect(loaded.source?.mapFiles.map(\.archivePath) == ["map/extra/notes.txt"])
            #expect(loaded.findings.contains { $0.code == .sourceAssetEmpty && $0.message.contains("map/empty.txt") })
            // The ones that failed are said as that, not as unused: a type trailpack does not
            // package, and a name listed decomposed where the folder has it composed (names are
            // looked up by their bytes; the listing is what counts as used).
            #expect(loaded.findings.contains { $0.code == .sourceAssetType && $0.message.contains("bad.exe") })
            #expect(
                loaded.findings.contains { $0.code == .sourceAssetMissing && $0.message.contains("cafe\u{301}.txt") })
            // The combining name and the link resolved, their real paths as they are.
            let stop = try #require(
                loaded.source?.waypoints.first { $0.folder.hasSuffix("01-sahalie-and-koosah-falls") })
            let linked = try #require(stop.assets.first { $0.name == "linked.txt" })
            #expect(
                linked.sourcePath.hasSuffix("/waypoints/02-clear-lake-loop/notes.txt") && linked.extras?.realPath != nil
            )
            #expect(stop.assets.contains { Array($0.name.unicodeScalars) == Array(combining.unicodeScalars) })
        }
    }
}
