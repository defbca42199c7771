import Foundation
import Testing
import TrailPackCore
import TrailPackTestSupport
import TrailPackVerifier

@testable import TrailPackBuilder

/// Sheets with a column per language (`name_es`, `Description (es)`, `audio_es`): `init --from-csv` writes a tour
/// in several languages (docs/FORMAT.md, sections 3.2 and 4; docs/RANGERS.md, "Tours in several languages").
@Suite("spreadsheet import: tours in several languages", .ownThreads)
struct CSVLanguageTests {
    /// A short WAV recording (8 kHz, 8-bit mono).
    static func wav(_ samples: Int = 400, tone: UInt8 = 0x80) -> [UInt8] {
        func le32(_ n: Int) -> [UInt8] { (0..<4).map { UInt8((n >> (8 * $0)) & 0xFF) } }
        let format: [UInt8] = [1, 0, 1, 0] + le32(8000) + le32(8000) + [1, 0, 8, 0]
        return Array("RIFF".utf8) + le32(36 + samples) + Array("WAVEfmt ".utf8) + le32(16) + format
            + Array("data".utf8) + le32(samples) + (0..<samples).map { tone &+ UInt8($0 % 7) }
    }

    /// The recordings the sheets name, in `dir/media`.
    static func media(in dir: String) throws -> String {
        let media = dir + "/media"
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        try Support.write(wav(tone: 0x70), to: media + "/narration.en.wav")
        try Support.write(wav(900, tone: 0x90), to: media + "/narration.es.wav")
        try Support.write(wav(tone: 0x60), to: media + "/bienvenida.wav")
        return media
    }

    static func json(_ path: String) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    static func findings(_ output: Support.Output) throws -> [[String: Any]] {
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        return report["findings"] as? [[String: Any]] ?? []
    }

    static let bilingual = """
        order,name,Nombre (es),latitude,longitude,description,description_es,audio,audio_es
        1,House Rock,Roca Casa,44.3925,-122.2418,"A huge overhanging boulder.
        Settlers sheltered here.","Un enorme peñasco saliente.
        Los colonos se refugiaban aquí.",narration.en.wav,bienvenida.wav
        2,Fish Lake,Lago Fish,44.4057,-121.9929,A lake that dries up in late summer.,,,

        """

