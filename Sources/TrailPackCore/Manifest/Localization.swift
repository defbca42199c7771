/// A tour as a visitor reading one language gets it (`docs/FORMAT.md`, section 3.2, "What a visitor
/// gets"): each text in that language or, where it has none, the default language's; a stop's files
/// shared by every language plus, kind by kind, those in that language or else the default language's.
public struct LocalizedTour: Sendable, Equatable {
    /// The declared language this view is in; nil for a tour that declares no languages.
    public var language: String?
    /// The tour's name, park and description.
    public var name: String
    /// The park or forest.
    public var park: String
    /// The tour's description (Markdown).
    public var description: String
    /// The stops, in the manifest's order.
    public var stops: [LocalizedStop]
    /// Every text or file that is the default language's because `language` has none, in order.
    public var fallbacks: [Fallback]
}

/// One stop of a ``LocalizedTour``.
public struct LocalizedStop: Sendable, Equatable {
    /// The stop as the manifest holds it (coordinate, order, slug, properties, every asset).
    public var waypoint: Waypoint
    /// The stop's name in the chosen language.
    public var name: String
    /// The stop's description in the chosen language.
    public var description: String
    /// The files a visitor of that language gets, in the manifest's order.
    public var assets: [LocalizedAsset]
}

/// One file of a ``LocalizedStop``, with its texts in the chosen language.
public struct LocalizedAsset: Sendable, Equatable {
    /// The asset as the manifest holds it.
    public var asset: Asset
    /// Its title, alt text, transcript and captions path in the chosen language.
    public var title: String?
    /// The image's text alternative.
    public var alt: String?
    /// The recording's transcript.
    public var transcript: String?
    /// The package path of the video's captions file.
    public var captions: String?
}

/// A text or a file a ``LocalizedTour`` takes from the default language.
public struct Fallback: Sendable, Equatable, CustomStringConvertible {
    /// The stop's order; nil for the tour's own texts.
    public var stop: Int?
    /// The field (`name`, `description`, `alt`, …) or, for a file, its kind (`audio`, `text`, …).
    public var field: String
    /// The asset's path, for an asset's text or a file.
    public var asset: String?

    /// `stop 3: alt of waypoints/x/view.png`.
    public var description: String {
        let place = stop.map { "stop \($0)" } ?? "tour"
        return asset.map { "\(place): \(field) of \($0)" } ?? "\(place): \(field)"
    }
}

extension Fallback {
    /// `items` in runs of one stop each (the tour's own texts, stop nil, are a run too), in order.
    public static func byStop(_ items: [Fallback]) -> [(stop: Int?, items: [Fallback])] {
        var groups: [(stop: Int?, items: [Fallback])] = []
        for item in items {
            if let last = groups.indices.last, groups[last].stop == item.stop {
                groups[last].items.append(item)
            } else {
                groups.append((item.stop, [item]))
            }
        }
        return groups
    }
}

extension Manifest {
    /// The declared language that best suits a visitor who reads `preferred` (most wanted first, such
    /// as a phone's languages): an exact match ignoring case, else one of the same primary language
    /// (`es-MX` takes `es` or `es-419`), else the default language. Nil for a tour with no languages.
    public func bestLanguage(for preferred: [String]) -> String? {
        guard let fallback = defaultLanguage else { return nil }
        func primary(_ tag: String) -> String {
            String(tag.lowercased().split(separator: "-", omittingEmptySubsequences: false).first ?? "")
        }
        for wanted in preferred {
            if let exact = declaredLanguage(wanted) { return exact }
            // The general tag first (`es` for `es-MX`, as the visitor app chooses), else the first of the language.
            if let general = languages.first(where: { $0.lowercased() == primary(wanted) }) { return general }
            if let near = languages.first(where: { primary($0) == primary(wanted) }) { return near }
        }
        return fallback
    }

