import Foundation
import TrailPackCore
import TrailPackCrypto

/// A tour folder as an editor sees it: the fields of `tour.json` and of each stop's `waypoint.json`,
/// read leniently (a missing or wrong field is left empty for the form, and the builder's findings
/// say what is wrong) and written back in the same layout `trailpack build` reads.
///
/// Members the editor does not know are kept as they were (`extra`), so a folder made with the CLI,
/// or by a newer trailpack, loses nothing when it is edited in the control panel.
public struct TourDraft: Sendable, Equatable {
    public var id = ""
    public var version = ""
    public var name = ""
    public var park = ""
    public var siteID = ""
    public var siteName = ""
    public var mapName = ""
    public var description = ""
    /// The map frame the ranger set; nil: the builder draws it around the stops with a margin.
    public var bounds: Bounds?
    /// The languages the tour is written in (BCP 47 tags), the default first; empty: one unnamed language.
    public var languages: [String] = []
    /// Whether a missing translation is an error (the build stops) rather than a warning.
    public var requireAllLanguages = false
    /// The tour's name, park and description in the languages other than the default.
    public var translations = Translations<TourTextField>()
    public var extra: [JSONMember] = []
    public var stops: [Stop] = []

    public init() {}

    /// The default language: the first declared; nil for a tour in one unnamed language.
    public var defaultLanguage: String? { languages.first }

    /// One stop: its folder `waypoints/NN-slug/` holds `waypoint.json` and the stop's files.
    public struct Stop: Sendable, Equatable {
        /// The folder name it is stored under now (`03-house-rock`); nil for a stop not yet written.
        public var folder: String?
        /// The folder name without its number; the stop's folder in the package.
        public var slug: String
        public var name: String
        public var coordinate: Coordinate?
        public var description: String
        public var properties: [JSONMember]
        public var assets: [AssetReference]
        /// Why a required accessibility text (alt text, transcript, captions) is missing, for reviewers.
        public var accessibilityWaiver: String?
        /// The stop's name and description in the languages other than the default.
        public var translations: Translations<StopTextField>
        public var extra: [JSONMember]
        /// A detail's name as the ranger wrote it ("Elevation (ft)"), by the property name made from
        /// it (`elevationFt`), where they differ. Kept beside `waypoint.json` in
        /// ``TourDraft/detailNamesFileName``, a hidden file the builder never packages.
        public var propertyLabels: [String: String] = [:]
        /// A note for rangers only (a GPS unit's `<cmt>`: "PARK HERE", a geocache code), kept in
        /// ``TourDraft/rangerNoteFileName`` beside `waypoint.json`: never packaged, never shown to visitors.
        public var rangerNote: String?

        public init(
            folder: String? = nil, slug: String, name: String, coordinate: Coordinate?, description: String = "",
            properties: [JSONMember] = [], assets: [AssetReference] = [], accessibilityWaiver: String? = nil,
            translations: Translations<StopTextField> = Translations(), extra: [JSONMember] = []
        ) {
            self.folder = folder
            self.slug = slug
            self.name = name
            self.coordinate = coordinate
            self.description = description
            self.properties = properties
            self.assets = assets
            self.accessibilityWaiver = accessibilityWaiver
            self.translations = translations
            self.extra = extra
        }
    }

    /// A file of a stop as `waypoint.json` lists it, with its texts.
    public struct AssetReference: Sendable, Equatable {
        public var file: String
        public var title: String?
        /// Alt text of an image.
        public var alt: String?
        /// The transcript of an audio recording.
        public var transcript: String?
        /// The captions file (`.vtt`, in the same stop folder) of a video.
        public var captions: String?
        /// The language the file is in, as `waypoint.json` gives it (`"language"`); nil: none given — the
        /// file is then in the language its name carries (`narration.es.wav`), else shared by every
        /// language (``TourDraft/language(of:)``).
        public var language: String?
        /// The file's texts in the languages other than the default (captions as file names of the
        /// stop); only on a file every language shares.
        public var translations: Translations<AssetTextField>
        public var extra: [JSONMember]

