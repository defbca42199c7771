import Foundation
import TrailPackCore

#if canImport(Glibc)
import Glibc
#endif

// MARK: - column matching

/// Which column is which: a header's role by its spelling (forgivingly: case, accents, spaces and
/// punctuation ignored), the letters a spreadsheet shows, property names made from headers, and the
/// language a header names after its role (`name_es`, `Description (es)`).
extension CSVImport {
    /// The role a header names by its spelling (`"Lat"` → `latitude`), or nil.
    public static func guessRole(header: String) -> String? {
        let key = normalizeHeader(header)
        return Role.allCases.first { $0.aliases.contains(key) }?.rawValue
    }

    /// `A`, `B`, … `Z`, `AA`: the column letters a spreadsheet shows.
    static func columnLetter(_ index: Int) -> String {
        var n = index + 1
        var out = ""
        while n > 0 {
            let r = (n - 1) % 26
            out = String(UnicodeScalar(UInt8(65 + r))) + out
            n = (n - 1) / 26
        }
        return out
    }

    /// Lowercase ASCII letters and digits only, accents dropped: `"Latitude (WGS84)"` → `"latitudewgs84"`.
    static func normalizeHeader(_ text: String) -> String {
        var out = ""
        for s in text.decomposedStringWithCanonicalMapping.lowercased().unicodeScalars
        where (s >= "a" && s <= "z") || (s >= "0" && s <= "9") {
            out.unicodeScalars.append(s)
        }
        return out
    }

    /// A column header (or a detail's name as a ranger typed it) as a property name:
    /// `"Elevation (ft)"` → `"elevationFt"`; letters, digits, at most 64, starting with a letter.
    public static func propertyName(_ header: String) -> String {
        let words = header.decomposedStringWithCanonicalMapping.unicodeScalars
            .split { !(($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9")) }
            .map { String(String.UnicodeScalarView($0)) }
        var name = ""
        for (i, w) in words.enumerated() {
            name += i == 0 ? w.prefix(1).lowercased() + w.dropFirst() : w.prefix(1).uppercased() + w.dropFirst()
        }
        if let first = name.first, !first.isLetter { name = "p" + name }
        return String(name.prefix(64))
    }

    // MARK: languages

    /// The roles a column may give in one language: `name_es`, `Description (es)`, `audio_es`.
    static let languageRoles: [Role] = [.name, .description, .photo, .audio, .video]

    /// What a header with a language after it names: the role, and the tag as written.
    struct LanguageHeader: Equatable {
        var role: Role
        var tag: String
    }

    /// The role and language of a header that names one of ``languageRoles`` followed by a language:
    /// `name_es`, `Description-es-419`, `Nombre (ES)`, `photo [fr]`; nil for any other header. The tag
    /// is returned as written and may be malformed (the caller says so). What follows the role must start
    /// with a two- or three-letter language code, so `Description (short)` stays the description. After
    /// `_` or `-`, `id` and the words the importer knows for other columns are not languages: `stop_id`
    /// is an identifier (a property; write `Name (id)` for Indonesian), `stop_no` the order.
    static func languageHeader(_ header: String) -> LanguageHeader? {
        let text = header.trimmingCharacters(in: .whitespaces)
        var candidates: [(base: Substring, tag: Substring, bracketed: Bool)] = []
        for (open, close) in [("(", ")"), ("[", "]")] where text.hasSuffix(close) {
            if let start = text.lastIndex(of: Character(open)) {
                let inside = text[text.index(after: start)..<text.index(before: text.endIndex)]
                candidates.append((text[..<start], inside, true))
            }
        }
        for i in text.indices where text[i] == "_" || text[i] == "-" {
            candidates.append((text[..<i], text[text.index(after: i)...], false))
        }
        for candidate in candidates {
            let baseKey = normalizeHeader(String(candidate.base))
            guard let role = languageRoles.first(where: { $0.aliases.contains(baseKey) }) else { continue }
            let tag = candidate.tag.trimmingCharacters(in: .whitespaces)
            let primary = tag.prefix { $0 != "-" && $0 != "_" }
            guard (2...3).contains(primary.count), primary.allSatisfy({ $0.isASCII && $0.isLetter }) else { continue }
            if !candidate.bracketed {
                let key = normalizeHeader(tag)
                if key == "id" || Role.allCases.contains(where: { $0.aliases.contains(key) }) { continue }
            }
            return LanguageHeader(role: role, tag: tag)
        }
        return nil
    }

    /// A tag in the case BCP 47 recommends: `ES_mx` → `es-MX` (``LanguageTag/canonicalCase(_:)``).
    public static func canonicalTag(_ tag: String) -> String { LanguageTag.canonicalCase(tag) }

    /// Why `tag` (with hyphens between its parts) is not a well-formed BCP 47 tag, in plain words.
    static func tagProblem(_ tag: String) -> String {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        if let odd = tag.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber)) && $0 != "-" }) {
            return "a language tag holds only letters, digits and hyphens, not '\(odd)'"
        }
        if parts.contains(where: \.isEmpty) {
            return "a language tag has no empty part (no two hyphens in a row, none at the end)"
        }
        if let long = parts.first(where: { $0.count > 8 }) {
            return "each part of a language tag is 1 to 8 letters or digits, and '\(long)' has \(long.count)"
        }
        return
            "after the language code come, in this order, a script (Hant), a region (MX or 419) and variants "
            + "(5 to 8 letters or digits)"
    }
}
