import Foundation
import TrailPackCore

/// What changed between two versions of a tour package, for the reviewer who approves the new one:
/// stops added, removed, renamed, reordered and moved (with the distance), descriptions (a word
/// diff), properties, assets (by SHA-256, with sizes), the frame, the map, the package's size.
///
/// Built from the two manifests only (each read from its package through the verified reader);
/// the asset hashes in a manifest are the ones the verifier checks against the bytes.
///
/// **Which stop is which.** A stop keeps its identity across versions when, in this order: its
/// slug is the same; or its name is the same (then: the same but for case and how accents were
/// typed); or it lies within 25 m of an unmatched old stop; or
/// it shares an asset's SHA-256 with one. So a renamed stop is "renamed", not removed and added,
/// and a stop moved across the map with its photo is "moved".
public struct PackageDiff: Sendable, Equatable, Codable {
    /// A place, in decimal degrees.
    public struct Point: Sendable, Equatable, Codable {
        public var latitude: Double
        public var longitude: Double
        init(_ c: Coordinate) { (latitude, longitude) = (c.latitude, c.longitude) }
    }

    /// A map frame: its south-west and north-east corners.
    public struct Frame: Sendable, Equatable, Codable {
        public var southwest: Point
        public var northeast: Point
        init(_ b: Bounds) { (southwest, northeast) = (Point(b.southwest), Point(b.northeast)) }
    }

    /// One side of the comparison.
    public struct Side: Sendable, Equatable, Codable {
        public var id: String
        public var version: String
        public var sha256: String?
        public var size: Int64?
        public var stops: Int
    }

    /// A text field of the tour that changed.
    public struct FieldChange: Sendable, Equatable, Codable {
        public var field: String
        public var old: String
        public var new: String
        /// For long texts (descriptions): the words removed and added.
        public var words: WordDiff?
    }

    /// An asset that was added, removed or changed, by SHA-256.
    public struct AssetChange: Sendable, Equatable, Codable {
        public enum Kind: String, Sendable, Codable { case added, removed, changed, retitled }
        public var kind: Kind
        /// The file name inside the stop's folder (or the path, for maps).
        public var file: String
        public var oldSHA256: String?
        public var newSHA256: String?
        public var oldSize: Int64?
        public var newSize: Int64?
        public var oldTitle: String?
        public var newTitle: String?
        /// The language the file is in (format 1.1); nil for a file every language shares.
        public var language: String?
    }

    /// A property of a stop that was added, removed or changed (values as JSON text).
    public struct PropertyChange: Sendable, Equatable, Codable {
        public var key: String
        public var old: String?
        public var new: String?
    }

    /// What happened to one stop.
    public struct StopChange: Sendable, Equatable, Codable {
        public enum Kind: String, Sendable, Codable { case added, removed, changed }
        public var kind: Kind
        public var name: String
        /// The old name, when the stop was renamed.
        public var oldName: String?
        public var slug: String
        /// Positions in the tour, from 1.
        public var oldPosition: Int?
        public var newPosition: Int?
        public var oldCoordinate: Point?
        public var newCoordinate: Point?
        /// How far it moved, in metres (nil: not moved).
        public var movedMetres: Double?
        public var description: WordDiff?
        public var properties: [PropertyChange]
        public var assets: [AssetChange]
    }

    /// The declared languages, old and new, when they changed (format 1.1).
    public struct LanguageChange: Sendable, Equatable, Codable {
        public var old: [String]
        public var new: [String]
    }

    /// A text in a language other than the default that was added, changed or removed.
    public struct TranslationChange: Sendable, Equatable, Codable {
        /// The language (a declared tag).
        public var language: String
        /// The stop's name (in the default language); nil for the tour's own texts.
        public var stop: String?
        /// The stop's position in the new tour (in the old one for a removed stop).
        public var position: Int?
        /// `name`, `park`, `description`, `title`, `alt`, `transcript` or `captions`.
        public var field: String
        /// The file whose text it is (an asset's title, alt text, …), by name within its stop.
        public var file: String?
        public var old: String?
        public var new: String?
        /// Word by word, for descriptions and transcripts that were changed.
        public var words: WordDiff?
    }

