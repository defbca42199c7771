import Foundation
import Testing
import TrailPackTestSupport

@testable import TrailPackCore

@Suite("languages: tags, translations, what a visitor gets", .ownThreads)
struct LanguageTests {
    /// The bilingual example of manifests/examples (English and Spanish, a Spanish narration and captions).
    static func bilingual() throws -> Manifest {
        let bytes = try Support.read(Support.root + "/manifests/examples/valid/languages.json")
        let read = ManifestReader.read(bytes)
        #expect(!read.findings.hasErrors, "\(read.findings)")
        return try #require(read.manifest)
    }

    @Test(
        "well-formed BCP 47 tags (RFC 5646 section 2.1 and appendix A)",
        arguments: [
            "en", "es", "es-419", "zh-Hant", "zh-Hant-CN", "sr-Latn-RS", "de-CH-1901", "sl-rozaj-biske",
            "hy-Latn-IT-arevela", "zh-cmn-Hans-CN", "yue-HK", "en-US-x-twain", "x-whatever", "qaa-Qaaa-QM-x-southern",
            "de-Qaaa", "en-a-bbb-x-a-ccc", "i-klingon", "sgn-BE-FR", "EN-us", "tlh", "fil-PH",
        ])
    func wellFormed(tag: String) {
        #expect(LanguageTag.isWellFormed(tag))
    }

    @Test(
        "malformed tags",
        arguments: [
            "", "e", "es_ES", "en-", "-en", "en--us", "de-419-DE-", "a-DE", "ar-a-aaa-b-bbb-a", "en-US-x", "x",
            "abcdefghi", "en-a", "123", "en us", "es-ES-x-toolongpart", "ñ",
        ])
    func malformed(tag: String) {
        #expect(!LanguageTag.isWellFormed(tag))
    }

    @Test("languages are named in messages: Spanish (es)")
    func names() {
        #expect(LanguageTag.describe("es") == "Spanish (es)")
        #expect(LanguageTag.nativeName("es") == "español")
        #expect(LanguageTag.describe("qaa") == "qaa" || LanguageTag.describe("qaa").hasSuffix("(qaa)"))
    }

    @Test("a manifest with languages reads back to the same bytes")
    func roundTrip() throws {
        let m = try Self.bilingual()
        #expect(m.languages == ["en", "es"])
        #expect(m.translations["es", .name] == "Paseo del Lago Fish")
        #expect(m.waypoints[1].assets[1].language == "es")
        let again = try #require(ManifestReader.read(m.canonicalBytes).manifest)
        #expect(again == m)
        #expect(again.canonicalBytes == m.canonicalBytes)
        // The streamed writer and the tree agree.
        #expect(m.canonicalBytes == JSONWriter.bytes(m.jsonValue))
    }

    @Test("a manifest without languages is format 1.0: no new members written, one unnamed language")
    func monolingual() throws {
        var m = try Self.bilingual()
        m.languages = []
        m.translations = Translations()
        for i in m.waypoints.indices {
            m.waypoints[i].translations = Translations()
            for j in m.waypoints[i].assets.indices {
                m.waypoints[i].assets[j].language = nil
                m.waypoints[i].assets[j].translations = Translations()
            }
        }
        let text = String(decoding: m.canonicalBytes, as: UTF8.self)
        #expect(!text.contains("languages") && !text.contains("translations") && !text.contains("\"language\""))
        let tour = m.localized(for: "es")
        #expect(tour.language == nil && tour.fallbacks.isEmpty)
        #expect(tour.stops.map(\.assets.count) == m.waypoints.map(\.assets.count))
        #expect(m.completeness.isEmpty)
    }

    @Test("a Spanish visitor gets Spanish texts and the Spanish narration, not the English one")
    func spanishVisitor() throws {
        let m = try Self.bilingual()
        let tour = m.localized(for: "es")
        #expect(tour.language == "es")
        #expect(tour.name == "Paseo del Lago Fish")
        #expect(tour.stops[0].name == "Depósito de Remonta")
        let lake = tour.stops[1]
        let paths = lake.assets.map(\.asset.path)
        #expect(paths.contains("waypoints/fish-lake/narration.es.mp3"))
        #expect(!paths.contains("waypoints/fish-lake/narration.mp3"))
        let video = try #require(lake.assets.first { $0.asset.kind == .video })
        #expect(video.captions == "waypoints/fish-lake/meadow.es.vtt")
        #expect(video.transcript == "El lecho del lago en agosto: pasto donde estaba el agua.")
        let barn = try #require(tour.stops[0].assets.first { $0.asset.kind == .image })
        #expect(barn.alt?.hasPrefix("Un largo establo") == true)
        #expect(tour.fallbacks.isEmpty, "\(tour.fallbacks)")
        // English visitors get the plain fields and the English files.
        let english = m.localized(for: "en")
        #expect(english.name == "Fish Lake Walk")
        #expect(english.stops[1].assets.map(\.asset.path).contains("waypoints/fish-lake/narration.mp3"))
        #expect(!english.stops[1].assets.map(\.asset.path).contains("waypoints/fish-lake/narration.es.mp3"))
    }

