/// A package version: 1 to 4 dot-separated whole numbers without leading zeros, compared
/// numerically component by component (`1.10` is newer than `1.9`; `1.0` equals `1`).
public struct PackageVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numbers, as written (1 to 4 of them).
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

    /// Whether `lhs` is older than `rhs`, component by component, missing components counting as 0.
    public static func < (lhs: PackageVersion, rhs: PackageVersion) -> Bool {
        lhs.padded.lexicographicallyPrecedes(rhs.padded)
    }
    /// Whether the versions are equal, missing components counting as 0 (`1.0` equals `1`).
    public static func == (lhs: PackageVersion, rhs: PackageVersion) -> Bool { lhs.padded == rhs.padded }
    /// Hashes the version so that equal versions (`1.0`, `1`) hash alike.
    public func hash(into hasher: inout Hasher) { hasher.combine(padded) }

    /// The version as written: `1.10.2`.
    public var description: String { components.map(String.init).joined(separator: ".") }
}
