import Foundation
import Testing
import TrailPackTestSupport

@testable import TrailPackCore

/// The route's arithmetic and its file (docs/FORMAT.md §3.3): lengths against PROJ's geodesics
/// (values printed by pyproj 3.7's `Geod(ellps="WGS84").inv`), where a stop lies along a route,
/// simplification, the antimeridian, and the strict reader fed broken structure.
@Suite("route: arithmetic and file", .ownThreads)
struct RouteTests {
    static func p(_ lon: Double, _ lat: Double, _ ele: Double? = nil) -> RoutePosition {
        RoutePosition(longitude: lon, latitude: lat, elevation: ele)
    }

    @Test(
        "geodesic distances agree with PROJ's to a millimetre",
        arguments: [
            (-122.7262, 44.3976, -121.705, 44.4056, 81356.39567449753),
            (144.42486788888888, -37.95103341666667, 143.92649552777777, -37.65282113888889, 54972.27113920079),
            (179.9, -16.7, -179.9, -16.75, 22034.071524305713),
            (0, 0, 0.00001, 0, 1.1131949079327357),
            (0, 89.9, 180, 89.9, 22338.795682520195),
        ])
    func geodesic(_ lon1: Double, _ lat1: Double, _ lon2: Double, _ lat2: Double, _ expected: Double) {
        let d = Geodesy.distance(latitude: lat1, longitude: lon1, latitude: lat2, longitude: lon2)
        #expect(abs(d - expected) < 0.001, "\(d) against \(expected)")
        #expect(Geodesy.distance(latitude: lat1, longitude: lon1, latitude: lat1, longitude: lon1) == 0)
    }

    @Test("antipodal points, where Vincenty does not converge, fall back to the great circle")
    func antipodal() {
        let d = Geodesy.distance(latitude: 0, longitude: 0, latitude: 0.5, longitude: 179.7)
        #expect(d.isFinite && d > 19_900_000 && d < 20_100_000)
    }

    @Test("length leaves out the gaps between lines; climbs only with every elevation")
    func lengthAndClimb() {
        let a = [Self.p(0, 0, 10), Self.p(0.001, 0, 15), Self.p(0.002, 0, 12)]
        let b = [Self.p(1, 0, 12), Self.p(1.001, 0, 20)]
        let one = RouteMath.length([a]), two = RouteMath.length([b])
        #expect(abs(RouteMath.length([a, b]) - (one + two)) < 1e-9)
        let climb = RouteMath.climb([a, b])
        #expect(climb?.ascent == 13 && climb?.descent == 3)
        #expect(RouteMath.climb([a, [Self.p(1, 0), Self.p(1.001, 0)]]) == nil)
    }

    @Test("a stop lies at the nearest point of the first pass at or after the previous stop (an out-and-back trail)")
    func stopsAlongOutAndBack() {
        // Out along the equator 2 km and back 1 m north.
        let out = (0...20).map { Self.p(Double($0) * 0.0009, 0) }
        let back = (0...20).reversed().map { Self.p(Double($0) * 0.0009, 0.00001) }
        let line = out + back
        let stops: [(slug: String, coordinate: Coordinate)] = [
            ("start", Coordinate(latitude: 0, longitude: 0)),
            ("turn", Coordinate(latitude: 0, longitude: 0.018)),
            // Near the middle: passed on the way out and again on the way back.
            ("middle", Coordinate(latitude: 0.000005, longitude: 0.009)),
        ]
        let located = RouteMath.locate(stops, on: [line])
        let outLength = RouteMath.length([out])
        #expect(located[0].distanceMetres == 0)
        #expect(abs(located[1].distanceMetres - outLength) < 1.5)
        // After the turn: the pass on the way back, not the first one.
        #expect(located[2].distanceMetres > outLength + 900 && located[2].distanceMetres < outLength + 1100)
        #expect(located[2].offsetMetres < 1)
        // The first stop alone: the first pass.
        let alone = RouteMath.locate([stops[2]], on: [line])
        #expect(abs(alone[0].distanceMetres - outLength / 2) < 2)
    }

    @Test("a pass is located at its nearest point, however densely the line is sampled")
    func densePass() {
        let line = (0...2000).map { Self.p(Double($0) * 0.00001, 0) }  // a point every 1.1 m
        let stop = Coordinate(latitude: 0.0001, longitude: 0.01)  // 11 m off, 1.1 km along
        let at = RouteMath.locate([("s", stop)], on: [line])[0]
        #expect(abs(at.distanceMetres - 1113.2) < 0.5, "\(at.distanceMetres)")
        #expect(abs(at.offsetMetres - 11.06) < 0.1)
    }

