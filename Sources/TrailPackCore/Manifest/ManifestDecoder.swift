/// What decoding a manifest gave.
public struct ManifestDecoding: Sendable {
    /// The manifest, best effort; nil when the value is not an object of a known format version.
    public var manifest: Manifest?
    /// A finding for every missing, mistyped or unknown field.
    public var findings: [Finding]
    /// The paths of the fields found missing or mistyped, for ``ManifestValidator/validate(_:unreadable:)``.
    public var unreadable: Set<JSONPath>
    /// Whether the waypoints are those decoded one by one as the document was parsed.
    var usedStreamed = false
}

/// Turns parsed JSON into a `Manifest`, reporting every missing, mistyped or unknown field.
///
/// The result is best-effort: a field that cannot be read is left empty (and reported), so
/// that the verifier can still check a package's contents against a manifest with errors.
public enum ManifestDecoder {
    static let topFields = [
        "formatVersion", "id", "version", "languages", "requireAllLanguages", "name", "park", "site", "mapName",
        "bounds", "description", "translations", "waypoints", "mapAssets",
    ]
    static let assetFields = [
        "path", "kind", "mediaType", "size", "sha256", "title", "map", "alt", "transcript", "captions", "language",
        "translations",
    ]
    static let mapFields = ["role", "tileType", "minZoom", "maxZoom", "bounds"]

    /// Decodes a parsed `manifest.json` into a ``Manifest`` (best effort) and a finding for every
    /// missing, mistyped or unknown field.
    public static func decode(_ value: JSONValue) -> ManifestDecoding {
        decode(value, streamed: nil)
    }

    /// `decode(value)`, where `streamed` holds the waypoints (and what their reader found) already
    /// decoded one by one while the document was parsed: `value`'s first `waypoints` member is then
    /// the empty array the parser left in their place.
    static func decode(_ value: JSONValue, streamed: StreamedWaypoints?) -> ManifestDecoding {
        var r = FieldReader()
        func refused(_ finding: Finding) -> ManifestDecoding {
            ManifestDecoding(manifest: nil, findings: [finding], unreadable: [])
        }
        guard case .object(let top) = value else {
            return refused(
                Finding(
                    .manifestNotObject, path: .root,
                    "the manifest must be a JSON object ({ ... }), found \(value.typeDescription)"))
        }
        // The format version decides how to read everything else: check it first.
        switch top.first(where: { $0.key == "formatVersion" })?.value {
        case nil:
            return refused(
                Finding(
                    .manifestFormatVersion, path: JSONPath.root.member("formatVersion"),
                    "formatVersion is missing; this trailpack reads format version \(Manifest.currentFormatVersion)"))
        case .number(let n) where n.int64 == Int64(Manifest.currentFormatVersion):
            break
        case let other?:
            return refused(
                Finding(
                    .manifestFormatVersion, path: JSONPath.root.member("formatVersion"),
                    "format version \(other.displayText) is not supported; this trailpack reads format version \(Manifest.currentFormatVersion) (a newer package needs a newer trailpack)"
                ))
        }
        r.rejectUnknown(top, at: .root, known: topFields)

        let site = r.site(top)
        // Unreadable bounds are reported; the whole world stands in so that nothing else is judged twice.
        let bounds =
            r.bounds(top, required: true)
            ?? Bounds(
                southwest: Coordinate(latitude: -90, longitude: -180),
                northeast: Coordinate(latitude: 90, longitude: 180))

        var waypoints: [Waypoint] = []
        var usedStreamed = false
        if let streamed, case .array(let items)? = top.first(where: { $0.key == "waypoints" })?.value, items.isEmpty {
            waypoints = streamed.waypoints
            r.append(streamed.reader)
            usedStreamed = true
        } else {
            for (i, item) in (r.array(top, "waypoints", at: .root) ?? []).enumerated() {
                let path = JSONPath.root.member("waypoints").element(i)
                if let waypoint = decodeWaypoint(item, at: path, reader: &r) { waypoints.append(waypoint) }
            }
        }
        var mapAssets: [Asset] = []
        for (i, item) in (r.array(top, "mapAssets", at: .root, required: false) ?? []).enumerated() {
            if let asset = decodeAsset(item, at: JSONPath.root.member("mapAssets").element(i), reader: &r) {
                mapAssets.append(asset)
            }
        }

        let manifest = Manifest(
            formatVersion: Manifest.currentFormatVersion,
            id: r.string(top, "id", at: .root) ?? "",
            version: r.string(top, "version", at: .root) ?? "",
            name: r.string(top, "name", at: .root) ?? "",
            park: r.string(top, "park", at: .root) ?? "",
            site: site,
            mapName: r.string(top, "mapName", at: .root) ?? "",
            bounds: bounds,
            description: r.string(top, "description", at: .root) ?? "",
            waypoints: waypoints,
            mapAssets: mapAssets,
            languages: r.languages(top, at: .root),
            requireAllLanguages: r.flag(top, "requireAllLanguages", at: .root),
            translations: r.translations(top, at: .root))
        var decoding = ManifestDecoding(manifest: manifest, findings: r.findings, unreadable: r.unreadable)
        decoding.usedStreamed = usedStreamed
        return decoding
    }

