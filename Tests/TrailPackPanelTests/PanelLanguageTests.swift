import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TrailPackBuilder
import TrailPackCatalog
import TrailPackCatalogModel
import TrailPackCore
import TrailPackFileIO
import TrailPackPanel
import TrailPackServer
import TrailPackTestSupport

/// Tours in several languages in the panel, on the router: the tour's languages declared in plain
/// words, tabs on the tour and stop pages, the side-by-side page, completeness meters, uploads tagged
/// with a language, missing translations among the findings, and the review page by language.
@Suite("panel: tours in several languages", .ownThreads)
struct PanelLanguageTests {
    static let site = "willamette-sweet-home"
    static let draft = "/drafts/willamette-sweet-home/santiam-wagon-road"

    /// The bilingual sample tour as a draft of the server's panel; its folder.
    static func fixtureDraft(_ server: TrailPackServer) throws -> String {
        let folder = server.folder.root + "/drafts/\(site)/santiam-wagon-road"
        try FileManager.default.createDirectory(
            atPath: server.folder.root + "/drafts/\(site)", withIntermediateDirectories: true)
        try Support.copyTree(Support.fixture("santiam-wagon-road"), folder)
        return folder
    }

    /// The page script's upload of one file (`PUT …/files?name=…&language=…`).
    static func upload(
        _ client: some TestClientProtocol, _ visitor: PanelFlow.Visitor, _ uri: String, name: String, language: String,
        bytes: [UInt8]
    ) async throws -> (HTTPResponse.Status, String) {
        try await client.execute(
            uri: uri + "?name=\(name)&language=\(language)", method: .put,
            headers: [
                .cookie: visitor.cookie, HTTPField.Name("X-CSRF-Token")!: visitor.csrf,
                .contentType: "application/octet-stream",
            ],
            body: ByteBuffer(bytes: bytes)
        ) { ($0.status, String(buffer: $0.body)) }
    }

    static func json(_ path: String) throws -> JSONValue { try JSONParser.parse(Support.read(path)).value }

    /// A page, its white space collapsed (the templates break long tags across lines).
    static func get(
        _ client: some TestClientProtocol, _ visitor: PanelFlow.Visitor, _ uri: String
    ) async throws -> (HTTPResponse.Status, String) {
        let (status, html) = try await PanelFlow.get(client, visitor, uri)
        return (status, collapsed(html))
    }

    static func collapsed(_ html: String) -> String {
        html.replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
            .replacingOccurrences(of: " >", with: ">")
    }

    /// Mustache escapes quotes in the page: the text as the page holds it.
    static func html(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "'", with: "&#39;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The bilingual sample: its languages listed in plain words with a meter for Spanish; tabs with
    /// aria-current; the Spanish tab edits only the Spanish texts, saved under "es"; the English tab keeps them.
    @Test(
        "the sample's languages in plain words with a Spanish meter; tabs; the Spanish tab saves under \"es\""
    )
    func tabs() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let folder = try Self.fixtureDraft(server)
            var (status, html) = try await Self.get(client, ranger, Self.draft)
            #expect(status == .ok, "\(html)")
            #expect(html.contains("en — English") && html.contains("the default language"))
            #expect(html.contains("es — Spanish (español)"))
            #expect(html.contains("<meter id=\"meter-es\"") && html.contains("Spanish: "), "\(html)")
            #expect(html.contains("Everything is translated."), "the sample is complete in Spanish")
            #expect(html.contains("aria-current=\"page\">English (default)") == false)
            #expect(html.contains("id=\"tab-en\" aria-current=\"page\"") && html.contains("id=\"tab-es\""))
            #expect(html.contains("Translate into Spanish") && html.contains(Self.draft + "/translate/es"))
            #expect(!html.contains("{\"en\"") && !html.contains("tour.json"), "no JSON or file names for rangers")

            // The Spanish tab: the Spanish texts, the English beside them; no id, version or frame fields.
            (status, html) = try await Self.get(client, ranger, Self.draft + "?lang=es")
            #expect(status == .ok)
            #expect(html.contains("id=\"tab-es\" aria-current=\"page\""))
            #expect(html.contains("value=\"Camino de Carretas de Santiam\"") && html.contains("In English:"))
            #expect(!html.contains("id=\"tour-id\"") && !html.contains("id=\"frame-south\""))
            let revision = try PanelFlow.revision(html)
            var (posted, location, body) = try await PanelFlow.post(
                client, ranger, Self.draft,
                [
                    ("revision", revision), ("language", "es"), ("name", "Camino de Santiam"),
                    ("park", "Bosque Nacional Willamette"), ("description", "Una ruta de un día."),
                ])
            #expect(posted == .seeOther && location == Self.draft + "?lang=es&saved=1#tour-details", "\(body)")
            var tour = try Self.json(folder + "/tour.json")
            #expect(
                tour["name"]?["es"] == .string("Camino de Santiam")
                    && tour["name"]?["en"] == .string("Santiam Wagon Road"))
            #expect(tour["description"]?["es"] == .string("Una ruta de un día."))
            #expect(tour["id"] == .string("gov.usda.fs.willamette.santiam-wagon-road"), "the rest stays")