    @Test("a bilingual sheet becomes a tour that validates and builds, with languages and translations")
    func bilingualSheet() throws {
        try Support.withTemporaryDirectory { dir in
            let media = try Self.media(in: dir)
            try Self.bilingual.write(toFile: dir + "/stops.csv", atomically: true, encoding: .utf8)
            let made = try Support.trailpack("init", dir + "/tour", "--from-csv", dir + "/stops.csv", "--media", media)
            #expect(made.status == 0, "\(made.stderr)")
            #expect(
                made.stderr.contains(
                    "note: the sheet has Spanish (es) columns; the plain columns are taken as English (en); "
                        + "pass --language to say otherwise"), "\(made.stderr)")
            #expect(made.stdout.contains("languages: English (en) (the default), Spanish (es)"), "\(made.stdout)")

            let tour = try Self.json(dir + "/tour/tour.json")
            #expect(tour["languages"] as? [String] == ["en", "es"])
            let first = try Self.json(dir + "/tour/waypoints/01-house-rock/waypoint.json")
            #expect(first["name"] as? [String: String] == ["en": "House Rock", "es": "Roca Casa"])
            #expect(
                first["description"] as? [String: String] == [
                    "en": "A huge overhanging boulder.\nSettlers sheltered here.",
                    "es": "Un enorme peñasco saliente.\nLos colonos se refugiaban aquí.",
                ])
            let assets = try #require(first["assets"] as? [Any])
            #expect(
                assets.first as? [String: String] == ["file": "narration.en.wav", "language": "en"],
                "the plain audio column beside audio_es is the default language's")
            #expect(assets.last as? [String: String] == ["file": "bienvenida.wav", "language": "es"])
            // The empty Spanish description is simply not given.
            let second = try Self.json(dir + "/tour/waypoints/02-fish-lake/waypoint.json")
            #expect(second["description"] as? [String: String] == ["en": "A lake that dries up in late summer."])

            let validate = try Support.trailpack("validate", dir + "/tour", "--json")
            #expect(validate.status == 0, "\(validate.stdout)")
            let codes = Set(try Self.findings(validate).compactMap { $0["code"] as? String })
            #expect(
                codes == ["source.placeholder", "map.none", "accessibility.missing", "language.missing"], "\(codes)")
            let human = try Support.trailpack("validate", dir + "/tour")
            #expect(human.stdout.contains("es: "), "the phone budget per language: \(human.stdout)")

            let build = try Support.trailpack("build", dir + "/tour", "-o", dir + "/tour.zip", "--quiet")
            #expect(build.status == 0, "\(build.stderr)")
            let manifest = try PackageReader(path: dir + "/tour.zip").manifest
            #expect(manifest.languages == ["en", "es"])
            let rock = manifest.waypoints[0]
            #expect(rock.name == "House Rock")
            #expect(rock.translations["es", .name] == "Roca Casa")
            #expect(
                rock.translations["es", .description] == "Un enorme peñasco saliente.\nLos colonos se refugiaban aquí.")
            #expect(rock.assets.map(\.language) == ["en", "es"])
            #expect(manifest.waypoints[1].translations["es", .name] == "Lago Fish")
            #expect(manifest.waypoints[1].translations["es", .description] == nil)
        }
    }

    @Test("an empty Spanish cell gives a language.missing warning naming the stop, the field and the language")
    func missingCell() throws {
        try Support.withTemporaryDirectory { dir in
            let media = try Self.media(in: dir)
            try Self.bilingual.write(toFile: dir + "/stops.csv", atomically: true, encoding: .utf8)
            let made = try Support.trailpack("init", dir + "/tour", "--from-csv", dir + "/stops.csv", "--media", media)
            #expect(made.status == 0, "\(made.stderr)")
            let validate = try Support.trailpack("validate", dir + "/tour", "--json")
            let missing = try Self.findings(validate).filter { $0["code"] as? String == "language.missing" }
            let stop = try #require(
                missing.first { ($0["file"] as? String)?.hasPrefix("waypoints/02-fish-lake/") == true }, "\(missing)")
            #expect(
                stop["message"] as? String
                    == "stop 2 'Fish Lake' has no Spanish (es) for: description; "
                    + "visitors get the default language's instead")
            #expect(stop["severity"] as? String == "warning")
            #expect(
                !missing.contains { ($0["file"] as? String)?.hasPrefix("waypoints/01-house-rock/") == true },
                "the first stop has every Spanish text: \(missing)")
            let human = try Support.trailpack("validate", dir + "/tour")
            #expect(
                human.stderr.contains(
                    "warning[language.missing] waypoints/02-fish-lake/waypoint.json: stop 2 'Fish Lake' has no "
                        + "Spanish (es) for: description"), "\(human.stderr)")
        }
    }

    @Test("a malformed language tag in a header is a csv.column error naming the column, and nothing is written")
    func badTag() throws {
        try Support.withTemporaryDirectory { dir in
            let csv = "name,lat,lon,description,description_xx-123456789\nA,44.1,-122.1,x,y\n"
            try csv.write(toFile: dir + "/stops.csv", atomically: true, encoding: .utf8)
            let out = try Support.trailpack("init", dir + "/tour", "--from-csv", dir + "/stops.csv")
            #expect(out.status == 1, "\(out.stderr)")
            #expect(
                out.stderr.contains(
                    "error[csv.column] stops.csv: column E (description_xx-123456789): the header reads as the "
                        + "description in another language, but 'xx-123456789' is not a language tag: each part of a "
                        + "language tag is 1 to 8 letters or digits, and '123456789' has 9"), "\(out.stderr)")
            #expect(out.stderr.contains("nothing was written"))
            #expect(!FileManager.default.fileExists(atPath: dir + "/tour"))
        }
    }

    /// The findings of a sheet that has only a header row and one stop.
    static func findings(header: String, cells: String, language: String? = nil) -> CSVImport.SheetReading {
        CSVImport.parse(
            Array("\(header)\n\(cells)\n".utf8), fileName: "s.csv", mediaFolder: "/nonexistent", ignoreMedia: true,
            language: language)
    }

    @Test("the header forms: _es, -es, (es), [es], any case; what is not a language stays what it was")
    func headerForms() throws {
        let cases: [(String, CSVImport.LanguageHeader?)] = [
            ("name_es", .init(role: .name, tag: "es")),
            ("Name-ES", .init(role: .name, tag: "ES")),
            ("Description (es-419)", .init(role: .description, tag: "es-419")),
            ("Descripción [es]", .init(role: .description, tag: "es")),
            ("stop-name_zh_Hant", .init(role: .name, tag: "zh_Hant")),
            ("Audio (fr)", .init(role: .audio, tag: "fr")),
            ("description_xx-123456789", .init(role: .description, tag: "xx-123456789")),
            ("Name (id)", .init(role: .name, tag: "id")),
            ("stop_id", nil),
            ("stop_no", nil),
            ("photo_nr", nil),
            ("Description (short)", nil),
            ("Latitude (WGS84)", nil),
            ("description_2", nil),
            ("Elevation (ft)", nil),
        ]
        for (header, expected) in cases {
            #expect(CSVImport.languageHeader(header) == expected, "\(header)")
        }
        #expect(CSVImport.canonicalTag("ES_mx") == "es-MX")
        #expect(CSVImport.canonicalTag("zh-hant-tw") == "zh-Hant-TW")
        #expect(CSVImport.canonicalTag("sl-ROZAJ") == "sl-rozaj")
        #expect(CSVImport.canonicalTag("en-x-TOUR") == "en-x-tour")

        // Read as before: "Description (short)" is the description, stop_id a property.
        let plain = Self.findings(header: "stop_id,name,lat,lon,Description (short)", cells: "7,A,1,2,d")
        let stop = try #require(plain.stops?.first, "\(plain.findings)")
        #expect(stop.description == "d")
        #expect(stop.properties.map(\.key) == ["stopId"])
        #expect(plain.languages.isEmpty && plain.notes.isEmpty)
    }

    @Test("two columns for one text in one language are a csv.column error that names both")
    func twoColumns() throws {
        let both = Self.findings(header: "name,name_en,lat,lon", cells: "A,A,1,2")
        #expect(both.stops == nil)
        #expect(both.findings.map(\.code) == [.csvColumn])
        #expect(both.findings.first?.path == "column B (name_en)")
        #expect(
            both.findings.first?.message
                == "columns A (name) and B (name_en) both give the name in English (en), the language of the plain "
                + "columns; keep one (delete the other, or rename it)")
        let twice = Self.findings(header: "name,lat,lon,Nombre (ES),name_es", cells: "A,1,2,B,B")
        #expect(
            twice.findings.first?.message.contains(
                "columns D (Nombre (ES)) and E (name_es) both give the name in Spanish (es)") == true,
            "\(twice.findings)")
        // Given in French, the plain columns clash with name_fr, not with name_en.
        let french = Self.findings(header: "name,name_en,lat,lon", cells: "A,B,1,2", language: "fr")
        #expect(french.languages == ["fr", "en"], "\(french.findings)")
    }

    @Test("--language names the plain columns' language; a column in it stands for a missing plain column")
    func defaultLanguage() throws {
        // Only per-language columns: English is the default, so name_en is the name.
        let english = Self.findings(header: "name_es,name_en,lat,lon", cells: "Roca,Rock,1,2")
        let stop = try #require(english.stops?.first, "\(english.findings)")
        #expect(stop.name == "Rock")
        #expect(stop.translations == ["es": CSVImport.Texts(name: "Roca")])
        #expect(english.languages == ["en", "es"])
        #expect(english.notes.first?.contains("is taken as English (en); pass --language") == true, "\(english.notes)")

        // Neither plain nor English: the finding says which --language would do.
        let none = Self.findings(header: "name_fr,name_es,lat,lon", cells: "A,B,1,2")
        #expect(none.stops == nil)
        #expect(
            none.findings.first?.message.hasPrefix(
                "there is no name column in English (en), the language of the plain columns: the sheet gives the "
                    + "name only in columns A (name_fr), B (name_es). Pass --language fr") == true, "\(none.findings)")
        let french = Self.findings(header: "name_fr,name_es,lat,lon", cells: "A,B,1,2", language: "FR")
        #expect(french.stops?.first?.name == "A", "\(french.findings)")
        #expect(french.languages == ["fr", "es"])
        #expect(french.notes.isEmpty, "a language given needs no note")

        // A language given for a sheet without language columns is declared all the same.
        let one = Self.findings(header: "name,lat,lon", cells: "A,1,2", language: "es_mx")
        #expect(one.languages == ["es-MX"])
        let malformed = Self.findings(header: "name,lat,lon", cells: "A,1,2", language: "e")
        #expect(malformed.stops == nil && malformed.findings.map(\.code) == [.csvColumn], "\(malformed.findings)")
    }

    @Test("init --language: given with --from-csv, well-formed, and written first in tour.json")
    func languageOption() throws {
        try Support.withTemporaryDirectory { dir in
            let csv =
                "nombre,latitud,longitud,Name (en),Descripción\nRoca Casa,\"44,39\",-122.24,House Rock,Una roca.\n"
            try csv.write(toFile: dir + "/paradas.csv", atomically: true, encoding: .utf8)
            let bad = try Support.trailpack("init", dir + "/a", "--from-csv", dir + "/paradas.csv", "--language", "e")
            #expect(bad.status == 2 && bad.stderr.contains("--language 'e' is not a language tag"), "\(bad.stderr)")
            let alone = try Support.trailpack("init", dir + "/a", "--language", "es")
            #expect(alone.status == 2 && alone.stderr.contains("--language goes with --from-csv"), "\(alone.stderr)")
            let out = try Support.trailpack("init", dir + "/a", "--from-csv", dir + "/paradas.csv", "--language", "es")
            #expect(out.status == 0, "\(out.stderr)")
            #expect(!out.stderr.contains("note:"), "\(out.stderr)")
            #expect(try Self.json(dir + "/a/tour.json")["languages"] as? [String] == ["es", "en"])
            let stop = try Self.json(dir + "/a/waypoints/01-roca-casa/waypoint.json")
            #expect(stop["name"] as? [String: String] == ["es": "Roca Casa", "en": "House Rock"])
            #expect(stop["description"] as? [String: String] == ["es": "Una roca."])
            let validate = try Support.trailpack("validate", dir + "/a")
            #expect(validate.status == 0, "\(validate.stderr)")
            #expect(
                validate.stderr.contains("stop 1 'Roca Casa' has no English (en) for: description"),
                "\(validate.stderr)")
        }
    }

    /// fixtures/csv/santiam-bilingual*.csv are written by Python's csv module, as a ranger's script or program
    /// exports a sheet: the stops of fixtures/santiam-wagon-road in English and Spanish. The first uses the
    /// module's default dialect (commas, CRLF, quotes only where needed); the second is Spanish first, with
    /// Excel's "CSV UTF-8" habits where decimal commas are the custom (byte-order mark, semicolons).
    /// (No spreadsheet program is run to make an .ods: none is installed where the fixtures were made.)
    @Test(
        "a sheet written by Python's csv module becomes the Santiam tour in English and Spanish",
        arguments: [("santiam-bilingual.csv", nil), ("santiam-bilingual-es.csv", "es")] as [(String, String?)])
    func pythonSheet(file: String, language: String?) throws {
        try Support.withTemporaryDirectory { dir in
            let media = try Self.media(in: dir)
            let sheet = Support.fixture("csv/" + file)
            let bytes = try Support.read(sheet)
            #expect(bytes.starts(with: [0xEF, 0xBB, 0xBF]) == (language == "es"))
            #expect(String(decoding: bytes, as: UTF8.self).contains("\r\n"), "the csv module ends rows with CRLF")
            let made = try Support.trailpack(
                ["init", dir + "/tour", "--from-csv", sheet, "--media", media]
                    + (language.map { ["--language", $0] } ?? []))
            #expect(made.status == 0, "\(made.stderr)")
            let validate = try Support.trailpack("validate", dir + "/tour", "--json")
            #expect(validate.status == 0, "\(validate.stdout)")
            let missing = try Self.findings(validate).filter { $0["code"] as? String == "language.missing" }
            #expect(missing.map { $0["file"] as? String } == ["tour.json"], "only the tour's own texts: \(missing)")

            let build = try Support.trailpack("build", dir + "/tour", "-o", dir + "/tour.zip", "--quiet")
            #expect(build.status == 0, "\(build.stderr)")
            let manifest = try PackageReader(path: dir + "/tour.zip").manifest
            let (base, other) = language == "es" ? ("es", "en") : ("en", "es")
            #expect(manifest.languages == [base, other])
            #expect(manifest.waypoints.count == 8)
            let folder = Support.fixture("santiam-wagon-road/waypoints")
            let stops = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            #expect(stops.count == manifest.waypoints.count)
            for (built, stop) in zip(manifest.waypoints, stops) {
                // The fixture's own stop, written per language: {"en": …, "es": …}.
                let original = try Self.json(folder + "/" + stop + "/waypoint.json")
                let names = try #require(original["name"] as? [String: String])
                let descriptions = try #require(original["description"] as? [String: String])
                #expect(built.name == names[base])
                #expect(built.translations[other, .name] == names[other])
                let coordinate = try #require(original["coordinate"] as? [String: Double])
                #expect(
                    built.coordinate
                        == Coordinate(latitude: coordinate["latitude"]!, longitude: coordinate["longitude"]!))
                for tag in ["en", "es"] {
                    let text = built.text(.description, in: tag, defaultLanguage: base)
                    #expect(!text.fellBack)
                    #expect(
                        text.text?.replacingOccurrences(of: ":\n", with: ": ") == descriptions[tag],
                        "\(built.name) in \(tag) (a line break in a cell is kept)")
                }
            }
            let narration = manifest.waypoints[0].assets
            #expect(narration.map(\.language) == [base, other])
            #expect(
                Set(narration.map { $0.path.split(separator: "/").last.map(String.init) ?? "" }) == [
                    "narration.en.wav", "narration.es.wav",
                ])
        }
    }
}
