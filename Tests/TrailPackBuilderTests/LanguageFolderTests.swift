import Foundation
import Testing
import TrailPackCore
import TrailPackTestSupport

@testable import TrailPackBuilder

/// The tour folder's form of languages (docs/FORMAT.md section 4): texts as `{"en": …, "es": …}`,
/// a file's language from its `"language"` or its name.
@Suite("tour folders in several languages", .ownThreads)
struct LanguageFolderTests {
    static func plan(_ edit: (String) throws -> Void) throws -> TourBuilder.PlanOutcome {
        try Support.withTemporaryDirectory { dir in
            try Support.copyTree(Support.fixture("santiam-wagon-road"), dir + "/tour")
            try edit(dir + "/tour")
            return try TourBuilder.plan(dir + "/tour")
        }
    }

    @Test("the bilingual Santiam tour: texts per language, narrations and texts tagged by name or field")
    func santiam() throws {
        let m = try #require(try Self.plan { _ in }.plan?.manifest)
        #expect(m.languages == ["en", "es"])
        #expect(m.translations["es", .name] == "Camino de Carretas de Santiam")
        let home = m.waypoints[0]
        #expect(home.translations["es", .description]?.hasPrefix("El extremo") == true)
        let byName = Dictionary(home.assets.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byName["waypoints/sweet-home/narration.es.wav"]?.language == "es")
        #expect(byName["waypoints/sweet-home/narration.en.wav"]?.language == "en")
        #expect(byName["waypoints/sweet-home/about.md"]?.language == "en")
        #expect(byName["waypoints/sweet-home/view.png"]?.language == nil)
        #expect(byName["waypoints/sweet-home/view.png"]?.translations["es", .alt] != nil)
        #expect(m.completeness.first?.percent == 100)
        #expect(!ManifestValidator.validate(m).contains { $0.code.rawValue.hasPrefix("language.") })
    }

    @Test("a text per language without the default language is an error naming the file and field")
    func defaultMissing() throws {
        let outcome = try Self.plan { dir in
            try Support.editJSON(dir + "/waypoints/02-cascadia/waypoint.json") { w in
                w["description"] = ["es": "Solo en español."]
            }
        }
        let finding = try #require(outcome.findings.first { $0.code == .languageDefaultMissing })
        #expect(finding.file == "waypoints/02-cascadia/waypoint.json")
        #expect(finding.message.contains("'description'") && finding.message.contains("English (en)"))
        #expect(outcome.plan == nil)
        // An optional text (an alt text) given only in Spanish: one finding, from the file, not a second
        // one from the manifest's rule.
        let alt = try Self.plan { dir in
            try Support.editJSON(dir + "/waypoints/02-cascadia/waypoint.json") { w in
                var assets = w["assets"] as? [Any] ?? []
                if let i = assets.firstIndex(where: { ($0 as? [String: Any])?["file"] as? String == "view.png" }),
                    var view = assets[i] as? [String: Any]
                {
                    view["alt"] = ["es": "Solo en español."]
                    assets[i] = view
                }
                w["assets"] = assets
            }
        }
        #expect(alt.findings.filter { $0.code == .languageDefaultMissing }.count == 1, "\(alt.findings)")
    }

    @Test("a language the tour does not declare is an error with a suggestion")
    func undeclared() throws {
        let outcome = try Self.plan { dir in
            try Support.editJSON(dir + "/waypoints/02-cascadia/waypoint.json") { w in
                w["name"] = ["en": "Cascadia", "sp": "Cascadia"]
            }
        }
        let finding = try #require(outcome.findings.first { $0.code == .languageUndeclared })
        #expect(finding.message.contains("'sp'") && finding.message.contains("(en, es)"))
    }

