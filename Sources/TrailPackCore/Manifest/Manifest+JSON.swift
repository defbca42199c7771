extension Manifest {
    /// The manifest as JSON, members in the order `docs/FORMAT.md` gives.
    public var jsonValue: JSONValue {
        .object(
            members(
                waypoints: .array(waypoints.map { $0.jsonValue(languages: languages) }),
                mapAssets: mapAssets.isEmpty ? nil : .array(mapAssets.map { $0.jsonValue(languages: languages) })))
    }

    /// The manifest's members in order, with the two long lists given (`mapAssets` left out when nil).
    private func members(waypoints: JSONValue, mapAssets: JSONValue?) -> [JSONMember] {
        var members: [JSONMember] = [
            JSONMember("formatVersion", .number(JSONNumber(Int64(formatVersion)))),
            JSONMember("id", .string(id)),
            JSONMember("version", .string(version)),
        ]
        if !languages.isEmpty { members.append(JSONMember("languages", .array(languages.map { .string($0) }))) }
        if requireAllLanguages { members.append(JSONMember("requireAllLanguages", .bool(true))) }
        members += [
            JSONMember("name", .string(name)),
            JSONMember("park", .string(park)),
            JSONMember("site", .object(["id": .string(site.id), "name": .string(site.name)])),
            JSONMember("mapName", .string(mapName)),
            JSONMember("bounds", .object(["southwest": southwestJSON, "northeast": bounds.northeast.jsonValue])),
            JSONMember("description", .string(description)),
        ]
        if !translations.isEmpty { members.append(JSONMember("translations", translations.jsonValue(languages))) }
        members.append(JSONMember("waypoints", waypoints))
        if let mapAssets { members.append(JSONMember("mapAssets", mapAssets)) }
        return members
    }

    private var southwestJSON: JSONValue { bounds.southwest.jsonValue }

    /// The bytes of `manifest.json` as the builder writes them: `JSONWriter.bytes(jsonValue)`,
    /// written a waypoint at a time (the whole manifest as one tree took about twice the memory
    /// of its own bytes while it was written: 50 MB more for a tour of 100,000 files).
    public var canonicalBytes: [UInt8] {
        let assets = waypoints.reduce(mapAssets.count) { $0 + $1.assets.count }
        return JSONWriter.bytes(
            object: canonicalMembers, streamed: canonicalLists(stopAssets: nil), reserving: 4096 + assets * 256)
    }

    /// Writes ``canonicalBytes`` without holding them: to `sink` in pieces of about `piece` bytes
    /// (each valid until `sink` returns), returning their count. The builder writes the package's
    /// `manifest.json` so (at 100,000 assets the bytes are 25 MB).
    public func writeCanonical(piece: Int = 64 << 10, to sink: (UnsafeRawBufferPointer) -> Void) -> Int {
        JSONWriter.write(object: canonicalMembers, streamed: canonicalLists(stopAssets: nil), piece: piece, to: sink)
    }

    /// ``writeCanonical(piece:to:)`` for a manifest whose stops do not hold their assets:
    /// `stopAssets` gives the stop at each position's, made as its turn comes (the builder's, from
    /// its file records).
    public func writeCanonical(
        piece: Int = 64 << 10, stopAssets: @escaping (Int) -> [Asset], to sink: (UnsafeRawBufferPointer) -> Void
    ) -> Int {
        JSONWriter.write(
            object: canonicalMembers, streamed: canonicalLists(stopAssets: stopAssets), piece: piece, to: sink)
    }

    /// Every member, the two long lists empty: they are written from the model element by element.
    private var canonicalMembers: [JSONMember] {
        members(waypoints: .array([]), mapAssets: mapAssets.isEmpty ? nil : .array([]))
    }

    private func canonicalLists(
        stopAssets: ((Int) -> [Asset])?
    ) -> [String: (count: Int, element: (Int) -> JSONValue)] {
        [
            "waypoints": (
                waypoints.count,
                { i in
                    guard let stopAssets else { return waypoints[i].jsonValue(languages: languages) }
                    var stop = waypoints[i]
                    stop.assets = stopAssets(i)
                    return stop.jsonValue(languages: languages)
                }
            ),
            "mapAssets": (mapAssets.count, { mapAssets[$0].jsonValue(languages: languages) }),
        ]
    }
}

