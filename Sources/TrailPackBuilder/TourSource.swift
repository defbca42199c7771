import Foundation
import TrailPackCore
import TrailPackFileIO

/// A ranger's tour folder, read and checked — the builder's input.
///
/// ```
/// santiam-wagon-road/
///   tour.json                  package fields: id, version, name, park, site, mapName, bounds, description
///   waypoints/
///     01-sweet-home/
///       waypoint.json          name, coordinate, description, assets, properties
///       intro.md
///       depot.png
///     02-cascadia/ ...
///   map/                       optional offline map files (all packaged)
/// ```
/// The number before the first hyphen of a waypoint folder is its order; the rest, made
/// lowercase with hyphens, is its folder name in the package (`waypoints/sweet-home/`).
public struct TourSource: Sendable {
    /// The tour folder, as given.
    public var root: String
    public var tour: TourFields
    public var waypoints: [WaypointSource]
    public var mapFiles: [SourceFile]
    /// The route, from `route.gpx` or `route.geojson` beside `tour.json`; nil when there is none.
    public var route: TourRoute.Source? = nil

    /// The package-level fields of `tour.json`.
    public struct TourFields: Sendable {
        public var id: String
        public var version: String
        public var name: String
        public var park: String
        public var site: Site
        public var mapName: String
        /// nil when `tour.json` leaves them out: the builder then encloses the waypoints.
        public var bounds: Bounds?
        public var description: String
        /// The declared languages, the default first (empty: one unnamed language).
        public var languages: [String] = []
        public var requireAllLanguages = false
        /// The name, park and description in the other languages.
        public var translations = Translations<TourTextField>()
        /// The parts the tour is walked in (`"stages"`), with the route (format 1.2).
        public var stages: [TourRoute.StageSource] = []
    }

    /// One waypoint folder.
    public struct WaypointSource: Sendable {
        /// The folder, relative to the tour: `waypoints/01-sweet-home`.
        public var folder: String
        public var name: String
        public var slug: String
        public var order: Int
        public var coordinate: Coordinate
        public var description: String
        public var properties: [JSONMember]
        public var assets: [SourceFile]
        /// Why a required accessibility text is missing (for reviewers).
        public var accessibilityWaiver: String? = nil
        /// The name and description in the other languages.
        public var translations = Translations<StopTextField>()
    }

    /// One file to package.
    public struct SourceFile: Sendable {
        /// The folders a stop's files are named from: one object that every file of the stop shares.
        final class Folders: Sendable {
            /// The tour's real folder (links resolved), ending in "/".
            let real: String
            /// The stop's folder in the tour ("waypoints/01-sahalie-falls/"), ending in "/".
            let inTour: String
            /// The stop's folder in the package ("waypoints/sahalie-falls/"), ending in "/".
            let inPackage: String

            init(real: String, inTour: String, inPackage: String) {
                (self.real, self.inTour, self.inPackage) = (real, inTour, inPackage)
            }
        }

        /// What few files have: a name that normalizing changed, a real path elsewhere (a link, or a
        /// caller packaging another copy of the file), the texts waypoint.json gives the file, and a
        /// type, size or time the record's own fields cannot hold.
        struct ExtraFields {
            var nameInPackage: String?, realPath: String?, texts = TextFields(), type: MediaTypes.Entry?
            var size: Int64?, modified: timespec?

            /// Whether it holds nothing a record needs.
            var isEmpty: Bool {
                nameInPackage == nil && realPath == nil && texts == TextFields() && type == nil && size == nil
                    && modified == nil
            }
        }

        /// ``ExtraFields`` in one box shared by copies and never changed: setting any of them makes a
        /// new box (`change`).
        final class Extras: Sendable {
            let fields: ExtraFields
            init(_ fields: ExtraFields) { self.fields = fields }
        }

        /// The stop's folders. A file's paths are made from them and its name when asked for: held
        /// whole, its path in the tour and in the package were two strings of heap a file, 15.8 MB at
        /// 100,000 files.
        let folders: Folders
        /// The file's name as waypoint.json gives it, relative to the stop's folder (most names
        /// fit in the string itself, with no heap).
        let name: String
        /// What few files have (``Extras``); nil for most files.
        private var box: Extras?
        /// What few files have; nil for most files.
        var extras: ExtraFields? { box?.fields }
        /// The size (the low 56 bits) and the type (the high 8: its number in `MediaTypes.known`),
        /// or 255 when it is in `extras`). A record is 48 bytes: with the type's entry, a `timespec`
        /// and the texts' box of their own it was 96, 9.6 MB at 100,000 files, and the plan held
        /// two lists of them at once.
        private var sizeAndType: UInt64
        /// The modification time in nanoseconds since 1970 (1678 to 2262), or `Int64.min` when it is
        /// in `extras`.
        private var modifiedNanoseconds: Int64

        private static let sizeBits: UInt64 = 56
        private static let sizeMask: UInt64 = (1 << sizeBits) - 1
        private static let typeElsewhere: UInt64 = 255

