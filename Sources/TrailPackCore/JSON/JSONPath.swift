/// A place in a JSON document: the keys and indexes from the top to a value, such as
/// `waypoints[3].coordinate.latitude`.
///
/// Code that needs a part of the path (the stop's index, the field) reads ``components``; the
/// text form findings print is made in one place, ``description``.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step down into a document.
    public enum Component: Sendable, Hashable {
        /// The member `key` of an object.
        case key(String)
        /// The element at `index` of an array.
        case index(Int)
    }

    /// The steps from the top of the document, in order.
    public var components: [Component]

    /// The path of the value reached by `components` (none: the document itself).
    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// The document itself (printed as an empty string).
    public static let root = JSONPath()

    /// The path of member `key` of the object here: `waypoints[3].name`.
    public func member(_ key: String) -> JSONPath {
        var next = components
        next.append(.key(key))
        return JSONPath(next)
    }

    /// The path of element `index` of the array here: `waypoints[0]`.
    public func element(_ index: Int) -> JSONPath {
        var next = components
        next.append(.index(index))
        return JSONPath(next)
    }

    /// The path as findings print it: `waypoints[3].name`, `[0]`, or `base["odd key"]` for a key
    /// that is not a plain identifier; the document itself is `""`.
    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key):
                let simple =
                    !key.isEmpty
                    && key.utf8.allSatisfy {
                        ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                            || $0 == 0x5F || $0 == 0x2D
                    }
                if simple {
                    if !text.isEmpty { text += "." }
                    text += key
                } else {
                    text += "[\"\(key.replacingOccurrences(of: "\"", with: "\\\""))\"]"
                }
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }
}