        public init(
            file: String, title: String? = nil, alt: String? = nil, transcript: String? = nil, captions: String? = nil,
            language: String? = nil, translations: Translations<AssetTextField> = Translations(),
            extra: [JSONMember] = []
        ) {
            self.file = file
            self.title = title
            self.alt = alt
            self.transcript = transcript
            self.captions = captions
            self.language = language
            self.translations = translations
            self.extra = extra
        }
    }

    // MARK: reading

    /// Reads the tour folder at `root`. Only `tour.json` and each `waypoints/*/waypoint.json` are read;
    /// a file that is not JSON at all is an error naming it (the panel cannot show a form for it).
    public static func read(folder root: String) throws(BuildError) -> TourDraft {
        var draft = TourDraft()
        let tour = try object(root, TourSource.tourFileName)
        // The languages first: the texts given per language are read by them.
        if case .array(let items)? = tour.first(where: { $0.key == "languages" })?.value, !items.isEmpty {
            let tags = items.compactMap { item -> String? in if case .string(let s) = item { s } else { nil } }
            if tags.count == items.count { draft.languages = tags }
        }
        let languages = draft.languages
        for member in tour {
            let text = localized(member.value, languages: languages)
            switch (member.key, member.value) {
            case ("id", .string(let s)): draft.id = s
            case ("version", .string(let s)): draft.version = s
            case ("languages", _) where !languages.isEmpty: break
            case ("requireAllLanguages", .bool(let b)): draft.requireAllLanguages = b
            case ("name", _) where text != nil: draft.take(.name, text)
            case ("park", _) where text != nil: draft.take(.park, text)
            case ("mapName", .string(let s)): draft.mapName = s
            case ("description", _) where text != nil: draft.take(.description, text)
            case ("site", .object):
                if case .string(let s)? = member.value["id"] { draft.siteID = s }
                if case .string(let s)? = member.value["name"] { draft.siteName = s }
            case ("bounds", .object):
                if let sw = coordinate(member.value["southwest"]), let ne = coordinate(member.value["northeast"]) {
                    draft.bounds = Bounds(southwest: sw, northeast: ne)
                } else {
                    draft.extra.append(member)
                }
            default: draft.extra.append(member)
            }
        }
        let folders = FileSystem.list(root + "/waypoints").filter {
            !FileSystem.isIgnored($0) && FileSystem.lstatInfo(root + "/waypoints/" + $0).kind == .directory
        }
        var numbered: [(order: Int, folder: String, stop: Stop)] = []
        for folder in folders {
            let (order, slug) = Loader.parseFolderName(folder)
            var stop = Stop(folder: folder, slug: slug.isEmpty ? "stop" : slug, name: "", coordinate: nil)
            let file = "waypoints/\(folder)/\(TourSource.waypointFileName)"
            // lstat: a waypoint.json that is a link is not read (a draft never leads outside itself).
            let members = FileSystem.lstatInfo(root + "/" + file).kind == .file ? try object(root, file) : []
            for member in members {
                let text = localized(member.value, languages: languages)
                switch (member.key, member.value) {
                case ("name", _) where text != nil: stop.take(.name, text)
                case ("description", _) where text != nil: stop.take(.description, text)
                case ("coordinate", let value) where coordinate(value) != nil: stop.coordinate = coordinate(value)
                case ("properties", .object(let p)): stop.properties = p
                case ("accessibilityWaiver", .string(let s)): stop.accessibilityWaiver = s
                case ("assets", .array(let items)) where items.allSatisfy(isAssetItem):
                    stop.assets = items.compactMap { assetReference($0, languages: languages) }
                default: stop.extra.append(member)
                }
            }
            stop.propertyLabels = detailNames(root + "/waypoints/\(folder)/" + detailNamesFileName, stop.properties)
            stop.rangerNote = rangerNote(root + "/waypoints/\(folder)/" + rangerNoteFileName)
            numbered.append((order ?? Int.max, folder, stop))
        }
        numbered.sort {
            $0.order != $1.order
                ? $0.order < $1.order : Array($0.folder.utf8).lexicographicallyPrecedes(Array($1.folder.utf8))
        }
        draft.stops = numbered.map(\.stop)
        return draft
    }