extension Coordinate {
    /// The coordinate as the manifest writes it.
    public var jsonValue: JSONValue {
        .object(["latitude": .number(JSONNumber(latitude)), "longitude": .number(JSONNumber(longitude))])
    }
}

extension Waypoint {
    /// The waypoint as the manifest writes it (translations' languages sorted).
    public var jsonValue: JSONValue { jsonValue(languages: []) }

    /// The waypoint as the manifest writes it, translations in the order of `languages`.
    public func jsonValue(languages: [String]) -> JSONValue {
        var members: [JSONMember] = [
            JSONMember("name", .string(name)),
            JSONMember("slug", .string(slug)),
            JSONMember("order", .number(JSONNumber(Int64(order)))),
            JSONMember("coordinate", coordinate.jsonValue),
            JSONMember("description", .string(description)),
        ]
        if !translations.isEmpty { members.append(JSONMember("translations", translations.jsonValue(languages))) }
        if !properties.isEmpty { members.append(JSONMember("properties", .object(properties))) }
        members.append(JSONMember("assets", .array(assets.map { $0.jsonValue(languages: languages) })))
        if let accessibilityWaiver { members.append(JSONMember("accessibilityWaiver", .string(accessibilityWaiver))) }
        return .object(members)
    }
}

extension Asset {
    /// The asset as the manifest writes it (translations' languages sorted).
    public var jsonValue: JSONValue { jsonValue(languages: []) }

    /// The asset as the manifest writes it, translations in the order of `languages`.
    public func jsonValue(languages: [String]) -> JSONValue {
        var members: [JSONMember] = [
            JSONMember("path", .string(path)),
            JSONMember("kind", .string(kind.rawValue)),
            JSONMember("mediaType", .string(mediaType)),
            JSONMember("size", .number(JSONNumber(size))),
            JSONMember("sha256", .string(sha256)),
        ]
        if let title { members.append(JSONMember("title", .string(title))) }
        if let map { members.append(JSONMember("map", map.jsonValue)) }
        if let alt { members.append(JSONMember("alt", .string(alt))) }
        if let transcript { members.append(JSONMember("transcript", .string(transcript))) }
        if let captions { members.append(JSONMember("captions", .string(captions))) }
        if let language { members.append(JSONMember("language", .string(language))) }
        if !translations.isEmpty { members.append(JSONMember("translations", translations.jsonValue(languages))) }
        return .object(members)
    }
}

extension MapInfo {
    /// The `map` object of an asset, as the manifest holds it.
    public var jsonValue: JSONValue {
        .object([
            JSONMember("role", .string(role.rawValue)),
            JSONMember("tileType", .string(tileType.rawValue)),
            JSONMember("minZoom", .number(JSONNumber(Int64(minZoom)))),
            JSONMember("maxZoom", .number(JSONNumber(Int64(maxZoom)))),
            JSONMember(
                "bounds", .object(["southwest": bounds.southwest.jsonValue, "northeast": bounds.northeast.jsonValue])),
        ])
    }
}

extension Translations {
    /// The translations as the manifest writes them: languages in the declared order (then sorted),
    /// fields in the format's order.
    public func jsonValue(_ declared: [String]) -> JSONValue {
        .object(
            languages(orderedBy: declared).map { language in
                let texts = byLanguage[language] ?? [:]
                return JSONMember(
                    language,
                    .object(Field.allCases.compactMap { f in texts[f].map { JSONMember(f.rawValue, .string($0)) } }))
            })
    }
}
