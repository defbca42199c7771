import Foundation
import Testing
import TrailPackBlocking
import TrailPackBuilder
import TrailPackCatalogModel
import TrailPackCore
import TrailPackPanel
import TrailPackTestSupport

/// `TourDraft` with languages (format 1.1, `docs/FORMAT.md` section 4, "Languages in a tour folder"):
/// what it reads of the bilingual sample tour, what it writes back, and edits by language.
@Suite("panel: a draft's texts by language", .ownThreads)
struct PanelTourDraftLanguageTests {
    /// A copy of the bilingual sample tour as a draft of a store in a temporary data folder.
    static func withFixtureDraft(
        _ body: (DraftStore, DraftStore.Key, String) async throws -> Void
    ) async throws {
        let data = NSTemporaryDirectory() + "draft-languages-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: data) }
        let store = DraftStore(dataFolder: data, pool: BlockingPool(name: "test-drafts", threads: 2))
        let key = try #require(DraftStore.Key(site: "willamette-sweet-home", tour: "santiam-wagon-road"))
        try FileManager.default.createDirectory(
            atPath: data + "/drafts/willamette-sweet-home", withIntermediateDirectories: true)
        try Support.copyTree(Support.fixture("santiam-wagon-road"), store.folder(key))
        try await body(store, key, store.folder(key))
    }

