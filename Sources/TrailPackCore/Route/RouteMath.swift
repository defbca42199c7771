import Foundation

/// The arithmetic of routes (`docs/FORMAT.md` §3.3): lengths, climbs, where stops lie along a
/// route, simplification, and the cut at the antimeridian. Pure functions, no I/O.
public enum RouteMath {
    // MARK: lengths and climbs

    /// The geodesic length of one segment, in metres.
    @inline(__always)
    static func segmentLength(_ a: RoutePosition, _ b: RoutePosition) -> Double {
        Geodesy.distance(latitude: a.latitude, longitude: a.longitude, latitude: b.latitude, longitude: b.longitude)
    }

    /// The length of the lines, gaps between them left out, in metres.
    public static func length(_ lines: [[RoutePosition]]) -> Double {
        var total = 0.0
        for line in lines where line.count > 1 {
            for i in 1..<line.count { total += segmentLength(line[i - 1], line[i]) }
        }
        return total
    }

    /// The sums of rises and falls between consecutive positions of each line; nil unless every
    /// position has an elevation.
    public static func climb(_ lines: [[RoutePosition]]) -> (ascent: Double, descent: Double)? {
        var up = 0.0, down = 0.0
        for line in lines {
            var previous: Double?
            for p in line {
                guard let e = p.elevation else { return nil }
                if let previous {
                    if e > previous { up += e - previous } else { down += previous - e }
                }
                previous = e
            }
        }
        return (up, down)
    }

    /// The segments of the lines in walking order, each with where it starts along the route.
    struct Segment {
        var a: RoutePosition
        var b: RoutePosition
        var start: Double
        var length: Double
    }

    static func segments(_ lines: [[RoutePosition]]) -> [Segment] {
        var out: [Segment] = []
        out.reserveCapacity(lines.reduce(0) { $0 + max(0, $1.count - 1) })
        var along = 0.0
        for line in lines where line.count > 1 {
            for i in 1..<line.count {
                let length = segmentLength(line[i - 1], line[i])
                out.append(Segment(a: line[i - 1], b: line[i], start: along, length: length))
                along += length
            }
        }
        return out
    }

    /// The distance along the route of every position, line by line.
    public static func distances(_ lines: [[RoutePosition]]) -> [[Double]] {
        var along = 0.0
        return lines.map { line in
            var out: [Double] = []
            out.reserveCapacity(line.count)
            for (i, p) in line.enumerated() {
                if i > 0 { along += segmentLength(line[i - 1], p) }
                out.append(along)
            }
            return out
        }
    }

    // MARK: stops on the route

    /// Where each stop lies on the route, by the rule of `docs/FORMAT.md` §3.3: its nearest
    /// distance to the route in a plane centred on it; the passes (runs of consecutive segments
    /// within 20 m of that), each at its nearest point; the first pass at or after the previous
    /// stop's point.
    public static func locate(
        _ stops: [(slug: String, coordinate: Coordinate)], on lines: [[RoutePosition]]
    )
        -> [RouteStop]
    {
        let segments = segments(lines)
        var previous = -Double.infinity
        var out: [RouteStop] = []
        out.reserveCapacity(stops.count)
        var offsets = [Double](repeating: 0, count: segments.count)
        var alongs = [Double](repeating: 0, count: segments.count)
        for stop in stops {
            let c = stop.coordinate
            guard !segments.isEmpty, c.latitude.isFinite, c.longitude.isFinite else {
                out.append(RouteStop(slug: stop.slug, distanceMetres: 0, offsetMetres: 0))
                continue
            }
            let rad = Double.pi / 180
            let kx = cos(c.latitude * rad) * rad * Geodesy.meanRadius, ky = rad * Geodesy.meanRadius
            var nearest = Double.infinity
            for (i, s) in segments.enumerated() {
                let ax = Geodesy.wrapped(s.a.longitude - c.longitude) * kx, ay = (s.a.latitude - c.latitude) * ky
                let bx = Geodesy.wrapped(s.b.longitude - c.longitude) * kx, by = (s.b.latitude - c.latitude) * ky
                let dx = bx - ax, dy = by - ay
                let lengthSquared = dx * dx + dy * dy
                let t = lengthSquared > 0 ? min(1, max(0, -(ax * dx + ay * dy) / lengthSquared)) : 0
                let px = ax + t * dx, py = ay + t * dy
                let d = (px * px + py * py).squareRoot()
                offsets[i] = d
                alongs[i] = s.start + t * s.length
                nearest = min(nearest, d)
            }
            // A pass: a run of consecutive segments within `limit`, at its nearest point.
            let limit = nearest + Route.passSlackMetres
            var chosen: Double?
            var first: Double?
            var i = 0
            while i < segments.count, chosen == nil {
                guard offsets[i] <= limit else {
                    i += 1
                    continue
                }
                var best = i
                i += 1
                while i < segments.count, offsets[i] <= limit {
                    if offsets[i] < offsets[best] { best = i }
                    i += 1
                }
                if first == nil { first = alongs[best] }
                if alongs[best] >= previous { chosen = alongs[best] }
            }
            let along = chosen ?? first ?? 0
            previous = along
            out.append(RouteStop(slug: stop.slug, distanceMetres: along, offsetMetres: nearest))
        }
        return out
    }

    /// The summary of a route through these stops (given in the order of their `order`).
    public static func summarize(
        _ lines: [[RoutePosition]], stops: [(slug: String, coordinate: Coordinate)]
    ) -> RouteSummary {
        let climb = climb(lines)
        return RouteSummary(
            lengthMetres: length(lines), ascentMetres: climb?.ascent, descentMetres: climb?.descent,
            stops: locate(stops, on: lines))
    }

