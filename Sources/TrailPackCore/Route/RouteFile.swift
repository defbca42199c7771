/// The route file of a package, `map/route.geojson` (`docs/FORMAT.md` §3.3): read strictly,
/// written canonically.
public enum RouteFile {
    /// The limits its JSON is read within: the file's size, shallow nesting, short numbers.
    public static let limits = JSONLimits(
        maxBytes: Route.maxFileBytes, maxDepth: 8, maxNumberLength: 40, maxStringBytes: 4096)

    /// What reading a route file gave: the route (nil when its shape is wrong) and every finding,
    /// each naming `map/route.geojson` and the place in it.
    public struct Reading: Sendable {
        /// The route, when the file is one.
        public var route: Route?
        /// Every problem found, each naming `map/route.geojson` and the place in it.
        public var findings: [Finding]
    }

    /// Reads route-file bytes: strict JSON, then the shape of §3.3.
    public static func read(_ bytes: [UInt8]) -> Reading {
        // A hostile file of tiny positions (`[0,0],` is 6 bytes) would make a tree of millions of
        // values before the count is checked: the brackets and commas bound it first, in one pass.
        var brackets = 0, commas = 0
        for b in bytes {
            if b == 0x5B { brackets += 1 } else if b == 0x2C { commas += 1 }
        }
        if brackets > 2 * Route.maxPositions + 16
            || commas > 4 * Route.maxPositions + 4 * ManifestValidator.maxWaypoints + 64
        {
            return Reading(
                route: nil,
                findings: [
                    Finding(
                        .routeGeometry, file: Route.entryName, path: .root,
                        "the route file holds more than \(Route.maxPositions) positions (\(brackets) lists, \(commas) commas); the limit is \(Route.maxPositions)"
                    )
                ])
        }
        let document: JSONDocument
        do { document = try JSONParser.parse(bytes, limits: limits) } catch {
            return Reading(
                route: nil,
                findings: [
                    Finding(
                        .routeFile, file: Route.entryName, path: .root, "the route file is not valid JSON: \(error)")
                ])
        }
        var reading = decode(document.value)
        reading.findings = document.duplicateKeys.map { $0.finding.inFile(Route.entryName) } + reading.findings
        if !document.duplicateKeys.isEmpty { reading.route = nil }
        return reading
    }

