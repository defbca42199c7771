/// The contents of `manifest.json`, format version 1: what a tour is.
///
/// `docs/FORMAT.md` is the specification; `manifests/manifest-v1.schema.json` is its JSON Schema.
public struct Manifest: Sendable, Equatable {
    /// The format version this trailpack writes and reads.
    public static let currentFormatVersion = 1
    /// The name of the manifest entry; always the first entry of a package.
    public static let entryName = "manifest.json"
    /// The largest `manifest.json`, in bytes (docs/FORMAT.md, "Limits"): room for the format's
    /// 100,000 assets (about 240 bytes each as the builder writes them). Readers hold it whole.
    public static let maxBytes = 32 << 20

    /// The manifest format version (1).
    public var formatVersion: Int
    /// A stable identifier for the tour, the same across its versions: `gov.usda.fs.willamette.santiam-wagon-road`.
    public var id: String
    /// The version of this package of the tour: 1 to 4 dot-separated whole numbers, compared numerically.
    public var version: String
    /// The package name shown to visitors.
    public var name: String
    /// The park or forest the tour belongs to.
    public var park: String
    /// The site (ranger district or other publisher) the tour is listed under.
    public var site: Site
    /// The name the apps give the offline map.
    public var mapName: String
    /// The area the offline map covers.
    public var bounds: Bounds
    /// The tour's description for visitors (Markdown).
    public var description: String
    /// The stops of the tour.
    public var waypoints: [Waypoint]
    /// Offline map files (tile archives), stored under `map/`.
    public var mapAssets: [Asset]
    /// The languages the tour is written in, as BCP 47 tags, the default first; empty for a tour in
    /// one unnamed language (format 1.1, `docs/FORMAT.md` section 3.2).
    public var languages: [String]
    /// Whether a missing translation is an error rather than a warning.
    public var requireAllLanguages: Bool
    /// The tour's name, park and description in the languages other than the default.
    public var translations: Translations<TourTextField>

    /// A manifest with these fields (the builder makes them; apps read them).
    public init(
        formatVersion: Int = Manifest.currentFormatVersion, id: String, version: String, name: String, park: String,
        site: Site, mapName: String, bounds: Bounds, description: String, waypoints: [Waypoint],
        mapAssets: [Asset] = [],
        languages: [String] = [], requireAllLanguages: Bool = false,
        translations: Translations<TourTextField> = Translations()
    ) {
        self.formatVersion = formatVersion
        self.id = id
        self.version = version
        self.name = name
        self.park = park
        self.site = site
        self.mapName = mapName
        self.bounds = bounds
        self.description = description
        self.waypoints = waypoints
        self.mapAssets = mapAssets
        self.languages = languages
        self.requireAllLanguages = requireAllLanguages
        self.translations = translations
    }

    /// Every asset, waypoint assets first (in waypoint order as listed), then map assets.
    public var allAssets: [Asset] { waypoints.flatMap(\.assets) + mapAssets }

    /// How many assets ``allAssets`` holds, counted without copying them.
    public var assetCount: Int { waypoints.reduce(mapAssets.count) { $0 + $1.assets.count } }

    /// The bytes of every asset, summed without copying them.
    public var assetBytes: Int64 {
        waypoints.reduce(mapAssets.reduce(0) { $0 + $1.size }) { total, w in w.assets.reduce(total) { $0 + $1.size } }
    }
}

/// A ranger district, park unit or other publisher under which tours are listed.
public struct Site: Sendable, Equatable, Hashable {
    /// Lowercase letters, digits and hyphens: `willamette-sweet-home`.
    public var id: String
    /// The site's name, for people.
    public var name: String
    /// A site with this id and name.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// One stop of a tour.
public struct Waypoint: Sendable, Equatable {
    /// Unique within the tour, also ignoring case and Unicode normalization.
    public var name: String
    /// The waypoint's folder in the package: `waypoints/<slug>/`.
    public var slug: String
    /// The position of the stop in the tour, from 1; unique.
    public var order: Int
    /// Where the stop is.
    public var coordinate: Coordinate
    /// The stop's description for visitors (Markdown).
    public var description: String
    /// The stop's files, in the order the manifest lists them.
    public var assets: [Asset]
    /// Free-form domain properties (elevation, difficulty, child age group...), in order.
    public var properties: [JSONMember]
    /// Why an accessibility text this stop's media should have (alt text, transcript, captions) is
    /// missing, in the publisher's words; shown to reviewers. Optional (format v1, since 0.4).
    public var accessibilityWaiver: String?
    /// The stop's name and description in the languages other than the default (format 1.1).
    public var translations: Translations<StopTextField>

