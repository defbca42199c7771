/// A package version: 1 to 4 dot-separated whole numbers without leading zeros, compared
/// numerically component by component (`1.10` is newer than `1.9`; `1.0` equals `1`).
public struct PackageVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let components: [Int]

    /// Parses `text`, or returns nil when it is not a version.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 9, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            if part.count > 1 && part.first == "0" { return nil }
            values.append(Int(part)!)
        }
        components = values
    }

    private var padded: [Int] { components + Array(repeating: 0, count: 4 - components.count) }

    public static func < (lhs: PackageVersion, rhs: PackageVersion) -> Bool {
        lhs.padded.lexicographicallyPrecedes(rhs.padded)
    }
    public static func == (lhs: PackageVersion, rhs: PackageVersion) -> Bool { lhs.padded == rhs.padded }
    public func hash(into hasher: inout Hasher) { hasher.combine(padded) }

    public var description: String { components.map(String.init).joined(separator: ".") }
}
