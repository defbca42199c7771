/// Stable identifiers for everything trailpack can find wrong with a tour, a manifest or a package.
///
/// The raw values are part of the format: reports, tests and servers match on them, and
/// `docs/FORMAT.md` lists every one (a test checks that it does). Never rename one; add new ones.
public enum FindingCode: String, Sendable, CaseIterable, Codable, Comparable {
    // JSON documents
    case jsonSyntax = "json.syntax"
    case jsonEncoding = "json.encoding"
    case jsonTooLarge = "json.too-large"
    case jsonTooDeep = "json.too-deep"
    case jsonNumber = "json.number"
    case jsonDuplicateKey = "json.duplicate-key"

    // Manifest fields
    case manifestNotObject = "manifest.not-object"
    case manifestFormatVersion = "manifest.format-version"
    case manifestMissingField = "manifest.missing-field"
    case manifestWrongType = "manifest.wrong-type"
    case manifestUnknownField = "manifest.unknown-field"
    case manifestText = "manifest.text"
    case manifestID = "manifest.id"
    case manifestVersion = "manifest.version"
    case siteID = "site.id"
    case coordinateLatitude = "coordinate.latitude"
    case coordinateLongitude = "coordinate.longitude"
    case boundsInverted = "bounds.inverted"
    case boundsDegenerate = "bounds.degenerate"
    case waypointNone = "waypoint.none"
    case waypointTooMany = "waypoint.too-many"
    case waypointNameDuplicate = "waypoint.name-duplicate"
    case waypointSlug = "waypoint.slug"
    case waypointSlugDuplicate = "waypoint.slug-duplicate"
    case waypointOrder = "waypoint.order"
    case waypointOrderDuplicate = "waypoint.order-duplicate"
    case waypointOutsideBounds = "waypoint.outside-bounds"
    case waypointStray = "waypoint.stray"
    case waypointProperty = "waypoint.property"
    case assetPath = "asset.path"
    case assetPathDuplicate = "asset.path-duplicate"
    case assetPathFolder = "asset.path-folder"
    case assetKind = "asset.kind"
    case assetMediaType = "asset.media-type"
    case assetSize = "asset.size"
    case assetSHA256 = "asset.sha256"
    case assetAccessibilityText = "asset.accessibility-text"
    case assetAccessibilityKind = "asset.accessibility-kind"
    case assetCaptions = "asset.captions"
    case accessibilityMissing = "accessibility.missing"
    case assetTooMany = "asset.too-many"

    // Tour source folders (the builder's input)
    case sourceTourMissing = "source.tour-missing"
    case sourceWaypointFileMissing = "source.waypoint-file-missing"
    case sourceFolderName = "source.folder-name"
    case sourceNoWaypoints = "source.no-waypoints"
    case sourceAssetMissing = "source.asset-missing"
    case sourceAssetOutside = "source.asset-outside"
    case sourceAssetUnreadable = "source.asset-unreadable"
    case sourceAssetEmpty = "source.asset-empty"
    case sourceAssetNotFile = "source.asset-not-file"
    case sourceAssetType = "source.asset-type"
    case sourceAssetTooLarge = "source.asset-too-large"
    case sourceUnusedFile = "source.unused-file"

    // The ranger's own files: spreadsheets, hand-edited JSON, template text, file contents
    case csvSyntax = "csv.syntax"
    case csvColumn = "csv.column"
    case csvValue = "csv.value"
    case csvMedia = "csv.media"
    case sourceJSONForgiven = "source.json-forgiven"
    case sourcePlaceholder = "source.placeholder"
    case sourceAssetContent = "source.asset-content"
    case sourceAssetLarge = "source.asset-large"
    case sourcePackageLarge = "source.package-large"

    // The whole package file
    case packageSHA256Mismatch = "package.sha256-mismatch"