        /// The file on disk (links resolved). Setting it (a caller packaging another copy of the
        /// file) holds the whole path given.
        public var sourcePath: String {
            get { box?.fields.realPath ?? Loader.joined(folders.real, folders.inTour, name) }
            set { change { $0.realPath = newValue } }
        }
        /// The path relative to the tour folder, for messages.
        public var relativePath: String { Loader.joined(folders.inTour, name) }
        /// The entry path in the package (at its exact length: it becomes the manifest's asset path,
        /// and `+` leaves room to grow, 9.3 MB of heap where 6.4 do at 100,000 files).
        public var archivePath: String { Loader.joined(folders.inPackage, nameInPackage) }
        /// The name in the package: `name`, normalized to NFC.
        var nameInPackage: String { box?.fields.nameInPackage ?? name }

        /// Whether `a`'s path in the package sorts before `b`'s (by their UTF-8 bytes), made of their
        /// parts without making either path: the entries' order.
        static func packageOrder(_ a: SourceFile, _ b: SourceFile) -> Bool {
            if a.folders === b.folders { return a.nameInPackage.utf8.lexicographicallyPrecedes(b.nameInPackage.utf8) }
            return [a.folders.inPackage.utf8, a.nameInPackage.utf8].joined().lexicographicallyPrecedes(
                [b.folders.inPackage.utf8, b.nameInPackage.utf8].joined())
        }

        public var type: MediaTypes.Entry {
            get {
                let number = sizeAndType >> Self.sizeBits
                // 255: set with the box, which holds it.
                if number == Self.typeElsewhere, let boxed = box?.fields.type { return boxed }
                return MediaTypes.known[Int(number)]
            }
            set {
                if let number = MediaTypes.number(of: newValue), UInt64(number) < Self.typeElsewhere {
                    sizeAndType = sizeAndType & Self.sizeMask | UInt64(number) << Self.sizeBits
                    if box?.fields.type != nil { change { $0.type = nil } }
                } else {
                    sizeAndType = sizeAndType & Self.sizeMask | Self.typeElsewhere << Self.sizeBits
                    change { $0.type = newValue }
                }
            }
        }
        public var size: Int64 {
            get {
                let inline = sizeAndType & Self.sizeMask
                return inline == Self.sizeMask ? box?.fields.size ?? Int64(inline) : Int64(inline)
            }
            set {
                if newValue >= 0 && UInt64(newValue) < Self.sizeMask {
                    sizeAndType = sizeAndType & ~Self.sizeMask | UInt64(newValue)
                    if box?.fields.size != nil { change { $0.size = nil } }
                } else {
                    sizeAndType |= Self.sizeMask
                    change { $0.size = newValue }
                }
            }
        }
        /// The modification time seen when the folder was read: the file must still have it (and
        /// `size`) when it is packaged, or the hash in the manifest would not be of these bytes.
        public var modified: timespec {
            get {
                guard modifiedNanoseconds != .min else { return box?.fields.modified ?? timespec() }
                let (seconds, nanoseconds) = modifiedNanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
                // Before 1970 the remainder is negative; a timespec's nanoseconds never are.
                return nanoseconds < 0
                    ? timespec(tv_sec: Int(seconds - 1), tv_nsec: Int(nanoseconds + 1_000_000_000))
                    : timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))
            }
            set {
                let (scaled, over) = Int64(newValue.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
                let (sum, overSum) = scaled.addingReportingOverflow(Int64(newValue.tv_nsec))
                if !over, !overSum, sum != .min, (0..<1_000_000_000).contains(newValue.tv_nsec) {
                    modifiedNanoseconds = sum
                    if box?.fields.modified != nil { change { $0.modified = nil } }
                } else {
                    modifiedNanoseconds = .min
                    change { $0.modified = newValue }
                }
            }
        }

        public var title: String? {
            get { box?.fields.texts.title }
            set { fields.title = newValue }
        }
        /// Accessibility texts from waypoint.json: an image's alt text, a recording's transcript, a
        /// video's captions (the package path of the stop's `.vtt` file).
        public var alt: String? {
            get { box?.fields.texts.alt }
            set { fields.alt = newValue }
        }
        public var transcript: String? {
            get { box?.fields.texts.transcript }
            set { fields.transcript = newValue }
        }
        public var captions: String? {
            get { box?.fields.texts.captions }
            set { fields.captions = newValue }
        }
        /// The language the file is in (its `"language"`, or the declared tag in its name); nil: shared.
        public var language: String? {
            get { box?.fields.texts.language }
            set { fields.language = newValue }
        }
        /// Its texts in the other languages (captions as package paths).
        public var translations: Translations<AssetTextField> {
            get { box?.fields.texts.translations ?? Translations() }
            set { fields.translations = newValue }
        }

        /// The file `name` of the stop in `folders`; `nameInPackage` and `realPath` only when they
        /// are not `name` and `folders.real + folders.inTour + name`.
        init(
            folders: Folders, name: String, nameInPackage: String? = nil, realPath: String? = nil,
            type: MediaTypes.Entry, size: Int64, modified: timespec, title: String?
        ) {
            (self.folders, self.name) = (folders, name)
            (sizeAndType, modifiedNanoseconds) = (0, 0)
            if nameInPackage != nil || realPath != nil || title != nil {
                box = Extras(
                    ExtraFields(nameInPackage: nameInPackage, realPath: realPath, texts: TextFields(title: title)))
            }
            (self.type, self.size, self.modified) = (type, size, modified)
        }

