extension FieldReader {
    /// The `translations` member of `members` (format 1.1): per language tag, an object of the texts
    /// `Field` names, each a string. Empty when absent; unknown fields and wrong types are reported.
    /// Whether each tag is declared is the validator's rule (it needs the whole manifest).
    package mutating func translations<Field: TranslatableField>(
        _ members: [JSONMember], at path: JSONPath, _: Field.Type = Field.self
    ) -> Translations<Field> {
        let p = path.member("translations")
        guard let byLanguage = object(members.first(where: { $0.key == "translations" })?.value, at: p, required: false)
        else { return Translations() }
        var out = Translations<Field>()
        for entry in byLanguage {
            let lp = p.member(entry.key)
            guard let texts = object(entry.value, at: lp) else { continue }
            rejectUnknown(texts, at: lp, known: Field.allCases.map(\.rawValue))
            for field in Field.allCases {
                if let s = string(texts, field.rawValue, at: lp, required: false) { out[entry.key, field] = s }
            }
            // An empty object still names the language: kept so that the validator can judge the tag.
            if out.byLanguage[entry.key] == nil { out.byLanguage[entry.key] = [:] }
        }
        return out
    }

    /// The `languages` member: a list of strings (tags are judged by the validator); empty when absent.
    package mutating func languages(_ members: [JSONMember], at path: JSONPath) -> [String] {
        var out: [String] = []
        for (i, item) in (array(members, "languages", at: path, required: false) ?? []).enumerated() {
            guard case .string(let tag) = item else {
                wrongType(
                    path.member("languages").element(i), expected: "a language tag in quotes, such as \"es\"", got: item
                )
                continue
            }
            out.append(tag)
        }
        return out
    }

    /// The boolean member `key`, false when absent.
    package mutating func flag(_ members: [JSONMember], _ key: String, at path: JSONPath) -> Bool {
        guard let value = members.first(where: { $0.key == key })?.value else { return false }
        guard case .bool(let b) = value else {
            wrongType(path.member(key), expected: "true or false (without quotes)", got: value)
            return false
        }
        return b
    }

    /// A text of a tour folder's file (`tour.json`, `waypoint.json`) that may be given per language:
    /// a string is the default language's; an object maps declared languages (case ignored) to strings
    /// and must hold the default. Returns the default language's text (nil when missing, reported if
    /// `required`) and the others by declared tag.
    package mutating func localizedText(
        _ members: [JSONMember], _ key: String, at path: JSONPath, required: Bool = true, languages: [String]
    ) -> (plain: String?, translations: [String: String]) {
        guard case .object(let byLanguage)? = members.first(where: { $0.key == key })?.value else {
            return (string(members, key, at: path, required: required), [:])
        }
        let p = path.member(key)
        guard let defaultLanguage = languages.first else {
            markUnreadable(p)
            findings.append(
                Finding(
                    .languageUndeclared, path: p,
                    "'\(key)' is given per language, but tour.json declares no \"languages\"; add \"languages\" to tour.json with every language the tour is written in, the default first (such as [\"en\", \"es\"]), or write one text"
                ))
            return (nil, [:])
        }
        // A tag tour.json gives malformed is reported there, once: the texts in it wait until it is fixed.
        let judged = languages.allSatisfy(LanguageTag.isWellFormed)
        var plain: String?
        var others: [String: String] = [:]
        var given: [String: String] = [:]  // declared tag → the key it was given under
        for entry in byLanguage {
            let at = p.member(entry.key)
            guard let tag = languages.first(where: { $0.lowercased() == entry.key.lowercased() }) else {
                if judged {
                    findings.append(
                        Finding(
                            .languageUndeclared, path: at,
                            "'\(entry.key)' is not one of the tour's languages (\(languages.joined(separator: ", "))): \(LanguageTag.advice(for: entry.key, declared: languages))"
                        ))
                }
                continue
            }
            if let first = given[tag] {
                findings.append(
                    Finding(
                        .languageTag, path: at,
                        "'\(entry.key)' and '\(first)' are the same language (\(LanguageTag.describe(tag))) written twice; keep one"
                    ))
                continue
            }
            given[tag] = entry.key
            guard case .string(let text) = entry.value else {
                wrongType(at, expected: "a text in quotes", got: entry.value)
                continue
            }
            if tag == defaultLanguage {
                plain = text
            } else if text.trimmingWhitespace.isEmpty {
                findings.append(
                    Finding(
                        .manifestText, path: at,
                        "'\(key)' in \(LanguageTag.describe(tag)) is empty; write it, or leave \"\(entry.key)\" out until it is translated (visitors get the \(LanguageTag.describe(defaultLanguage)) text meanwhile)"
                    ))
            } else {
                others[tag] = text
            }
        }
        if plain == nil {
            markUnreadable(p)
            findings.append(
                Finding(
                    .languageDefaultMissing, path: p,
                    "'\(key)' has no text in \(LanguageTag.describe(defaultLanguage)), the tour's default language; add \"\(defaultLanguage)\": \"…\" — visitors in other languages fall back to it"
                ))
        }
        // Reported once, here: the other languages' texts wait for the default's (no second finding
        // from the manifest's rule, also when the default's text is there but blank).
        guard let plain, !plain.trimmingWhitespace.isEmpty else { return (plain, [:]) }
        return (plain, others)
    }
}