    // ZIP structure
    case zipEOCDMissing = "zip.eocd-missing"
    case zipEOCDMultiple = "zip.eocd-multiple"
    case zipEOCDInvalid = "zip.eocd-invalid"
    case zipZip64Invalid = "zip.zip64-invalid"
    case zipCentralDirectory = "zip.central-directory"
    case zipPrefix = "zip.prefix"
    case zipTrailing = "zip.trailing"
    case zipGap = "zip.gap"
    case zipOverlap = "zip.overlap"
    case zipLocalHeader = "zip.local-header"
    case zipLocalMismatch = "zip.local-mismatch"
    case zipDescriptor = "zip.descriptor"
    case zipExtraField = "zip.extra-field"
    case zipNameDuplicate = "zip.name-duplicate"
    case zipNameFoldedDuplicate = "zip.name-folded-duplicate"
    case zipNameUnsafe = "zip.name-unsafe"
    case zipNameEncoding = "zip.name-encoding"
    case zipEntryType = "zip.entry-type"
    case zipEncrypted = "zip.encrypted"
    case zipMethod = "zip.method"
    case zipVersionNeeded = "zip.version-needed"
    case zipFlags = "zip.flags"
    case zipTooManyEntries = "zip.too-many-entries"
    case zipTooLarge = "zip.too-large"
    case zipSizeMismatch = "zip.size-mismatch"
    case zipCRC = "zip.crc"
    case zipDeflate = "zip.deflate"

    // The manifest inside a package
    case manifestMissing = "manifest.missing"
    case manifestNotFirst = "manifest.not-first"

    // Contents against the manifest
    case contentMissing = "content.missing"
    case contentSize = "content.size"
    case contentSHA256 = "content.sha256"
    case contentUnlisted = "content.unlisted"
    case assetTypeMismatch = "asset.type-mismatch"

    // Signatures and versions
    case signatureMissing = "signature.missing"
    case signatureMalformed = "signature.malformed"
    case signatureInvalid = "signature.invalid"
    case signatureUntrustedKey = "signature.untrusted-key"
    case signatureCommentMismatch = "signature.comment-mismatch"
    case signatureThreshold = "signature.threshold"
    case packageRollback = "package.rollback"

    // The server's checks of an upload
    case serverVerifierFailed = "server.verifier-failed"
    // Offline maps (PMTiles)
    case mapNone = "map.none"
    case mapBaseMultiple = "map.base-multiple"
    case mapFields = "map.fields"
    case mapStored = "map.stored"
    case mapMismatch = "map.mismatch"
    case mapHeader = "map.header"
    case mapCompression = "map.compression"
    case mapDirectory = "map.directory"
    case mapTileData = "map.tile-data"
    case mapMetadata = "map.metadata"
    case mapTileType = "map.tile-type"
    case mapBounds = "map.bounds"
    case mapMinDetail = "map.min-detail"
    case mapCoverage = "map.coverage"
    // Languages (format 1.1)
    case languageTag = "language.tag"
    case languageUndeclared = "language.undeclared"
    case languageDefaultMissing = "language.default-missing"
    case languageAssetTranslations = "language.asset-translations"
    case languageCaptions = "language.captions"
    case languageMissing = "language.missing"
    case languageRequired = "language.required"
    case languageMap = "language.map"
    // The route (format 1.2)
    case routeFile = "route.file"
    case routeGeometry = "route.geometry"
    case routeMismatch = "route.mismatch"
    case routeOutsideBounds = "route.outside-bounds"
    case routeStops = "route.stops"
    case routeStages = "route.stages"
    case routeStopFar = "route.stop-far"
    case routeStopOrder = "route.stop-order"
    case routeGap = "route.gap"

    /// Whether the finding makes the input invalid (`error`) or is advice (`warning`).
    public var severity: Finding.Severity {
        switch self {
        case .sourceUnusedFile, .sourceJSONForgiven, .sourcePlaceholder, .sourceAssetLarge, .sourcePackageLarge,
            .mapNone, .mapMinDetail, .waypointStray, .languageMissing, .routeStopFar, .routeStopOrder, .routeGap:
            .warning
        // Visitors who cannot see or hear get nothing: a reviewer is not asked until it is given or waived.
        case .accessibilityMissing: .review
        default: .error
        }
    }