    @Test("a ranger's slips: a language misspelt in a file name or a field, one language twice, a blank translation")
    func slips() throws {
        let outcome = try Self.plan { dir in
            let stop = dir + "/waypoints/04-house-rock"
            try FileManager.default.copyItem(atPath: stop + "/birdsong.wav", toPath: stop + "/narration.sp.wav")
            try Support.editJSON(stop + "/waypoint.json") { w in
                var assets = w["assets"] as? [Any] ?? []
                assets.append(["file": "narration.sp.wav", "transcript": "Hola."])
                w["assets"] = assets
                var description = w["description"] as? [String: Any] ?? [:]
                description["ES"] = "Otra"
                w["description"] = description
            }
            try Support.editJSON(dir + "/waypoints/03-mountain-house/waypoint.json") { w in
                var description = w["description"] as? [String: Any] ?? [:]
                description["es"] = "  "
                w["description"] = description
                var assets = w["assets"] as? [Any] ?? []
                assets[0] = ["file": "about.md", "language": "spanish"]
                w["assets"] = assets
            }
        }
        let messages = outcome.findings.filter { $0.severity == .error }.map { "\($0.code.rawValue) \($0.message)" }
        #expect(messages.contains { $0.hasPrefix("language.undeclared") && $0.contains("'narration.sp.wav'") })
        #expect(messages.contains { $0.hasPrefix("language.undeclared") && $0.contains("write 'es'") })
        #expect(
            messages.contains { $0.hasPrefix("language.tag") && $0.contains("'ES'") && $0.contains("written twice") })
        #expect(messages.contains { $0.hasPrefix("manifest.text") && $0.contains("in Spanish (es) is empty") })
        #expect(messages.count == 4, "one finding for each slip: \(messages)")
        // Not a language: a file named with a longer word before its extension.
        #expect(Loader.undeclaredLanguageInName("view.final.png") == nil)
        #expect(Loader.undeclaredLanguageInName("narration.sp.wav") == "sp")
    }

    @Test("texts per language in a tour that declares none: the fix is to declare them")
    func noLanguagesDeclared() throws {
        let outcome = try Self.plan { dir in
            try Support.editJSON(dir + "/tour.json") { t in
                t["languages"] = nil
                t["name"] = "Santiam Wagon Road"
                t["park"] = "Willamette National Forest"
                t["description"] = "The old road."
            }
        }
        let finding = try #require(outcome.findings.first { $0.code == .languageUndeclared })
        #expect(finding.message.contains("add \"languages\""))
    }

    @Test("a missing translation is a warning naming the stop, the field and the language; required, an error")
    func missingTranslation() throws {
        let warned = try Self.plan { dir in
            try Support.editJSON(dir + "/waypoints/06-fish-lake/waypoint.json") { w in
                w["description"] = (w["description"] as? [String: Any])?.filter { $0.key == "en" }
            }
        }
        let finding = try #require(warned.findings.first { $0.code == .languageMissing })
        #expect(finding.severity == .warning)
        #expect(finding.message.contains("Fish Lake") && finding.message.contains("Spanish (es)"))
        #expect(finding.message.contains("description"))
        #expect(warned.plan != nil)
        let required = try Self.plan { dir in
            try Support.editJSON(dir + "/tour.json") { t in t["requireAllLanguages"] = true }
            try Support.editJSON(dir + "/waypoints/06-fish-lake/waypoint.json") { w in
                w["description"] = (w["description"] as? [String: Any])?.filter { $0.key == "en" }
            }
        }
        #expect(required.findings.contains { $0.code == .languageRequired && $0.severity == .error })
        #expect(required.plan == nil)
    }

    @Test("validate and inspect report languages, completeness and the phone budget per language")
    func cli() throws {
        try Support.withTemporaryDirectory { dir in
            let validated = try Support.trailpack("validate", Support.fixture("santiam-wagon-road"))
            #expect(validated.status == 0, "\(validated.stderr)")
            #expect(validated.stdout.contains("languages English (en), Spanish (es)"))
            #expect(validated.stdout.contains("es: 100% translated"))
            let built = try Support.trailpack(
                "build", Support.fixture("santiam-wagon-road"), "-o", dir + "/t.zip", "-q")
            try #require(built.status == 0, "\(built.stderr)")
            let spanish = try Support.trailpack("inspect", dir + "/t.zip", "--language", "es-MX")
            #expect(spanish.status == 0, "\(spanish.stderr)")
            #expect(spanish.stdout.contains("Camino de Carretas de Santiam"))
            #expect(spanish.stdout.contains("narration.es.wav") && !spanish.stdout.contains("narration.en.wav"))
            #expect(spanish.stdout.contains("Everything is in Spanish (es)"))
            let json = try Support.trailpack("inspect", dir + "/t.zip", "--json")
            #expect(json.stdout.contains("\"translatedTexts\""))
            let bad = try Support.trailpack("inspect", dir + "/t.zip", "--language", "es_ES")
            #expect(bad.status == 2 && bad.stderr.contains("not a language tag"))
        }
    }
}
