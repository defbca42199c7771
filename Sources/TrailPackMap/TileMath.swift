import Foundation
import TrailPackCore

/// Web Mercator tile arithmetic (the XYZ scheme PMTiles uses: y grows southward).
public enum TileMath {
    /// The latitude Web Mercator stops at.
    public static let maxLatitude = 85.051_128_779_806_59

    /// The fraction (0...1) of the world west to east at `lon`.
    static func xFraction(_ lon: Double) -> Double { (lon + 180) / 360 }

    /// The fraction (0...1) of the world north to south at `lat`.
    static func yFraction(_ lat: Double) -> Double {
        let l = min(max(lat, -maxLatitude), maxLatitude) * .pi / 180
        return (1 - log(tan(l) + 1 / cos(l)) / .pi) / 2
    }

    /// The west edge of column `x` at zoom `z`, in degrees.
    public static func longitude(x: Int, z: Int) -> Double { Double(x) / Double(1 << z) * 360 - 180 }

    /// The north edge of row `y` at zoom `z`, in degrees.
    public static func latitude(y: Int, z: Int) -> Double {
        let n = Double.pi - 2 * Double.pi * Double(y) / Double(1 << z)
        return atan(sinh(n)) * 180 / .pi
    }

    /// The tiles of zoom `z` that a box touches: columns (two runs when it crosses the
    /// antimeridian) and rows.
    public struct Range: Sendable, Equatable {
        public var z: Int
        /// West to east; the second run exists when the box crosses the antimeridian.
        public var columns: [ClosedRange<Int>]
        public var rows: ClosedRange<Int>
        public var width: Int { columns.reduce(0) { $0 + $1.count } }
        public var height: Int { rows.count }
        public var count: Int { width * height }

        /// The column's position from the west edge of the box (0 ..< width).
        public func columnOffset(_ x: Int) -> Int {
            if columns.count == 2, columns[1].contains(x) { return columns[0].count + x - columns[1].lowerBound }
            return x - columns[0].lowerBound
        }

        /// Every tile of the range.
        public func forEach(_ body: (Int, Int) throws -> Void) rethrows {
            for run in columns { for x in run { for y in rows { try body(x, y) } } }
        }
    }

    /// The tiles at zoom `z` that intersect `bounds`.
    public static func range(_ b: Bounds, zoom z: Int) -> Range {
        let n = 1 << z
        func column(_ f: Double, roundUp: Bool) -> Int {
            let v = f * Double(n)
            return min(max(roundUp ? Int(v.rounded(.up)) - 1 : Int(v.rounded(.down)), 0), n - 1)
        }
        let rows =
            column(
                yFraction(b.northeast.latitude), roundUp: false)...max(
                column(yFraction(b.northeast.latitude), roundUp: false),
                column(yFraction(b.southwest.latitude), roundUp: true))
        let west = column(xFraction(b.southwest.longitude), roundUp: false)
        let east = column(xFraction(b.northeast.longitude), roundUp: true)
        let columns: [ClosedRange<Int>] =
            b.crossesAntimeridian ? [west...(n - 1), 0...max(0, east)] : [west...max(west, east)]
        return Range(z: z, columns: columns, rows: rows)
    }

    /// About how many metres one tile spans east-west at `lat`, zoom `z`.
    public static func tileMetres(z: Int, latitude: Double) -> Double {
        40_075_016.686 * cos(latitude * .pi / 180) / Double(1 << z)
    }

    /// `bounds` grown by `metres` on every side (clamped to the poles, wrapped at the antimeridian).
    public static func buffered(_ b: Bounds, metres: Double) -> Bounds {
        guard metres > 0 else { return b }
        let dLat = metres / 111_320
        let midLat = (b.southwest.latitude + b.northeast.latitude) / 2
        let dLon = min(179, metres / (111_320 * max(0.01, cos(midLat * .pi / 180))))
        func wrap(_ x: Double) -> Double { x > 180 ? x - 360 : (x < -180 ? x + 360 : x) }
        let width =
            b.crossesAntimeridian
            ? b.northeast.longitude + 360 - b.southwest.longitude : b.northeast.longitude - b.southwest.longitude
        let whole = width + 2 * dLon >= 360
        return Bounds(
            southwest: Coordinate(
                latitude: max(-90, b.southwest.latitude - dLat),
                longitude: whole ? -180 : wrap(b.southwest.longitude - dLon)),
            northeast: Coordinate(
                latitude: min(90, b.northeast.latitude + dLat),
                longitude: whole ? 180 : wrap(b.northeast.longitude + dLon)))
    }
}
