/// Tile ids of PMTiles version 3: every tile of every zoom on one Hilbert curve.
///
/// The id of `z/x/y` is the number of tiles in all lower zooms, `(4^z - 1) / 3`, plus the tile's
/// position along the Hilbert curve that fills zoom `z`. Ids therefore sort by zoom first, and
/// tiles near each other on the map are mostly near each other in the file.
public struct TileID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var z: Int
    public var x: Int
    public var y: Int

    /// The highest zoom whose ids fit in 64 bits with room to spare.
    public static let maxZoom = 31

    public init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    /// Whether the coordinates name a tile (`0 ≤ x, y < 2^z`, `0 ≤ z ≤ 31`).
    public var isValid: Bool {
        (0...Self.maxZoom).contains(z) && x >= 0 && y >= 0 && x < (1 << z) && y < (1 << z)
    }

    /// The number of tiles in all zooms below `z`: the first id of zoom `z`.
    public static func firstID(zoom z: Int) -> UInt64 {
        z >= 32 ? UInt64.max / 3 : ((UInt64(1) << (2 * UInt64(z))) - 1) / 3
    }

    /// One past the largest valid id (the first id of zoom 32).
    public static let idLimit: UInt64 = firstID(zoom: maxZoom + 1)

    /// The tile's id; nil when the coordinates are not a tile.
    public var id: UInt64? {
        guard isValid else { return nil }
        var tx = UInt64(x), ty = UInt64(y), d: UInt64 = 0
        var s = (UInt64(1) << UInt64(z)) >> 1
        while s > 0 {
            let rx: UInt64 = (tx & s) > 0 ? 1 : 0
            let ry: UInt64 = (ty & s) > 0 ? 1 : 0
            d += s * s * ((3 * rx) ^ ry)
            Self.rotate(s, &tx, &ty, rx, ry)
            s >>= 1
        }
        return Self.firstID(zoom: z) + d
    }

    /// The tile with `id`; nil for an id beyond zoom 31.
    public init?(id: UInt64) {
        guard id < Self.idLimit else { return nil }
        var z = 0
        while Self.firstID(zoom: z + 1) <= id { z += 1 }
        var t = id - Self.firstID(zoom: z)
        var tx: UInt64 = 0, ty: UInt64 = 0
        var s: UInt64 = 1
        let n = UInt64(1) << UInt64(z)
        while s < n {
            let rx = 1 & (t / 2)
            let ry = 1 & (t ^ rx)
            Self.rotate(s, &tx, &ty, rx, ry)
            tx += s * rx
            ty += s * ry
            t /= 4
            s *= 2
        }
        self.init(z: z, x: Int(tx), y: Int(ty))
    }

    /// The zoom an id belongs to; nil beyond zoom 31.
    public static func zoom(ofID id: UInt64) -> Int? {
        guard id < idLimit else { return nil }
        var z = 0
        while firstID(zoom: z + 1) <= id { z += 1 }
        return z
    }

    private static func rotate(_ s: UInt64, _ x: inout UInt64, _ y: inout UInt64, _ rx: UInt64, _ ry: UInt64) {
        guard ry == 0 else { return }
        if rx == 1 {
            x = s &- 1 &- x
            y = s &- 1 &- y
        }
        swap(&x, &y)
    }

    public var description: String { "\(z)/\(x)/\(y)" }

    public static func < (a: TileID, b: TileID) -> Bool { (a.id ?? 0) < (b.id ?? 0) }
}
