import TrailPackCore

/// GeoJSON (RFC 7946) for a manifest.
enum GeoJSON {
    static func featureCollection(_ m: Manifest, route: Route? = nil) -> JSONValue {
        var features: [JSONValue] = [boundsFeature(m)]
        // The route's line as the package holds it, its numbers and stages as properties.
        if let route, case .object(let numbers) = RouteFile.properties(route) {
            features.append(
                .object([
                    "type": .string("Feature"),
                    "geometry": RouteFile.geometryValue(route),
                    "properties": .object(
                        [JSONMember("role", .string("route")), JSONMember("package", .string(m.id))]
                            + numbers.filter { $0.key != "stops" }),
                ]))
        }
        let along = Dictionary(
            (route?.summary.stops ?? []).map { ($0.slug, $0.distanceMetres) }, uniquingKeysWith: { a, _ in a })
        for w in m.waypoints.sorted(by: { $0.order < $1.order }) {
            var props: [JSONMember] = [
                JSONMember("name", .string(w.name)),
                JSONMember("order", .number(JSONNumber(Int64(w.order)))),
                JSONMember("description", .string(w.description)),
                JSONMember("assets", .number(JSONNumber(Int64(w.assets.count)))),
            ]
            if let metres = along[w.slug] {
                props.append(JSONMember("distanceAlongRouteMetres", .number(JSONNumber(metres))))
            }
            for p in w.properties where !props.contains(where: { $0.key == p.key }) { props.append(p) }
            features.append(
                .object([
                    "type": .string("Feature"),
                    "geometry": .object([
                        "type": .string("Point"),
                        "coordinates": position(w.coordinate.longitude, w.coordinate.latitude),
                    ]),
                    "properties": .object(props),
                ]))
        }
        return .object([
            "type": .string("FeatureCollection"),
            "features": .array(features),
        ])
    }

    static func position(_ lon: Double, _ lat: Double) -> JSONValue {
        .array([.number(JSONNumber(lon)), .number(JSONNumber(lat))])
    }

    static func ring(west: Double, south: Double, east: Double, north: Double) -> JSONValue {
        .array([
            .array([
                position(west, south), position(east, south), position(east, north), position(west, north),
                position(west, south),
            ])
        ])
    }

    /// The bounds as a Polygon, or a MultiPolygon split at the antimeridian (RFC 7946 §3.1.9).
    static func boundsFeature(_ m: Manifest) -> JSONValue {
        let b = m.bounds
        let geometry: JSONValue =
            b.crossesAntimeridian
            ? .object([
                "type": .string("MultiPolygon"),
                "coordinates": .array([
                    ring(
                        west: b.southwest.longitude, south: b.southwest.latitude, east: 180, north: b.northeast.latitude
                    ),
                    ring(
                        west: -180, south: b.southwest.latitude, east: b.northeast.longitude,
                        north: b.northeast.latitude),
                ]),
            ])
            : .object([
                "type": .string("Polygon"),
                "coordinates": ring(
                    west: b.southwest.longitude, south: b.southwest.latitude, east: b.northeast.longitude,
                    north: b.northeast.latitude),
            ])
        return .object([
            "type": .string("Feature"),
            "geometry": geometry,
            "properties": .object([
                "name": .string(m.mapName), "role": .string("bounds"), "package": .string(m.id),
                "version": .string(m.version),
            ]),
        ])
    }
}