            // A stop's Spanish tab: the shared photo's texts in Spanish, the Spanish files' own texts.
            (status, html) = try await Self.get(client, ranger, Self.draft + "/stops/1?lang=es")
            #expect(status == .ok)
            #expect(html.contains("id=\"stop-languages\"") && html.contains("id=\"tab-es\" aria-current=\"page\""))
            #expect(html.contains("Description in Spanish") && html.contains("El extremo del camino en el valle"))
            #expect(html.contains("value=\"La vista en Sweet Home\""), "the photo's title in Spanish")
            #expect(html.contains("Bienvenidos a Sweet Home"), "the Spanish narration's transcript")
            #expect(
                html.contains("Files in other languages") && html.contains("narration.en.wav (English)"),
                "the English files are named, not edited, on the Spanish tab")
            #expect(!html.contains("id=\"stop-latitude\""))
            (posted, location, body) = try await PanelFlow.post(
                client, ranger, Self.draft + "/stops/1",
                [
                    ("revision", try PanelFlow.revision(html)), ("language", "es"), ("name", "Sweet Home"),
                    ("description", "Donde empieza el camino."), ("title-3", "La vista"),
                    ("alt-3", "Cerros verdes bajo un cielo azul"), ("title-5", "Bienvenidos"),
                    ("transcript-5", "Bienvenidos a Sweet Home."),
                ])
            #expect(posted == .seeOther && location == Self.draft + "/stops/1?lang=es&saved=1", "\(body)")
            let stop = try Self.json(folder + "/waypoints/01-sweet-home/waypoint.json")
            #expect(stop["description"]?["es"] == .string("Donde empieza el camino."))
            #expect(stop["description"]?["en"]?.string?.hasPrefix("The valley end") == true)
            let assets = stop["assets"]?.array ?? []
            #expect(assets.count == 5 && assets[2]["alt"]?["es"] == .string("Cerros verdes bajo un cielo azul"))
            #expect(assets[2]["title"]?["en"] == .string("The view at Sweet Home"))
            #expect(assets[4]["transcript"] == .string("Bienvenidos a Sweet Home."), "a Spanish file's own text")
            #expect(stop["coordinate"]?["latitude"] == .number(JSONNumber(44.3976)), "the position stays")

            // The English tab of the stop still saves everything it did, the Spanish texts kept.
            (status, html) = try await Self.get(client, ranger, Self.draft + "/stops/1")
            #expect(html.contains("Language of this file") && html.contains("Spanish (español) (its name says so)"))
            (posted, _, body) = try await PanelFlow.post(
                client, ranger, Self.draft + "/stops/1",
                [
                    ("revision", try PanelFlow.revision(html)), ("language", "en"), ("name", "Sweet Home"),
                    ("latitude", "44.3976"), ("longitude", "-122.7262"), ("description", "The valley end."),
                    ("title-1", ""), ("language-1", "en"), ("title-3", "The view"), ("alt-3", "Green ridges"),
                    ("language-3", ""), ("title-4", "Welcome"), ("transcript-4", "Welcome to Sweet Home."),
                    ("language-4", ""), ("title-5", "Bienvenidos"), ("transcript-5", "Bienvenidos."),
                ])
            #expect(posted == .seeOther, "\(body)")
            let saved = try TourDraft.read(folder: folder).stops[0]
            #expect(
                saved.description == "The valley end."
                    && saved.translations["es", .description] == "Donde empieza el camino.")
            #expect(saved.assets[2].alt == "Green ridges" && saved.assets[2].translations["es", .alt] != nil)
            tour = try Self.json(folder + "/tour.json")
            #expect(tour["languages"] == .array([.string("en"), .string("es")]))
        }
    }

    /// The side-by-side page for the tour and every stop; a save keeps what it does not show; a translation
    /// removed there is a warning on the tour page leading to the stop's Spanish tab, counted by the meter.
    @Test(
        "side by side: English read-only on the left, Spanish fields on the right; missing ones counted"
    )
    func translatePage() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let folder = try Self.fixtureDraft(server)
            var (status, html) = try await Self.get(client, ranger, Self.draft + "/translate/es")
            #expect(status == .ok, "\(html)")
            #expect(html.contains("Translate Santiam Wagon Road into Spanish"))
            #expect(html.contains("id=\"tour-name-source\" lang=\"en\">Santiam Wagon Road"))
            #expect(
                html.contains("id=\"tour-name\" name=\"tour-name\" lang=\"es\" value=\"Camino de Carretas de Santiam\"")
            )
            #expect(html.contains("Stop 8: Cache Creek Toll Station") && html.contains("id=\"stop-8-description\""))
            #expect(html.contains("Alt text of view.png in Spanish"), "\(html)")
            #expect(html.contains("Files in Spanish: about.es.md, narration.es.wav."))
            #expect(html.contains("<meter id=\"meter-es\""))
            (status, _) = try await Self.get(client, ranger, Self.draft + "/translate/en")
            #expect(status == .notFound, "the default language is not translated into")
            (status, _) = try await Self.get(client, ranger, Self.draft + "/translate/fr")
            #expect(status == .notFound)
            let (posted, location, body) = try await PanelFlow.post(
                client, ranger, Self.draft + "/translate/es",
                [
                    ("revision", try PanelFlow.revision(html)), ("stop-3-description", ""),
                    ("stop-2-name", "Cascadia (parque)"), ("stop-4-file-4-transcript", "Cantos de aves."),
                ])
            #expect(posted == .seeOther && location == Self.draft + "/translate/es?saved=1", "\(body)")
            let draft = try TourDraft.read(folder: folder)
            #expect(draft.stops[2].translations["es", .description] == nil)
            #expect(draft.stops[1].translations["es", .name] == "Cascadia (parque)")
            #expect(draft.stops[3].assets[3].translations["es", .transcript] == "Cantos de aves.")
            #expect(draft.translations["es", .name] == "Camino de Carretas de Santiam", "fields not sent stay")
            // The description no longer in Spanish is missing: a warning in the validator's words, on the tour
            // page too, leading to the stop's Spanish tab; the meter and the stop list count it.
            html = try await Self.get(client, ranger, Self.draft).1
            #expect(
                html.contains(Self.html("stop 3 'Mountain House' has no Spanish (es) for: description")),
                "\(html)")
            #expect(html.contains(Self.draft + "/stops/3?lang=es#stop-languages"))
            #expect(!html.contains("Everything is translated.") && html.contains("1 missing"))
            #expect(html.contains("1 to translate"))
            html = try await Self.get(client, ranger, Self.draft + "/translate/es").1
            #expect(html.contains("to translate</span>"))
        }
    }

    @Test("findings about languages in a ranger's words: no JSON, no paths, the tab to write on; the tours list")
    func findingWords() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            _ = try Self.fixtureDraft(server)
            let key = try #require(DraftStore.Key(site: Self.site, tour: "santiam-wagon-road"))
            // An alt text in Spanish only: the default language's is missing.
            try await panel.drafts.update(key, revision: nil) { draft in
                draft.stops[0].assets[2].alt = nil
            }
            let html = try await Self.get(client, ranger, Self.draft + "/stops/1").1
            #expect(html.contains("there is no alt text in English (en)"), "\(html)")
            #expect(html.contains("write it on the English tab"))
            #expect(!html.contains("&quot;en&quot;: &quot;…&quot;") && !html.contains("waypoints[0]"))
            #expect(!html.contains("waypoints/sweet-home/"), "files by their names, not their package paths")
            // The tours list names a tour whose name is given by language.
            let home = try await Self.get(client, ranger, "/").1
            #expect(home.contains(">Santiam Wagon Road</a>"), "\(home)")
        }
    }

    /// A malformed tag (or a language's name) is refused in plain words; the first language is the default;
    /// another is added, made the default and back; one with files cannot go; every language can be required.
    @Test(
        "languages declared: a malformed tag or a name refused; a default; one with files kept; all required"
    )
    func declare() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let draft = try await PanelFlow.createDraft(client, ranger, name: "Fish Lake")
            let folder = server.folder.root + draft
            var html = try await Self.get(client, ranger, draft).1
            #expect(html.contains("The tour is in one language") && html.contains("Language of the texts now"))
            #expect(html.contains("<option value=\"es\">Spanish (español)</option>"), "suggestions")
            /// A change to the languages; a refusal is said on the tour page it leads back to (its body here).
            func act(_ fields: [(String, String)]) async throws -> (HTTPResponse.Status, String?, String) {
                let page = try await Self.get(client, ranger, draft).1
                let (status, location, body) = try await PanelFlow.post(
                    client, ranger, draft + "/languages", [("revision", try PanelFlow.revision(page))] + fields)
                guard let location, location.contains("?refused=1") else { return (status, location, body) }
                let refused = try await Self.get(client, ranger, location).1
                return (.unprocessableContent, location, refused)
            }
            var (status, location, body) = try await act([("action", "add"), ("tag", "Spanish language")])
            #expect(
                status == .unprocessableContent && body.contains(Self.html("'Spanish language' is not a language tag")))
            #expect(body.contains("such as es for Spanish") && body.contains("id=\"language-problem\""))
            (status, _, body) = try await act([("action", "add"), ("tag", "french")])
            #expect(
                status == .unprocessableContent && body.contains(Self.html("'french' is the language's name"))
                    && body.contains("fr for French (français)"), "a well-formed tag that is a name: \(body)")
            (status, location, body) = try await act([("action", "add"), ("tag", "EN")])
            #expect(status == .seeOther && location == draft + "?saved=1#tour-languages", "\(body)")
            html = try await Self.get(client, ranger, location ?? draft).1
            #expect(
                html.contains("en — English is the tour&#39;s default language")
                    || html.contains("default language: the texts"))
            (status, _, body) = try await act([("action", "add"), ("tag", "es")])
            #expect(status == .seeOther)
            (status, _, body) = try await act([("action", "add"), ("tag", "ES")])
            #expect(
                status == .unprocessableContent && body.contains("one of the tour&#39;s languages already"), "\(body)")
            #expect(try TourDraft.read(folder: folder).languages == ["en", "es"])
            (status, _, body) = try await act([("action", "remove"), ("tag", "en")])
            #expect(
                status == .unprocessableContent && body.contains("make another language the default first"), "\(body)")
            // A Spanish name, then Spanish the default: its name is the plain one, English's a translation.
            try await panel.drafts.update(DraftStore.Key(site: Self.site, tour: "fish-lake")!, revision: nil) {
                $0.setText(.name, in: "es", defaultLanguage: "en", to: "Lago Fish")
            }
            (status, _, body) = try await act([("action", "default"), ("tag", "es")])
            #expect(status == .seeOther, "\(body)")
            var tour = try Self.json(folder + "/tour.json")
            #expect(tour["languages"] == .array([.string("es"), .string("en")]))
            #expect(tour["name"]?["es"] == .string("Lago Fish") && tour["name"]?["en"] == .string("Fish Lake"))
            (status, _, _) = try await act([("action", "default"), ("tag", "en")])
            // A file in Spanish keeps Spanish from being removed.
            let added = try await PanelFlow.post(
                client, ranger, draft + "/stops",
                [
                    ("revision", try PanelFlow.revision(try await Self.get(client, ranger, draft).1)),
                    ("name", "Shore"), ("latitude", "44.4"), ("longitude", "-122.0"),
                ])
            #expect(added.0 == .seeOther)
            let upload = try await Self.upload(
                client, ranger, draft + "/stops/1/files", name: "view.png", language: "es", bytes: PanelFlow.png)
            #expect(upload.0 == .created, "\(upload.1)")
            (status, _, body) = try await act([("action", "remove"), ("tag", "es")])
            #expect(status == .unprocessableContent && body.contains("view.png (stop 1)"), "\(body)")
            (status, _, _) = try await act([("action", "require"), ("requireAll", "1")])
            let required = try Self.json(folder + "/tour.json")["requireAllLanguages"]
            #expect(status == .seeOther && required == .bool(true))
            html = try await Self.get(client, ranger, draft).1
            #expect(html.contains("id=\"require-all\" name=\"requireAll\" value=\"1\" checked"))
            (status, _, _) = try await act([("action", "require")])
            tour = try Self.json(folder + "/tour.json")
            #expect(status == .seeOther && tour["requireAllLanguages"] == nil)
        }
    }

    @Test(
        "removing a language asks first and destroys nothing: its texts are kept, and adding it again brings them back"
    )
    func removeKeepsTexts() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let draft = try await PanelFlow.draftWithStop(client, ranger, name: "Fish Lake", stop: "Shore")
            let key = try #require(DraftStore.Key(site: Self.site, tour: "fish-lake"))
            func act(_ fields: [(String, String)]) async throws -> (HTTPResponse.Status, String?, String) {
                let page = try await Self.get(client, ranger, draft).1
                return try await PanelFlow.post(
                    client, ranger, draft + "/languages", [("revision", try PanelFlow.revision(page))] + fields)
            }
            #expect(try await act([("action", "add"), ("tag", "en")]).0 == .seeOther)
            #expect(try await act([("action", "add"), ("tag", "es")]).0 == .seeOther)
            try await panel.drafts.update(key, revision: nil) {
                $0.setText(.name, in: "es", defaultLanguage: "en", to: "Lago Fish")
                $0.stops[0].setText(.description, in: "es", defaultLanguage: "en", to: "La orilla del lago.")
            }
            // Without the page's script: a page that asks, resending the same form; nothing changed yet.
            var (status, _, body) = try await act([("action", "remove"), ("tag", "es")])
            #expect(status == .ok && body.contains("id=\"confirm-form\""), "\(body)")
            #expect(body.contains("Its 2 translated texts are kept"), "\(body)")
            #expect(body.contains("name=\"tag\" value=\"es\"") && body.contains("name=\"action\" value=\"remove\""))
            #expect(try await panel.drafts.load(key).draft.languages == ["en", "es"])
            (status, _, body) = try await act([("action", "remove"), ("tag", "es"), ("confirmed", "yes")])
            #expect(status == .seeOther, "\(body)")
            var now = try await panel.drafts.load(key).draft
            #expect(now.languages == ["en"] && now.translations.byLanguage["es"] == nil)
            let tour = try Self.json(server.folder.root + draft + "/tour.json")
            #expect(tour["name"] == .string("Fish Lake"), "the package gets no text in an undeclared language")
            // The tour's page offers it back; the kept file is beside the draft, never in the tour folder.
            var html = try await Self.get(client, ranger, draft + "?saved=1").1
            #expect(html.contains("Its 2 translated texts are kept"), "the notice says so")
            #expect(html.contains(": 2 translated texts kept"), "\(html)")
            #expect(html.contains("id=\"add-back-es\""), "\(html)")
            #expect(!FileManager.default.fileExists(atPath: server.folder.root + draft + "/.fish-lake.kept-texts.json"))
            #expect(
                FileManager.default.fileExists(atPath: panel.drafts.root + "/\(Self.site)/.fish-lake.kept-texts.json"))
            #expect(panel.drafts.keptTexts(key)["es"]?.count == 2)
            // A text written since wins over the kept one; the rest come back.
            (status, _, body) = try await act([("action", "add"), ("tag", "ES")])
            #expect(status == .seeOther, "\(body)")
            now = try await panel.drafts.load(key).draft
            #expect(now.languages == ["en", "ES"] || now.languages == ["en", "es"])
            let tag = now.languages[1]
            #expect(now.translations[tag, .name] == "Lago Fish")
            #expect(now.stops[0].translations[tag, .description] == "La orilla del lago.")
            #expect(panel.drafts.keptTexts(key).isEmpty, "the kept texts went back into the draft")
            html = try await Self.get(client, ranger, draft + "?saved=1").1
            #expect(html.contains("with the 2 translated texts it had"), "\(html)")
            #expect(!html.contains("id=\"kept-languages\""))
        }
    }

    /// The upload form offers each declared language (the tab's chosen); both ways of uploading write
    /// "language" into waypoint.json.
    @Test(
        "uploads tagged with a language, by the script and by the form; an undeclared one refused"
    )
    func taggedUploads() async throws {
        try await PanelDraftTests.withPanel { server, panel, client in
            let ranger = try await PanelFlow.signIn(server, panel, site: Self.site)
            let folder = try Self.fixtureDraft(server)
            var html = try await Self.get(client, ranger, Self.draft + "/stops/2?lang=es").1
            #expect(html.contains("<label class=\"form-label\" for=\"upload-language\">Language of this file</label>"))
            #expect(html.contains("<option value=\"es\" selected>Spanish (español)</option>"), "the tab's language")
            #expect(html.contains("All languages (a photo, a sound)"))
            let wav: [UInt8] =
                Array("RIFF".utf8) + [36, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0, 1, 0, 1, 0]
                + [0x40, 0x1F, 0, 0, 0x80, 0x3E, 0, 0, 2, 0, 16, 0] + Array("data".utf8) + [0, 0, 0, 0]
            var result = try await Self.upload(
                client, ranger, Self.draft + "/stops/2/files", name: "narracion.wav", language: "es", bytes: wav)
            #expect(result.0 == .created, "\(result.1)")
            result = try await Self.upload(
                client, ranger, Self.draft + "/stops/2/files", name: "narration.wav", language: "fr", bytes: wav)
            #expect(result.0 == .unprocessableContent && result.1.contains("not one of the tour"), "\(result.1)")
            let form = PanelDraftTests.multipart(
                boundary: "xyz", files: [("photo.png", PanelFlow.png)], text: [("language", "")])
            let posted = try await client.execute(
                uri: Self.draft + "/stops/2/files?_csrf=" + ranger.csrf, method: .post,
                headers: [.cookie: ranger.cookie, .contentType: "multipart/form-data; boundary=xyz"],
                body: ByteBuffer(bytes: form)
            ) { ($0.status, $0.headers[.location] ?? "") }
            #expect(posted.0 == .seeOther, "\(posted)")
            let spoken = PanelDraftTests.multipart(
                boundary: "xyz", files: [("habla.wav", wav)], text: [("language", "es")])
            _ = try await client.execute(
                uri: Self.draft + "/stops/2/files?_csrf=" + ranger.csrf, method: .post,
                headers: [.cookie: ranger.cookie, .contentType: "multipart/form-data; boundary=xyz"],
                body: ByteBuffer(bytes: spoken)
            ) { $0.status }
            let assets = try Self.json(folder + "/waypoints/02-cascadia/waypoint.json")["assets"]?.array ?? []
            #expect(
                assets.suffix(3) == [
                    .object([JSONMember("file", .string("narracion.wav")), JSONMember("language", .string("es"))]),
                    .string("photo.png"),
                    .object([JSONMember("file", .string("habla.wav")), JSONMember("language", .string("es"))]),
                ], "\(assets)")
            html = try await Self.get(client, ranger, Self.draft + "/stops/2").1
            #expect(
                html.contains("narracion.wav <span class=\"small text-body-secondary\">(")
                    && html.contains("· in Spanish (español)</span>"))
        }
    }

    @Test(
        "the review page: the languages, a meter per language, the Spanish changes under Spanish"
    )
    func review() async throws {
        try await PanelDraftTests.withPanel(approvals: 1) { server, panel, client in
            let dir = NSTemporaryDirectory() + "panel-review-languages-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            _ = try await PanelFlow.signIn(server, panel, site: Self.site)
            let reviewer = try await PanelFlow.signIn(server, panel, user: "rita", role: .reviewer, site: nil)
            let token = try await server.catalog.issueToken(user: "ranger").token
            let rita = try #require(try await server.catalog.user(name: "rita"))
            let ranger = try #require(try await server.catalog.user(name: "ranger"))
            _ = try await PanelReviewTests.upload(client, token: token, version: "1.0.0", dir: dir)
            for (transition, user) in [(Catalog.Transition.start, ranger), (.approve, rita), (.push, ranger)] {
                _ = try await server.catalog.apply(
                    transition, package: PanelReviewTests.id, version: "1.0.0", by: user, required: 1, signature: nil)
            }
            // 1.1.0: a Spanish description reworded, a Spanish alt text removed.
            _ = try await PanelReviewTests.upload(client, token: token, version: "1.1.0", dir: dir) { folder in
                let path = folder + "/waypoints/02-cascadia/waypoint.json"
                var text = try String(contentsOfFile: path, encoding: .utf8)
                text = text.replacingOccurrences(of: "una vega sombreada", with: "una vega soleada")
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                let first = folder + "/waypoints/03-mountain-house/waypoint.json"
                var draft = try TourDraft.read(folder: folder)
                draft.stops[2].assets[2].setText(.alt, in: "es", defaultLanguage: "en", to: nil)
                try AtomicFile.write(JSONWriter.bytes(draft.waypointJSON(draft.stops[2])), to: first)
            }
            _ = try await server.catalog.apply(
                .start, package: PanelReviewTests.id, version: "1.1.0", by: ranger, required: 1, signature: nil)
            let (status, html) = try await Self.get(
                client, reviewer, "/packages/\(PanelReviewTests.id)/versions/1.1.0")
            #expect(status == .ok)
            #expect(html.contains("English (the default), Spanish (español)"), "\(html)")
            #expect(html.contains("<meter id=\"review-meter-es\"") && html.contains("Spanish: "))
            #expect(html.contains("In Spanish (español) (2)"), "\(html)")
            #expect(html.contains("<del>sombreada</del>") && html.contains("<ins>soleada</ins>"))
            #expect(html.contains("Stop 2, Cascadia — description"))
            #expect(html.contains("Stop 3, Mountain House — alt text of view.png: removed"))
            #expect(html.contains("Not translated yet (visitors get the English ones):"))
            #expect(html.contains("Stop 3, Mountain House: alt text of"))
            #expect(html.contains("<summary>In Spanish (español)</summary>"))
        }
    }
}