    @Test("Douglas–Peucker keeps the length within 0.5 %, halving the tolerance until it does")
    func simplification() {
        var state: UInt64 = 42
        func jitter() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) - 0.5
        }
        // A winding recording with GPS jitter of about ±3 m.
        let line = (0..<5000).map { i -> RoutePosition in
            let t = Double(i) / 5000
            return Self.p(
                -122 + t * 0.5 + 0.003 * sin(t * 60) + jitter() * 0.00006,
                44 + 0.002 * cos(t * 40) + jitter() * 0.00005,
                100 + 500 * t)
        }
        let recorded = RouteMath.length([line])
        let (simplified, tolerance) = RouteMath.simplified([line], tolerance: 5)
        #expect(RouteMath.length(simplified) >= recorded * 0.995)
        #expect(RouteMath.length(simplified) <= recorded + 1e-6)
        #expect(simplified[0].count < line.count && simplified[0].count > 10)
        #expect(tolerance > 0 && tolerance <= 5)
        #expect(simplified[0].first == line.first && simplified[0].last == line.last)
        // A straight line keeps only its ends.
        let straight = (0...100).map { Self.p(Double($0) * 0.001, 0) }
        #expect(RouteMath.simplified([straight], tolerance: 5).lines[0].count == 2)
    }

    @Test("a line across the antimeridian is cut there, at the crossing's latitude and elevation")
    func antimeridianCut() {
        let line = [Self.p(179.9, -16.7, 10), Self.p(-179.9, -16.8, 30), Self.p(-179.8, -16.8, 30)]
        let cut = RouteMath.cutAtAntimeridian([line])
        #expect(cut.count == 2)
        #expect(cut[0].last?.longitude == 180 && cut[1].first?.longitude == -180)
        #expect(abs((cut[0].last?.latitude ?? 0) + 16.75) < 1e-9)
        #expect(cut[0].last?.elevation == 20)
        #expect(RouteFile.geometryProblem(cut) == nil)
        #expect(RouteFile.geometryProblem([line])?.contains("antimeridian") == true)
        #expect(abs(RouteMath.length(cut) - RouteMath.length([line])) < 0.01)
    }

    static func santiamLike() -> Route {
        let lines = [
            [Self.p(-122.7262, 44.3976, 165), Self.p(-122.481, 44.3979, 260), Self.p(-122.3587, 44.3947, 420)]
        ]
        let stops: [(slug: String, coordinate: Coordinate)] = [
            ("sweet-home", Coordinate(latitude: 44.3976, longitude: -122.7262)),
            ("cascadia", Coordinate(latitude: 44.3979, longitude: -122.481)),
        ]
        return Route(
            lines: lines, summary: RouteMath.summarize(lines, stops: stops),
            stages: [RouteStage(name: "Day 1", from: "sweet-home", to: "cascadia", lengthMetres: 19_535)])
    }

    @Test("the route file is written and read back to the same route")
    func roundTrip() throws {
        var route = Self.santiamLike()
        route.stages[0].lengthMetres = route.summary.stops[1].distanceMetres
        let bytes = RouteFile.bytes(route)
        let reading = RouteFile.read(bytes)
        #expect(reading.findings.isEmpty, "\(reading.findings)")
        #expect(reading.route == route)
        // A MultiLineString too.
        route.lines = [route.lines[0], [Self.p(-122.35, 44.39, 430), Self.p(-122.3, 44.39, 440)]]
        #expect(RouteFile.read(RouteFile.bytes(route)).route == route)
        // And Python's json reads what we write.
        try Support.withTemporaryDirectory { dir in
            try Support.write(bytes, to: dir + "/route.geojson")
            let out = try Support.run(
                "python3",
                [
                    "-c",
                    "import json,sys; d=json.load(open(sys.argv[1])); print(d['geometry']['type'], len(d['geometry']['coordinates']))",
                    dir + "/route.geojson",
                ])
            #expect(out.stdout == "LineString 3\n")
        }
    }

    static func setProperty(_ o: inout [String: Any], _ key: String, _ value: Any) {
        var properties = o["properties"] as? [String: Any] ?? [:]
        properties[key] = value
        o["properties"] = properties
    }

    /// A route file's JSON with `change` applied to its decoded form.
    static func mutated(_ change: (inout [String: Any]) -> Void) throws -> [UInt8] {
        var object = try JSONSerialization.jsonObject(with: Data(RouteFile.bytes(santiamLike()))) as! [String: Any]
        change(&object)
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    /// The finding code and the change of the case named `name`.
    static func brokenCase(_ name: String) -> (FindingCode, (inout [String: Any]) -> Void) {
        switch name {
        case "not a Feature": (.routeFile, { o in o["type"] = "FeatureCollection" })
        case "unknown member": (.routeFile, { o in o["bbox"] = [0, 0, 1, 1] })
        case "no properties": (.routeFile, { o in o["properties"] = nil })
        case "a Point": (.routeGeometry, { o in o["geometry"] = ["type": "Point", "coordinates": [0, 0]] })
        case "one position":
            (.routeGeometry, { o in o["geometry"] = ["type": "LineString", "coordinates": [[0, 0]]] })
        case "latitude out of range":
            (.routeGeometry, { o in o["geometry"] = ["type": "LineString", "coordinates": [[0, 0], [0, 91]]] })
        case "mixed elevations":
            (.routeGeometry, { o in o["geometry"] = ["type": "LineString", "coordinates": [[0, 0, 1], [0, 0.1]]] })
        case "a string for a number":
            (.routeGeometry, { o in o["geometry"] = ["type": "LineString", "coordinates": [[0, 0], ["0", 1]]] })
        case "elevation out of range":
            (
                .routeGeometry,
                { o in o["geometry"] = ["type": "LineString", "coordinates": [[0, 0, 1], [0, 0.1, 20000]]] }
            )
        case "across the antimeridian":
            (
                .routeGeometry,
                { o in o["geometry"] = ["type": "LineString", "coordinates": [[179.9, 0], [-179.9, 0]]] }
            )
        case "empty MultiLineString":
            (.routeGeometry, { o in o["geometry"] = ["type": "MultiLineString", "coordinates": [] as [Any]] })
        case "length a string": (.routeFile, { o in RouteTests.setProperty(&o, "lengthMetres", "far") })
        case "stops not a list": (.routeFile, { o in RouteTests.setProperty(&o, "stops", 3) })
        case "stages empty": (.routeFile, { o in RouteTests.setProperty(&o, "stages", [] as [Any]) })
        default: (.routeFile, { _ in })
        }
    }

    @Test(
        "each broken rule of the file's shape is a finding with its code, never a crash",
        arguments: [
            "not a Feature",
            "unknown member",
            "no properties",
            "a Point",
            "one position",
            "latitude out of range",
            "mixed elevations",
            "a string for a number",
            "elevation out of range",
            "across the antimeridian",
            "empty MultiLineString",
            "length a string",
            "stops not a list",
            "stages empty",
        ])
    func brokenShape(_ name: String) throws {
        let (code, change) = Self.brokenCase(name)
        let bytes = try Self.mutated(change)
        let reading = RouteFile.read(bytes)
        #expect(reading.route == nil, "\(name)")
        #expect(
            reading.findings.contains { $0.code == code && $0.file == Route.entryName }, "\(name): \(reading.findings)")
    }

    @Test("a file of millions of tiny positions is refused by a count of its brackets, before any tree is made")
    func tinyPositions() {
        var text = "{\"type\": \"Feature\", \"geometry\": {\"type\": \"LineString\", \"coordinates\": ["
        text += String(repeating: "[0,0],", count: 300_000) + "[0,0]]}, \"properties\": {}}"
        let reading = RouteFile.read(Array(text.utf8))
        #expect(reading.route == nil)
        #expect(
            reading.findings.first?.code == .routeGeometry && reading.findings.first?.message.contains("100000") == true
        )
    }

    @Test("a duplicate key and bytes that are not JSON are refused")
    func notJSON() {
        #expect(RouteFile.read(Array("{\"type\": \"Feature\", \"type\": \"Feature\"}".utf8)).route == nil)
        #expect(
            RouteFile.read(Array("{\"type\": \"Feature\", \"type\": \"Feature\"}".utf8)).findings.contains {
                $0.code == .jsonDuplicateKey
            })
        #expect(RouteFile.read([0xFF, 0xFE]).findings.first?.code == .routeFile)
        #expect(RouteFile.read([]).route == nil)
    }

    @Test("mutated by structure (members dropped, retyped, lists emptied or nested), the reader never traps")
    func structureFuzz() throws {
        let base = try JSONParser.parse(RouteFile.bytes(Self.santiamLike())).value
        var state: UInt64 = 7
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % max(1, n)
        }
        let replacements: [JSONValue] = [
            .null, .bool(true), .string("x"), .number(JSONNumber(literal: "-1")), .number(JSONNumber(literal: "1e308")),
            .array([]),
            .object([]), .array([.array([])]),
        ]
        func mutate(_ v: JSONValue, depth: Int) -> JSONValue {
            switch v {
            case .object(let members) where !members.isEmpty && next(3) > 0:
                var m = members
                let i = next(m.count)
                switch next(4) {
                case 0: m.remove(at: i)
                case 1: m[i].value = replacements[next(replacements.count)]
                case 2: m.append(m[i])
                default: m[i].value = mutate(m[i].value, depth: depth + 1)
                }
                return .object(m)
            case .array(let items) where !items.isEmpty && next(3) > 0:
                var a = items
                let i = next(a.count)
                switch next(4) {
                case 0: a.remove(at: i)
                case 1: a[i] = replacements[next(replacements.count)]
                case 2: a.append(a[i])
                default: a[i] = mutate(a[i], depth: depth + 1)
                }
                return .array(a)
            default:
                return depth > 0 && next(2) == 0 ? replacements[next(replacements.count)] : v
            }
        }
        var refused = 0
        for _ in 0..<2000 {
            let reading = RouteFile.decode(mutate(base, depth: 0))
            if reading.route == nil {
                refused += 1
                #expect(!reading.findings.isEmpty)
            } else if let route = reading.route {
                // What is accepted is a route: checking it against the tour never traps either.
                _ = RouteChecks.check(
                    route, waypoints: [],
                    bounds: Bounds(
                        southwest: Coordinate(latitude: 44, longitude: -123),
                        northeast: Coordinate(latitude: 45, longitude: -121)))
            }
        }
        #expect(refused > 500)
    }
}