        /// The texts; setting them makes a new box (a box is never changed, so copies stay apart),
        /// or none when nothing is left in it.
        var fields: TextFields {
            get { box?.fields.texts ?? TextFields() }
            set { change { $0.texts = newValue } }
        }

        /// Replaces the box by a new one with `edit` made to its fields, or by none when nothing is left.
        private mutating func change(_ edit: (inout ExtraFields) -> Void) {
            var fields = box?.fields ?? ExtraFields()
            edit(&fields)
            box = fields.isEmpty ? nil : Extras(fields)
        }

        struct TextFields: Equatable, Sendable {
            var title: String?, alt: String?, transcript: String?, captions: String?, language: String?
            var translations = Translations<AssetTextField>()
        }
    }

    public static let tourFileName = "tour.json"
    public static let waypointFileName = "waypoint.json"
    /// The largest `tour.json` or `waypoint.json` read.
    public static let maxJSONBytes = 1 << 20
    /// The largest single asset: ZIP64 handles more, but a phone will not hold it.
    public static let maxAssetBytes: Int64 = 64 << 30
}

extension TourSource {
    /// What `load` read of a tour folder.
    public struct LoadOutcome: Sendable {
        /// The tour, or nil when the folder cannot be read far enough to be useful.
        public var source: TourSource?
        /// Every finding, errors and warnings together.
        public var findings: [Finding]
    }

    /// Reads the tour folder at `root`: the source (nil when it cannot be read far enough to be
    /// useful) and every finding, errors and warnings together.
    public static func load(_ root: String) throws -> LoadOutcome { try load(root, onStop: nil) }

    /// ``load(_:)``, handing each stop to `onStop` as soon as its folder is read (in the order the
    /// folders are listed, not the stops' order): the builder hashes a stop's files while the next
    /// stops are read.
    static func load(_ root: String, onStop: ((WaypointSource) -> Void)?) throws -> LoadOutcome {
        let kind = FileSystem.statInfo(root).kind
        if kind == .missing {
            throw BuildError.io("'\(root)' does not exist; give the tour folder (the one that holds tour.json)")
        }
        guard kind == .directory else {
            throw BuildError.usage("'\(root)' is not a folder; give the tour folder (the one that holds tour.json)")
        }
        guard let realRoot = FileSystem.realPath(root) else { throw BuildError.io("cannot resolve '\(root)'") }
        var loader = Loader(root: root, realRoot: realRoot)
        loader.onStop = onStop
        let source = loader.load()
        return LoadOutcome(source: source, findings: loader.findings)
    }
}

struct Loader {
    let root: String
    let realRoot: String
    /// `realRoot` ending in "/", which every file's `sourceFolder` shares.
    let realRootSlash: String
    var findings: [Finding] = []
    var used: Set<String> = []
    var realFolders: [String: String?] = [:]
    /// The languages `tour.json` declares, once read.
    var languages: [String] = []
    /// Told of each stop once its folder is read.
    var onStop: ((TourSource.WaypointSource) -> Void)?
    /// The stop folder whose assets are being resolved, open: a name in it alone is looked up there.
    var openStop: (folder: String, handle: FolderHandle)?

    init(root: String, realRoot: String) {
        self.root = root
        self.realRoot = realRoot
        self.realRootSlash = realRoot.hasSuffix("/") ? realRoot : realRoot + "/"
    }

