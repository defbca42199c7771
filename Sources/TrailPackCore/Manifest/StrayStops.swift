import Foundation

/// Stops far away from all the others: the mark of a typo in a coordinate (a digit off, a lost
/// minus sign, latitude and longitude swapped), which the bounds would otherwise silently
/// stretch to include.
///
/// A stop is a stray when its distance from the middle of the tour (the component-wise median
/// of the stops) is more than five times the median of those distances, and more than 20 km.
/// A long byway or a state-wide checklist spreads all its stops alike and is not flagged.
public enum StrayStops {
    /// The least distance, in metres, that can make a stray.
    public static let minimumMetres = 20_000.0
    /// How many times the typical distance from the middle makes a stray.
    public static let factor = 5.0

    /// One stray stop: its position in the list given, its distance from the middle, and the
    /// typical distance of the others.
    public struct Stray: Sendable, Equatable {
        /// The stop's index in the coordinates given.
        public var index: Int
        /// Its distance from the tour's middle, in metres.
        public var metres: Double
        /// The median distance of all stops from the middle, in metres.
        public var typicalMetres: Double
    }

    /// The strays among `coordinates` (none with fewer than three stops).
    public static func find(_ coordinates: [Coordinate]) -> [Stray] {
        let valid = coordinates.enumerated().filter { $0.element.latitude.isFinite && $0.element.longitude.isFinite }
        guard valid.count >= 3 else { return [] }
        let middle = Coordinate(
            latitude: median(valid.map(\.element.latitude)), longitude: median(valid.map(\.element.longitude)))
        let distances = valid.map { (index: $0.offset, metres: metres(from: middle, to: $0.element)) }
        let typical = median(distances.map(\.metres))
        let limit = max(minimumMetres, factor * typical)
        return distances.filter { $0.metres > limit }.map {
            Stray(index: $0.index, metres: $0.metres, typicalMetres: typical)
        }
    }

    /// The great-circle distance in metres (haversine, mean Earth radius).
    public static func metres(from a: Coordinate, to b: Coordinate) -> Double {
        let r = 6_371_008.8
        let φ1 = a.latitude * .pi / 180, φ2 = b.latitude * .pi / 180
        let dφ = φ2 - φ1, dλ = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * r * asin(min(1, h.squareRoot()))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }
}