    /// Decodes a parsed route file.
    public static func decode(_ value: JSONValue) -> Reading {
        var findings: [Finding] = []
        func fail(_ code: FindingCode, _ path: JSONPath, _ message: String) -> Reading {
            findings.append(Finding(code, file: Route.entryName, path: path, message))
            return Reading(route: nil, findings: findings)
        }
        func members(_ v: JSONValue?, _ path: JSONPath, known: [String], required: [String]) -> [JSONMember]? {
            guard case .object(let m)? = v else {
                findings.append(
                    Finding(
                        .routeFile, file: Route.entryName, path: path,
                        "'\(path)' must be an object, found \(v?.typeDescription ?? "nothing")"))
                return nil
            }
            var ok = true
            for member in m where !known.contains(member.key) {
                findings.append(
                    Finding(
                        .routeFile, file: Route.entryName, path: path.member(member.key),
                        "'\(member.key)' is not part of the route format (\(known.joined(separator: ", ")))"))
                ok = false
            }
            for key in required where !m.contains(where: { $0.key == key }) {
                findings.append(
                    Finding(.routeFile, file: Route.entryName, path: path, "'\(path)' has no '\(key)'"))
                ok = false
            }
            return ok ? m : nil
        }
        func field(_ m: [JSONMember], _ key: String) -> JSONValue? { m.first(where: { $0.key == key })?.value }
        func number(_ v: JSONValue?, _ path: JSONPath) -> Double? {
            guard case .number(let n)? = v, let d = n.double, d.isFinite else {
                findings.append(
                    Finding(
                        .routeFile, file: Route.entryName, path: path,
                        "'\(path)' must be a finite number, found \(v?.typeDescription ?? "nothing")"))
                return nil
            }
            return d
        }
        func string(_ v: JSONValue?, _ path: JSONPath) -> String? {
            guard case .string(let s)? = v else {
                findings.append(
                    Finding(
                        .routeFile, file: Route.entryName, path: path,
                        "'\(path)' must be a string, found \(v?.typeDescription ?? "nothing")"))
                return nil
            }
            return s
        }

        let root = JSONPath.root
        guard
            let top = members(
                value, root, known: ["type", "geometry", "properties"], required: ["type", "geometry", "properties"])
        else { return Reading(route: nil, findings: findings) }
        guard case .string("Feature")? = field(top, "type") else {
            return fail(
                .routeFile, root.member("type"), "the route file must be one GeoJSON Feature (\"type\": \"Feature\")")
        }
        let geometryPath = root.member("geometry")
        guard
            let geometry = members(
                field(top, "geometry"), geometryPath, known: ["type", "coordinates"], required: ["type", "coordinates"])
        else { return Reading(route: nil, findings: findings) }
        let lines: [[RoutePosition]]
        switch (field(geometry, "type"), field(geometry, "coordinates")) {
        case (.string("LineString")?, .array(let positions)?):
            guard let line = readLine(positions, geometryPath.member("coordinates"), &findings) else {
                return Reading(route: nil, findings: findings)
            }
            lines = [line]
        case (.string("MultiLineString")?, .array(let items)?):
            var out: [[RoutePosition]] = []
            for (i, item) in items.enumerated() {
                let path = geometryPath.member("coordinates").element(i)
                guard case .array(let positions) = item else {
                    return fail(.routeGeometry, path, "each line of a MultiLineString must be a list of positions")
                }
                guard let line = readLine(positions, path, &findings) else {
                    return Reading(route: nil, findings: findings)
                }
                out.append(line)
            }
            guard !out.isEmpty else {
                return fail(.routeGeometry, geometryPath.member("coordinates"), "the route has no line")
            }
            lines = out
        default:
            return fail(
                .routeGeometry, geometryPath,
                "the route's geometry must be a LineString or a MultiLineString whose coordinates are lists of positions"
            )
        }
        if let problem = geometryProblem(lines) {
            return fail(.routeGeometry, geometryPath.member("coordinates"), problem)
        }

        let propertiesPath = root.member("properties")
        guard
            let properties = members(
                field(top, "properties"), propertiesPath,
                known: ["lengthMetres", "ascentMetres", "descentMetres", "stops", "stages"],
                required: ["lengthMetres", "stops"])
        else { return Reading(route: nil, findings: findings) }
        let length = number(field(properties, "lengthMetres"), propertiesPath.member("lengthMetres"))
        let ascent = field(properties, "ascentMetres").flatMap { number($0, propertiesPath.member("ascentMetres")) }
        let descent = field(properties, "descentMetres").flatMap {
            number($0, propertiesPath.member("descentMetres"))
        }
        var stops: [RouteStop] = []
        if case .array(let items)? = field(properties, "stops") {
            for (i, item) in items.enumerated() {
                let path = propertiesPath.member("stops").element(i)
                guard
                    let m = members(
                        item, path, known: ["slug", "distanceMetres", "offsetMetres"],
                        required: ["slug", "distanceMetres", "offsetMetres"]),
                    let slug = string(field(m, "slug"), path.member("slug")),
                    let distance = number(field(m, "distanceMetres"), path.member("distanceMetres")),
                    let offset = number(field(m, "offsetMetres"), path.member("offsetMetres"))
                else { continue }
                stops.append(RouteStop(slug: slug, distanceMetres: distance, offsetMetres: offset))
            }
        } else {
            findings.append(
                Finding(
                    .routeFile, file: Route.entryName, path: propertiesPath.member("stops"),
                    "'stops' must be a list of the stops' places along the route"))
        }
        var stages: [RouteStage] = []
        if let v = field(properties, "stages") {
            if case .array(let items) = v, !items.isEmpty {
                for (i, item) in items.enumerated() {
                    let path = propertiesPath.member("stages").element(i)
                    guard
                        let m = members(
                            item, path, known: ["name", "from", "to", "lengthMetres"],
                            required: ["name", "from", "to", "lengthMetres"]),
                        let name = string(field(m, "name"), path.member("name")),
                        let from = string(field(m, "from"), path.member("from")),
                        let to = string(field(m, "to"), path.member("to")),
                        let length = number(field(m, "lengthMetres"), path.member("lengthMetres"))
                    else { continue }
                    stages.append(RouteStage(name: name, from: from, to: to, lengthMetres: length))
                }
            } else {
                findings.append(
                    Finding(
                        .routeFile, file: Route.entryName, path: propertiesPath.member("stages"),
                        "'stages' must be a list of at least one stage, or left out"))
            }
        }
        guard let length, !findings.hasErrors else { return Reading(route: nil, findings: findings) }
        return Reading(
            route: Route(
                lines: lines,
                summary: RouteSummary(lengthMetres: length, ascentMetres: ascent, descentMetres: descent, stops: stops),
                stages: stages),
            findings: findings)
    }