    /// The tour as a visitor reading `language` gets it; `language` is matched against the declared
    /// languages by ``bestLanguage(for:)`` (nil: the default language).
    public func localized(for language: String?) -> LocalizedTour {
        let chosen = language.flatMap { bestLanguage(for: [$0]) } ?? defaultLanguage
        let base = defaultLanguage
        var fallbacks: [Fallback] = []
        func read<T: Translatable>(_ object: T, _ field: T.Field, stop: Int?, asset: String? = nil) -> String? {
            let (text, fellBack) = object.text(field, in: chosen, defaultLanguage: base)
            if fellBack { fallbacks.append(Fallback(stop: stop, field: field.rawValue, asset: asset)) }
            return text
        }
        let name = read(self, .name, stop: nil) ?? ""
        let park = read(self, .park, stop: nil) ?? ""
        let description = read(self, .description, stop: nil) ?? ""
        var stops: [LocalizedStop] = []
        for w in waypoints {
            let stopName = read(w, .name, stop: w.order) ?? ""
            let stopDescription = read(w, .description, stop: w.order) ?? ""
            let chosenAssets = Self.assets(of: w, for: chosen, defaultLanguage: base)
            var assets: [LocalizedAsset] = []
            for (a, fellBack) in chosenAssets {
                if fellBack { fallbacks.append(Fallback(stop: w.order, field: a.kind.rawValue, asset: a.path)) }
                // A file in one language carries its own texts.
                if a.language != nil {
                    assets.append(
                        LocalizedAsset(
                            asset: a, title: a.title, alt: a.alt, transcript: a.transcript, captions: a.captions))
                    continue
                }
                assets.append(
                    LocalizedAsset(
                        asset: a,
                        title: read(a, .title, stop: w.order, asset: a.path),
                        alt: read(a, .alt, stop: w.order, asset: a.path),
                        transcript: read(a, .transcript, stop: w.order, asset: a.path),
                        captions: read(a, .captions, stop: w.order, asset: a.path)))
            }
            stops.append(LocalizedStop(waypoint: w, name: stopName, description: stopDescription, assets: assets))
        }
        return LocalizedTour(
            language: chosen, name: name, park: park, description: description, stops: stops, fallbacks: fallbacks)
    }

    /// A stop's files for `language`, in order, each with whether it is the default language's standing
    /// in: the shared ones; kind by kind, those in `language`, else those in the default language.
    static func assets(
        of w: Waypoint, for language: String?, defaultLanguage: String?
    ) -> [(asset: Asset, fellBack: Bool)] {
        guard let language else { return w.assets.map { ($0, false) } }
        let group = w.fileGroups
        let groupsInLanguage = Set(w.assets.filter { $0.language == language }.map(group))
        return w.assets.compactMap { a in
            guard let tagged = a.language else { return (a, false) }
            if tagged == language { return (a, false) }
            if tagged == defaultLanguage, !groupsInLanguage.contains(group(a)) { return (a, true) }
            return nil
        }
    }

    /// The bytes a phone needs for a visitor of `language`: the shared files (the map included) and
    /// the files in that language. The package holds every language; this is what one of them costs.
    public func bytes(for language: String?) -> Int64 {
        // Maps are everyone's (a language on one is the validator's `language.map`).
        mapAssets.reduce(0) { $0 + $1.size }
            + waypoints.flatMap(\.assets).reduce(0) { sum, a in
                a.language == nil || a.language == language ? sum + a.size : sum
            }
    }
}

/// How much of a tour is translated into one of its languages.
public struct LanguageCompleteness: Sendable, Equatable {
    /// The language (declared, not the default).
    public var language: String
    /// The texts the default language has (names, descriptions, titles, alt texts, transcripts, captions).
    public var texts: Int
    /// Those of them given in `language`.
    public var translatedTexts: Int
    /// The stops' kinds of file in the default language (a narration, a text) that want a counterpart.
    public var files: Int
    /// Those with a file of the same kind in `language`.
    public var translatedFiles: Int
    /// What is missing, stop by stop.
    public var missing: [Fallback]
    /// The bytes a phone needs for this language (``Manifest/bytes(for:)``).
    public var bytes: Int64

    /// The share translated, texts and files together, from 0 to 1 (1 when there is nothing to translate).
    public var fraction: Double {
        let all = texts + files
        return all == 0 ? 1 : Double(translatedTexts + translatedFiles) / Double(all)
    }

    /// Percent, rounded down (so never 100 while something is missing).
    public var percent: Int { Int((fraction * 100).rounded(.down)) }
}