    /// The route (format 1.2): added, removed or changed, with its lengths and how far it moved.
    public struct RouteChange: Sendable, Equatable, Codable {
        public enum Kind: String, Sendable, Codable { case added, removed, changed }
        public var kind: Kind
        public var oldLengthMetres: Double?
        public var newLengthMetres: Double?
        public var oldAscentMetres: Double?
        public var newAscentMetres: Double?
        /// The farthest the new line comes from the old one (sampled along the new line), in metres.
        public var movedMetres: Double?
        /// Where along the new route that is, in metres.
        public var movedAtMetres: Double?
        /// The stages' names, when they changed.
        public var oldStages: [String]?
        public var newStages: [String]?
    }

    public var old: Side?
    public var new: Side
    /// The route, when it was added, removed or changed.
    public var route: RouteChange?
    /// The declared languages, when they changed.
    public var languages: LanguageChange?
    /// Texts in other languages than the default that changed, grouped by language (declared order),
    /// then the tour's, then stop by stop in the new tour's order.
    public var translations: [TranslationChange] = []
    /// True when there is no older version to compare with.
    public var firstRelease: Bool
    public var tour: [FieldChange]
    /// The map frame, when it changed.
    public var oldFrame: Frame?
    public var newFrame: Frame?
    /// Stops added, removed or changed, in the new tour's order (removed ones last).
    public var stops: [StopChange]
    /// The stops' order (names) when it changed other than by additions and removals.
    public var oldOrder: [String]?
    public var newOrder: [String]?
    /// When the order changed: each kept stop whose place among the kept stops changed, with its
    /// number before and now (counted from 1, as the ranger numbers them), in the new order.
    public var moves: [Move]?

    /// A stop that changed places in a reorder.
    public struct Move: Sendable, Equatable, Codable {
        public var name: String
        public var slug: String
        public var oldPosition: Int
        public var newPosition: Int
    }
    /// Maps (`map/*.pmtiles`) added, removed or changed.
    public var maps: [AssetChange]
    /// Bytes more (or fewer) than the old package.
    public var sizeChange: Int64?

    /// Whether the two versions differ in anything the tour shows (the package's bytes may still
    /// differ: a rebuild at another time).
    public var hasChanges: Bool {
        firstRelease || !tour.isEmpty || oldFrame != nil || !stops.isEmpty || oldOrder != nil || !maps.isEmpty
            || languages != nil || !translations.isEmpty || route != nil
    }

    /// How the route changed from `old` to `new`; nil when it did not (or neither has one).
    public static func routeChange(old: Route?, new: Route?) -> RouteChange? {
        switch (old, new) {
        case (nil, nil): return nil
        case (nil, let new?):
            return RouteChange(
                kind: .added, newLengthMetres: new.summary.lengthMetres, newAscentMetres: new.summary.ascentMetres,
                newStages: new.stages.isEmpty ? nil : new.stages.map(\.name))
        case (let old?, nil):
            return RouteChange(
                kind: .removed, oldLengthMetres: old.summary.lengthMetres, oldAscentMetres: old.summary.ascentMetres,
                oldStages: old.stages.isEmpty ? nil : old.stages.map(\.name))
        case (let old?, let new?):
            guard old.lines != new.lines || old.stages != new.stages else { return nil }
            var change = RouteChange(
                kind: .changed, oldLengthMetres: old.summary.lengthMetres, newLengthMetres: new.summary.lengthMetres,
                oldAscentMetres: old.summary.ascentMetres, newAscentMetres: new.summary.ascentMetres)
            if old.stages != new.stages {
                change.oldStages = old.stages.map(\.name)
                change.newStages = new.stages.map(\.name)
            }
            if old.lines != new.lines {
                // The new line sampled at up to 500 places, each measured to the old line.
                let length = new.summary.lengthMetres
                let count = max(2, min(500, Int(length / 50)))
                let samples = (0..<count).compactMap { i -> (slug: String, coordinate: Coordinate)? in
                    let at = length * Double(i) / Double(count - 1)
                    return RouteMath.position(at: at, on: new.lines).map { ("\(at)", $0.coordinate) }
                }
                let measured = RouteMath.locate(samples, on: old.lines)
                if let far = zip(samples, measured).max(by: { $0.1.offsetMetres < $1.1.offsetMetres }),
                    far.1.offsetMetres >= moveThresholdMetres
                {
                    change.movedMetres = far.1.offsetMetres
                    change.movedAtMetres = Double(far.0.slug)
                }
            }
            return change
        }
    }

