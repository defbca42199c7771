import Foundation

/// The rules for slugs: lowercase ASCII letters and digits in groups joined by single hyphens,
/// such as `fish-lake`. A waypoint's folder in a package, a site id and each dot-separated part of a
/// package id are slugs; the builder makes them from names.
public enum Slug {
    /// The longest slug of a waypoint folder or a site id, in characters.
    public static let maxLength = 64

    /// Whether `s` is a slug of 1 to `maxLength` characters.
    public static func isValid(_ s: String, maxLength: Int = Slug.maxLength) -> Bool {
        guard (1...maxLength).contains(s.utf8.count) else { return false }
        let groups = s.split(separator: "-", omittingEmptySubsequences: false)
        return groups.allSatisfy { g in
            !g.isEmpty && g.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }
        }
    }

    /// The slug of `text`: lowercase ASCII letters and digits (accents dropped: "é" → "e"), other
    /// runs folded into single hyphens, at most `maxLength` characters; "" when nothing is left.
    public static func make(from text: String) -> String {
        var out = ""
        var pendingHyphen = false
        for scalar in text.decomposedStringWithCanonicalMapping.lowercased().unicodeScalars {
            if (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9") {
                if pendingHyphen && !out.isEmpty { out += "-" }
                pendingHyphen = false
                out.unicodeScalars.append(scalar)
            } else if scalar.properties.generalCategory == .nonspacingMark {
                continue  // accents: "é" -> "e"
            } else {
                pendingHyphen = true
            }
        }
        return trimmed(String(out.prefix(maxLength)))
    }

    /// The slug for a stop named `name`: letters of every script spelled in Latin, then ``make(from:)``;
    /// `stop-N` (N is `number`) when nothing is left; never a Windows device name (`con-stop`);
    /// unique among `taken` (`-2`, `-3`...).
    public static func unique(for name: String, number: Int, taken: Set<String>) -> String {
        let compatible = name.precomposedStringWithCompatibilityMapping
        let latin =
            compatible.utf8.allSatisfy({ $0 < 0x80 })
            ? compatible
            : compatible.applyingTransform(StringTransform("Any-Latin; Latin-ASCII"), reverse: false) ?? compatible
        var base = make(from: latin)
        if base.isEmpty { base = "stop-\(number)" }
        if ArchivePath.isReservedOnWindows(base) { base += "-stop" }
        var slug = base
        var n = 2
        while taken.contains(slug) {
            let suffix = "-\(n)"
            slug = trimmed(String(base.prefix(maxLength - suffix.count))) + suffix
            n += 1
        }
        return slug
    }

    /// `slug` without the hyphens a cut may leave at its end.
    static func trimmed(_ slug: String) -> String {
        var s = Substring(slug)
        while s.last == "-" { s = s.dropLast() }
        return String(s)
    }
}