extension Manifest {
    /// For each declared language but the default, what is translated and what is missing.
    public var completeness: [LanguageCompleteness] {
        guard let base = defaultLanguage else { return [] }
        // Each well-formed language once (a repeated or malformed one is the validator's `language.tag`).
        var seen: Set<String> = [base.lowercased()]
        let others = languages.dropFirst().filter {
            LanguageTag.isWellFormed($0) && seen.insert($0.lowercased()).inserted
        }
        return others.map { language in
            var c = LanguageCompleteness(
                language: language, texts: 0, translatedTexts: 0, files: 0, translatedFiles: 0, missing: [],
                bytes: bytes(for: language))
            func count<T: Translatable>(_ object: T, stop: Int?, asset: String? = nil) {
                for field in T.Field.allCases {
                    guard let plain = object.plainText(field), !plain.trimmingWhitespace.isEmpty else { continue }
                    c.texts += 1
                    if object.translations[language, field] != nil {
                        c.translatedTexts += 1
                    } else {
                        c.missing.append(Fallback(stop: stop, field: field.rawValue, asset: asset))
                    }
                }
            }
            count(self, stop: nil)
            for w in waypoints {
                count(w, stop: w.order)
                for a in w.assets where a.language == nil { count(a, stop: w.order, asset: a.path) }
                let group = w.fileGroups
                var groups: [String] = []
                for a in w.assets where a.language == base && !groups.contains(group(a)) { groups.append(group(a)) }
                for g in groups {
                    c.files += 1
                    if w.assets.contains(where: { $0.language == language && group($0) == g }) {
                        c.translatedFiles += 1
                    } else {
                        let example = w.assets.first { $0.language == base && group($0) == g }?.path
                        c.missing.append(Fallback(stop: w.order, field: g, asset: example))
                    }
                }
            }
            return c
        }
    }
}

extension LanguageCompleteness {
    /// The findings for what is missing: one per stop (and one for the tour's own texts), naming the
    /// language and each field; errors when `required`.
    func findings(in m: Manifest, required: Bool) -> [Finding] {
        let code: FindingCode = required ? .languageRequired : .languageMissing
        let language = LanguageTag.describe(self.language)
        var out: [Finding] = []
        for group in Fallback.byStop(missing) {
            let what = group.items.map { item -> String in
                guard let asset = item.asset else { return item.field }
                let file = asset.split(separator: "/").last.map(String.init) ?? asset
                switch item.field {
                case "audio", "video": return "a recording (like \(file))"
                case "captions": return "captions (like \(file))"
                case "text", "image", "other", "tiles": return "a \(item.field) file (like \(file))"
                default: return "the \(item.field) of \(file)"
                }
            }
            let advice =
                required
                ? "the tour requires every language (\"requireAllLanguages\")"
                : "visitors get the default language's instead"
            if let order = group.stop, let index = m.waypoints.firstIndex(where: { $0.order == order }) {
                out.append(
                    Finding(
                        code, path: JSONPath.root.member("waypoints").element(index),
                        "stop \(order) '\(m.waypoints[index].name)' has no \(language) for: \(what.joined(separator: ", ")); \(advice)"
                    ))
            } else {
                out.append(
                    Finding(
                        code, path: .root,
                        "the tour has no \(language) for: \(what.joined(separator: ", ")); \(advice)"))
            }
        }
        return out
    }
}

enum Completeness {
    /// The missing-translation findings of `m` (``LanguageCompleteness/findings(in:required:)``).
    static func missing(_ m: Manifest) -> [Finding] {
        m.completeness.flatMap { $0.findings(in: m, required: m.requireAllLanguages) }
    }
}

extension Waypoint {
    /// How a stop's files in one language stand in for each other: by kind (`audio`, `video`,
    /// `text`, …), except that a video's captions files form their own group (`captions`), so that a
    /// Spanish text file never hides the English captions of a video, nor the other way round.
    var fileGroups: (Asset) -> String {
        var captions: Set<String> = []
        for a in assets {
            if let c = a.captions { captions.insert(c) }
            for texts in a.translations.byLanguage.values { if let c = texts[.captions] { captions.insert(c) } }
        }
        return { captions.contains($0.path) ? "captions" : $0.kind.rawValue }
    }
}