    /// A JSON value with every object's members sorted by key: two documents that say the same.
    static func sorted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            .object(members.map { JSONMember($0.key, sorted($0.value)) }.sorted { $0.key < $1.key })
        case .array(let items): .array(items.map(sorted))
        default: value
        }
    }

    /// Element `i` of an array, nil when there is none.
    static func element(_ value: JSONValue?, _ i: Int) -> JSONValue? {
        guard let items = value?.array, items.indices.contains(i) else { return nil }
        return items[i]
    }

    static func json(_ path: String) throws -> JSONValue { try JSONParser.parse(Support.read(path)).value }

    /// Every JSON file of a tour folder, relative path to content.
    static func jsonFiles(_ root: String) throws -> [String: JSONValue] {
        var out = ["tour.json": sorted(try json(root + "/tour.json"))]
        for folder in try FileManager.default.contentsOfDirectory(atPath: root + "/waypoints") {
            let rel = "waypoints/\(folder)/waypoint.json"
            out[rel] = sorted(try json(root + "/" + rel))
        }
        return out
    }

    @Test(
        "the bilingual sample reads with every Spanish text and file language; a save writes the same JSON"
    )
    func roundTrip() async throws {
        try await Self.withFixtureDraft { store, key, folder in
            let before = try Self.jsonFiles(folder)
            let draft = try await store.load(key).draft
            #expect(draft.languages == ["en", "es"] && draft.defaultLanguage == "en")
            #expect(!draft.requireAllLanguages)
            #expect(draft.name == "Santiam Wagon Road")
            #expect(draft.translations["es", .name] == "Camino de Carretas de Santiam")
            #expect(draft.translations["es", .park] == "Bosque Nacional Willamette")
            #expect(draft.text(.description, in: "es", defaultLanguage: "en")?.hasPrefix("Recorra el camino") == true)
            #expect(draft.extra.isEmpty, "every member of tour.json is known: \(draft.extra.map(\.key))")
            let first = try #require(draft.stops.first)
            #expect(first.name == "Sweet Home" && first.translations["es", .name] == "Sweet Home")
            #expect(first.translations["es", .description]?.hasPrefix("El extremo del camino") == true)
            #expect(
                first.assets.map(\.file) == [
                    "about.md", "about.es.md", "view.png", "narration.en.wav", "narration.es.wav",
                ])
            #expect(first.assets.map { draft.language(of: $0) } == ["en", "es", nil, "en", "es"])
            #expect(first.assets.map(\.language) == ["en", nil, nil, nil, nil], "only about.md says its language")
            #expect(draft.languageFromName(first.assets[1]) && !draft.languageFromName(first.assets[0]))
            let view = first.assets[2]
            #expect(
                view.title == "The view at Sweet Home" && view.translations["es", .title] == "La vista en Sweet Home")
            #expect(view.translations["es", .alt]?.hasPrefix("Un dibujo sencillo") == true)
            #expect(
                first.assets[4].transcript?.hasPrefix("Bienvenidos") == true && first.assets[4].translations.isEmpty)
            let birdsong = try #require(draft.stops[3].assets.first { $0.file == "birdsong.wav" })
            #expect(birdsong.translations["es", .transcript]?.hasPrefix("Unos treinta segundos") == true)
            #expect(draft.textCount(in: "es") == draft.textCount(in: "en"), "every English text has its Spanish")

            // Saved unchanged: the same JSON, member for member (in the order the format gives).
            try await store.update(key, revision: nil) { _ in }
            #expect(try Self.jsonFiles(folder) == before)
            #expect(try TourDraft.read(folder: folder) == draft)
            // The builder reads the saved folder as it read the sample.
            let loaded = try TourSource.load(folder)
            let source = try #require(loaded.source, "\(loaded.findings)")
            #expect(source.tour.languages == ["en", "es"])
            #expect(source.tour.translations == draft.translations)
            #expect(source.waypoints.map(\.translations) == draft.stops.map(\.translations))
            #expect(!loaded.findings.hasErrors, "\(loaded.findings)")
        }
    }

    @Test("a Spanish description edited and saved lands under \"es\" in waypoint.json; the English one stays")
    func editOneLanguage() async throws {
        try await Self.withFixtureDraft { store, key, folder in
            let draft = try await store.update(key, revision: nil) { draft in
                draft.stops[1].setText(.description, in: "es", defaultLanguage: "en", to: "Un pueblo desaparecido.")
                draft.stops[0].assets[2].setText(.alt, in: "es", defaultLanguage: "en", to: "Cerros verdes")
            }.draft
            let file = folder + "/waypoints/" + (draft.stops[1].folder ?? "") + "/waypoint.json"
            let saved = try Self.json(file)
            #expect(saved["description"]?["es"] == .string("Un pueblo desaparecido."))
            #expect(saved["description"]?["en"]?.string?.hasPrefix("Soda springs") == true, "\(saved)")
            let first = try Self.json(folder + "/waypoints/01-sweet-home/waypoint.json")
            #expect(Self.element(first["assets"], 2)?["alt"]?["es"] == .string("Cerros verdes"))
            // An emptied translation is removed; with only the default left the text is one string again.
            try await store.update(key, revision: nil) { draft in
                draft.stops[1].setText(.description, in: "es", defaultLanguage: "en", to: "")
                draft.stops[1].setText(.name, in: "es", defaultLanguage: "en", to: nil)
            }
            let emptied = try Self.json(file)
            #expect(emptied["description"]?.string?.hasPrefix("Soda springs") == true, "\(emptied)")
            #expect(emptied["name"] == .string("Cascadia"))
            #expect(try TourDraft.read(folder: folder).stops[1].translations.isEmpty)
        }
    }

    @Test(
        "languages added to a one-language tour; a translation makes an object; default changed; one removed"
    )
    func declareLanguages() throws {
        var draft = TourDraft()
        draft.name = "Fish Lake"
        draft.description = "A lake that drains each summer."
        draft.stops = [
            TourDraft.Stop(
                slug: "shore", name: "Shore", coordinate: Coordinate(latitude: 44.4, longitude: -122),
                description: "The old shore.",
                assets: [
                    TourDraft.AssetReference(file: "view.png", alt: "The lake"),
                    TourDraft.AssetReference(file: "talk.wav", transcript: "Hola", language: "es"),
                ])
        ]
        #expect(draft.tourJSON["name"] == .string("Fish Lake") && draft.tourJSON["languages"] == nil)
        draft.languages = ["en"]
        #expect(draft.tourJSON["languages"] == .array([.string("en")]))
        #expect(draft.tourJSON["name"] == .string("Fish Lake"), "only the default: one string")
        draft.languages.append("es")
        draft.setText(.name, in: "es", defaultLanguage: "en", to: "Lago Fish")
        draft.stops[0].assets[0].setText(.alt, in: "es", defaultLanguage: "en", to: "El lago")
        #expect(
            draft.tourJSON["name"]
                == .object([JSONMember("en", .string("Fish Lake")), JSONMember("es", .string("Lago Fish"))]))
        #expect(draft.tourJSON["description"] == .string("A lake that drains each summer."))
        let stop = draft.waypointJSON(draft.stops[0])
        #expect(Self.element(stop["assets"], 0)?["alt"]?["es"] == .string("El lago"))
        #expect(
            Self.element(stop["assets"], 1)
                == .object([
                    JSONMember("file", .string("talk.wav")), JSONMember("language", .string("es")),
                    JSONMember("transcript", .string("Hola")),
                ]))
        // Spanish becomes the default: its texts are the plain ones, English's become translations.
        draft.makeDefault("es")
        #expect(draft.languages == ["es", "en"] && draft.name == "Lago Fish")
        #expect(draft.translations["en", .name] == "Fish Lake")
        #expect(draft.description == "" && draft.translations["en", .description] == "A lake that drains each summer.")
        #expect(
            draft.stops[0].assets[0].alt == "El lago" && draft.stops[0].assets[0].translations["en", .alt] == "The lake"
        )
        #expect(draft.stops[0].assets[1].transcript == "Hola", "a file in one language keeps its own texts")
        #expect(
            draft.tourJSON["description"] == .object([JSONMember("en", .string("A lake that drains each summer."))]),
            "a text only the other language has keeps its language")
        draft.makeDefault("en")
        draft.removeLanguage("es")
        #expect(
            draft.languages == ["en"] && draft.translations.isEmpty && draft.stops[0].assets[0].translations.isEmpty)
        #expect(draft.name == "Fish Lake" && draft.description == "A lake that drains each summer.")
        #expect(draft.files(in: "es").map(\.file) == ["talk.wav"], "the files stay, for the ranger to deal with")
    }

    @Test(
        "members the panel does not know stay, by language too; a text by language in a tour without languages is kept")
    func unknownMembers() throws {
        let root = NSTemporaryDirectory() + "draft-unknown-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/waypoints/01-a", withIntermediateDirectories: true)
        try Support.write(
            Array(
                #"{"id": "x.y", "version": "1.0.0", "name": {"en": "A", "fr": "B"}, "park": "P", "futureField": 3}"#
                    .utf8), to: root + "/tour.json")
        try Support.write(
            Array(
                #"""
                {"name": "A", "description": "D", "coordinate": {"latitude": 1, "longitude": 2},
                 "assets": [{"file": "a.png", "alt": {"en": "x"}, "future": true}, "b.es.md"]}
                """#.utf8), to: root + "/waypoints/01-a/waypoint.json")
        let draft = try TourDraft.read(folder: root)
        #expect(draft.languages.isEmpty && draft.name == "" && draft.translations["fr", .name] == "B")
        #expect(draft.tourJSON["name"] == .object([JSONMember("en", .string("A")), JSONMember("fr", .string("B"))]))
        #expect(draft.tourJSON["futureField"] == .number(JSONNumber(Int64(3))))
        let assets = draft.waypointJSON(draft.stops[0])["assets"]
        #expect(
            Self.element(assets, 0)?["future"] == .bool(true)
                && Self.element(assets, 0)?["alt"] == .object([JSONMember("en", .string("x"))]))
        #expect(Self.element(assets, 1) == .string("b.es.md"))
        #expect(draft.language(of: draft.stops[0].assets[1]) == nil, "no languages declared: the name says nothing")
    }

    @Test(
        "language tags typed by a ranger: well-formed ones in their usual case, anything else refused",
        arguments: [
            ("es", "es"), ("ES", "es"), (" es-419 ", "es-419"), ("zh-hant", "zh-Hant"), ("en_us", "en-US"),
            ("sgn-us", "sgn-US"), ("de-CH-1901", "de-CH-1901"), ("x-Trail", "x-trail"), ("en--us", nil), ("e", nil),
            ("Spanish language", nil), ("", nil), ("español", nil),
        ])
    func languageTags(typed: String, expected: String?) {
        #expect(TourDraft.languageTag(typed) == expected)
    }

    @Test(
        "what is translated is counted as the validator counts it: every text and file of the sample, then one missing")
    func completeness() async throws {
        try await Self.withFixtureDraft { store, key, _ in
            var draft = try await store.load(key).draft
            let whole = try #require(draft.manifestForCounting().completeness.first)
            #expect(whole.language == "es" && whole.texts == whole.translatedTexts && whole.texts > 30)
            #expect(whole.files == 9 && whole.translatedFiles == 9, "8 texts about the stops and one narration")
            draft.stops[2].setText(.description, in: "es", defaultLanguage: "en", to: nil)
            draft.stops[0].assets.removeAll { $0.file == "narration.es.wav" }
            let gaps = try #require(draft.manifestForCounting().completeness.first)
            #expect(gaps.translatedTexts == whole.texts - 1 && gaps.translatedFiles == 8)
            #expect(gaps.missing.map(\.field) == ["audio", "description"], "\(gaps.missing)")
        }
    }
}
