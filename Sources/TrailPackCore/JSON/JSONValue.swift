/// A parsed JSON value that keeps object members in document order.
///
/// Objects are stored as ordered member lists rather than dictionaries so that the
/// manifest writer is deterministic and the validator can point at members by position.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// A short name of the value's type, for messages: `"a string"`, `"an array"`.
    public var typeDescription: String {
        switch self {
        case .null: "null"
        case .bool: "true or false"
        case .number: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }

    /// The member named `key`, if this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.key == key })?.value
    }
}

/// One `"key": value` pair of a JSON object.
public struct JSONMember: Sendable, Equatable {
    /// The member's key.
    public var key: String
    /// The member's value.
    public var value: JSONValue
    /// A member `key`: `value`.
    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// A JSON number, kept as its literal text so that integers larger than a `Double`
/// can represent exactly are not silently rounded.
public struct JSONNumber: Sendable, Equatable, CustomStringConvertible {
    /// The number exactly as written in the document.
    public let literal: String

    /// A number with this literal text, kept exactly as written.
    public init(literal: String) { self.literal = literal }
    /// A whole number.
    public init(_ value: Int64) { self.literal = String(value) }
    /// A number from a `Double`, written in its shortest exact form.
    public init(_ value: Double) {
        // Shortest representation that round-trips; integral values print without ".0".
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            self.literal = String(Int64(value))
        } else {
            self.literal = "\(value)"
        }
    }

    /// The value as a `Double`, or nil if it is not finite.
    public var double: Double? {
        guard let d = Double(literal), d.isFinite else { return nil }
        return d
    }

    /// The value as an exact integer, or nil if it has a fraction, an exponent or does not fit.
    public var int64: Int64? { Int64(literal) }

    /// The literal text.
    public var description: String { literal }
}

extension JSONValue {
    /// Builds an object from `(key, value)` pairs, in order.
    public static func object(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(pairs.map { JSONMember($0.key, $0.value) })
    }
}
