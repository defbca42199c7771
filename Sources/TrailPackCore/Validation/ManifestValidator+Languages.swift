extension ManifestValidator {
    /// The most languages one tour may declare.
    public static let maxLanguages = 32

    /// The rules of section 3.2 of `docs/FORMAT.md`: declared tags, translations' languages and texts,
    /// language-tagged assets, captions' languages, and missing translations (warnings, or errors when
    /// the tour requires every language).
    ///
    /// `keptAssets`: for a stop some of whose assets were let go as the manifest was read (those
    /// without any text, language or map fields, which these rules never read), the positions in the
    /// manifest of those it still holds.
    static func checkLanguages(_ m: Manifest, keptAssets: [Int: [Int32]]? = nil, _ f: inout [Finding]) {
        let top = JSONPath.root
        var seen: [String: Int] = [:]
        for (i, tag) in m.languages.enumerated() {
            let p = top.member("languages").element(i)
            if !LanguageTag.isWellFormed(tag) {
                f.append(
                    Finding(
                        .languageTag, path: p,
                        "'\(tag)' is not a well-formed BCP 47 language tag; write a tag such as 'en', 'es', 'es-419' or 'zh-Hant'"
                    ))
            } else if let first = seen[tag.lowercased()] {
                f.append(
                    Finding(
                        .languageTag, path: p,
                        "'\(tag)' is declared twice (languages[\(first)]); list each language once"))
            } else {
                seen[tag.lowercased()] = i
            }
        }
        if m.languages.count > maxLanguages {
            f.append(
                Finding(
                    .languageTag, path: top.member("languages"),
                    "\(m.languages.count) languages is more than the limit of \(maxLanguages)"))
        }
        if m.requireAllLanguages && m.languages.isEmpty {
            f.append(
                Finding(
                    .languageTag, path: top.member("requireAllLanguages"),
                    "\"requireAllLanguages\" is set but the tour declares no \"languages\"; declare them (the default first) or remove it"
                ))
        }
        // A malformed tag is reported once: what is written in it is not judged until it is fixed.
        guard m.languages.allSatisfy(LanguageTag.isWellFormed) else { return }
        let context = LanguageContext(manifest: m)
        context.checkTranslations(m, at: top, &f)
        for (i, w) in m.waypoints.enumerated() {
            let p = top.member("waypoints").element(i)
            context.checkTranslations(w, at: p, &f)
            let kept = keptAssets?[i]
            for (k, a) in w.assets.enumerated() {
                // Nearly every asset has no language, translations or captions: nothing to judge, no path made.
                guard a.language != nil || !a.translations.isEmpty || a.kind == .video else { continue }
                let j = kept.map { Int($0[k]) } ?? k
                context.checkAsset(a, in: w, at: p.member("assets").element(j), &f)
            }
        }
        for (j, a) in m.mapAssets.enumerated() {
            let p = top.member("mapAssets").element(j)
            if a.language != nil {
                f.append(
                    Finding(
                        .languageMap, path: p.member("language"),
                        "'\(a.path)' is a map: every visitor gets it, whatever their language; remove \"language\" (a map with words in one language is still the tour's one map)"
                    ))
            }
            context.checkAsset(a, in: nil, at: p, &f)
        }
        f += Completeness.missing(m)
    }

    /// What the language rules of one manifest need to know.
    struct LanguageContext {
        let languages: [String]
        let defaultLanguage: String?

        init(manifest m: Manifest) {
            languages = m.languages
            defaultLanguage = m.languages.first
        }

        /// Every translated text: in a declared language other than the default, following the rule of
        /// the field it translates, and translating a field the default language has.
        func checkTranslations<T: Translatable>(_ object: T, at path: JSONPath, _ f: inout [Finding]) {
            let p = path.member("translations")
            for tag in object.translations.byLanguage.keys.sorted() {
                let lp = p.member(tag)
                if tag == defaultLanguage {
                    f.append(
                        Finding(
                            .languageUndeclared, path: lp,
                            "'\(tag)' is the default language: its texts are the plain fields, not a translation; move them there"
                        ))
                    continue
                }
                guard languages.contains(tag) else {
                    f.append(Finding(.languageUndeclared, path: lp, undeclared(tag)))
                    continue
                }
                for (field, text) in (object.translations.byLanguage[tag] ?? [:]).sorted(by: {
                    $0.key.rawValue < $1.key.rawValue
                }) {
                    let fp = lp.member(field.rawValue)
                    let plain = object.plainText(field)
                    if plain == nil || plain?.trimmingWhitespace.isEmpty == true {
                        f.append(
                            Finding(
                                .languageDefaultMissing, path: fp,
                                "'\(field.rawValue)' is given in \(LanguageTag.describe(tag)) but not in the default language, \(LanguageTag.describe(defaultLanguage ?? "")); give '\(path.member(field.rawValue))' first"
                            ))
                    }
                    checkText(text, field: field.rawValue, at: fp, &f)
                }
            }
        }

        func undeclared(_ tag: String) -> String {
            if languages.isEmpty {
                return
                    "'\(tag)' is not declared: the tour has no \"languages\"; add \"languages\": [default, \"\(tag)\"] at the top"
            }
            return
                "'\(tag)' is not one of the tour's languages (\(languages.joined(separator: ", "))): \(LanguageTag.advice(for: tag, declared: languages))"
        }

        /// A translated text follows the rule of its field.
        func checkText(_ text: String, field: String, at path: JSONPath, _ f: inout [Finding]) {
            switch field {
            case "name", "park", "title": ManifestValidator.checkName(text, path, &f)
            case "description": ManifestValidator.checkDescription(text, path, &f)
            case "alt": ManifestValidator.checkAccessibilityText(text, path, limit: maxAltLength, multiline: false, &f)
            case "transcript":
                ManifestValidator.checkAccessibilityText(text, path, limit: maxTranscriptLength, multiline: true, &f)
            default: break  // captions: a path, judged with the asset
            }
        }

        /// An asset's language and translations, and its captions' languages.
        func checkAsset(_ a: Asset, in w: Waypoint?, at path: JSONPath, _ f: inout [Finding]) {
            if let language = a.language, !languages.contains(language) {
                f.append(Finding(.languageUndeclared, path: path.member("language"), undeclared(language)))
            }
            if a.language != nil, !a.translations.isEmpty {
                f.append(
                    Finding(
                        .languageAssetTranslations, path: path.member("translations"),
                        "'\(a.path)' is in \(LanguageTag.describe(a.language ?? "")): its texts are in that language; give the other languages their own file, or remove \"language\" if everyone shares it"
                    ))
            } else {
                checkTranslations(a, at: path, &f)
            }
            guard let w, a.kind == .video else { return }
            var named: [(path: String, language: String?, at: JSONPath)] = []
            if let captions = a.captions {
                named.append((captions, a.language ?? defaultLanguage, path.member("captions")))
            }
            for tag in a.translations.languages(orderedBy: languages) {
                if let captions = a.translations[tag, .captions] {
                    named.append((captions, tag, path.member("translations").member(tag).member("captions")))
                }
            }
            for (captions, language, at) in named {
                guard let file = w.assets.first(where: { $0.path == captions }) else {
                    if at != path.member("captions") {  // the plain field's own rule reports it
                        f.append(
                            Finding(
                                .assetCaptions, path: at,
                                "the captions '\(captions)' of '\(a.path)' are not a WebVTT (.vtt, text/vtt) file listed in this waypoint's assets; add the .vtt file to the stop and name it"
                            ))
                    }
                    continue
                }
                if let fileLanguage = file.language, let language, fileLanguage != language {
                    f.append(
                        Finding(
                            .languageCaptions, path: at,
                            "'\(captions)' is in \(LanguageTag.describe(fileLanguage)) but is named as the \(LanguageTag.describe(language)) captions of '\(a.path)'; name the \(LanguageTag.describe(language)) file, or fix its language"
                        ))
                }
            }
        }
    }
}
