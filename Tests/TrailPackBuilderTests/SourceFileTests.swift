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
            sourceFolder: "/tours/t/", pathInFolder: "waypoints/01-a/view.jpg", relativePath: "waypoints/01-a/view.jpg",
            archivePath: "waypoints/a/view.jpg", type: MediaTypes.byExtension["jpg"]!, size: 10,
            modified: timespec(), title: title)
    }

    @Test(
        "a file without texts holds no box; setting a text makes one, copies stay apart, and clearing every text lets it go"
    )
    func texts() {
        var a = Self.file()
        #expect(a.texts == nil && a.title == nil && a.alt == nil && a.translations.byLanguage.isEmpty)
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
        #expect(b.texts != nil, "a translation is still there")
        b.translations = Translations()
        #expect(b.texts == nil)
        #expect(a.texts != nil && Self.file(title: "Given").title == "Given" && Self.file(title: nil).texts == nil)
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
            #expect((file.texts != nil) == (given || !file.translations.byLanguage.isEmpty), "\(file.relativePath)")
        }
    }
}