    /// One line saying what the rule is, for `docs/FORMAT.md` and `--help`.
    public var rule: String {
        switch self {
        case .jsonSyntax: "the document is not valid JSON"
        case .jsonEncoding: "the document is not UTF-8 without BOM, or holds a lone surrogate"
        case .jsonTooLarge: "the document or one of its strings is larger than the limit"
        case .jsonTooDeep: "arrays and objects are nested deeper than the limit"
        case .jsonNumber: "a number is malformed, too long or out of range"
        case .jsonDuplicateKey: "an object has the same key twice"
        case .manifestNotObject: "the manifest is not a JSON object"
        case .manifestFormatVersion: "formatVersion is missing or not a version this trailpack reads"
        case .manifestMissingField: "a required field is missing"
        case .manifestWrongType: "a field has the wrong JSON type"
        case .manifestUnknownField: "a field is not part of the format"
        case .manifestText: "a text field is empty, too long, or holds control characters"
        case .manifestID: "the package id is not lowercase letters, digits, dots and hyphens"
        case .manifestVersion: "the version is not 1 to 4 dot-separated whole numbers"
        case .siteID: "the site id is not lowercase letters, digits and hyphens"
        case .coordinateLatitude: "a latitude is outside [-90, 90]"
        case .coordinateLongitude: "a longitude is outside [-180, 180]"
        case .boundsInverted: "the south edge of the bounds is north of the north edge"
        case .boundsDegenerate: "the bounds have no area"
        case .waypointNone: "the tour has no waypoints"
        case .waypointTooMany: "the tour has more waypoints than the limit"
        case .waypointNameDuplicate: "two waypoints have the same name (ignoring case and Unicode normalization)"
        case .waypointSlug: "a waypoint folder name is not lowercase letters, digits and hyphens"
        case .waypointSlugDuplicate: "two waypoints share a folder"
        case .waypointOrder: "a waypoint order is not a whole number from 1 to 1000000"
        case .waypointOrderDuplicate: "two waypoints have the same order"
        case .waypointOutsideBounds: "a waypoint lies outside the map bounds"
        case .waypointStray:
            "a stop is far from all the others (over 20 km and five times the typical distance): check its coordinate for a typo (warning)"
        case .waypointProperty: "a waypoint property has a bad name or value"
        case .assetPath: "an asset path is unsafe or not normalized"
        case .assetPathDuplicate: "two assets have the same path (ignoring case and Unicode normalization)"
        case .assetPathFolder: "an asset is not inside its waypoint's folder (or map/ for map assets)"
        case .assetKind: "an asset kind is not one of video, audio, image, text, tiles, other"
        case .assetMediaType: "an asset media type is not of the form type/subtype"
        case .assetSize: "an asset size is not a whole number of bytes from 0 to 2^53"
        case .assetSHA256: "an asset SHA-256 is not 64 hexadecimal digits"
        case .assetAccessibilityText:
            "an alt text, transcript or accessibility waiver is empty, too long, or holds control characters"
        case .assetAccessibilityKind:
            "alt text is given for something other than an image, a transcript for other than audio or video, or captions for other than a video"
        case .assetCaptions: "a video's captions do not name a WebVTT (text/vtt) asset of the same waypoint"
        case .accessibilityMissing:
            "an image has no alt text, a recording no transcript or a video no captions, and the stop gives no waiver (warning; WCAG 1.1.1, 1.2.1, 1.2.2)"
        case .assetTooMany: "the package lists more assets than the limit"
        case .sourceTourMissing: "the tour folder has no tour.json"
        case .sourceWaypointFileMissing: "a waypoint folder has no waypoint.json"
        case .sourceFolderName: "a waypoint folder name does not give an order and a folder name"
        case .sourceNoWaypoints: "the tour folder has no waypoints/ folder or it is empty"
        case .sourceAssetMissing: "an asset named in waypoint.json is not in the folder"
        case .sourceAssetOutside: "an asset path or link leads outside the waypoint folder, or a stop folder is a link"
        case .sourceAssetUnreadable: "an asset cannot be read"
        case .sourceAssetEmpty: "an asset file is empty"
        case .sourceAssetNotFile: "an asset is a folder or a special file"
        case .sourceAssetType: "an asset's file type is not supported"
        case .sourceAssetTooLarge: "an asset is larger than the limit"
        case .sourceUnusedFile: "a file in the tour folder is not used by any waypoint (warning)"
        case .csvSyntax: "a spreadsheet (CSV) file cannot be read: encoding, an unclosed quote, too many cells in a row"
        case .csvColumn: "a spreadsheet lacks a needed column (name, latitude, longitude) or names one twice"
        case .csvValue: "a spreadsheet cell holds a value that cannot be used (a coordinate, an order, an empty name)"
        case .csvMedia: "a photo, audio or video file named in a spreadsheet is missing or of the wrong kind"
        case .sourceJSONForgiven:
            "tour.json or waypoint.json has a byte-order mark or a trailing comma, accepted (warning)"
        case .sourcePlaceholder: "text from the template is still in the tour (warning; an error when signing)"
        case .sourceAssetContent: "an asset's content does not match its file type (checked by its first bytes)"
        case .sourceAssetLarge: "an asset is larger than the phones' budget for one file (warning)"
        case .sourcePackageLarge: "the assets together are larger than the phones' budget for a package (warning)"
        case .packageSHA256Mismatch: "the package's SHA-256 differs from the expected one"
        case .zipEOCDMissing: "there is no end-of-central-directory record"
        case .zipEOCDMultiple:
            "more than one end-of-central-directory record fits the file, or a second one lies before the last"
        case .zipEOCDInvalid: "the end-of-central-directory record is inconsistent (disks, counts)"
        case .zipZip64Invalid: "the ZIP64 records are missing or disagree with the end record"
        case .zipCentralDirectory: "the central directory is truncated, malformed or of the wrong size"
        case .zipPrefix: "there are bytes before the first entry"
        case .zipTrailing: "there are bytes after the end-of-central-directory record"
        case .zipGap: "there are bytes between entries that no entry accounts for"
        case .zipOverlap: "two entries overlap or share data"
        case .zipLocalHeader: "a local header is missing or malformed"
        case .zipLocalMismatch: "a local header disagrees with its central-directory entry"
        case .zipDescriptor: "a data descriptor is missing or disagrees with the central directory"
        case .zipExtraField: "an extra field is malformed or contradicts the header"
        case .zipNameDuplicate: "two entries have the same name"
        case .zipNameFoldedDuplicate: "two entry names differ only in case or Unicode normalization"
        case .zipNameUnsafe: "an entry name is unsafe (absolute, .., backslash, drive letter, control character)"
        case .zipNameEncoding: "an entry name is not valid UTF-8, or is non-ASCII without the UTF-8 flag"
        case .zipEntryType: "an entry is a link, a device, or a directory with data"
        case .zipEncrypted: "an entry is encrypted"
        case .zipMethod: "an entry uses a compression method other than store or deflate"
        case .zipVersionNeeded:
            "an entry's version needed to extract (central or local) is above 4.5, what store, deflate and ZIP64 need"
        case .zipFlags: "an entry sets a flag bit other than 1, 2 (deflate level), 3 (data descriptor) and 11 (UTF-8)"
        case .zipTooManyEntries: "the archive has more entries than the limit"
        case .zipTooLarge: "an entry or the archive uncompresses to more than the limit"
        case .zipSizeMismatch: "an entry decompresses to more or fewer bytes than declared"
        case .zipCRC: "an entry's CRC-32 does not match its data"
        case .zipDeflate: "an entry's deflate data is corrupt"
        case .manifestMissing: "the package has no manifest.json"
        case .manifestNotFirst: "manifest.json is not the first entry"
        case .contentMissing: "an asset listed in the manifest is not in the package"
        case .contentSize: "an asset's size differs from the manifest"
        case .contentSHA256: "an asset's SHA-256 differs from the manifest"
        case .contentUnlisted: "the package holds a file the manifest does not list"
        case .assetTypeMismatch:
            "an asset's kind or mediaType disagrees with its file extension, or its content (its first bytes) with either"
        case .signatureMissing: "trusted keys were given but the package has no signature"
        case .signatureMalformed: "a signature file is not a (prehashed) minisign signature"
        case .signatureInvalid: "a signature or its trusted comment does not match the package"
        case .signatureUntrustedKey: "a signature was made by a key that is not trusted"
        case .signatureCommentMismatch: "a signature's trusted comment names another package id, version or SHA-256"
        case .signatureThreshold: "fewer distinct trusted keys signed the package than required"
        case .packageRollback: "the package is older than the version already accepted"
        case .serverVerifierFailed:
            "the server's verifier crashed, hit a limit or timed out on the package; nothing was stored"
        case .mapNone: "the tour has no PMTiles map, so the apps will need a network to show one (warning)"
        case .mapBaseMultiple: "the package has more than one base map (map/*.pmtiles outside map/overlays/)"
        case .mapFields: "a map asset's \"map\" fields are malformed, or given for a file that is not a PMTiles map"
        case .mapStored: "a PMTiles map is deflated in the package; it must be stored so phones can read tiles in place"
        case .mapMismatch: "the manifest's map fields disagree with the PMTiles file's header"
        case .mapHeader:
            "the file is not a PMTiles version 3 archive, or its header is inconsistent (offsets, lengths, zooms, bounds)"
        case .mapCompression: "the map uses a compression phones cannot read (only none and gzip are allowed)"
        case .mapDirectory:
            "a PMTiles directory is truncated, corrupt, unsorted, too large, too deep, or its counts disagree with the header"
        case .mapTileData: "a tile lies outside the tile data section, is empty, or partly overlaps another tile"
        case .mapMetadata: "the PMTiles metadata is corrupt, too large, or not a JSON object"
        case .mapTileType: "the tile type is not one phones render (MVT, PNG, JPEG, WebP)"
        case .mapBounds: "the map's bounds do not contain the tour's map frame"
        case .mapMinDetail: "the map's most detailed zoom is below the minimum asked for (default 14) (warning)"
        case .mapCoverage: "tiles are missing inside the tour's map frame at a zoom the map declares"
        case .languageTag:
            "a declared language is not a well-formed BCP 47 tag, is declared twice, or there are more than 32"
        case .languageUndeclared:
            "a translation or an asset's language is not one the tour declares (or repeats the default language)"
        case .languageDefaultMissing: "a text is given in another language but not in the default language"
        case .languageAssetTranslations: "an asset in one language carries translations of its texts"
        case .languageCaptions: "a video's captions file is not in the language it is named for"
        case .languageMissing:
            "a text or recording of the default language has no translation in a declared language (warning)"
        case .languageMap: "a map asset is given a language (every visitor gets the tour's maps)"
        case .routeFile:
            "the route (route.gpx, route.geojson, or map/route.geojson in a package) cannot be read or is not the format's GeoJSON Feature"
        case .routeGeometry:
            "the route's line is malformed: a position out of range or not finite, fewer than two positions, mixed elevations, the antimeridian crossed, too many positions"
        case .routeMismatch:
            "a number the route states (length, ascent, descent, a stop's or a stage's) disagrees with its positions"
        case .routeOutsideBounds: "the route leaves the tour's map bounds"
        case .routeStops: "the route's list of stops does not name every waypoint once, in order"
        case .routeStages: "a stage names an unknown stop, ends before it starts, or overlaps the stage before it"
        case .routeStopFar: "a stop is far from the route (over 200 m, or its radiusMetres) (warning)"
        case .routeStopOrder: "a stop comes before the previous stop along the route (warning)"
        case .routeGap: "the route's lines leave a gap of more than 50 m between them (warning)"
        case .languageRequired:
            "a text or recording has no translation in a declared language, and the tour requires all languages"
        }
    }

    /// Orders codes by their text, for stable listings.
    public static func < (lhs: FindingCode, rhs: FindingCode) -> Bool { lhs.rawValue < rhs.rawValue }
}