    /// A movement below this many metres is noise from re-typing a coordinate, not a move.
    public static let moveThresholdMetres = 1.0
    /// A stop within this many metres of an old one (and otherwise unmatched) is that stop.
    public static let sameStopMetres = 25.0

    /// The difference from `old` (nil: a first release) to `new`.
    public init(
        old: Manifest?, new: Manifest, oldPackage: (sha256: String, size: Int64)? = nil,
        newPackage: (sha256: String, size: Int64)? = nil, oldRoute: Route? = nil, newRoute: Route? = nil
    ) {
        self.new = Side(
            id: new.id, version: new.version, sha256: newPackage?.sha256, size: newPackage?.size,
            stops: new.waypoints.count)
        self.old = old.map {
            Side(
                id: $0.id, version: $0.version, sha256: oldPackage?.sha256, size: oldPackage?.size,
                stops: $0.waypoints.count)
        }
        firstRelease = old == nil
        tour = []
        stops = []
        maps = []
        if let oldSize = oldPackage?.size, let newSize = newPackage?.size { sizeChange = newSize - oldSize }
        guard let old else { return }
        route = Self.routeChange(old: oldRoute, new: newRoute)
        for (field, a, b) in [
            ("name", old.name, new.name), ("park", old.park, new.park), ("site", old.site.name, new.site.name),
            ("site id", old.site.id, new.site.id), ("map name", old.mapName, new.mapName),
        ] where a != b {
            tour.append(FieldChange(field: field, old: a, new: b, words: nil))
        }
        if old.description != new.description {
            tour.append(
                FieldChange(
                    field: "description", old: old.description, new: new.description,
                    words: WordDiff(old: old.description, new: new.description)))
        }
        if old.bounds != new.bounds {
            oldFrame = Frame(old.bounds)
            newFrame = Frame(new.bounds)
        }
        let pairs = Self.match(old.waypoints, new.waypoints)
        var matchedOld = Set<Int>()
        for (j, stop) in new.waypoints.enumerated() {
            guard let i = pairs[j] else {
                stops.append(
                    StopChange(
                        kind: .added, name: stop.name, slug: stop.slug, newPosition: j + 1,
                        newCoordinate: Point(stop.coordinate),
                        properties: [], assets: stop.assets.map { Self.added($0, in: stop) }))
                continue
            }
            matchedOld.insert(i)
            if let change = Self.compare(old.waypoints[i], at: i, stop, at: j) { stops.append(change) }
        }
        for (i, stop) in old.waypoints.enumerated() where !matchedOld.contains(i) {
            stops.append(
                StopChange(
                    kind: .removed, name: stop.name, slug: stop.slug, oldPosition: i + 1,
                    oldCoordinate: Point(stop.coordinate),
                    properties: [], assets: stop.assets.map { Self.removed($0, in: stop) }))
        }
        // Reordered: the kept stops' relative order differs.
        let keptNew = new.waypoints.indices.compactMap { j in pairs[j].map { (old: $0, new: j) } }
        let oldSequence = keptNew.sorted { $0.old < $1.old }.map(\.new), newSequence = keptNew.map(\.new)
        if oldSequence != newSequence {
            oldOrder = keptNew.sorted { $0.old < $1.old }.map { new.waypoints[$0.new].name }
            newOrder = keptNew.map { new.waypoints[$0.new].name }
            let oldRank = Dictionary(
                uniqueKeysWithValues: keptNew.sorted { $0.old < $1.old }.enumerated().map { ($1.new, $0) })
            moves = keptNew.enumerated().compactMap { rank, pair in
                guard oldRank[pair.new] != rank else { return nil }
                let stop = new.waypoints[pair.new]
                return Move(name: stop.name, slug: stop.slug, oldPosition: pair.old + 1, newPosition: pair.new + 1)
            }
        }
        // The route's file is said as the route (above), by what it shows.
        maps = Self.assetChanges(
            old.mapAssets.filter { $0.path != Route.entryName }, new.mapAssets.filter { $0.path != Route.entryName },
            key: \.path)
        if old.languages != new.languages { languages = LanguageChange(old: old.languages, new: new.languages) }
        translations = Self.translationChanges(old, new, pairs: pairs)
    }

