/// Where a stop's fields are written: each form has fields of its own.
package enum WaypointForm: Sendable {
    /// A waypoint of a package's `manifest.json`: its own slug and order; assets with sizes and hashes.
    case manifest
    /// A tour folder's `waypoint.json`: the folder gives the slug, and the order unless one is set;
    /// assets name the folder's files.
    case tourFolder

    /// The fields the form allows (in the order messages list them).
    var known: [String] {
        switch self {
        case .manifest:
            [
                "name", "slug", "order", "coordinate", "description", "translations", "properties", "assets",
                "accessibilityWaiver",
            ]
        case .tourFolder: ["name", "order", "coordinate", "description", "assets", "properties", "accessibilityWaiver"]
        }
    }
}

/// A stop's fields as ``FieldReader/waypoint(_:at:form:asset:)`` read them; a field that is missing
/// or of the wrong type is nil (and reported).
package struct WaypointFields<AssetItem> {
    package var name: String?
    /// Only a manifest's waypoint has one (a tour folder's stop takes its folder's).
    package var slug: String?
    package var order: Int64?
    package var coordinate: Coordinate?
    package var description: String?
    package var properties: [JSONMember]
    /// The assets `asset` could read, in order.
    package var assets: [AssetItem]
    package var accessibilityWaiver: String?
    /// The name and description in the other languages: a manifest's `translations`, or a tour
    /// folder's texts given per language.
    package var translations: Translations<StopTextField>
}

extension FieldReader {
    /// Reads the stop at `path` — a manifest's waypoint or a tour folder's `waypoint.json`, as `form`
    /// says — with a finding for every missing, mistyped or unknown field. Each element of its
    /// `assets` list goes to `asset` (with this reader and the element's path). Nil when the value
    /// is not an object.
    ///
    /// Fields are read, and findings made, in one order: unknown fields, coordinate, properties,
    /// assets, order, name, slug, description, accessibility waiver.
    package mutating func waypoint<AssetItem>(
        _ value: JSONValue, at path: JSONPath, form: WaypointForm, languages: [String] = [],
        asset: (inout FieldReader, JSONValue, JSONPath) -> AssetItem?
    ) -> WaypointFields<AssetItem>? {
        guard let members = object(value, at: path) else { return nil }
        rejectUnknown(members, at: path, known: form.known)
        let coordinate = coordinate(
            members.first(where: { $0.key == "coordinate" })?.value, at: path.member("coordinate"))
        var properties: [JSONMember] = []
        if let p = members.first(where: { $0.key == "properties" })?.value {
            properties = object(p, at: path.member("properties")) ?? []
        }
        let items = array(members, "assets", at: path) ?? []
        var assets: [AssetItem] = []
        assets.reserveCapacity(items.count)  // grown by doubling, a stop of 1,000 assets held 2,048 at its peak
        let assetsPath = path.member("assets")
        for (i, item) in items.enumerated() {
            if let a = asset(&self, item, assetsPath.element(i)) { assets.append(a) }
        }
        let order = integer(members, "order", at: path, required: form == .manifest)
        let name: String?
        let description: String?
        var translations = Translations<StopTextField>()
        let slug = form == .manifest ? string(members, "slug", at: path) : nil
        switch form {
        case .manifest:
            name = string(members, "name", at: path)
            description = string(members, "description", at: path)
            translations = self.translations(members, at: path)
        case .tourFolder:
            let n = localizedText(members, "name", at: path, languages: languages)
            let d = localizedText(members, "description", at: path, languages: languages)
            (name, description) = (n.plain, d.plain)
            for (tag, text) in n.translations { translations[tag, .name] = text }
            for (tag, text) in d.translations { translations[tag, .description] = text }
        }
        let waiver = string(members, "accessibilityWaiver", at: path, required: false)
        return WaypointFields(
            name: name, slug: slug, order: order, coordinate: coordinate, description: description,
            properties: properties, assets: assets, accessibilityWaiver: waiver, translations: translations)
    }
}
