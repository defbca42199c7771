import Foundation

/// The rules of `docs/FORMAT.md` §3.3 that need the tour: the route's numbers against its
/// positions, the stops and stages against the waypoints, the route inside the bounds, and the
/// advice a ranger gets about stops far from the route or out of its order.
public enum RouteChecks {
    /// Beyond this distance from the route (or the stop's `radiusMetres`, if larger), a stop is
    /// reported as far from it.
    public static let farMetres = 200.0
    /// A gap between two lines longer than this is reported.
    public static let gapMetres = 50.0

    /// Whether a stated number agrees with the computed one: within 1 m plus 0.1 %.
    public static func agrees(_ stated: Double, _ computed: Double) -> Bool {
        abs(stated - computed) <= 1 + 0.001 * abs(computed)
    }

    /// The waypoints as the route lists them: by `order`, then by slug.
    public static func stops(of waypoints: [Waypoint]) -> [Waypoint] {
        waypoints.sorted { $0.order != $1.order ? $0.order < $1.order : $0.slug < $1.slug }
    }

    /// Every finding for `route` in a tour with these waypoints and bounds; findings name `file`.
    public static func check(
        _ route: Route, waypoints: [Waypoint], bounds: Bounds, file: String = Route.entryName
    )
        -> [Finding]
    {
        var f: [Finding] = []
        let properties = JSONPath.root.member("properties")
        func add(_ code: FindingCode, _ path: JSONPath?, _ message: String) {
            f.append(Finding(code, file: file, path: path, message))
        }
        func metres(_ x: Double) -> String { String(format: "%.1f m", x) }
        let ordered = stops(of: waypoints)
        let computed = RouteMath.summarize(route.lines, stops: ordered.map { ($0.slug, $0.coordinate) })
        let s = route.summary
        if !agrees(s.lengthMetres, computed.lengthMetres) {
            add(
                .routeMismatch, properties.member("lengthMetres"),
                "the route says it is \(metres(s.lengthMetres)) long, but its positions make \(metres(computed.lengthMetres)); build the package again (the route was edited after it was built)"
            )
        }
        for (key, stated, actual) in [
            ("ascentMetres", s.ascentMetres, computed.ascentMetres),
            ("descentMetres", s.descentMetres, computed.descentMetres),
        ] {
            switch (stated, actual) {
            case (let stated?, let actual?) where !agrees(stated, actual):
                add(
                    .routeMismatch, properties.member(key),
                    "the route says \(key) \(metres(stated)), but its elevations make \(metres(actual))")
            case (nil, .some):
                add(.routeFile, properties, "the route's positions have elevations, so it must state '\(key)'")
            case (.some, nil):
                add(
                    .routeFile, properties.member(key),
                    "the route's positions have no elevations, so '\(key)' must be left out")
            default: break
            }
        }

        // The stops: every waypoint once, in order.
        let slugs = ordered.map(\.slug)
        if s.stops.map(\.slug) != slugs {
            add(
                .routeStops, properties.member("stops"),
                "the route lists the stops \(s.stops.map(\.slug).joined(separator: ", ")), but the tour's stops are, in order, \(slugs.joined(separator: ", ")); build the package again"
            )
        } else {
            for (i, (stated, actual)) in zip(s.stops, computed.stops).enumerated() {
                if !agrees(stated.distanceMetres, actual.distanceMetres)
                    || !agrees(stated.offsetMetres, actual.offsetMetres)
                {
                    add(
                        .routeMismatch, properties.member("stops").element(i),
                        "stop \(i + 1) ('\(ordered[i].name)') is said to be \(metres(stated.distanceMetres)) along the route and \(metres(stated.offsetMetres)) from it, but the positions make \(metres(actual.distanceMetres)) and \(metres(actual.offsetMetres))"
                    )
                }
            }
        }

        // Stages: known stops, in order, not overlapping; their lengths.
        let index = Dictionary(slugs.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        var previousEnd = -1
        for (i, stage) in route.stages.enumerated() {
            let path = properties.member("stages").element(i)
            ManifestValidator.checkName(stage.name, path.member("name"), &f)
            guard let from = index[stage.from], let to = index[stage.to] else {
                let unknown = index[stage.from] == nil ? stage.from : stage.to
                add(
                    .routeStages, path,
                    "stage \(i + 1) ('\(stage.name)') names the stop '\(unknown)', which the tour does not have")
                continue
            }
            if to < from {
                add(
                    .routeStages, path,
                    "stage \(i + 1) ('\(stage.name)') ends at stop \(to + 1) before it starts at stop \(from + 1); swap 'from' and 'to'"
                )
            } else if from < previousEnd {
                add(
                    .routeStages, path,
                    "stage \(i + 1) ('\(stage.name)') starts at stop \(from + 1), before stage \(i) ends (stop \(previousEnd + 1)); stages follow each other without overlapping"
                )
            } else {
                let length = computed.stops[to].distanceMetres - computed.stops[from].distanceMetres
                if !agrees(stage.lengthMetres, length) {
                    add(
                        .routeMismatch, path.member("lengthMetres"),
                        "stage \(i + 1) ('\(stage.name)') is said to be \(metres(stage.lengthMetres)) long, but its stops are \(metres(length)) apart along the route"
                    )
                }
            }
            previousEnd = max(previousEnd, to)
        }

        // Where every position lies along the route, measured once for the frame and the gaps.
        let along = RouteMath.distances(route.lines)
        // Inside the bounds.
        if ManifestValidator.boundsAreValid(bounds) {
            outside: for (l, line) in route.lines.enumerated() {
                for (i, p) in line.enumerated() where !bounds.contains(p.coordinate) {
                    add(
                        .routeOutsideBounds, JSONPath.root.member("geometry").member("coordinates"),
                        "the route leaves the map bounds (\(bounds.frameDescription)) at km \(String(format: "%.1f", along[l][i] / 1000)) (longitude \(p.longitude), latitude \(p.latitude)); widen the bounds, or leave them out of tour.json and the build draws them around the route"
                    )
                    break outside
                }
            }
        }

        // Advice: stops far from the route or out of its order, gaps between lines. A stop without a
        // valid coordinate (reported where it is given) has no place on the route: it is neither far
        // nor out of order, and the next stop is compared with the one before it.
        var previous: (number: Int, name: String, distance: Double)?
        for (i, (w, stop)) in zip(ordered, computed.stops).enumerated() {
            var reported: [Finding] = []  // (the validator's own findings, where the coordinate is given)
            guard ManifestValidator.checkCoordinate(w.coordinate, .root, &reported) else { continue }
            let radius = w.properties.first(where: { $0.key == "radiusMetres" })?.value
            let limit: Double = {
                if case .number(let n)? = radius, let r = n.double, r > farMetres { return r }
                return farMetres
            }()
            if stop.offsetMetres > limit {
                add(
                    .routeStopFar, nil,
                    "stop \(i + 1) ('\(w.name)') is \(Int(stop.offsetMetres.rounded())) m from the route (more than \(Int(limit)) m); check its coordinate, or the route misses it"
                )
                // Its nearest point on the route says nothing of its order: not compared either way.
                continue
            }
            if let previous, stop.distanceMetres < previous.distance {
                add(
                    .routeStopOrder, nil,
                    "stop \(i + 1) ('\(w.name)') comes before stop \(previous.number) ('\(previous.name)') on the trail (km \(String(format: "%.1f", stop.distanceMetres / 1000)) against km \(String(format: "%.1f", previous.distance / 1000))); renumber the stops in walking order, or check the route's direction"
                )
            }
            previous = (i + 1, w.name, stop.distanceMetres)
        }
        for (l, line) in route.lines.enumerated() {
            guard l + 1 < route.lines.count, let end = line.last, let next = route.lines[l + 1].first else { continue }
            let gap = RouteMath.segmentLength(end, next)
            // A cut at the antimeridian is no gap: the lines meet at ±180.
            if gap > gapMetres {
                add(
                    .routeGap, nil,
                    "the route has a gap of \(Int(gap.rounded())) m at km \(String(format: "%.1f", (along[l].last ?? 0) / 1000)), between lines \(l + 1) and \(l + 2) (the GPS stopped recording, or two tracks do not meet); the gap is not counted in the length"
                )
            }
        }
        return f
    }
}
