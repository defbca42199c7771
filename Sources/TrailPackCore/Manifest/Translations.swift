/// The names of the texts a manifest object may give per language (`docs/FORMAT.md`, section 3.2).
public protocol TranslatableField: RawRepresentable<String>, CaseIterable, Hashable, Sendable {}

/// The tour's texts that may be translated.
public enum TourTextField: String, TranslatableField {
    case name, park, description
}

/// A stop's texts that may be translated.
public enum StopTextField: String, TranslatableField {
    case name, description
}

/// An asset's texts that may be translated (`captions` is the path of a WebVTT file in that language).
public enum AssetTextField: String, TranslatableField {
    case title, alt, transcript, captions
}

/// The texts of one manifest object in the languages other than the default: `translations` in the
/// manifest, `{"es": {"name": …, "description": …}}`.
public struct Translations<Field: TranslatableField>: Sendable, Equatable {
    /// The texts by language tag (as written), then by field.
    public var byLanguage: [String: [Field: String]]

    /// Translations with these texts.
    public init(_ byLanguage: [String: [Field: String]] = [:]) {
        self.byLanguage = byLanguage
    }

    /// Whether no text is translated.
    public var isEmpty: Bool {
        // A closure, not `\.isEmpty`: a key path on a generic type is instantiated at run time on
        // every call, and this is asked of every asset a build writes.
        byLanguage.isEmpty || byLanguage.values.allSatisfy { $0.isEmpty }
    }

    /// The text of `field` in `language`, if given.
    public subscript(language: String, field: Field) -> String? {
        get { byLanguage[language]?[field] }
        set {
            byLanguage[language, default: [:]][field] = newValue
            if byLanguage[language]?.isEmpty == true { byLanguage[language] = nil }
        }
    }

    /// The languages given, the declared ones first in their order, then any others sorted (so that
    /// writing is deterministic).
    public func languages(orderedBy declared: [String]) -> [String] {
        let given = byLanguage.filter { !$0.value.isEmpty }.keys
        return declared.filter { given.contains($0) } + given.filter { !declared.contains($0) }.sorted()
    }
}

/// A manifest object whose texts may be given per language.
public protocol Translatable {
    /// The fields that may be translated.
    associatedtype Field: TranslatableField
    /// The text of `field` in the default language (the plain field), if any.
    func plainText(_ field: Field) -> String?
    /// The object's translations.
    var translations: Translations<Field> { get }
}

extension Translatable {
    /// The text of `field` for a visitor reading `language` in a tour whose default language is
    /// `defaultLanguage`, and whether it fell back to the default language's: the translation if
    /// given, else the plain field. A nil `language`, or the default one, reads the plain field.
    public func text(_ field: Field, in language: String?, defaultLanguage: String?) -> (text: String?, fellBack: Bool)
    {
        let plain = plainText(field)
        guard let language, language != defaultLanguage else { return (plain, false) }
        if let translated = translations[language, field] { return (translated, false) }
        return (plain, plain != nil)
    }
}

extension Manifest: Translatable {
    /// The tour's `name`, `park` or `description`.
    public func plainText(_ field: TourTextField) -> String? {
        switch field {
        case .name: name
        case .park: park
        case .description: description
        }
    }
}

extension Waypoint: Translatable {
    /// The stop's `name` or `description`.
    public func plainText(_ field: StopTextField) -> String? {
        switch field {
        case .name: name
        case .description: description
        }
    }
}

extension Asset: Translatable {
    /// The asset's `title`, `alt`, `transcript` or `captions`.
    public func plainText(_ field: AssetTextField) -> String? {
        switch field {
        case .title: title
        case .alt: alt
        case .transcript: transcript
        case .captions: captions
        }
    }
}

extension Manifest {
    /// The default language: the first of `languages`; nil for a tour that declares none.
    public var defaultLanguage: String? { languages.first }

    /// The declared tag matching `tag` ignoring case, or nil.
    public func declaredLanguage(_ tag: String) -> String? {
        languages.first { $0.lowercased() == tag.lowercased() }
    }
}
