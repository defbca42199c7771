/// The rules of manifest format version 1 that go beyond types: ranges, patterns,
/// uniqueness (also after case folding and Unicode normalization), bounds, paths and limits.
public enum ManifestValidator {
    /// Whether `key` may name a waypoint property: 1 to 64 ASCII letters, digits, `_` and `-`,
    /// starting with a letter.
    public static func isPropertyName(_ key: String) -> Bool {
        (1...64).contains(key.utf8.count)
            && key.utf8.first.map { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) } == true
            && key.utf8.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F
                    || $0 == 0x2D
            }
    }

    /// Limits on what one manifest may hold (documented in `docs/FORMAT.md`).
    public static let maxWaypoints = 10_000
    /// The most assets in one manifest.
    public static let maxAssets = 100_000
    /// The most properties on one waypoint.
    public static let maxProperties = 64
    /// The longest name, in characters.
    public static let maxNameLength = 200
    /// The longest description, in characters.
    public static let maxDescriptionLength = 20_000
    /// The largest whole number a manifest may hold (2^53, exact in every JSON reader).
    public static let maxSafeInteger: Int64 = 1 << 53

    /// Every finding for `manifest`.
    ///
    /// - Parameters:
    ///   - m: the decoded manifest.
    ///   - unreadable: JSON paths the decoder already reported as missing or mistyped;
    ///     their placeholder values are not judged again (one cause, one finding).
    public static func validate(_ m: Manifest, unreadable: Set<JSONPath> = []) -> [Finding] {
        validate(m, unreadable: unreadable, precheck: nil)
    }

    /// `validate(m, unreadable:)`, where `precheck` (when given) ran the rules on the stops' assets
    /// while the manifest was read, and `m`'s stops may hold only the assets the language rules read.
    static func validate(_ m: Manifest, unreadable: Set<JSONPath>, precheck: AssetPrecheck?) -> [Finding] {
        var f: [Finding] = []
        let top = JSONPath.root
        checkID(m.id, &f)
        if PackageVersion(m.version) == nil {
            f.append(
                Finding(
                    .manifestVersion, path: top.member("version"),
                    "version '\(m.version)' is not 1 to 4 dot-separated whole numbers without leading zeros, such as 1, 2.1 or 2024.5.1"
                ))
        }
        checkName(m.name, top.member("name"), &f)
        checkName(m.park, top.member("park"), &f)
        checkName(m.mapName, top.member("mapName"), &f)
        checkName(m.site.name, top.member("site").member("name"), &f)
        if !Slug.isValid(m.site.id) {
            f.append(
                Finding(
                    .siteID, path: top.member("site").member("id"),
                    "site id '\(m.site.id)' must be 1 to 64 lowercase letters, digits and single hyphens, such as 'willamette-sweet-home'"
                ))
        }
        checkDescription(m.description, top.member("description"), &f)
        checkBounds(m.bounds, &f)

        if m.waypoints.isEmpty {
            f.append(Finding(.waypointNone, path: top.member("waypoints"), "a tour needs at least one waypoint"))
        }
        if m.waypoints.count > maxWaypoints {
            f.append(
                Finding(
                    .waypointTooMany, path: top.member("waypoints"),
                    "\(m.waypoints.count) waypoints is more than the limit of \(maxWaypoints)"))
        }
        let assetCount = precheck.map { $0.assetCount + m.mapAssets.count } ?? m.assetCount
        if assetCount > maxAssets {
            f.append(
                Finding(
                    .assetTooMany, path: top.member("waypoints"),
                    "\(assetCount) assets is more than the limit of \(maxAssets)"))
        }

        var names: [String: Int] = [:], slugs: [String: Int] = [:], orders: [Int: Int] = [:]
        var paths = precheck?.mapPaths(m) ?? FoldedPaths(capacity: min(assetCount, maxAssets))
        // Stop assets are numbered from 0 in manifest order, then the map assets.
        var number = 0
        for (i, w) in m.waypoints.enumerated() {
            let p = top.member("waypoints").element(i)
            checkName(w.name, p.member("name"), &f)
            let nameKey = ArchivePath.foldingKey(w.name)
            if !w.name.isEmpty, let first = names[nameKey] {
                f.append(
                    Finding(
                        .waypointNameDuplicate, path: p.member("name"),
                        "waypoint name '\(w.name)' is already used by waypoints[\(first)] ('\(m.waypoints[first].name)'); names must differ also ignoring case"
                    ))
            } else {
                names[nameKey] = i
            }
            let slugOK = Slug.isValid(w.slug)
            if !slugOK {
                f.append(
                    Finding(
                        .waypointSlug, path: p.member("slug"),
                        "folder name '\(w.slug)' must be 1 to 64 lowercase letters, digits and single hyphens, such as 'fish-lake'"
                    ))
            } else if let first = slugs[w.slug] {
                f.append(
                    Finding(
                        .waypointSlugDuplicate, path: p.member("slug"),
                        "folder 'waypoints/\(w.slug)/' is already used by waypoints[\(first)]"))
            } else {
                slugs[w.slug] = i
            }
            if unreadable.contains(p.member("order")) {
                // reported by the decoder
            } else if !(1...1_000_000).contains(w.order) {
                f.append(
                    Finding(
                        .waypointOrder, path: p.member("order"),
                        "order \(w.order) must be a whole number from 1 to 1000000"))
            } else if let first = orders[w.order] {
                f.append(
                    Finding(
                        .waypointOrderDuplicate, path: p.member("order"),
                        "order \(w.order) is already used by waypoints[\(first)] ('\(m.waypoints[first].name)'); give each stop its own number"
                    ))
            } else {
                orders[w.order] = i
            }
            if checkCoordinate(w.coordinate, p.member("coordinate"), &f), !m.bounds.contains(w.coordinate),
                boundsAreValid(m.bounds)
            {
                f.append(
                    Finding(
                        .waypointOutsideBounds, path: p.member("coordinate"),
                        "waypoint '\(w.name)' at \(w.coordinate.latitude), \(w.coordinate.longitude) lies outside the map bounds (\(m.bounds.frameDescription)); widen the bounds or fix the coordinate"
                    ))
            }
            checkDescription(w.description, p.member("description"), &f)
            checkProperties(w.properties, p.member("properties"), &f)
            if let precheck {
                f += precheck.stopFindings[i] ?? []
            } else {
                checkStopAssets(w, p, number: &number, paths: &paths, &f)
            }
        }
        if let precheck { number = precheck.assetCount }
        for (j, a) in m.mapAssets.enumerated() {
            checkAsset(
                a, top.member("mapAssets").element(j), folder: "map/", number: number + j, paths: &paths, &f)
        }
        if let precheck {
            f += precheck.mapFieldFindings
        } else {
            for (i, w) in m.waypoints.enumerated() { checkStopMapFields(w, i, &f) }
        }
        checkMaps(m, &f)
        checkLanguages(m, keptAssets: precheck?.keptIndices, &f)
        return f.filter { !($0.jsonPath.map(unreadable.contains) ?? false) }
    }

    // MARK: rules

    static func checkID(_ id: String, _ f: inout [Finding]) {
        let ok =
            (3...128).contains(id.utf8.count)
            && id.split(separator: ".", omittingEmptySubsequences: false).allSatisfy {
                Slug.isValid(String($0), maxLength: 128)
            }
        if !ok {
            f.append(
                Finding(
                    .manifestID, path: JSONPath.root.member("id"),
                    "package id '\(id)' must be 3 to 128 characters of lowercase letters, digits, hyphens and dots, such as 'gov.usda.fs.willamette.santiam-wagon-road'; it never changes between versions"
                ))
        }
    }

    static func checkName(_ s: String, _ path: JSONPath, _ f: inout [Finding]) {
        if s.trimmingWhitespace.isEmpty {
            f.append(Finding(.manifestText, path: path, "'\(path)' is empty; write a name"))
        } else if s.count > maxNameLength {
            f.append(
                Finding(.manifestText, path: path, "'\(path)' is \(s.count) characters; the limit is \(maxNameLength)"))
        } else if s.unicodeScalars.contains(where: isControl) {
            f.append(
                Finding(
                    .manifestText, path: path,
                    "'\(path)' contains a line break or control character; keep names on one line"))
        }
    }

    static func checkDescription(_ s: String, _ path: JSONPath, _ f: inout [Finding]) {
        if s.trimmingWhitespace.isEmpty {
            f.append(Finding(.manifestText, path: path, "'\(path)' is empty; write a sentence or two for visitors"))
        } else if s.count > maxDescriptionLength {
            f.append(
                Finding(
                    .manifestText, path: path,
                    "'\(path)' is \(s.count) characters; the limit is \(maxDescriptionLength)"))
        } else if s.unicodeScalars.contains(where: { isControl($0) && $0 != "\n" && $0 != "\t" }) {
            f.append(
                Finding(
                    .manifestText, path: path, "'\(path)' contains a control character other than line break or tab"))
        }
    }

    static func isControl(_ u: Unicode.Scalar) -> Bool { u.value < 0x20 || (0x7F...0x9F).contains(u.value) }

    /// Reports range problems; returns whether the coordinate is usable.
    @discardableResult
    static func checkCoordinate(_ c: Coordinate, _ path: JSONPath, _ f: inout [Finding]) -> Bool {
        if c.latitude.isNaN || c.longitude.isNaN { return false }  // already reported as missing or mistyped
        var ok = true
        if !(-90...90).contains(c.latitude) {
            let hint =
                (-180...180).contains(c.latitude) && (-90...90).contains(c.longitude)
                ? "; are latitude and longitude swapped?" : ""
            f.append(
                Finding(
                    .coordinateLatitude, path: path.member("latitude"),
                    "latitude \(c.latitude) must be between -90 and 90 degrees\(hint)"))
            ok = false
        }
        if !(-180...180).contains(c.longitude) {
            f.append(
                Finding(
                    .coordinateLongitude, path: path.member("longitude"),
                    "longitude \(c.longitude) must be between -180 and 180 degrees"))
            ok = false
        }
        return ok
    }

    static func boundsAreValid(_ b: Bounds) -> Bool {
        (-90...90).contains(b.southwest.latitude) && (-90...90).contains(b.northeast.latitude)
            && (-180...180).contains(b.southwest.longitude) && (-180...180).contains(b.northeast.longitude)
            && b.southwest.latitude < b.northeast.latitude && b.southwest.longitude != b.northeast.longitude
    }

    static func checkBounds(_ b: Bounds, _ f: inout [Finding]) {
        let path = JSONPath.root.member("bounds")
        let a = checkCoordinate(b.southwest, path.member("southwest"), &f)
        let c = checkCoordinate(b.northeast, path.member("northeast"), &f)
        guard a, c else { return }
        if b.southwest.latitude > b.northeast.latitude {
            f.append(
                Finding(
                    .boundsInverted, path: path,
                    "the southwest corner (latitude \(b.southwest.latitude)) is north of the northeast corner (latitude \(b.northeast.latitude)); swap the two corners"
                ))
        } else if b.southwest.latitude == b.northeast.latitude || b.southwest.longitude == b.northeast.longitude {
            f.append(
                Finding(
                    .boundsDegenerate, path: path,
                    "the bounds have no area; the two corners must differ in both latitude and longitude"))
        }
    }

    static func checkProperties(_ properties: [JSONMember], _ path: JSONPath, _ f: inout [Finding]) {
        if properties.count > maxProperties {
            f.append(
                Finding(
                    .waypointProperty, path: path,
                    "\(properties.count) properties is more than the limit of \(maxProperties)"))
        }
        for member in properties {
            let p = path.member(member.key)
            if !Self.isPropertyName(member.key) {
                f.append(
                    Finding(
                        .waypointProperty, path: p,
                        "property name '\(member.key)' must start with a letter and hold only letters, digits, '_' and '-' (at most 64)"
                    ))
            }
            if !isPropertyValue(member.value, allowArray: true) {
                f.append(
                    Finding(
                        .waypointProperty, path: p,
                        "property '\(member.key)' must be a string (up to 1000 characters), a number, true, false, null or a list of those (up to 100)"
                    ))
            }
        }
    }

    static func isPropertyValue(_ v: JSONValue, allowArray: Bool) -> Bool {
        switch v {
        case .null, .bool, .number: true
        case .string(let s): s.count <= 1000
        case .array(let items):
            allowArray && items.count <= 100 && items.allSatisfy { isPropertyValue($0, allowArray: false) }
        case .object: false
        }
    }

    /// The rules on one stop's assets (`p` is the stop's path), numbered on from `number`: each
    /// asset's own, then the stop's accessibility.
    static func checkStopAssets(
        _ w: Waypoint, _ p: JSONPath, number: inout Int, paths: inout FoldedPaths, _ f: inout [Finding]
    ) {
        let folder = Slug.isValid(w.slug) ? w.folder : nil
        for (j, a) in w.assets.enumerated() {
            checkAsset(a, p.member("assets").element(j), folder: folder, number: number, paths: &paths, &f)
            number += 1
        }
        checkAccessibility(w, p, &f)
    }

    /// Only map assets (mapAssets, under map/) carry `map` fields: the stop numbered `i`'s assets that do.
    static func checkStopMapFields(_ w: Waypoint, _ i: Int, _ f: inout [Finding]) {
        for (j, a) in w.assets.enumerated() where a.map != nil {
            f.append(
                Finding(
                    .mapFields,
                    path: JSONPath.root.member("waypoints").element(i).member("assets").element(j).member("map"),
                    "only map assets (mapAssets, under map/) carry \"map\" fields; remove them from '\(a.path)'"))
        }
    }

    static func checkAsset(
        _ a: Asset, _ makePath: @autoclosure () -> JSONPath, folder: String?, number: Int, paths: inout FoldedPaths,
        _ f: inout [Finding]
    ) {
        // The asset's path is made only when something is said about it (nearly never).
        var path: JSONPath { makePath() }
        let problems = ArchivePath.problems(a.path)
        if !problems.isEmpty {
            f.append(
                Finding(
                    .assetPath, path: path.member("path"),
                    "path '\(a.path)' is unsafe: \(problems.joined(separator: "; "))"))
        } else if let folder, !ArchivePath.isInside(a.path, folder: folder) {
            f.append(
                Finding(.assetPathFolder, path: path.member("path"), "path '\(a.path)' must be inside '\(folder)'"))
        }
        if !a.path.isEmpty {
            if let first = paths.insert(a.path, number: number) {
                let how =
                    Array(first.utf8) == Array(a.path.utf8)
                    ? "is listed twice" : "collides with '\(first)' on case-insensitive phones"
                f.append(Finding(.assetPathDuplicate, path: path.member("path"), "path '\(a.path)' \(how)"))
            }
        }
        if !isMediaType(a.mediaType) {
            f.append(
                Finding(
                    .assetMediaType, path: path.member("mediaType"),
                    "media type '\(a.mediaType)' must look like 'type/subtype', such as 'video/mp4'"))
        }
        if a.size < 0 || a.size > maxSafeInteger {
            f.append(
                Finding(
                    .assetSize, path: path.member("size"),
                    "size \(a.size) must be a whole number of bytes from 0 to 2^53"))
        }
        // Held as its 32 bytes, it was 64 lowercase hex digits: only a text kept as given is read
        // (writing each asset's digest out as text to check it was a twentieth of a 100,000-entry verify).
        if a.sha256Bytes == nil && !isSHA256Hex(a.sha256) {
            f.append(
                Finding(
                    .assetSHA256, path: path.member("sha256"),
                    "sha256 '\(a.sha256.prefix(70))' must be exactly 64 hexadecimal digits"))
        }
        if let title = a.title { checkName(title, path.member("title"), &f) }
    }

    /// The longest alt text (and accessibility waiver), in characters.
    public static let maxAltLength = 1_000
    /// The longest transcript, in characters.
    public static let maxTranscriptLength = 100_000

    /// Alt texts, transcripts, captions and the waiver: well-formed where given, on the kind of media they
    /// belong to; a missing one (and no waiver) is a warning, so a reviewer sees it.
    static func checkAccessibility(_ w: Waypoint, _ p: JSONPath, _ f: inout [Finding]) {
        func text(_ value: String?, _ makePath: @autoclosure () -> JSONPath, limit: Int, multiline: Bool) {
            guard let value else { return }
            checkAccessibilityText(value, makePath(), limit: limit, multiline: multiline, &f)
        }
        text(w.accessibilityWaiver, p.member("accessibilityWaiver"), limit: maxAltLength, multiline: true)
        let waived = !(w.accessibilityWaiver ?? "").trimmingWhitespace.isEmpty
        for (j, a) in w.assets.enumerated() {
            // Made only when something is said about the asset (most have nothing to say here).
            var path: JSONPath { p.member("assets").element(j) }
            text(a.alt, path.member("alt"), limit: maxAltLength, multiline: false)
            text(a.transcript, path.member("transcript"), limit: maxTranscriptLength, multiline: true)
            checkAccessibilityKinds(a, in: w, at: path, &f)
            guard !waived else { continue }
            checkAccessibilityMissing(a, at: path, &f)
        }
    }

    /// An alt text, transcript or waiver: not blank, within `limit` characters, no control characters
    /// (line breaks and tabs allowed when `multiline`).
    static func checkAccessibilityText(
        _ value: String, _ path: JSONPath, limit: Int, multiline: Bool, _ f: inout [Finding]
    ) {
        if value.trimmingWhitespace.isEmpty {
            f.append(
                Finding(
                    .assetAccessibilityText, path: path,
                    "'\(path)' is empty; write the text, or leave the field out"))
        } else if value.count > limit {
            f.append(
                Finding(
                    .assetAccessibilityText, path: path,
                    "'\(path)' is \(value.count) characters; the limit is \(limit)"))
        } else if value.unicodeScalars.contains(where: {
            isControl($0) && !(multiline && ($0 == "\n" || $0 == "\t"))
        }) {
            f.append(
                Finding(
                    .assetAccessibilityText, path: path,
                    "'\(path)' contains a \(multiline ? "control character other than line break or tab" : "line break or control character")"
                ))
        }
    }

    /// Alt text on images, transcripts on recordings, captions on videos, naming a WebVTT asset of the stop.
    static func checkAccessibilityKinds(_ a: Asset, in w: Waypoint, at path: JSONPath, _ f: inout [Finding]) {
        if a.alt != nil, a.kind != .image {
            f.append(
                Finding(
                    .assetAccessibilityKind, path: path.member("alt"),
                    "'\(a.path)' is \(a.kind.rawValue), not an image: alt text belongs to images (a recording has a transcript, a video captions)"
                ))
        }
        if a.transcript != nil, a.kind != .audio, a.kind != .video {
            f.append(
                Finding(
                    .assetAccessibilityKind, path: path.member("transcript"),
                    "'\(a.path)' is \(a.kind.rawValue): a transcript belongs to a recording or a video"))
        }
        if let captions = a.captions {
            if a.kind != .video {
                f.append(
                    Finding(
                        .assetAccessibilityKind, path: path.member("captions"),
                        "'\(a.path)' is \(a.kind.rawValue), not a video: captions belong to videos"))
            } else if !w.assets.contains(where: { $0.path == captions && $0.mediaType == "text/vtt" }) {
                f.append(
                    Finding(
                        .assetCaptions, path: path.member("captions"),
                        "the captions '\(captions)' of '\(a.path)' are not a WebVTT (.vtt, text/vtt) file listed in this waypoint's assets; add the .vtt file to the stop and name it"
                    ))
            }
        }
    }

    /// A missing alt text, transcript or captions (severity `review`; the caller skips a waived stop).
    static func checkAccessibilityMissing(_ a: Asset, at path: JSONPath, _ f: inout [Finding]) {
        let missing: String? =
            switch a.kind {
            case .image where a.alt == nil:
                "the image '\(a.path)' has no alt text (\"alt\"): describe what it shows for visitors who cannot see it"
            case .audio where a.transcript == nil:
                "the recording '\(a.path)' has no transcript (\"transcript\"): write what is said or heard for visitors who cannot hear it"
            case .video where a.captions == nil:
                "the video '\(a.path)' has no captions (\"captions\": a .vtt file of the stop)"
            default: nil
            }
        if let missing {
            f.append(
                Finding(
                    .accessibilityMissing, path: path,
                    missing
                        + "; or, if it truly cannot be given, say why in the stop's \"accessibilityWaiver\" (reviewers see it)"
                ))
        }
    }

    /// The rules for PMTiles maps that a manifest alone can judge: `map` fields only on PMTiles
    /// map assets, consistent zooms and bounds, a role that matches the folder, one base map.
    /// (The stops' assets' `map` fields are ``checkStopMapFields(_:_:_:)``'s.)
    static func checkMaps(_ m: Manifest, _ f: inout [Finding]) {
        var bases: [String] = []
        for (j, a) in m.mapAssets.enumerated() {
            let path = JSONPath.root.member("mapAssets").element(j)
            guard MapInfo.isPMTiles(a.path) else {
                if a.map != nil {
                    f.append(
                        Finding(
                            .mapFields, path: path.member("map"),
                            "'\(a.path)' is not a PMTiles file; only .pmtiles maps carry \"map\" fields"))
                }
                continue
            }
            let role = MapInfo.role(forPath: a.path)
            if role == .base { bases.append(a.path) }
            guard let info = a.map else { continue }
            if info.minZoom > info.maxZoom {
                f.append(
                    Finding(
                        .mapFields, path: path.member("map"),
                        "minZoom \(info.minZoom) is above maxZoom \(info.maxZoom); swap them"))
            }
            if info.role != role {
                f.append(
                    Finding(
                        .mapFields, path: path.member("map").member("role"),
                        "'\(a.path)' has role '\(info.role.rawValue)' but its folder makes it \(role == .base ? "the base map" : "an overlay") (overlays live under \(MapInfo.overlayFolder))"
                    ))
            }
            var boundsFindings: [Finding] = []
            checkBounds(info.bounds, &boundsFindings)
            if !boundsFindings.isEmpty {
                f.append(
                    Finding(
                        .mapFields, path: path.member("map").member("bounds"),
                        "the map's bounds are not a valid box: \(boundsFindings[0].message)"))
            }
        }
        if bases.count > 1 {
            f.append(
                Finding(
                    .mapBaseMultiple, path: JSONPath.root.member("mapAssets"),
                    "the package has \(bases.count) base maps (\(bases.joined(separator: ", "))); keep one and move the others under \(MapInfo.overlayFolder)"
                ))
        }
    }

    /// `type/subtype` with RFC 6838 restricted-name characters.
    public static func isMediaType(_ s: String) -> Bool {
        // One pass: two parts around one '/', each 1 to 127 bytes, starting with a letter or digit.
        var slashes = 0, partLength = 0
        for b in s.utf8 {
            if b == 0x2F {
                guard slashes == 0, (1...127).contains(partLength) else { return false }
                slashes += 1
                partLength = 0
                continue
            }
            switch b {
            case _ where isAlnum(b): break
            case 0x21, 0x23, 0x24, 0x26, 0x2D, 0x5E, 0x5F, 0x2E, 0x2B:  // ! # $ & - ^ _ . +
                guard partLength > 0 else { return false }
            default: return false
            }
            partLength += 1
        }
        return slashes == 1 && (1...127).contains(partLength)
    }

    static func isAlnum(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }

    /// Exactly 64 hex digits, either case.
    public static func isSHA256Hex(_ s: String) -> Bool {
        s.utf8.count == 64
            && s.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) || ($0 >= 0x41 && $0 <= 0x46)
            }
    }
}