    /// A waypoint with these fields.
    public init(
        name: String, slug: String, order: Int, coordinate: Coordinate, description: String, assets: [Asset],
        properties: [JSONMember] = [],
        accessibilityWaiver: String? = nil, translations: Translations<StopTextField> = Translations()
    ) {
        self.name = name
        self.slug = slug
        self.order = order
        self.coordinate = coordinate
        self.description = description
        self.assets = assets
        self.properties = properties
        self.accessibilityWaiver = accessibilityWaiver
        self.translations = translations
    }

    /// The folder that holds this waypoint's assets, with a trailing slash.
    public var folder: String { "waypoints/\(slug)/" }
}

/// One file of the package.
///
/// The five fields every asset has are stored inline; the ones most assets leave out (title, map,
/// alt text, transcript, captions, language, translations) live in one shared box that is nil when
/// none is given. An asset is 72 bytes instead of 208: a manifest of 100,000 assets held 14 MB less.
public struct Asset: Sendable, Equatable {
    /// The entry path inside the package.
    public var path: String
    /// What the file is for (audio, video, image, text, …).
    public var kind: AssetKind
    /// The IANA media type: `video/mp4`.
    public var mediaType: String
    /// The size in bytes, uncompressed.
    public var size: Int64
    /// The SHA-256 of the uncompressed bytes, as 64 lowercase hex digits.
    ///
    /// Held as its 32 bytes when it is 64 lowercase hex digits, as every builder writes it (a
    /// `String` of 64 digits is a 112-byte heap object: 11 MB at 100,000 assets). Any other text,
    /// which the verifier reports, is kept as given, in the box.
    public var sha256: String {
        get { box?.details.sha256Text ?? digest.hex }
        set {
            if let parsed = Bytes32(hex: newValue, uppercase: false) {
                digest = parsed
                if box?.details.sha256Text != nil { details.sha256Text = nil }
            } else {
                digest = Bytes32()
                details.sha256Text = newValue
            }
        }
    }
    /// The SHA-256's bytes, when `sha256` is 64 lowercase hex digits.
    private var digest = Bytes32()
    /// The SHA-256's 32 bytes when `sha256` is 64 lowercase hex digits (as builders write it), else nil.
    public var sha256Bytes: Bytes32? { box?.details.sha256Text == nil ? digest : nil }
    /// The optional fields, boxed; nil when none is given.
    private var box: DetailsBox?

    /// Whether the asset has any of the fields most leave out (a title, texts, a language, map
    /// fields, translations, or a `sha256` that is not 64 lowercase hex digits).
    var hasDetails: Bool { box != nil }

    /// The fields most assets leave out.
    private struct Details: Sendable, Equatable {
        /// The `sha256` text when it is not 64 lowercase hex digits.
        var sha256Text: String?
        var title: String?
        var map: MapInfo?
        var alt: String?
        var transcript: String?
        var captions: String?
        var language: String?
        var translations = Translations<AssetTextField>()
    }

    /// Immutable, so copies of an asset share it safely; a change makes a new one.
    private final class DetailsBox: Sendable {
        let details: Details
        init(_ details: Details) { self.details = details }
    }

    private var details: Details {
        get { box?.details ?? Details() }
        set { box = newValue == Details() ? nil : DetailsBox(newValue) }
    }

    /// An optional caption for the apps.
    public var title: String? {
        get { box?.details.title }
        set { details.title = newValue }
    }
    /// For a PMTiles map under `map/`: what the builder read from the file's header.
    public var map: MapInfo? {
        get { box?.details.map }
        set { details.map = newValue }
    }
    /// An image's text alternative: what it shows, for visitors who cannot see it (WCAG 1.1.1).
    public var alt: String? {
        get { box?.details.alt }
        set { details.alt = newValue }
    }
    /// An audio recording's (or a video's) transcript: what is said or heard (WCAG 1.2.1).
    public var transcript: String? {
        get { box?.details.transcript }
        set { details.transcript = newValue }
    }
    /// A video's captions: the package path of a `text/vtt` asset of the same waypoint (WCAG 1.2.2).
    public var captions: String? {
        get { box?.details.captions }
        set { details.captions = newValue }
    }
    /// The language the asset is in (a narration, a captions file, an image with words), one of the
    /// manifest's `languages`; nil for an asset every language shares (format 1.1).
    public var language: String? {
        get { box?.details.language }
        set { details.language = newValue }
    }
    /// The asset's texts in the languages other than the default; only on an asset without `language`.
    public var translations: Translations<AssetTextField> {
        get { box?.details.translations ?? Translations() }
        set { details.translations = newValue }
    }