    /// The hidden file beside a stop's `waypoint.json` that keeps its details' names as written.
    public static let detailNamesFileName = ".detail-names.json"
    /// The hidden file beside a stop's `waypoint.json` that keeps its note for rangers (UTF-8 text).
    public static let rangerNoteFileName = ".ranger-note.txt"

    /// A stop's note for rangers: the file's text (a regular file of at most 64 KiB), else nil.
    static func rangerNote(_ path: String) -> String? {
        guard FileSystem.lstatInfo(path).kind == .file, let bytes = try? FileSystem.readFile(path, limit: 64 << 10),
            let text = String(validating: bytes, as: UTF8.self)
        else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The labels in a stop's ``detailNamesFileName``, for the properties it has (anything else in
    /// the file, or a file that is not a small JSON object of strings, is ignored: it only names).
    static func detailNames(_ path: String, _ properties: [JSONMember]) -> [String: String] {
        guard FileSystem.lstatInfo(path).kind == .file, let bytes = try? FileSystem.readFile(path, limit: 64 << 10),
            case .object(let members)? = try? JSONParser.parse(bytes).value
        else { return [:] }
        var labels: [String: String] = [:]
        for member in members where properties.contains(where: { $0.key == member.key }) {
            if case .string(let label) = member.value, !label.isEmpty, label.count <= 200 {
                labels[member.key] = label
            }
        }
        return labels
    }

    /// What a stop's ``detailNamesFileName`` holds: its labels, in the order of its properties; nil
    /// when it has none (and the file is not kept).
    public static func detailNamesJSON(_ labels: [String: String], properties: [JSONMember]) -> JSONValue? {
        let members = properties.compactMap { p in labels[p.key].map { JSONMember(p.key, .string($0)) } }
        return members.isEmpty ? nil : .object(members)
    }

    /// A text of `tour.json` or `waypoint.json` that may be given per language: a string (the default
    /// language's), or an object of strings by language (keys matched to the declared tags ignoring
    /// case; others kept as written). Nil for anything else (kept as an unknown member).
    static func localized(_ value: JSONValue, languages: [String]) -> (plain: String?, others: [String: String])? {
        switch value {
        case .string(let s): return (s, [:])
        case .object(let members):
            var plain: String?
            var others: [String: String] = [:]
            for member in members {
                guard case .string(let s) = member.value else { return nil }
                let tag = languages.first { $0.lowercased() == member.key.lowercased() } ?? member.key
                if tag == languages.first { plain = s } else { others[tag] = s }
            }
            return (plain, others)
        default: return nil
        }
    }

    private static func object(_ root: String, _ file: String) throws(BuildError) -> [JSONMember] {
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(root + "/" + file, limit: TourSource.maxJSONBytes) } catch {
            throw .malformed(file, "cannot be read (\(error))")
        }
        let document: JSONDocument
        do { document = try JSONParser.parse(bytes) } catch {
            throw .malformed(file, "is not valid JSON (\(error)); fix it in a text editor or upload the folder again")
        }
        guard case .object(let members) = document.value else {
            throw .malformed(file, "holds \(document.value.typeDescription), not an object")
        }
        return members
    }

