/// Encodes an `Encodable` value straight into a `JSONValue`, members in the order the type encodes
/// them, so that `JSONWriter` writes it as it writes every other document — without printing JSON
/// text and parsing it again. Numbers keep their exact text (integers as written, doubles in
/// their shortest form). Dates and data are encoded as their own `Encodable` implementations say.
public struct JSONValueEncoder {
    /// An encoder (it has no options: the output is the house JSON).
    public init() {}

    /// The value as a JSON tree.
    public func encode(_ value: some Encodable) throws -> JSONValue {
        let root = Node()
        try value.encode(to: TreeEncoder(node: root, codingPath: []))
        return root.value
    }
}

/// One place in the tree being built: a value, or an object or array still being filled.
private final class Node {
    enum Kind { case scalar, object, array }
    /// A member or item: a scalar kept in place (no allocation), or a nested value being built.
    enum Child {
        case scalar(JSONValue)
        case node(Node)
        var value: JSONValue {
            switch self {
            case .scalar(let v): v
            case .node(let n): n.value
            }
        }
    }
    var kind = Kind.scalar
    var scalar = JSONValue.null
    var members: [(key: String, child: Child)] = []
    var items: [Child] = []

    var value: JSONValue {
        switch kind {
        case .scalar: scalar
        case .object: .object(members.map { JSONMember($0.key, $0.child.value) })
        case .array: .array(items.map(\.value))
        }
    }

    func set(_ value: JSONValue) {
        kind = .scalar
        scalar = value
    }
}

private struct TreeEncoder: Encoder {
    let node: Node
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.kind != .object { (node.kind, node.members) = (.object, []) }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.kind != .array { (node.kind, node.items) = (.array, []) }
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(node: node, codingPath: codingPath)
    }
}

/// Scalars: the JSON text of each Swift scalar.
private enum Scalar {
    static func number(_ text: String) -> JSONValue { .number(JSONNumber(literal: text)) }
    static func double(_ d: Double) throws -> JSONValue {
        guard d.isFinite else {
            throw EncodingError.invalidValue(d, .init(codingPath: [], debugDescription: "JSON has no \(d)"))
        }
        return .number(JSONNumber(d))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    var codingPath: [any CodingKey]

    private func child(_ key: Key) -> Node {
        let child = Node()
        node.members.append((key.stringValue, .node(child)))
        return child
    }

    private func put(_ value: JSONValue, _ key: Key) { node.members.append((key.stringValue, .scalar(value))) }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { put(try Scalar.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { put(try Scalar.double(Double(value)), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(Scalar.number(String(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(Scalar.number(String(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(Scalar.number(String(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(Scalar.number(String(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(Scalar.number(String(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(Scalar.number(String(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(Scalar.number(String(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(Scalar.number(String(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(Scalar.number(String(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(Scalar.number(String(value)), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try value.encode(to: TreeEncoder(node: child(key), codingPath: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        TreeEncoder(node: child(key), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        TreeEncoder(node: child(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { TreeEncoder(node: node, codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(node: child(key), codingPath: codingPath + [key])
    }
}

private struct IndexKey: CodingKey {
    var stringValue: String { String(intValue!) }
    var intValue: Int?
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey]
    var count: Int { node.items.count }

    private func next() -> Node {
        let child = Node()
        node.items.append(.node(child))
        return child
    }

    private func put(_ value: JSONValue) { node.items.append(.scalar(value)) }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(try Scalar.double(value)) }
    mutating func encode(_ value: Float) throws { put(try Scalar.double(Double(value))) }
    mutating func encode(_ value: Int) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: Int8) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: Int16) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: Int32) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: Int64) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: UInt) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: UInt8) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: UInt16) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: UInt32) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: UInt64) throws { put(Scalar.number(String(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = count
        try value.encode(to: TreeEncoder(node: next(), codingPath: codingPath + [IndexKey(index)]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let index = count
        return TreeEncoder(node: next(), codingPath: codingPath + [IndexKey(index)]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let index = count
        return TreeEncoder(node: next(), codingPath: codingPath + [IndexKey(index)]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let index = count
        return TreeEncoder(node: next(), codingPath: codingPath + [IndexKey(index)])
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey]

    private func put(_ value: JSONValue) { node.set(value) }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(try Scalar.double(value)) }
    mutating func encode(_ value: Float) throws { put(try Scalar.double(Double(value))) }
    mutating func encode(_ value: Int) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: Int8) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: Int16) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: Int32) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: Int64) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: UInt) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: UInt8) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: UInt16) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: UInt32) throws { put(Scalar.number(String(value))) }
    mutating func encode(_ value: UInt64) throws { put(Scalar.number(String(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try value.encode(to: TreeEncoder(node: node, codingPath: codingPath))
    }
}