    /// The changed texts of every language but the default, `pairs` matching the stops.
    static func translationChanges(_ old: Manifest, _ new: Manifest, pairs: [Int?]) -> [TranslationChange] {
        let tags = new.languages.dropFirst() + old.languages.dropFirst().filter { !new.languages.contains($0) }
        var out: [TranslationChange] = []
        for tag in tags {
            func compare<T: Translatable>(
                _ a: T?, _ b: T?, stop: String?, position: Int?, file: String? = nil
            ) {
                for field in T.Field.allCases {
                    let before = a?.translations[tag, field], after = b?.translations[tag, field]
                    guard before != after else { continue }
                    let long = field.rawValue == "description" || field.rawValue == "transcript"
                    out.append(
                        TranslationChange(
                            language: tag, stop: stop, position: position, field: field.rawValue, file: file,
                            old: before, new: after,
                            words: long && before != nil && after != nil
                                ? WordDiff(old: before ?? "", new: after ?? "") : nil))
                }
            }
            compare(old, new, stop: nil, position: nil)
            // Stops added or removed are listed as such, with everything in them: only kept stops here.
            for (j, b) in new.waypoints.enumerated() {
                guard let i = pairs[j] else { continue }
                let a = old.waypoints[i]
                compare(a, b, stop: b.name, position: j + 1)
                let before = Dictionary(
                    a.assets.map { (fileName($0.path), $0) }, uniquingKeysWith: { x, _ in x })
                for asset in b.assets {
                    compare(
                        before[fileName(asset.path)], asset, stop: b.name, position: j + 1, file: fileName(asset.path))
                }
            }
        }
        return out
    }

    // MARK: matching

    /// For each new stop, the index of the old stop it continues (nil: added).
    static func match(_ old: [Waypoint], _ new: [Waypoint]) -> [Int?] {
        var result = [Int?](repeating: nil, count: new.count)
        var free = Set(old.indices)
        func pass(_ same: (Waypoint, Waypoint) -> Bool) {
            for j in new.indices where result[j] == nil {
                if let i = old.indices.first(where: { free.contains($0) && same(old[$0], new[j]) }) {
                    result[j] = i
                    free.remove(i)
                }
            }
        }
        pass { $0.slug == $1.slug }
        pass { $0.name == $1.name }
        // "Fish lake" for "Fish Lake", or the same name typed with a decomposed accent.
        pass { Self.folded($0.name) == Self.folded($1.name) }
        pass { StrayStops.metres(from: $0.coordinate, to: $1.coordinate) <= sameStopMetres }
        pass { a, b in !Set(a.assets.map(\.sha256)).isDisjoint(with: b.assets.map(\.sha256)) }
        return result
    }