    @Test("what is not translated falls back to the default language, and says so")
    func fallbacks() throws {
        var m = try Self.bilingual()
        m.waypoints[1].translations = Translations()
        m.waypoints[1].assets.remove(at: 1)  // the Spanish narration
        let tour = m.localized(for: "es")
        #expect(tour.stops[1].name == "Fish Lake")
        #expect(tour.stops[1].assets.map(\.asset.path).contains("waypoints/fish-lake/narration.mp3"))
        #expect(tour.fallbacks.contains(Fallback(stop: 2, field: "name", asset: nil)))
        #expect(tour.fallbacks.contains(Fallback(stop: 2, field: "audio", asset: "waypoints/fish-lake/narration.mp3")))
        let c = try #require(m.completeness.first)
        #expect(c.language == "es" && c.percent < 100)
        #expect(c.missing.contains(Fallback(stop: 2, field: "description", asset: nil)))
        let findings = ManifestValidator.validate(m)
        let missing = try #require(findings.first { $0.code == .languageMissing })
        #expect(missing.severity == .warning)
        #expect(missing.message.contains("stop 2 'Fish Lake'") && missing.message.contains("Spanish (es)"))
        #expect(missing.message.contains("description") && missing.message.contains("a recording"))
        m.requireAllLanguages = true
        #expect(ManifestValidator.validate(m).codes.contains(.languageRequired))
        #expect(ManifestValidator.validate(m).hasErrors)
    }

    @Test("a phone's language picks the nearest declared one")
    func bestLanguage() throws {
        var m = try Self.bilingual()
        m.languages = ["en", "es-419", "zh-Hant"]
        #expect(m.bestLanguage(for: ["es-MX", "en"]) == "es-419")
        #expect(m.bestLanguage(for: ["ES-419"]) == "es-419")
        #expect(m.bestLanguage(for: ["fr-CA", "zh-Hant-TW"]) == "zh-Hant")
        #expect(m.bestLanguage(for: ["fr"]) == "en")
        m.languages = ["en", "es-419", "es"]
        #expect(m.bestLanguage(for: ["es-MX"]) == "es", "the general tag before a sibling region")
        #expect(m.bestLanguage(for: []) == "en")
        m.languages = []
        #expect(m.bestLanguage(for: ["es"]) == nil)
    }

    @Test("the phone budget per language counts the shared files and that language's")
    func bytesPerLanguage() throws {
        let m = try Self.bilingual()
        let shared = m.allAssets.filter { $0.language == nil }.reduce(Int64(0)) { $0 + $1.size }
        let spanish = m.allAssets.filter { $0.language == "es" }.reduce(Int64(0)) { $0 + $1.size }
        #expect(m.bytes(for: "es") == shared + spanish)
        #expect(m.bytes(for: "es") < m.allAssets.reduce(Int64(0)) { $0 + $1.size })
    }

    /// A small deterministic generator (xorshift64*).
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 2_685_821_657_736_338_717
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    }

    @Test("structure fuzz: manifests with random languages, translations and tagged files")
    func structureFuzz() throws {
        let base = try Self.bilingual()
        var g = Generator(state: 0x9E37_79B9_7F4A_7C15)
        let tags = ["en", "es", "fr", "es-419", "EN", "es_ES", "x-private", "", "zh-Hant"]
        let kinds: [AssetKind] = [.audio, .video, .text, .image]
        for round in 0..<400 {
            var m = base
            m.languages = (0..<g.below(4)).map { _ in g.pick(tags) }
            m.requireAllLanguages = g.chance(20)
            for i in m.waypoints.indices {
                m.waypoints[i].translations = Translations()
                for tag in tags where g.chance(25) {
                    m.waypoints[i].translations[tag, g.pick(StopTextField.allCases)] =
                        g.chance(90) ? "Texto \(round)" : " "
                }
                for j in m.waypoints[i].assets.indices {
                    m.waypoints[i].assets[j].language = g.chance(40) ? g.pick(tags) : nil
                    m.waypoints[i].assets[j].kind = g.pick(kinds)
                    m.waypoints[i].assets[j].translations = Translations()
                    for tag in tags where g.chance(20) {
                        m.waypoints[i].assets[j].translations[tag, g.pick(AssetTextField.allCases)] =
                            g.pick(["Un título", "waypoints/fish-lake/meadow.es.vtt", "waypoints/fish-lake/meadow.vtt"])
                    }
                }
            }
            let findings = ManifestValidator.validate(m)
            // Every finding names a place and a rule; a malformed tag is one finding, not a cascade.
            #expect(findings.allSatisfy { !$0.message.isEmpty })
            if !m.languages.allSatisfy(LanguageTag.isWellFormed) {
                #expect(!findings.contains { $0.code == .languageUndeclared || $0.code == .languageMissing })
            }
            // What is written reads back the same.
            let again = try #require(ManifestReader.read(m.canonicalBytes).manifest)
            #expect(again.canonicalBytes == m.canonicalBytes)
            // What a visitor gets: shared files, the chosen language's, or the default's for a kind the
            // chosen language lacks; never a third language's; never both for one kind.
            // (A tour that declares no languages has no visitor language: every file is everyone's.)
            for wanted in m.languages + ["de"] where !m.languages.isEmpty {
                let tour = m.localized(for: wanted)
                for (stop, w) in zip(tour.stops, m.waypoints) {
                    let group = w.fileGroups
                    for a in stop.assets {
                        let l = a.asset.language
                        #expect(l == nil || l == tour.language || l == m.defaultLanguage)
                        if l != nil, l != tour.language {
                            #expect(!w.assets.contains { $0.language == tour.language && group($0) == group(a.asset) })
                        }
                    }
                    #expect(stop.assets.count <= w.assets.count)
                }
            }
        }
    }
}
