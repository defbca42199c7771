import Foundation

/// BCP 47 language tags (RFC 5646): the languages a tour declares (`docs/FORMAT.md`, section 3.2).
public enum LanguageTag {
    /// Whether `tag` is a well-formed BCP 47 language tag: the syntax of RFC 5646 section 2.1 (language,
    /// extended language, script, region, variants, extensions, private use) or one of its grandfathered
    /// tags. Well-formed is not the same as registered: `qaa` and `xx` pass, `e` and `en--us` do not.
    public static func isWellFormed(_ tag: String) -> Bool {
        let lower = tag.lowercased()
        if grandfathered.contains(lower) { return true }
        guard (1...128).contains(lower.utf8.count), lower.utf8.allSatisfy({ isAlpha($0) || isDigit($0) || $0 == 0x2D })
        else { return false }
        let parts = lower.split(separator: "-", omittingEmptySubsequences: false).map { Array($0.utf8) }
        guard parts.allSatisfy({ !$0.isEmpty && $0.count <= 8 }) else { return false }
        var i = 0
        func privateUse() -> Bool {
            // "x" 1*("-" 1*8alphanum), to the end
            guard i + 1 < parts.count else { return false }
            return parts[(i + 1)...].allSatisfy { (1...8).contains($0.count) }
        }
        if parts[0] == [0x78] {
            i = 0
            return privateUse()
        }
        // language: 2*3ALPHA ["-" extlang] / 4ALPHA / 5*8ALPHA
        let first = parts[0]
        guard first.allSatisfy(isAlpha), (2...8).contains(first.count) else { return false }
        i = 1
        if first.count <= 3 {
            var extlangs = 0
            while i < parts.count, extlangs < 3, parts[i].count == 3, parts[i].allSatisfy(isAlpha) {
                i += 1
                extlangs += 1
            }
        }
        // script: 4ALPHA
        if i < parts.count, parts[i].count == 4, parts[i].allSatisfy(isAlpha) { i += 1 }
        // region: 2ALPHA / 3DIGIT
        if i < parts.count,
            (parts[i].count == 2 && parts[i].allSatisfy(isAlpha))
                || (parts[i].count == 3 && parts[i].allSatisfy(isDigit))
        {
            i += 1
        }
        // variants: 5*8alphanum / (DIGIT 3alphanum)
        while i < parts.count, parts[i].count >= 5 || (parts[i].count == 4 && isDigit(parts[i][0])) {
            i += 1
        }
        // extensions: singleton 1*("-" 2*8alphanum)
        while i < parts.count, parts[i].count == 1, parts[i][0] != 0x78 {
            i += 1
            var n = 0
            while i < parts.count, parts[i].count >= 2 {
                i += 1
                n += 1
            }
            if n == 0 { return false }
        }
        if i < parts.count, parts[i] == [0x78] { return privateUse() }
        return i == parts.count
    }

    /// `tag` in the case BCP 47 recommends (RFC 5646 section 2.1.1): the language lowercase, a script
    /// titlecase, a region uppercase, everything from a singleton on (extensions, private use)
    /// lowercase: `ES_mx` → `es-MX`, `zh-hant` → `zh-Hant`. An underscore (as some programs write
    /// tags) becomes a hyphen. The case only: whether it is well-formed is ``isWellFormed(_:)``.
    public static func canonicalCase(_ tag: String) -> String {
        var out: [String] = []
        var singleton = false
        for (i, part) in tag.replacingOccurrences(of: "_", with: "-").split(
            separator: "-", omittingEmptySubsequences: false
        ).enumerated() {
            let letters = part.allSatisfy { $0.isASCII && $0.isLetter }
            if i > 0 && !singleton && part.count == 4 && letters {
                out.append(part.prefix(1).uppercased() + part.dropFirst().lowercased())
            } else if i > 0 && !singleton && part.count == 2 && letters {
                out.append(part.uppercased())
            } else {
                out.append(part.lowercased())
            }
            if part.count == 1 { singleton = true }
        }
        return out.joined(separator: "-")
    }

    /// The language's name in English followed by its tag, for messages: `Spanish (es)`; the tag alone
    /// when the name is not known.
    public static func describe(_ tag: String) -> String {
        guard let name = englishName(tag) else { return tag }
        return "\(name) (\(tag))"
    }

    /// The language's name in English (`Spanish (Latin America)` for `es-419`), or nil when not known.
    public static func englishName(_ tag: String) -> String? {
        let name = Locale(identifier: "en").localizedString(forIdentifier: tag)
        guard let name, name.lowercased() != tag.lowercased() else { return nil }
        return name
    }

    /// The language's name in itself (`español` for `es`), or nil when not known.
    public static func nativeName(_ tag: String) -> String? {
        let name = Locale(identifier: tag).localizedString(forIdentifier: tag)
        guard let name, name.lowercased() != tag.lowercased() else { return nil }
        return name
    }

    /// What to say of `tag`, used where the tour declares `declared`: the declared tag it was surely
    /// meant to be (the same language written another way: `ES`, `es_MX`, `spanish`, a near typo), or
    /// else how to declare it. Ends without a full stop; starts with a lowercase word.
    public static func advice(for tag: String, declared: [String]) -> String {
        let lower = tag.lowercased().replacingOccurrences(of: "_", with: "-")
        func primary(_ t: String) -> String { String(t.lowercased().split(separator: "-").first ?? "") }
        if let same = declared.first(where: { $0.lowercased() == lower })
            ?? declared.first(where: { primary($0) == primary(lower) && isWellFormed(lower) })
            ?? declared.first(where: { englishName($0)?.lowercased() == lower || nativeName($0)?.lowercased() == lower }
            )
        {
            return "write '\(same)', as tour.json declares it"
        }
        if !isWellFormed(tag) {
            let spelled = isWellFormed(lower) ? "; written with a hyphen it is '\(lower)'" : ""
            return "'\(tag)' is not a language tag (such as 'en', 'es' or 'es-419')\(spelled)"
        }
        let list =
            declared.isEmpty ? "" : " or, if you meant one of \(declared.joined(separator: ", ")), write that one"
        return
            "add '\(tag)' to \"languages\" in tour.json (the default language first)\(list.isEmpty ? "" : ",")\(list)"
    }

    static func isAlpha(_ b: UInt8) -> Bool { (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) }
    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// RFC 5646's grandfathered tags (irregular and regular), lowercased.
    static let grandfathered: Set<String> = [
        "en-gb-oed", "i-ami", "i-bnn", "i-default", "i-enochian", "i-hak", "i-klingon", "i-lux", "i-mingo",
        "i-navajo", "i-pwn", "i-tao", "i-tay", "i-tsu", "sgn-be-fr", "sgn-be-nl", "sgn-ch-de", "art-lojban",
        "cel-gaulish", "no-bok", "no-nyn", "zh-guoyu", "zh-hakka", "zh-min", "zh-min-nan", "zh-xiang",
    ]
}