    /// An asset with these fields (`map` only for a PMTiles map under `map/`).
    public init(
        path: String, kind: AssetKind, mediaType: String, size: Int64, sha256: String, title: String? = nil,
        map: MapInfo? = nil,
        alt: String? = nil, transcript: String? = nil, captions: String? = nil,
        language: String? = nil, translations: Translations<AssetTextField> = Translations()
    ) {
        let digest = Bytes32(hex: sha256, uppercase: false)
        self.init(
            path: path, kind: kind, mediaType: mediaType, size: size, sha256: digest ?? Bytes32(), title: title,
            map: map, alt: alt, transcript: transcript, captions: captions, language: language,
            translations: translations)
        // Not 64 lowercase hex digits: kept as given, for the validator to report.
        if digest == nil { details.sha256Text = sha256 }
    }

    /// An asset with these fields and the SHA-256 `sha256` (its bytes: what a builder holds,
    /// written out as hex and read back for every asset otherwise).
    public init(
        path: String, kind: AssetKind, mediaType: String, size: Int64, sha256: Bytes32, title: String? = nil,
        map: MapInfo? = nil,
        alt: String? = nil, transcript: String? = nil, captions: String? = nil,
        language: String? = nil, translations: Translations<AssetTextField> = Translations()
    ) {
        self.path = path
        self.kind = kind
        self.mediaType = mediaType
        self.size = size
        self.digest = sha256
        self.details = Details(
            title: title, map: map, alt: alt, transcript: transcript, captions: captions, language: language,
            translations: translations)
    }

    /// Whether two assets have the same fields (the boxed ones compared by value).
    public static func == (a: Asset, b: Asset) -> Bool {
        a.path == b.path && a.kind == b.kind && a.mediaType == b.mediaType && a.size == b.size && a.digest == b.digest
            && (a.box === b.box || a.details == b.details)
    }
}

/// What a PMTiles map asset holds, as the builder read it from the file's header (`docs/FORMAT.md`, "Maps").
public struct MapInfo: Sendable, Equatable {
    /// The one base map the apps open first, or an overlay drawn over it.
    public enum Role: String, Sendable, CaseIterable {
        case base, overlay
    }

    /// The tile formats phones render.
    public enum TileType: String, Sendable, CaseIterable {
        case mvt, png, jpeg, webp
    }

    /// Base map or overlay.
    public var role: Role
    /// The format of the tiles (from the PMTiles header).
    public var tileType: TileType
    /// The least detailed zoom the file holds.
    public var minZoom: Int
    /// The most detailed zoom the file holds.
    public var maxZoom: Int
    /// The area the file says it covers (its header's bounds).
    public var bounds: Bounds

    /// A map description with these fields.
    public init(role: Role, tileType: TileType, minZoom: Int, maxZoom: Int, bounds: Bounds) {
        self.role = role
        self.tileType = tileType
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.bounds = bounds
    }

    /// The highest zoom level the format allows.
    public static let maxZoomLevel = 30
    /// The folder whose PMTiles files are overlays; any other `map/*.pmtiles` is the base map.
    public static let overlayFolder = "map/overlays/"

    /// The role a map file at `path` has: overlays live under `map/overlays/`.
    public static func role(forPath path: String) -> Role { path.hasPrefix(overlayFolder) ? .overlay : .base }

    /// Whether `path` names a PMTiles file (by extension, ignoring case).
    public static func isPMTiles(_ path: String) -> Bool { path.lowercased().hasSuffix(".pmtiles") }
}

/// What an asset is, so that an app knows how to present it.
public enum AssetKind: String, Sendable, CaseIterable, Codable {
    case video, audio, image, text, tiles, other
}