    mutating func load() -> TourSource? {
        let tourPath = root + "/" + TourSource.tourFileName
        var tour: TourSource.TourFields?
        if FileSystem.statInfo(tourPath).kind != .file {
            findings.append(
                Finding(
                    .sourceTourMissing, file: TourSource.tourFileName,
                    "the folder has no tour.json; run 'trailpack init \(root)' to create one, or check that you gave the tour folder"
                ))
        } else if let value = readJSON(TourSource.tourFileName) {
            tour = readTour(value)
            languages = tour?.languages ?? []
        }
        used.insert(TourSource.tourFileName)

        var waypoints: [TourSource.WaypointSource] = []
        let waypointsDir = root + "/waypoints"
        let folders = FileSystem.list(waypointsDir).filter { !FileSystem.isIgnored($0) }
        for name in folders {
            let rel = "waypoints/" + name
            switch FileSystem.lstatInfo(root + "/" + rel).kind {
            case .directory:
                if let w = readWaypoint(folder: rel, folderName: name) {
                    onStop?(w)
                    waypoints.append(w)
                }
            case .symlink where FileSystem.statInfo(root + "/" + rel).kind == .directory:
                // A stop folder that is a link is not followed (nothing is read through it): said as
                // what it is, not as an unused file, so the ranger knows the stop is missing.
                used.insert(rel)
                let target = FileSystem.realPath(root + "/" + rel) ?? "?"
                findings.append(
                    Finding(
                        .sourceAssetOutside, file: rel,
                        "the stop folder '\(rel)' is a link to '\(target)', and stop folders must be real folders inside the tour; copy that folder into waypoints/ instead of linking it, or the stop is left out"
                    ))
            default:
                break  // reported as unused below
            }
        }
        if waypoints.isEmpty
            && !folders.contains(where: { FileSystem.lstatInfo(waypointsDir + "/" + $0).kind == .directory })
        {
            findings.append(
                Finding(
                    .sourceNoWaypoints, file: "waypoints/",
                    "the tour has no waypoint folders; make one folder per stop under waypoints/, such as waypoints/01-trailhead/ with a waypoint.json"
                ))
        }
        waypoints.sort { a, b in
            a.order != b.order
                ? a.order < b.order : Array(a.folder.utf8).lexicographicallyPrecedes(Array(b.folder.utf8))
        }

        let route = TourRoute.load(folder: root)
        findings += route.findings
        used.insert(TourRoute.gpxName)
        used.insert(TourRoute.geoJSONName)
        used.insert(Route.entryName)

        var mapFiles: [TourSource.SourceFile] = []
        let mapFolders = TourSource.SourceFile.Folders(real: realRootSlash, inTour: "map/", inPackage: "map/")
        for rel in FileSystem.walk(root + "/map") where "map/" + rel != Route.entryName {
            if let file = resolveAsset(
                reference: rel, folders: mapFolders, title: nil, findingFile: "map/" + rel)
            {
                mapFiles.append(file)
            }
        }

        unusedFiles(waypoints: waypoints, mapFiles: mapFiles)
        guard let tour else { return nil }
        return TourSource(root: root, tour: tour, waypoints: waypoints, mapFiles: mapFiles, route: route.source)
    }

    // MARK: files