extension String {
    var trimmingWhitespace: Substring {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return s
    }
}

/// The asset paths seen so far, by folding key (`ArchivePath.foldingKey`): which earlier path, if
/// any, a path is the same as on a case-insensitive phone.
///
/// An open-addressed table of 8-byte slots, each the key's hash's high 32 bits and the number of
/// the first path with that key, at most four fifths full: 1 MB at 100,000 assets, where a
/// `[Int: Int32]` reserved for them took 3.2 (and a `[String: String]` of key and path, 12.6 at its
/// last growth). Keys whose hashes meet are compared in full, and the probe goes on past a
/// different key (`Hasher` is seeded afresh in every process, so which keys meet differs from run to run).
///
/// The earlier paths are kept here, or, when the caller can name a path by its number (the
/// verifier, whose directory holds every name already), asked for through ``name``: the table
/// then holds no strings at all (7.8 MB of paths at 100,000 assets that the verifier lets go).
struct FoldedPaths {
    /// 0 for an empty slot; else the hash's high 32 bits, then the path's number plus one.
    private var slots: [UInt64]
    /// The first paths, by number (when ``name`` is nil).
    private var firsts: [String] = []
    private var count = 0
    private let hash: (String) -> Int
    /// The path numbered `number` (as given to ``insert(_:number:)``); nil: the table keeps the paths itself.
    var name: ((Int) -> String)?

