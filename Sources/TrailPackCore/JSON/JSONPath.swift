/// Builds JSON paths in the form the findings use: `waypoints[3].coordinate.latitude`.
public enum JSONPath {
    /// The path of member `key` of the object at `base`: `waypoints[3].name`, or `base["odd key"]` when the key is not a plain identifier.
    public static func member(_ base: String, _ key: String) -> String {
        let simple = !key.isEmpty && key.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F || $0 == 0x2D }
        let part = simple ? key : "[\"\(key.replacingOccurrences(of: "\"", with: "\\\""))\"]"
        if base.isEmpty { return simple ? part : part }
        return simple ? "\(base).\(part)" : "\(base)\(part)"
    }

    /// The path of element `index` of the array at `base`: `waypoints[0]`.
    public static func element(_ base: String, _ index: Int) -> String { "\(base)[\(index)]" }
}