    private static func coordinate(_ value: JSONValue?) -> Coordinate? {
        guard case .number(let lat)? = value?["latitude"], case .number(let lon)? = value?["longitude"],
            let latitude = Double(lat.literal), let longitude = Double(lon.literal)
        else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    private static func isAssetItem(_ value: JSONValue) -> Bool {
        if case .string = value { return true }
        if case .string? = value["file"] { return true }
        return false
    }

    /// A file's entry read back from ``assetJSON(_:)``'s form, in a tour of `languages`.
    public static func assetReference(json value: JSONValue, languages: [String]) -> AssetReference? {
        assetReference(value, languages: languages)
    }

    private static func assetReference(_ value: JSONValue, languages: [String]) -> AssetReference? {
        if case .string(let file) = value { return AssetReference(file: file) }
        guard case .object(let members) = value else { return nil }
        var ref = AssetReference(file: "")
        for member in members {
            let text = localized(member.value, languages: languages)
            switch (member.key, member.value) {
            case ("file", .string(let s)): ref.file = s
            case ("language", .string(let s)):
                ref.language = languages.first { $0.lowercased() == s.lowercased() } ?? s
            case ("title", _) where text != nil: ref.take(.title, text)
            case ("alt", _) where text != nil: ref.take(.alt, text)
            case ("transcript", _) where text != nil: ref.take(.transcript, text)
            case ("captions", _) where text != nil: ref.take(.captions, text)
            default: ref.extra.append(member)
            }
        }
        return ref
    }

    /// A name a stop's `waypoint.json` gives for one of its files (an asset or its captions) that is
    /// not a ``StopFileName``.
    public struct BadFileName: Sendable, Equatable {
        /// The stop's number (from 1).
        public var stop: Int
        /// Where it is written: `stop 2 (waypoints/02-house-rock/waypoint.json)`.
        public var place: String
        public var name: String
        public var problem: StopFileName.Problem
    }

    /// Every file name the stops list that is not one safe path component, in stop order: a draft
    /// with any is refused by the panel's import and never opened by its pages.
    public var badFileNames: [BadFileName] {
        var out: [BadFileName] = []
        for (index, stop) in stops.enumerated() {
            let place =
                "stop \(index + 1) (waypoints/\(stop.folder ?? folderName(at: index))/\(TourSource.waypointFileName))"
            for asset in stop.assets {
                let captions =
                    [asset.captions].compactMap { $0 }
                    + asset.translations.byLanguage.keys.sorted()
                    .compactMap { asset.translations[$0, .captions] }
                for name in [asset.file] + captions {
                    do throws(StopFileName.Problem) { _ = try StopFileName(name) } catch {
                        out.append(BadFileName(stop: index + 1, place: place, name: name, problem: error))
                    }
                }
            }
        }
        return out
    }

    // MARK: writing

    /// `tour.json`'s content.
    public var tourJSON: JSONValue {
        var members = [JSONMember("id", .string(id)), JSONMember("version", .string(version))]
        if !languages.isEmpty { members.append(JSONMember("languages", .array(languages.map { .string($0) }))) }
        if requireAllLanguages { members.append(JSONMember("requireAllLanguages", .bool(true))) }
        members += [
            JSONMember("name", localizedJSON(name, translations, .name) ?? .string("")),
            JSONMember("park", localizedJSON(park, translations, .park) ?? .string("")),
            JSONMember("site", .object([JSONMember("id", .string(siteID)), JSONMember("name", .string(siteName))])),
            JSONMember("mapName", .string(mapName)),
        ]
        if let bounds {
            members.append(
                JSONMember(
                    "bounds",
                    .object([
                        JSONMember("southwest", bounds.southwest.jsonValue),
                        JSONMember("northeast", bounds.northeast.jsonValue),
                    ])))
        }
        members.append(JSONMember("description", localizedJSON(description, translations, .description) ?? .string("")))
        return .object(members + extra.filter { m in !members.contains { $0.key == m.key } })
    }

    /// A stop's `waypoint.json` content (its texts by this tour's languages).
    public func waypointJSON(_ stop: Stop) -> JSONValue {
        var members = [JSONMember("name", localizedJSON(stop.name, stop.translations, .name) ?? .string(""))]
        if let c = stop.coordinate { members.append(JSONMember("coordinate", c.jsonValue)) }
        members.append(
            JSONMember("description", localizedJSON(stop.description, stop.translations, .description) ?? .string("")))
        members.append(JSONMember("assets", .array(stop.assets.map(assetJSON))))
        if !stop.properties.isEmpty { members.append(JSONMember("properties", .object(stop.properties))) }
        if let waiver = stop.accessibilityWaiver, !waiver.isEmpty {
            members.append(JSONMember("accessibilityWaiver", .string(waiver)))
        }
        return .object(members + stop.extra.filter { m in !members.contains { $0.key == m.key } })
    }

    /// A file's entry as `waypoint.json` lists it (the panel keeps a removed file's entry with the file).
    public func assetJSON(_ ref: AssetReference) -> JSONValue {
        var head = [JSONMember("file", .string(ref.file))]
        if let language = ref.language { head.append(JSONMember("language", .string(language))) }
        let texts = AssetTextField.allCases.compactMap { field in
            localizedJSON(ref.plainText(field), ref.translations, field).map { JSONMember(field.rawValue, $0) }
        }
        if head.count == 1 && texts.isEmpty && ref.extra.isEmpty { return .string(ref.file) }
        return .object(head + texts + ref.extra.filter { m in !(head + texts).contains { $0.key == m.key } })
    }

    /// A text as the folder form writes it: one string when only the default language's is given (or
    /// the tour declares no languages), else an object by language, the declared ones first in their
    /// order (the default's left out when it is empty). Nil when there is no text at all.
    func localizedJSON<Field: TranslatableField>(
        _ plain: String?, _ translations: Translations<Field>, _ field: Field
    ) -> JSONValue? {
        let given = translations.byLanguage.compactMap { tag, texts in texts[field].map { (tag, $0) } }
        let plain = plain.flatMap { $0.isEmpty ? nil : $0 }
        guard !given.isEmpty, let defaultLanguage else {
            // Texts by language in a tour that declares none are kept as they were, unless edited.
            if plain == nil, !given.isEmpty {
                return .object(given.sorted { $0.0 < $1.0 }.map { JSONMember($0.0, .string($0.1)) })
            }
            return plain.map { .string($0) }
        }
        let byTag = Dictionary(given, uniquingKeysWith: { a, _ in a })
        let order = languages.filter { byTag[$0] != nil } + byTag.keys.filter { !languages.contains($0) }.sorted()
        var members = plain.map { [JSONMember(defaultLanguage, .string($0))] } ?? []
        members += order.filter { $0 != defaultLanguage }.map { JSONMember($0, .string(byTag[$0] ?? "")) }
        return .object(members)
    }

    /// The folder name stop `index` is stored under: its number (zero-padded to the count's width, at
    /// least two digits) and its slug.
    public func folderName(at index: Int) -> String {
        let width = max(2, String(stops.count).count)
        let number = String(index + 1)
        return String(repeating: "0", count: width - number.count) + number + "-" + stops[index].slug
    }

    /// A slug for a new stop named `name`, unique among this draft's stops (letters of every script in Latin).
    public func newStopSlug(for name: String) -> String {
        Slug.unique(for: name, number: stops.count + 1, taken: Set(stops.map(\.slug)))
    }

    /// A slug from any text (a tour name): lowercase ASCII letters, digits and hyphens, or "" when none are left.
    public static func slug(_ text: String) -> String {
        let slug = Slug.unique(for: text, number: 0, taken: [])
        return slug == "stop-0" ? "" : slug
    }

    /// The revision of a draft folder: a digest of every file and folder in it (`tour.json`, the
    /// route beside it, each stop's files, the map's, anything else but the ignored names), by path,
    /// size, inode and modification time, `lstat` only. Any save, by the panel or anyone else,
    /// changes it: a file written in place changes its size or time, one replaced atomically its
    /// inode, even within the clock's tick. A file only hard-linked elsewhere (a draft duplicated)
    /// does not: the change time, which a new link moves, is left out. What the panel's pages are
    /// saved against, and what its kept plans are kept by.
    public static func revision(folder root: String) -> String {
        var digest = SHA256()
        var pending = [""]
        while let relative = pending.popLast() {
            let names = FileSystem.list(relative.isEmpty ? root : root + "/" + relative)
                .filter { !FileSystem.isIgnored($0) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for name in names {
                let path = relative.isEmpty ? name : relative + "/" + name
                var info = stat()
                guard lstat(root + "/" + path, &info) == 0 else { continue }
                digest.update(
                    Array(
                        "\(path)\t\(info.st_size)\t\(info.st_ino)\t\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)\n"
                            .utf8))
                if info.st_mode & S_IFMT == S_IFDIR { pending.append(path) }
            }
        }
        return String(digest.finalize().hex.prefix(16))
    }
}

// MARK: texts by language

/// A part of a draft whose texts may be given per language: the tour, a stop, a stop's file.
public protocol DraftTexts {
    associatedtype Field: TranslatableField
    /// The text of `field` in the default language (the plain field), nil or empty when not given.
    func plainText(_ field: Field) -> String?
    /// Sets the plain field (nil: not given).
    mutating func setPlainText(_ field: Field, _ text: String?)
    /// The texts in the other languages.
    var translations: Translations<Field> { get set }
}

extension DraftTexts {
    /// The text of `field` in `language` as written, nil when not given: the plain field for the
    /// default language (or a nil `language`), else the translation.
    public func text(_ field: Field, in language: String?, defaultLanguage: String?) -> String? {
        guard let language, language != defaultLanguage else {
            return plainText(field).flatMap { $0.isEmpty ? nil : $0 }
        }
        return translations[language, field]
    }

    /// Sets the text of `field` in `language`; an empty text removes it.
    public mutating func setText(_ field: Field, in language: String?, defaultLanguage: String?, to text: String?) {
        let text = text.flatMap { $0.isEmpty ? nil : $0 }
        guard let language, language != defaultLanguage else { return setPlainText(field, text) }
        translations[language, field] = text
    }

    /// Takes a text as read: the default language's into the plain field, the others as translations.
    mutating func take(_ field: Field, _ text: (plain: String?, others: [String: String])?) {
        guard let text else { return }
        setPlainText(field, text.plain)
        for (tag, value) in text.others { translations[tag, field] = value }
    }

    /// Makes `tag`'s texts the plain ones and the plain ones those of `oldDefault`.
    mutating func swapDefault(to tag: String, from oldDefault: String) {
        for field in Field.allCases {
            let old = plainText(field).flatMap { $0.isEmpty ? nil : $0 }
            setPlainText(field, translations[tag, field])
            translations[tag, field] = nil
            translations[oldDefault, field] = old
        }
    }

    /// Removes every text in `tag`.
    mutating func removeTexts(in tag: String) { translations.byLanguage[tag] = nil }
}

extension TourDraft: DraftTexts {
    public func plainText(_ field: TourTextField) -> String? {
        switch field {
        case .name: name
        case .park: park
        case .description: description
        }
    }

    public mutating func setPlainText(_ field: TourTextField, _ text: String?) {
        switch field {
        case .name: name = text ?? ""
        case .park: park = text ?? ""
        case .description: description = text ?? ""
        }
    }
}

extension TourDraft.Stop: DraftTexts {
    public func plainText(_ field: StopTextField) -> String? {
        switch field {
        case .name: name
        case .description: description
        }
    }

    public mutating func setPlainText(_ field: StopTextField, _ text: String?) {
        switch field {
        case .name: name = text ?? ""
        case .description: description = text ?? ""
        }
    }
}

extension TourDraft.AssetReference: DraftTexts {
    public func plainText(_ field: AssetTextField) -> String? {
        switch field {
        case .title: title
        case .alt: alt
        case .transcript: transcript
        case .captions: captions
        }
    }

    public mutating func setPlainText(_ field: AssetTextField, _ text: String?) {
        switch field {
        case .title: title = text
        case .alt: alt = text
        case .transcript: transcript = text
        case .captions: captions = text
        }
    }
}

// MARK: languages

extension TourDraft {
    /// `tag` as a declared language is written: trimmed, well-formed BCP 47 (``LanguageTag/isWellFormed(_:)``),
    /// in the usual case (`es`, `es-419`, `zh-Hant`, `en-US`); nil when it is not a language tag.
    public static func languageTag(_ tag: String) -> String? {
        let tag = tag.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "_", with: "-")
        guard !tag.isEmpty, LanguageTag.isWellFormed(tag) else { return nil }
        return LanguageTag.canonicalCase(tag)
    }

    /// The language `asset` is in: its `"language"`, else the declared tag its name carries
    /// (`narration.es.wav`); nil for a file every language shares.
    public func language(of asset: AssetReference) -> String? {
        asset.language ?? Loader.languageInName(asset.file, languages: languages)
    }

    /// Whether the language of `asset` comes from its name rather than a `"language"` of its own.
    public func languageFromName(_ asset: AssetReference) -> Bool {
        asset.language == nil && Loader.languageInName(asset.file, languages: languages) != nil
    }

    /// The stops' files in `tag` (by its `"language"` or its name): stop index and file name.
    public func files(in tag: String) -> [(stop: Int, file: String)] {
        stops.enumerated().flatMap { index, stop in
            stop.assets.filter { language(of: $0) == tag }.map { (index, $0.file) }
        }
    }

    /// The number of texts given in `tag` (the tour's, the stops' and their files').
    public func textCount(in tag: String) -> Int {
        func count<T: DraftTexts>(_ holder: T) -> Int {
            T.Field.allCases.filter { holder.text($0, in: tag, defaultLanguage: defaultLanguage) != nil }.count
        }
        return count(self)
            + stops.reduce(0) { sum, stop in
                sum + count(stop) + stop.assets.filter { language(of: $0) == nil }.reduce(0) { $0 + count($1) }
            }
    }

    /// Makes `tag` (a declared language) the default: it moves first, its texts become the plain
    /// fields, and the old default's plain texts become its translations. A text `tag` lacks is then
    /// empty in the default language (the builder's findings say which).
    public mutating func makeDefault(_ tag: String) {
        guard let old = defaultLanguage, old != tag, languages.contains(tag) else { return }
        languages.removeAll { $0 == tag }
        languages.insert(tag, at: 0)
        swapDefault(to: tag, from: old)
        for s in stops.indices {
            stops[s].swapDefault(to: tag, from: old)
            for a in stops[s].assets.indices where language(of: stops[s].assets[a]) == nil {
                stops[s].assets[a].swapDefault(to: tag, from: old)
            }
        }
    }

    /// Removes the declared language `tag` with every text in it. The stops' files are not touched.
    public mutating func removeLanguage(_ tag: String) {
        languages.removeAll { $0 == tag }
        removeTexts(in: tag)
        for s in stops.indices {
            stops[s].removeTexts(in: tag)
            for a in stops[s].assets.indices { stops[s].assets[a].removeTexts(in: tag) }
        }
    }

    /// The manifest this draft would make, as far as languages, texts and files go — no hashes, sizes
    /// from `size` (stop index, file), a stop without a position at 0° 0°, only files of a known type —
    /// for counting what is translated (``Manifest/completeness``) before anything is built.
    public func manifestForCounting(size: (Int, AssetReference) -> Int64 = { _, _ in 0 }) -> Manifest {
        let zero = String(repeating: "0", count: 64)
        let waypoints = stops.enumerated().map { index, stop in
            let folder = "waypoints/\(stop.slug)/"
            let assets = stop.assets.compactMap { ref -> Asset? in
                guard let type = MediaTypes.lookup(fileName: ref.file) else { return nil }
                var translations = ref.translations
                for tag in translations.byLanguage.keys {
                    translations[tag, .captions] = translations[tag, .captions].map { folder + $0 }
                }
                return Asset(
                    path: folder + ref.file, kind: type.kind, mediaType: type.mediaType, size: size(index, ref),
                    sha256: zero, title: ref.title, alt: ref.alt, transcript: ref.transcript,
                    captions: ref.captions.map { folder + $0 }, language: language(of: ref),
                    translations: language(of: ref) == nil ? translations : Translations())
            }
            return Waypoint(
                name: stop.name, slug: stop.slug, order: index + 1,
                coordinate: stop.coordinate ?? Coordinate(latitude: 0, longitude: 0), description: stop.description,
                assets: assets, translations: stop.translations)
        }
        let frame =
            bounds
            ?? Bounds(
                southwest: Coordinate(latitude: 0, longitude: 0), northeast: Coordinate(latitude: 0, longitude: 0))
        return Manifest(
            id: id, version: version, name: name, park: park, site: Site(id: siteID, name: siteName),
            mapName: mapName, bounds: frame, description: description, waypoints: waypoints,
            languages: languages, requireAllLanguages: requireAllLanguages, translations: translations)
    }
}

// MARK: a removed language's texts, kept

extension TourDraft {
    /// A removed language's texts, kept beside the draft so that adding the language again brings
    /// them back: the tour's, each stop's (by its slug) and each shared file's (by stop slug and file
    /// name). Stored as JSON (``jsonValue``); a stop or file gone meanwhile simply gets nothing back.
    public struct KeptTexts: Sendable, Equatable {
        public var tour: [String: String] = [:]
        public var stops: [String: [String: String]] = [:]
        public var files: [String: [String: [String: String]]] = [:]