    /// A name as people see it: case, and the way an accent was typed, do not matter.
    static func folded(_ name: String) -> String { name.precomposedStringWithCanonicalMapping.lowercased() }

    static func compare(_ a: Waypoint, at i: Int, _ b: Waypoint, at j: Int) -> StopChange? {
        var change = StopChange(
            kind: .changed, name: b.name, slug: b.slug, oldPosition: i + 1, newPosition: j + 1, properties: [],
            assets: [])
        var any = false
        if a.name != b.name {
            change.oldName = a.name
            any = true
        }
        let metres = StrayStops.metres(from: a.coordinate, to: b.coordinate)
        if metres >= moveThresholdMetres {
            change.movedMetres = (metres * 10).rounded() / 10
            change.oldCoordinate = Point(a.coordinate)
            change.newCoordinate = Point(b.coordinate)
            any = true
        }
        if a.description != b.description {
            change.description = WordDiff(old: a.description, new: b.description)
            any = true
        }
        let oldProps = Dictionary(
            a.properties.map { ($0.key, JSONWriter.string($0.value, pretty: false)) },
            uniquingKeysWith: { first, _ in first })
        let newProps = Dictionary(
            b.properties.map { ($0.key, JSONWriter.string($0.value, pretty: false)) },
            uniquingKeysWith: { first, _ in first })
        for key in Set(oldProps.keys).union(newProps.keys).sorted() where oldProps[key] != newProps[key] {
            change.properties.append(PropertyChange(key: key, old: oldProps[key], new: newProps[key]))
        }
        change.assets = assetChanges(a.assets, b.assets) { fileName($0.path) }
        any = any || !change.properties.isEmpty || !change.assets.isEmpty
        return any ? change : nil
    }

    static func fileName(_ path: String) -> String { String(path.split(separator: "/").last ?? Substring(path)) }

    static func added(_ asset: Asset, in stop: Waypoint) -> AssetChange {
        AssetChange(
            kind: .added, file: fileName(asset.path), newSHA256: asset.sha256, newSize: asset.size,
            newTitle: asset.title, language: asset.language)
    }

    static func removed(_ asset: Asset, in stop: Waypoint) -> AssetChange {
        AssetChange(
            kind: .removed, file: fileName(asset.path), oldSHA256: asset.sha256, oldSize: asset.size,
            oldTitle: asset.title, language: asset.language)
    }

    /// Assets matched by `key` (the file name within a stop, or the path for maps).
    static func assetChanges(_ old: [Asset], _ new: [Asset], key: (Asset) -> String) -> [AssetChange] {
        var changes: [AssetChange] = []
        let oldByKey = Dictionary(old.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
        let newKeys = Set(new.map(key))
        for asset in new {
            let k = key(asset)
            guard let before = oldByKey[k] else {
                changes.append(
                    AssetChange(
                        kind: .added, file: k, newSHA256: asset.sha256, newSize: asset.size, newTitle: asset.title,
                        language: asset.language))
                continue
            }
            if before.sha256 != asset.sha256 {
                changes.append(
                    AssetChange(
                        kind: .changed, file: k, oldSHA256: before.sha256, newSHA256: asset.sha256,
                        oldSize: before.size, newSize: asset.size,
                        oldTitle: before.title, newTitle: asset.title, language: asset.language))
            } else if before.title != asset.title {
                changes.append(
                    AssetChange(
                        kind: .retitled, file: k, oldSHA256: before.sha256, newSHA256: asset.sha256,
                        oldSize: before.size, newSize: asset.size,
                        oldTitle: before.title, newTitle: asset.title, language: asset.language))
            }
        }
        for asset in old where !newKeys.contains(key(asset)) {
            changes.append(
                AssetChange(
                    kind: .removed, file: key(asset), oldSHA256: asset.sha256, oldSize: asset.size,
                    oldTitle: asset.title, language: asset.language))
        }
        return changes
    }
}