    mutating func readJSON(_ rel: String) -> JSONValue? {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readFile(root + "/" + rel, limit: TourSource.maxJSONBytes)
        } catch {
            findings.append(Finding(.sourceAssetUnreadable, file: rel, "\(error)"))
            return nil
        }
        // The ranger's own files: read in source mode, every mistake in plain words, in one run.
        let document = JSONParser.parseSource(bytes, limits: JSONLimits(maxBytes: TourSource.maxJSONBytes))
        findings += document.duplicateKeys.map { $0.finding.inFile(rel) }
        findings += document.issues.map { $0.finding(file: rel) }
        return document.value
    }

    mutating func readTour(_ value: JSONValue) -> TourSource.TourFields? {
        var r = FieldReader()
        defer { findings += r.findings.map { $0.inFile(TourSource.tourFileName) } }
        guard let top = r.object(value, at: .root) else { return nil }
        r.rejectUnknown(
            top, at: .root,
            known: [
                "id", "version", "languages", "requireAllLanguages", "name", "park", "site", "mapName", "bounds",
                "description", "stages",
            ])
        let site = r.site(top)
        let bounds = r.bounds(top, required: false)
        let languages = r.languages(top, at: .root)
        var translations = Translations<TourTextField>()
        func text(_ field: TourTextField) -> String {
            let t = r.localizedText(top, field.rawValue, at: .root, languages: languages)
            for (tag, value) in t.translations { translations[tag, field] = value }
            return t.plain ?? ""
        }
        var stages: [TourRoute.StageSource] = []
        for (i, item) in (r.array(top, "stages", at: .root, required: false) ?? []).enumerated() {
            let path = JSONPath.root.member("stages").element(i)
            guard let m = r.object(item, at: path) else { continue }
            r.rejectUnknown(m, at: path, known: ["name", "from", "to"])
            if let name = r.string(m, "name", at: path), let from = r.string(m, "from", at: path),
                let to = r.string(m, "to", at: path)
            {
                stages.append(TourRoute.StageSource(name: name, from: from, to: to))
            }
        }
        return TourSource.TourFields(
            id: r.string(top, "id", at: .root) ?? "",
            version: r.string(top, "version", at: .root) ?? "",
            name: text(.name),
            park: text(.park),
            site: site,
            mapName: r.string(top, "mapName", at: .root) ?? "",
            bounds: bounds,
            description: text(.description),
            languages: languages,
            requireAllLanguages: r.flag(top, "requireAllLanguages", at: .root),
            translations: translations, stages: stages)
    }

    /// Reports every file of the folder that nothing lists: not in `used`, nor among the files of
    /// its stop (`waypoints/NAME/…`) or of the map (`map/…`), by name as the stop lists it. The
    /// names of one stop at a time are held, in the order the folder is walked (a stop's files together).
    mutating func unusedFiles(waypoints: [TourSource.WaypointSource], mapFiles: [TourSource.SourceFile]) {
        var stops: [String: Int] = [:]
        for (i, w) in waypoints.enumerated() { stops[w.folder] = i }
        var names: (folder: String, names: Set<String>)?
        func listed(in folder: String, _ name: String) -> Bool {
            if names?.folder != folder {
                let files: [TourSource.SourceFile]
                if folder == "map" {
                    files = mapFiles
                } else if let i = stops[folder] {
                    files = waypoints[i].assets
                } else {
                    files = []
                }
                names = (folder, Set(files.map(\.name)))
            }
            return names!.names.contains(name)
        }
        FileSystem.walk(root) { rel in
            if used.contains(rel) { return }
            // `map/NAME` is the map's; `waypoints/STOP/NAME`, a stop's.
            if let (top, rest) = Self.cutAtSlash(rel) {
                if top == "map", listed(in: "map", rest) { return }
                if top == "waypoints", let (stop, name) = Self.cutAtSlash(rest), listed(in: "waypoints/" + stop, name) {
                    return
                }
            }
            findings.append(
                Finding(
                    .sourceUnusedFile, file: rel,
                    "this file is not listed in any waypoint.json, so it will not be packaged; add it to a waypoint's \"assets\" or move it out of the tour folder"
                ))
        }
    }

    /// `path` cut at its first byte '/', the parts before and after; nil when it has none. (Cut at
    /// the Character '/', a name that begins with a combining mark would stay whole: the mark and
    /// the '/' before it are one Character.)
    static func cutAtSlash(_ path: String) -> (String, String)? {
        let bytes = path.utf8
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        return (
            String(decoding: bytes[..<slash], as: UTF8.self),
            String(decoding: bytes[bytes.index(after: slash)...], as: UTF8.self)
        )
    }

    mutating func readWaypoint(folder: String, folderName: String) -> TourSource.WaypointSource? {
        let jsonRel = folder + "/" + TourSource.waypointFileName
        used.insert(jsonRel)
        guard FileSystem.statInfo(root + "/" + jsonRel).kind == .file else {
            // An empty folder is most likely a stop begun and given up: deleting it is the fix too.
            // (A folder that cannot be listed is not said to be empty.)
            let empty =
                (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder))?.allSatisfy(
                    FileSystem.isIgnored) ?? false
            findings.append(
                Finding(
                    .sourceWaypointFileMissing, file: jsonRel,
                    empty
                        ? "the stop folder '\(folder)' is empty; delete it if it is not a stop, or give it a waypoint.json with name, coordinate, description and assets (see 'trailpack init' for an example)"
                        : "the waypoint folder has no waypoint.json; create one with name, coordinate, description and assets (see 'trailpack init' for an example)"
                ))
            return nil
        }
        guard let value = readJSON(jsonRel) else {
            // Its files are surely meant to be used: do not bury the real error under warnings.
            for rel in FileSystem.walk(root + "/" + folder) { used.insert(folder + "/" + rel) }
            return nil
        }
        var r = FieldReader()
        defer { findings += r.findings.map { $0.inFile(jsonRel) } }
        let languages = self.languages
        guard
            let w = r.waypoint(
                value, at: .root, form: .tourFolder, languages: languages,
                asset: { r, item, path in Self.assetReference(&r, item, path, languages: languages) })
        else { return nil }

        let (prefixOrder, slug) = Self.parseFolderName(folderName)
        let order = w.order.flatMap { Int(exactly: $0) } ?? prefixOrder
        if order == nil {
            findings.append(
                Finding(
                    .sourceFolderName, file: folder,
                    "cannot tell this stop's order: start the folder name with its number, such as '03-\(slug.isEmpty ? "fish-lake" : slug)', or set \"order\" in waypoint.json"
                ))
        }
        if slug.isEmpty {
            findings.append(
                Finding(
                    .sourceFolderName, file: folder,
                    "the folder name '\(folderName)' has no letters or digits after its number; name it like '03-fish-lake'"
                ))
        }
        var assets: [TourSource.SourceFile] = []
        assets.reserveCapacity(w.assets.count)  // not grown by doubling: 1.1 MB at 20,000 files
        var captionFiles: [(asset: Int, file: String, language: String?, path: JSONPath)] = []
        let folders = TourSource.SourceFile.Folders(
            real: realRootSlash, inTour: folder + "/", inPackage: "waypoints/\(slug)/")
        // (Not opened: the paths are looked up whole, as before.)
        openStop = w.assets.isEmpty ? nil : (try? FolderHandle.open(root + "/" + folder)).map { (folder, $0) }
        defer { openStop = nil }
        for ref in w.assets {
            if var file = resolveAsset(
                reference: ref.file, folders: folders, title: ref.title, findingFile: jsonRel)
            {
                // The texts together, set once: each text set alone makes a new box.
                var texts = file.fields
                texts.alt = ref.alt
                texts.transcript = ref.transcript
                texts.language = ref.language ?? Self.languageInName(ref.file, languages: languages)
                if texts.language == nil, ref.declaredLanguage == nil, !languages.isEmpty,
                    let tag = Self.undeclaredLanguageInName(ref.file)
                {
                    findings.append(
                        Finding(
                            .languageUndeclared, file: jsonRel, path: ref.path,
                            "the file name '\(ref.file)' carries '\(tag)' where a language goes, but the tour's languages are \(languages.joined(separator: ", ")): \(LanguageTag.advice(for: tag, declared: languages).replacingOccurrences(of: "write '", with: "rename it with '")); a file every language shares is named without it"
                        ))
                }
                texts.translations = ref.translations
                // Only when there are translations: an empty dictionary's mapValues still allocates
                // (96 bytes a file, 1.9 MB at 20,000).
                if !texts.translations.byLanguage.isEmpty {
                    texts.translations.byLanguage = texts.translations.byLanguage.mapValues {
                        $0.filter { $0.key != .captions }
                    }
                }
                file.fields = texts
                if let captions = ref.captions {
                    captionFiles.append((assets.count, captions, nil, ref.path.member("captions")))
                }
                for (tag, texts) in ref.translations.byLanguage {
                    if let captions = texts[.captions] {
                        captionFiles.append((assets.count, captions, tag, ref.path.member("captions").member(tag)))
                    }
                }
                assets.append(file)
            }
        }
        // Captions name a file of the same stop, which must be listed too (it is packaged beside the video).
        for (index, name, language, path) in captionFiles {
            if let target = assets.first(where: { $0.name == name }) {
                if let language {
                    assets[index].translations[language, .captions] = target.archivePath
                } else {
                    assets[index].captions = target.archivePath
                }
            } else {
                findings.append(
                    Finding(
                        .assetCaptions, file: jsonRel, path: path,
                        "the captions file '\(name)' is not one of this stop's assets; put the .vtt file in \(folder)/ and list it in \"assets\" too"
                    ))
            }
        }
        return TourSource.WaypointSource(
            folder: folder,
            name: w.name ?? "",
            slug: slug,
            order: order ?? 0,
            coordinate: w.coordinate ?? Coordinate(latitude: .nan, longitude: .nan),
            description: w.description ?? "",
            properties: w.properties,
            assets: assets,
            accessibilityWaiver: w.accessibilityWaiver,
            translations: w.translations)
    }

    /// A two- or three-letter part before a file name's extension that reads as a language tag but is
    /// not declared (`narration.sp.wav`): a likely typo of a language, or a language not yet declared.
    static func undeclaredLanguageInName(_ name: String) -> String? {
        guard let part = languagePart(name) else { return nil }
        let primary = part.split(separator: "-", omittingEmptySubsequences: false).first ?? ""
        guard (2...3).contains(primary.count), primary.allSatisfy({ $0.isASCII && $0.isLetter }),
            LanguageTag.isWellFormed(part)
        else { return nil }
        return part
    }

    /// The declared language a file's name carries as its last-but-one part (`narration.es.wav` → `es`),
    /// matched ignoring case; nil when there is none.
    static func languageInName(_ name: String, languages: [String]) -> String? {
        guard let tag = languagePart(name)?.lowercased() else { return nil }
        return languages.first { $0.lowercased() == tag }
    }

    /// The part of a file name where a language goes: the last-but-one of three or more dot-separated
    /// parts (`narration.es.wav` → `es`); nil for `view.png`.
    static func languagePart(_ name: String) -> String? {
        // Fewer than two dots cannot make three parts (nearly every name): no splitting.
        var dots = 0
        for byte in name.utf8 where byte == 0x2E { dots += 1 }
        guard dots >= 2 else { return nil }
        let parts = (name.split(separator: "/").last ?? "").split(separator: ".")
        return parts.count >= 3 ? String(parts[parts.count - 2]) : nil
    }

    /// An element of a `waypoint.json`'s `assets`: a file name, or `{ "file": ..., "title": ..., ... }`.
    struct AssetReference {
        var file: String
        var title: String?, alt: String?, transcript: String?, captions: String?
        /// Its `"language"`, matched to a declared one.
        var language: String? = nil
        /// Its `"language"` as written, declared or not (a name's tag is then not judged).
        var declaredLanguage: String? = nil
        /// Texts given per language (captions still as file names of the stop).
        var translations = Translations<AssetTextField>()
        /// Where the element is in `waypoint.json`.
        var path: JSONPath
    }

    /// The element at `path` of a `waypoint.json`'s `assets`; nil (and reported) when it names no file.
    static func assetReference(
        _ r: inout FieldReader, _ item: JSONValue, _ path: JSONPath, languages: [String]
    ) -> AssetReference? {
        switch item {
        case .string(let s):
            return AssetReference(file: s, path: path)
        case .object(let fields):
            r.rejectUnknown(fields, at: path, known: ["file", "language", "title", "alt", "transcript", "captions"])
            let file = r.string(fields, "file", at: path)
            var language: String?
            let written = r.string(fields, "language", at: path, required: false)
            if let tag = written {
                language = languages.first { $0.lowercased() == tag.lowercased() }
                if language == nil {
                    r.findings.append(
                        Finding(
                            .languageUndeclared, path: path.member("language"),
                            languages.isEmpty
                                ? "'\(tag)' is not declared: add \"languages\" to tour.json (the default language first)"
                                : "'\(tag)' is not one of the tour's languages (\(languages.joined(separator: ", "))): \(LanguageTag.advice(for: tag, declared: languages))"
                        ))
                }
            }
            var translations = Translations<AssetTextField>()
            func text(_ field: AssetTextField) -> String? {
                let t = r.localizedText(fields, field.rawValue, at: path, required: false, languages: languages)
                for (tag, value) in t.translations { translations[tag, field] = value }
                return t.plain
            }
            let title = text(.title)
            let alt = text(.alt)
            let transcript = text(.transcript)
            let captions = text(.captions)
            return file.map {
                AssetReference(
                    file: $0, title: title, alt: alt, transcript: transcript, captions: captions, language: language,
                    declaredLanguage: written, translations: translations, path: path)
            }
        default:
            r.wrongType(
                path, expected: "a file name in quotes, or { \"file\": ..., \"title\": ..., \"alt\": ... }", got: item)
            return nil
        }
    }

    /// `"03-Fish Lake"` → (3, `"fish-lake"`); `"fish-lake"` → (nil, `"fish-lake"`).
    static func parseFolderName(_ name: String) -> (Int?, String) {
        let digits = name.prefix(while: { $0.isASCII && $0.isNumber })
        var rest = Substring(name)
        var order: Int?
        if !digits.isEmpty, digits.count <= 7 {
            order = Int(digits)
            rest = name.dropFirst(digits.count)
        }
        return (order, Slug.make(from: String(rest)))
    }

    // MARK: assets

    /// Checks one asset reference; returns the file or records why it cannot be packaged.
    mutating func resolveAsset(
        reference: String, folders: TourSource.SourceFile.Folders, title: String?, findingFile: String
    ) -> TourSource.SourceFile? {
        // The stop's folder in the tour, without its last '/' (as messages and paths join it).
        let baseFolder = String(folders.inTour.dropLast())
        // ASCII (nearly every name) is its own NFC, without a trip through Foundation.
        let ascii = reference.utf8.allSatisfy { $0 < 0x80 }
        let normalized = ascii ? reference : reference.precomposedStringWithCanonicalMapping
        // Byte tests: Foundation's `contains` on strings is a search through NSString.
        let hasSlash = reference.utf8.contains(UInt8(ascii: "/"))
        // One check of the name: a name that leads out of the folder is said so; any other problem is the path's.
        let problems = ArchivePath.check(normalized)
        if problems.contains(where: \.leadsOutside) {
            findings.append(
                Finding(
                    .sourceAssetOutside, file: findingFile,
                    "asset '\(reference)' points outside the waypoint folder; copy the file into '\(baseFolder)/' and name it relative to that folder"
                ))
            return nil
        }
        if !problems.isEmpty {
            var hint = ""
            if reference.contains("\\") {
                // A Windows path: say which name to write, from what the stop folder really holds.
                let slashed = reference.replacingOccurrences(of: "\\", with: "/")
                let last = slashed.split(separator: "/").last.map(String.init) ?? slashed
                if FileManager.default.fileExists(atPath: root + "/" + baseFolder + "/" + slashed) {
                    hint = "; write '\(slashed)'"
                    // The file meant is named in this message: not "not listed in any waypoint.json" as well.
                    used.insert(Self.joined(baseFolder, "/", slashed))
                } else if FileManager.default.fileExists(atPath: root + "/" + baseFolder + "/" + last) {
                    hint =
                        "; the stop folder holds '\(last)': write just '\(last)' (names are relative to the stop folder)"
                    used.insert(Self.joined(baseFolder, "/", last))
                }
            }
            findings.append(
                Finding(
                    .assetPath, file: findingFile,
                    "asset name '\(reference)' cannot be used: \(problems.map(\.description).joined(separator: "; "))\(hint)"
                ))
            return nil
        }
        let rel = Self.joined(baseFolder, "/", reference)
        let path = root + "/" + rel
        // Listed, so never reported as unused: a file that resolves is found among its stop's files
        // then (`unusedFiles`); only one that fails is kept in `used`, as its findings say what it is.
        // (Every listed path kept was 12 MB of heap at 100,000 files, the load's peak.)
        var resolved = false
        defer { if !resolved { used.insert(rel) } }
        let linkInfo =
            !hasSlash && openStop?.folder == baseFolder
            ? FileSystem.lstatInfo(in: openStop!.handle, reference) : FileSystem.lstatInfo(path)
        if linkInfo.kind == .missing, hasSlash, FileSystem.lstatInfo(root + "/" + reference).kind != .missing {
            // Named from the tour folder ("waypoints/02-x/IMG.JPG") rather than from the stop's own.
            let fromStop =
                reference.hasPrefix(baseFolder + "/") ? String(reference.dropFirst(baseFolder.count + 1)) : nil
            findings.append(
                Finding(
                    .sourceAssetMissing, file: findingFile,
                    "asset '\(reference)' is named from the tour folder, but names in \(findingFile.hasSuffix(TourSource.waypointFileName) ? "waypoint.json" : "this file") are relative to the stop's own folder ('\(baseFolder)/')"
                        + (fromStop.map { "; write '\($0)'" }
                            ?? "; move the file into '\(baseFolder)/' and write its name alone")))
            return nil
        }
        if linkInfo.kind == .missing {
            findings.append(
                Finding(
                    .sourceAssetMissing, file: findingFile,
                    "asset '\(rel)' is listed but missing from the folder\(suggestion(for: reference, in: baseFolder))")
            )
            return nil
        }
        // Links are followed only while they stay inside the tour folder. A plain file named
        // directly in its folder needs only the folder's real path (resolved once per folder).
        let direct = linkInfo.kind == .file && !hasSlash
        guard let real = direct ? realFolder(baseFolder).map({ $0 + "/" + reference }) : FileSystem.realPath(path)
        else {
            findings.append(
                Finding(
                    .sourceAssetMissing, file: findingFile, "asset '\(rel)' is a link to a file that does not exist"))
            return nil
        }
        if !(real == realRoot || ArchivePath.isInside(real, folder: realRoot)) {
            findings.append(
                Finding(
                    .sourceAssetOutside, file: findingFile,
                    "asset '\(rel)' is a link to '\(real)', outside the tour folder; copy the file into the folder instead of linking it"
                ))
            return nil
        }
        // A plain file named in its own folder is what lstat saw; only a link needs a second look.
        let info = direct ? linkInfo : FileSystem.statInfo(real)
        guard info.kind == .file else {
            findings.append(
                Finding(
                    .sourceAssetNotFile, file: findingFile,
                    "asset '\(rel)' is \(info.kind == .directory ? "a folder" : "not a regular file"); list the files inside it instead"
                ))
            return nil
        }
        guard let type = MediaTypes.lookup(fileName: reference) else {
            findings.append(
                Finding(
                    .sourceAssetType, file: findingFile,
                    "asset '\(rel)' has a file type trailpack does not package; use one of: \(MediaTypes.supportedList)"
                ))
            return nil
        }
        guard FileSystem.isReadable(real, info) else {
            findings.append(
                Finding(
                    .sourceAssetUnreadable, file: findingFile, "asset '\(rel)' cannot be read; check its permissions"))
            return nil
        }
        if info.size == 0 {
            findings.append(
                Finding(
                    .sourceAssetEmpty, file: findingFile,
                    "asset '\(rel)' is empty (0 bytes); replace it with the real file"))
            return nil
        }
        if info.size > TourSource.maxAssetBytes {
            findings.append(
                Finding(
                    .sourceAssetTooLarge, file: findingFile,
                    "asset '\(rel)' is \(info.size) bytes; the limit is \(TourSource.maxAssetBytes)"))
            return nil
        }
        do throws(FileIOError) {
            // A file renamed must be renamed where it is listed too.
            if let problem = try ContentCheck.mismatch(
                path: real, fileName: reference, listedIn: PathText.lastComponent(findingFile))
            {
                findings.append(Finding(.sourceAssetContent, file: findingFile, "asset '\(rel)': \(problem)"))
                return nil
            }
        } catch {
            // The mode said it could be read, but opening it was refused (a file system that
            // decides for itself: NFS, FUSE, a security module).
            findings.append(
                Finding(
                    .sourceAssetUnreadable, file: findingFile, "asset '\(rel)' cannot be read; check its permissions"))
            return nil
        }
        // Inside the real root (checked above): what follows it is usually `rel` itself, and the
        // name needs no normalizing: the record then holds neither path, only the name.
        let under = real.utf8.dropFirst(realRootSlash.utf8.count)
        resolved = true
        return TourSource.SourceFile(
            folders: folders, name: reference,
            nameInPackage: normalized.utf8.elementsEqual(reference.utf8) ? nil : normalized,
            realPath: under.elementsEqual(rel.utf8) ? nil : real, type: type, size: info.size,
            modified: info.modified, title: title)
    }

    /// The parts one after the other, in a string of exactly their length. `+` leaves room to grow,
    /// and two are kept per file (its path in the tour and in the package): 18.9 MB of heap at
    /// 100,000 files, 15.8 MB so (heaptrack).
    static func joined(_ a: String, _ b: String, _ c: String = "") -> String {
        String(unsafeUninitializedCapacity: a.utf8.count + b.utf8.count + c.utf8.count) { buffer in
            var at = 0
            func put(_ part: String) {
                at += UnsafeMutableBufferPointer(rebasing: buffer[at...]).initialize(fromContentsOf: part.utf8)
            }
            put(a)
            put(b)
            put(c)
            return at
        }
    }

    /// The real path of a folder of the tour, links resolved; cached.
    mutating func realFolder(_ folder: String) -> String? {
        if let cached = realFolders[folder] { return cached }
        let real = FileSystem.realPath(root + "/" + folder)
        realFolders[folder] = real
        return real
    }

    /// "; did you mean 'Intro.mp4'?" for a near name in the same folder, or "".
    func suggestion(for reference: String, in folder: String) -> String {
        let candidates = FileSystem.walk(root + "/" + folder).filter { $0 != TourSource.waypointFileName }
        if let exact = candidates.first(where: { $0.lowercased() == reference.lowercased() }) {
            return "; did you mean '\(exact)'? (names must match upper and lower case exactly)"
        }
        if let near = Spelling.closest(to: reference, among: candidates) { return "; did you mean '\(near)'?" }
        return ""
    }
}