    /// One line's positions; nil (reported) when one is not a position.
    package static func readLine(
        _ items: [JSONValue], _ path: JSONPath, _ findings: inout [Finding]
    ) -> [RoutePosition]? {
        var line: [RoutePosition] = []
        line.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard case .array(let numbers) = item, numbers.count == 2 || numbers.count == 3 else {
                findings.append(
                    Finding(
                        .routeGeometry, file: Route.entryName, path: path.element(i),
                        "a position must be [longitude, latitude] or [longitude, latitude, elevation]"))
                return nil
            }
            var values: [Double] = []
            for n in numbers {
                guard case .number(let number) = n, let d = number.double, d.isFinite else {
                    findings.append(
                        Finding(
                            .routeGeometry, file: Route.entryName, path: path.element(i),
                            "a position holds \(n.displayText), not a finite number"))
                    return nil
                }
                values.append(d)
            }
            line.append(
                RoutePosition(longitude: values[0], latitude: values[1], elevation: values.count == 3 ? values[2] : nil)
            )
        }
        return line
    }

    /// What makes these lines no route (`route.geometry`), or nil: ranges, forms, counts, the
    /// antimeridian, a single point.
    public static func geometryProblem(_ lines: [[RoutePosition]], maxPositions: Int = Route.maxPositions) -> String? {
        let count = lines.reduce(0) { $0 + $1.count }
        if count > maxPositions {
            return "the route has \(count) positions; the limit is \(maxPositions): simplify it"
        }
        let withElevation = lines.first?.first?.elevation != nil
        for (l, line) in lines.enumerated() {
            let name = lines.count == 1 ? "the route" : "line \(l + 1) of the route"
            if line.count < 2 {
                return
                    "\(name) has \(line.count) position\(line.count == 1 ? "" : "s"); a line needs at least two (a route of one point is no route)"
            }
            for (i, p) in line.enumerated() {
                if !(-180...180).contains(p.longitude) || !(-90...90).contains(p.latitude) {
                    return
                        "position \(i + 1) of \(name) (\(p.longitude), \(p.latitude)) is outside longitude -180…180, latitude -90…90; GeoJSON writes longitude first"
                }
                if (p.elevation != nil) != withElevation {
                    return
                        "position \(i + 1) of \(name) \(withElevation ? "has no" : "has an") elevation, unlike the first; give every position an elevation or none"
                }
                if let e = p.elevation, !Route.elevationRange.contains(e) {
                    return "position \(i + 1) of \(name) has an elevation of \(e) m, outside -1000 to 10000"
                }
                if i > 0, abs(p.longitude - line[i - 1].longitude) > 180 {
                    return
                        "\(name) crosses the antimeridian between positions \(i) and \(i + 1); cut it there into two lines (RFC 7946 §3.1.9)"
                }
            }
        }
        if RouteMath.length(lines) == 0 {
            return "every position of the route is the same point; a route of one point is no route"
        }
        return nil
    }

    // MARK: writing

    /// The route file's bytes as the builder writes them: members in the order of §3.3, one
    /// position per line, numbers in their shortest exact form, a final newline.
    public static func bytes(_ route: Route) -> [UInt8] {
        var out = "{\"type\": \"Feature\", \"geometry\": {\"type\": \""
        out += route.lines.count == 1 ? "LineString" : "MultiLineString"
        out += "\", \"coordinates\": ["
        func positions(_ line: [RoutePosition]) {
            for (i, p) in line.enumerated() {
                out += i == 0 ? "\n[" : ",\n["
                out += JSONNumber(p.longitude).literal + "," + JSONNumber(p.latitude).literal
                if let e = p.elevation { out += "," + JSONNumber(e).literal }
                out += "]"
            }
        }
        if route.lines.count == 1 {
            positions(route.lines[0])
        } else {
            for (i, line) in route.lines.enumerated() {
                out += i == 0 ? "\n[" : "],\n["
                positions(line)
            }
            out += "]"
        }
        out += "\n]},\n\"properties\": "
        out += JSONWriter.string(propertiesValue(route), pretty: true)
        out += "}\n"
        return Array(out.utf8)
    }

    /// The `properties` object.
    static func propertiesValue(_ route: Route) -> JSONValue {
        let s = route.summary
        var members = [JSONMember("lengthMetres", .number(JSONNumber(s.lengthMetres)))]
        if let a = s.ascentMetres { members.append(JSONMember("ascentMetres", .number(JSONNumber(a)))) }
        if let d = s.descentMetres { members.append(JSONMember("descentMetres", .number(JSONNumber(d)))) }
        members.append(
            JSONMember(
                "stops",
                .array(
                    s.stops.map {
                        .object([
                            "slug": .string($0.slug), "distanceMetres": .number(JSONNumber($0.distanceMetres)),
                            "offsetMetres": .number(JSONNumber($0.offsetMetres)),
                        ])
                    })))
        if !route.stages.isEmpty {
            members.append(
                JSONMember(
                    "stages",
                    .array(
                        route.stages.map {
                            .object([
                                "name": .string($0.name), "from": .string($0.from), "to": .string($0.to),
                                "lengthMetres": .number(JSONNumber($0.lengthMetres)),
                            ])
                        })))
        }
        return .object(members)
    }

    /// The geometry as GeoJSON (for `inspect --geojson`).
    public static func geometryValue(_ route: Route) -> JSONValue {
        func position(_ p: RoutePosition) -> JSONValue {
            var a: [JSONValue] = [.number(JSONNumber(p.longitude)), .number(JSONNumber(p.latitude))]
            if let e = p.elevation { a.append(.number(JSONNumber(e))) }
            return .array(a)
        }
        if route.lines.count == 1 {
            return .object([
                "type": .string("LineString"), "coordinates": .array(route.lines[0].map(position)),
            ])
        }
        return .object([
            "type": .string("MultiLineString"),
            "coordinates": .array(route.lines.map { .array($0.map(position)) }),
        ])
    }

    /// The route's properties as GeoJSON (for `inspect --geojson`).
    public static func properties(_ route: Route) -> JSONValue { propertiesValue(route) }
}