    /// Room for `capacity` paths (it grows past them); `hash` is the key's `hashValue` but for tests
    /// of colliding hashes; `name` names a path by its number, if the caller keeps the paths.
    init(capacity: Int, hash: @escaping (String) -> Int = { $0.hashValue }, name: ((Int) -> String)? = nil) {
        slots = [UInt64](repeating: 0, count: Self.slotCount(for: capacity))
        if name == nil { firsts.reserveCapacity(capacity) }
        self.hash = hash
        self.name = name
    }

    /// The smallest power of two at least five fourths of `count` (and 8).
    private static func slotCount(for count: Int) -> Int {
        var n = 8
        while n < count + count / 4 + 1 { n *= 2 }
        return n
    }

    /// The path a slot's number stands for.
    private func path(_ slot: UInt64) -> String {
        let number = Int(slot & 0xFFFF_FFFF) - 1
        return name?(number) ?? firsts[number]
    }

    /// The earlier path with the same folding key as `path`, or nil, and then `path` is remembered
    /// as the one numbered `number` (the caller's number; only read back through ``name``).
    mutating func insert(_ path: String, number: Int) -> String? {
        let key = ArchivePath.foldingKey(path)
        let h = UInt64(UInt(bitPattern: hash(key)))
        let tag = h >> 32
        let mask = slots.count - 1
        var at = Int(truncatingIfNeeded: h) & mask
        while slots[at] != 0 {
            let slot = slots[at]
            if slot >> 32 == tag {
                let first = self.path(slot)
                if ArchivePath.foldingKey(first) == key { return first }
            }
            at = (at + 1) & mask
        }
        let stored: Int
        if name == nil {
            stored = firsts.count
            firsts.append(path)
        } else {
            stored = number
        }
        guard stored >= 0, stored < Int(UInt32.max) - 1 else { return nil }
        slots[at] = tag << 32 | UInt64(stored + 1)
        count += 1
        if count + count / 4 >= slots.count { grow() }
        return nil
    }

    /// Twice the slots, every first path placed again (past the capacity asked for: not in a valid manifest).
    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for slot in old where slot != 0 {
            let h = UInt64(UInt(bitPattern: hash(ArchivePath.foldingKey(path(slot)))))
            var at = Int(truncatingIfNeeded: h) & mask
            while slots[at] != 0 { at = (at + 1) & mask }
            slots[at] = (h >> 32) << 32 | (slot & 0xFFFF_FFFF)
        }
    }
}