        public init() {}

        /// How many texts are kept.
        public var count: Int {
            tour.count + stops.values.reduce(0) { $0 + $1.count }
                + files.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.count } }
        }

        /// `{"tour": {field: text}, "stops": {slug: {field: text}}, "files": {slug: {file: {field: text}}}}`.
        public var jsonValue: JSONValue {
            func object(_ texts: [String: String]) -> JSONValue {
                .object(texts.sorted { $0.key < $1.key }.map { JSONMember($0.key, .string($0.value)) })
            }
            return .object([
                JSONMember("tour", object(tour)),
                JSONMember(
                    "stops", .object(stops.sorted { $0.key < $1.key }.map { JSONMember($0.key, object($0.value)) })),
                JSONMember(
                    "files",
                    .object(
                        files.sorted { $0.key < $1.key }.map { slug, byFile in
                            JSONMember(
                                slug,
                                .object(byFile.sorted { $0.key < $1.key }.map { JSONMember($0.key, object($0.value)) }))
                        })),
            ])
        }

        /// Reads what ``jsonValue`` wrote; anything else in the file is skipped, never trusted.
        public init(json: JSONValue) {
            func texts(_ value: JSONValue?) -> [String: String] {
                guard case .object(let members)? = value else { return [:] }
                var out: [String: String] = [:]
                for member in members { if case .string(let text) = member.value { out[member.key] = text } }
                return out
            }
            func objects(_ value: JSONValue?) -> [(String, JSONValue)] {
                guard case .object(let members)? = value else { return [] }
                return members.map { ($0.key, $0.value) }
            }
            tour = texts(json["tour"])
            for (slug, value) in objects(json["stops"]) { stops[slug] = texts(value) }
            for (slug, value) in objects(json["files"]) {
                for (file, inner) in objects(value) { files[slug, default: [:]][file] = texts(inner) }
            }
        }
    }

    /// The texts written in `tag` (a language other than the default), to keep when it is removed.
    public func keptTexts(in tag: String) -> KeptTexts {
        func texts<T: DraftTexts>(_ holder: T) -> [String: String] {
            var out: [String: String] = [:]
            for field in T.Field.allCases {
                if let text = holder.translations[tag, field] { out[field.rawValue] = text }
            }
            return out
        }
        var kept = KeptTexts()
        kept.tour = texts(self)
        for stop in stops {
            let own = texts(stop)
            if !own.isEmpty { kept.stops[stop.slug] = own }
            for asset in stop.assets where language(of: asset) == nil {
                let fileTexts = texts(asset)
                if !fileTexts.isEmpty { kept.files[stop.slug, default: [:]][asset.file] = fileTexts }
            }
        }
        return kept
    }

    /// Gives `tag` back the kept texts wherever it has none now (a text written since wins);
    /// returns how many came back.
    @discardableResult
    public mutating func restore(_ kept: KeptTexts, in tag: String) -> Int {
        var restored = 0
        func put<T: DraftTexts>(_ texts: [String: String]?, into holder: inout T) {
            for (name, text) in texts ?? [:] {
                guard let field = T.Field(rawValue: name), holder.translations[tag, field] == nil, !text.isEmpty
                else { continue }
                holder.translations[tag, field] = text
                restored += 1
            }
        }
        put(kept.tour, into: &self)
        for s in stops.indices {
            let slug = stops[s].slug
            put(kept.stops[slug], into: &stops[s])
            for a in stops[s].assets.indices where language(of: stops[s].assets[a]) == nil {
                put(kept.files[slug]?[stops[s].assets[a].file], into: &stops[s].assets[a])
            }
        }
        return restored
    }
}