    /// The position `metres` along the route (the end of the route beyond its length).
    public static func position(at metres: Double, on lines: [[RoutePosition]]) -> RoutePosition? {
        var last: RoutePosition?
        for s in segments(lines) {
            last = s.b
            if metres <= s.start + s.length {
                let t = s.length > 0 ? max(0, (metres - s.start) / s.length) : 0
                return RoutePosition(
                    longitude: Geodesy.wrapped(s.a.longitude + t * Geodesy.wrapped(s.b.longitude - s.a.longitude)),
                    latitude: s.a.latitude + t * (s.b.latitude - s.a.latitude))
            }
        }
        return last ?? lines.first?.first
    }

    // MARK: making a route from a recording

    /// Lines cut where they cross the antimeridian (RFC 7946 §3.1.9): a segment more than 180°
    /// of longitude long ends at ±180 and the line goes on from ∓180, at the latitude (and
    /// elevation) where the segment crosses it.
    public static func cutAtAntimeridian(_ lines: [[RoutePosition]]) -> [[RoutePosition]] {
        var out: [[RoutePosition]] = []
        for line in lines {
            var current: [RoutePosition] = []
            for p in line {
                if let q = current.last, abs(p.longitude - q.longitude) > 180 {
                    // Unwrap p next to q, find where the segment meets ±180.
                    let east = q.longitude > 0
                    let edge = east ? 180.0 : -180.0
                    let pLongitude = p.longitude + (east ? 360 : -360)
                    let t = (edge - q.longitude) / (pLongitude - q.longitude)
                    let latitude = q.latitude + t * (p.latitude - q.latitude)
                    let elevation = q.elevation.flatMap { qe in p.elevation.map { qe + t * ($0 - qe) } }
                    current.append(RoutePosition(longitude: edge, latitude: latitude, elevation: elevation))
                    out.append(current)
                    current = [RoutePosition(longitude: -edge, latitude: latitude, elevation: elevation)]
                }
                current.append(p)
            }
            if !current.isEmpty { out.append(current) }
        }
        return out
    }

    /// Positions rounded as the builder writes them: degrees to 7 decimals (about 1 cm),
    /// elevations to 0.1 m.
    public static func rounded(_ lines: [[RoutePosition]]) -> [[RoutePosition]] {
        lines.map { line in
            line.map {
                RoutePosition(
                    longitude: ($0.longitude * 1e7).rounded() / 1e7, latitude: ($0.latitude * 1e7).rounded() / 1e7,
                    elevation: $0.elevation.map { ($0 * 10).rounded() / 10 })
            }
        }
    }

    /// A number as the route file writes it: to 0.1.
    public static func tenth(_ x: Double) -> Double { (x * 10).rounded() / 10 }

    /// The lines simplified by Douglas–Peucker at `tolerance` metres (in a plane local to each
    /// line), the tolerance halved until the simplified length is within `maxLoss` (0.5 %) of
    /// the recorded one; returns the lines and the tolerance that was used (0: none would do).
    public static func simplified(
        _ lines: [[RoutePosition]], tolerance: Double, maxLoss: Double = 0.005
    ) -> (lines: [[RoutePosition]], tolerance: Double) {
        let recorded = length(lines)
        var tolerance = tolerance
        while tolerance >= 0.05 {
            let candidate = lines.map { douglasPeucker($0, tolerance: tolerance) }
            if length(candidate) >= recorded * (1 - maxLoss) { return (candidate, tolerance) }
            tolerance /= 2
        }
        return (lines, 0)
    }

    /// One line by Douglas–Peucker: the positions further than `tolerance` metres from the chord
    /// of the part they are in, recursively (an explicit stack: 100,000 points never recurse).
    static func douglasPeucker(_ line: [RoutePosition], tolerance: Double) -> [RoutePosition] {
        guard line.count > 2 else { return line }
        let rad = Double.pi / 180
        let middle = line[line.count / 2].latitude
        let kx = cos(middle * rad) * rad * Geodesy.meanRadius, ky = rad * Geodesy.meanRadius
        // Longitudes unwrapped along the line, so that a line near ±180 stays continuous.
        var xs = [Double](repeating: 0, count: line.count), ys = xs
        var longitude = line[0].longitude
        for (i, p) in line.enumerated() {
            if i > 0 { longitude += Geodesy.wrapped(p.longitude - line[i - 1].longitude) }
            xs[i] = longitude * kx
            ys[i] = p.latitude * ky
        }
        var keep = [Bool](repeating: false, count: line.count)
        keep[0] = true
        keep[line.count - 1] = true
        var stack = [(0, line.count - 1)]
        while let (first, last) = stack.popLast() {
            guard last - first > 1 else { continue }
            let dx = xs[last] - xs[first], dy = ys[last] - ys[first]
            let lengthSquared = dx * dx + dy * dy
            var farthest = -1.0, index = first
            for i in (first + 1)..<last {
                let ex = xs[i] - xs[first], ey = ys[i] - ys[first]
                let d: Double
                if lengthSquared > 0 {
                    let t = min(1, max(0, (ex * dx + ey * dy) / lengthSquared))
                    let px = ex - t * dx, py = ey - t * dy
                    d = (px * px + py * py).squareRoot()
                } else {
                    d = (ex * ex + ey * ey).squareRoot()
                }
                if d > farthest {
                    farthest = d
                    index = i
                }
            }
            if farthest > tolerance {
                keep[index] = true
                stack.append((first, index))
                stack.append((index, last))
            }
        }
        return line.indices.compactMap { keep[$0] ? line[$0] : nil }
    }
}
