import Foundation
import Mustache

@testable import TrailPackPanel

/// Walks a template's tags as swift-mustache renders them, with the stack of objects it would hold:
/// `{{#name}}` pushes what it finds (an array's element, an object; a Bool pushes nothing), a partial
/// (`{{>name}}`) and a layout (`{{<name}}`) are walked where they stand, both sides of every section
/// are walked. A name is looked up from the top of the stack down (a dotted name's first part only;
/// the rest on what that found), on objects that have every field set (`SampleDecoder`). Problems:
/// a name found nowhere, and an optional field whose nil would fall through to an object further
/// down with a field of the same name (Mustache treats nil as missing and keeps looking).
struct LookupChecker {
    let templates: [String: String]
    var problems: [String] = []
    /// The templates walked as a partial or a layout.
    var reached: Set<String> = []
    var lookups = 0

    init(templates: [String: String]) { self.templates = templates }

    static var tag: Regex<(Substring, Substring, Substring)> { #/\{\{\{?\s*([#^/>&<$!]?)\s*([^}]*?)\s*\}?\}\}/# }

    mutating func walk(_ name: String, stack start: [Any], depth: Int = 0) {
        guard let text = templates[name] else { return problems.append("no template '\(name)'") }
        guard depth < 8 else { return problems.append("\(name): partials nested too deep") }
        var stack = start
        var open: [(name: String, stack: [Any], isSection: Bool)] = []
        for match in text.matches(of: Self.tag) {
            let sigil = String(match.output.1), tag = String(match.output.2)
            let place = "\(name): {{\(sigil)\(tag)}}"
            switch sigil {
            case "!": continue
            case "#", "^":
                let found = resolve(tag, in: stack, place)
                open.append((tag, stack, true))
                if sigil == "#", let found { stack = push(found, on: stack, place) }
            case "$":
                // A block is drawn where the layout has it: the model holds while that is outside any section.
                if open.contains(where: \.isSection) { problems.append("\(place): a block inside a section") }
                open.append((tag, stack, false))
            case "<":
                reached.insert(tag)
                walk(tag, stack: stack, depth: depth + 1)
                open.append((tag, stack, false))
            case ">":
                reached.insert(tag)
                walk(tag, stack: stack, depth: depth + 1)
            case "/":
                guard let last = open.popLast(), last.name == tag else {
                    problems.append("\(place): closes no open section")
                    continue
                }
                stack = last.stack
            default:
                _ = resolve(tag, in: stack, place)
            }
        }
        if let last = open.last { problems.append("\(name): {{\(last.name)}} is never closed") }
    }

    /// What a section pushes: an array's first element (the samples have one), nothing for a Bool, else the value.
    mutating func push(_ value: Any, on stack: [Any], _ place: String) -> [Any] {
        if let array = value as? [Any] {
            guard let first = array.first else {
                problems.append("\(place): the sample's array is empty")
                return stack
            }
            return stack + [first]
        }
        return value is Bool ? stack : stack + [value]
    }

    mutating func resolve(_ name: String, in stack: [Any], _ place: String) -> Any? {
        lookups += 1
        if name == "." { return stack.last }
        var parts = name.split(separator: ".").map(String.init)
        var objects = stack[...]
        // `.name`: the top object only.
        if name.hasPrefix(".") { objects = stack.suffix(1) }
        guard !parts.isEmpty else { return nil }
        let first = parts.removeFirst()
        guard let index = objects.indices.last(where: { Self.field(first, of: stack[$0]) != nil }),
            let (value, optional) = Self.field(first, of: stack[index])
        else {
            problems.append("\(place): no \(first)")
            return nil
        }
        if optional, let below = stack[..<index].lastIndex(where: { Self.field(first, of: $0) != nil }) {
            let (here, there) = (type(of: stack[index]), type(of: stack[below]))
            problems.append("\(place): a nil \(first) of \(here) falls through to that of \(there)")
        }
        var current = value
        for part in parts {
            guard let (next, _) = Self.field(part, of: current) else {
                problems.append("\(place): no \(part)")
                return nil
            }
            current = next
        }
        return Self.represented(current)
    }

    static func represented(_ value: Any) -> Any? {
        guard let custom = value as? MustacheCustomRepresentation else { return value }
        return custom.representation
    }

    /// A name on one object, as swift-mustache finds it, and whether a nil there would count as missing.
    static func field(_ name: String, of object: Any) -> (value: Any, optional: Bool)? {
        guard let object = represented(object) else { return nil }
        // A dictionary's keys are data (`fields.stop_name`): any name is one, as long as the sample has an entry.
        if let dictionary = object as? [String: Any] {
            return (dictionary[name] ?? dictionary.first?.value).map { ($0, true) }
        }
        if let parent = object as? MustacheParent { return parent.child(named: name).map { ($0, false) } }
        guard let found = Mirror(reflecting: object).children.first(where: { $0.label == name })?.value else {
            return nil
        }
        let mirror = Mirror(reflecting: found)
        guard mirror.displayStyle == .optional else { return (found, false) }
        return mirror.children.first.map { ($0.value, true) }
    }
}

/// Makes a value of any `Decodable` type with every optional set, every array one element long and
/// every dictionary one entry ("sample"): a page drawn with it enters every section of its template.
struct SampleDecoder: Decoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func value<T: Decodable>(_ type: T.Type, at path: [any CodingKey]) throws -> T {
        switch type {
        case is String.Type: return "sample \(path.last?.stringValue ?? "")" as! T
        case is Bool.Type: return true as! T
        case is Int.Type: return 1 as! T
        case is Int64.Type: return Int64(1) as! T
        case is Double.Type: return 1.0 as! T
        default: return try T(from: SampleDecoder(codingPath: path))
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(codingPath: codingPath) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(codingPath: codingPath) }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        var codingPath: [any CodingKey]
        var allKeys: [Key] { Key(stringValue: "sample").map { [$0] } ?? [] }
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try SampleDecoder.value(type, at: codingPath + [key])
        }
        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            KeyedDecodingContainer(Keyed<NestedKey>(codingPath: codingPath + [key]))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            Unkeyed(codingPath: codingPath + [key])
        }
        func superDecoder() throws -> any Decoder { SampleDecoder(codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { SampleDecoder(codingPath: codingPath + [key]) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        var codingPath: [any CodingKey]
        var count: Int? { 1 }
        var currentIndex = 0
        var isAtEnd: Bool { currentIndex >= 1 }
        mutating func decodeNil() throws -> Bool { false }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            currentIndex += 1
            return try SampleDecoder.value(type, at: codingPath)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type
        ) throws -> KeyedDecodingContainer<NestedKey> {
            currentIndex += 1
            return KeyedDecodingContainer(Keyed<NestedKey>(codingPath: codingPath))
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            currentIndex += 1
            return Unkeyed(codingPath: codingPath)
        }
        mutating func superDecoder() throws -> any Decoder { SampleDecoder(codingPath: codingPath) }
    }

    struct Single: SingleValueDecodingContainer {
        var codingPath: [any CodingKey]
        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try SampleDecoder.value(type, at: codingPath) }
    }
}