    static func decodeWaypoint(_ value: JSONValue, at path: JSONPath, reader r: inout FieldReader) -> Waypoint? {
        guard
            let w = r.waypoint(
                value, at: path, form: .manifest, asset: { r, item, path in decodeAsset(item, at: path, reader: &r) })
        else { return nil }
        return Waypoint(
            name: w.name ?? "",
            slug: w.slug ?? "",
            order: w.order.flatMap { Int(exactly: $0) } ?? 0,
            coordinate: w.coordinate ?? Coordinate(latitude: .nan, longitude: .nan),
            description: w.description ?? "",
            assets: w.assets,
            properties: w.properties,
            accessibilityWaiver: w.accessibilityWaiver,
            translations: w.translations)
    }

    static func decodeAsset(_ value: JSONValue, at path: JSONPath, reader r: inout FieldReader) -> Asset? {
        guard let members = r.object(value, at: path) else { return nil }
        r.rejectUnknown(members, at: path, known: assetFields)
        let kindText = r.string(members, "kind", at: path)
        var kind = AssetKind.other
        if let kindText {
            if let k = AssetKind(rawValue: kindText) {
                kind = k
            } else {
                r.findings.append(
                    Finding(
                        .assetKind, path: path.member("kind"),
                        "asset kind '\(kindText)' is not one of \(AssetKind.allCases.map(\.rawValue).joined(separator: ", "))"
                    ))
            }
        }
        return Asset(
            path: r.string(members, "path", at: path) ?? "",
            kind: kind,
            mediaType: r.string(members, "mediaType", at: path) ?? "",
            size: r.integer(members, "size", at: path) ?? 0,
            sha256: r.string(members, "sha256", at: path) ?? "",
            title: r.string(members, "title", at: path, required: false),
            map: decodeMap(members.first(where: { $0.key == "map" })?.value, at: path.member("map"), reader: &r),
            alt: r.string(members, "alt", at: path, required: false),
            transcript: r.string(members, "transcript", at: path, required: false),
            captions: r.string(members, "captions", at: path, required: false),
            language: r.string(members, "language", at: path, required: false),
            translations: r.translations(members, at: path))
    }

    /// An asset's `map` object; nil when absent or unreadable (reported).
    static func decodeMap(_ value: JSONValue?, at path: JSONPath, reader r: inout FieldReader) -> MapInfo? {
        guard let value, let members = r.object(value, at: path) else { return nil }
        r.rejectUnknown(members, at: path, known: mapFields)
        let roleText = r.string(members, "role", at: path)
        let typeText = r.string(members, "tileType", at: path)
        let minZoom = r.integer(members, "minZoom", at: path)
        let maxZoom = r.integer(members, "maxZoom", at: path)
        let bounds = r.bounds(members, at: path)
        var ok = true
        let role = roleText.flatMap { MapInfo.Role(rawValue: $0) }
        if let roleText, role == nil {
            r.findings.append(
                Finding(.mapFields, path: path.member("role"), "map role '\(roleText)' is not 'base' or 'overlay'"))
            ok = false
        }
        let tileType = typeText.flatMap { MapInfo.TileType(rawValue: $0) }
        if let typeText, tileType == nil {
            r.findings.append(
                Finding(
                    .mapFields, path: path.member("tileType"),
                    "tile type '\(typeText)' is not one phones render: \(MapInfo.TileType.allCases.map(\.rawValue).joined(separator: ", "))"
                ))
            ok = false
        }
        for (key, zoom) in [("minZoom", minZoom), ("maxZoom", maxZoom)] {
            if let zoom, !(0...Int64(MapInfo.maxZoomLevel)).contains(zoom) {
                r.findings.append(
                    Finding(
                        .mapFields, path: path.member(key),
                        "\(key) \(zoom) must be a whole number from 0 to \(MapInfo.maxZoomLevel)"))
                ok = false
            }
        }
        guard ok, let role, let tileType, let minZoom, let maxZoom, let bounds else { return nil }
        return MapInfo(role: role, tileType: tileType, minZoom: Int(minZoom), maxZoom: Int(maxZoom), bounds: bounds)
    }
}

extension JSONValue {
    /// The value as it would appear in JSON, shortened, for messages.
    public var displayText: String {
        let text = JSONWriter.string(self, pretty: false)
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }
}
