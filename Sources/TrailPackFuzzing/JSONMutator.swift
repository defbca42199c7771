import TrailPackCore

/// Changes a JSON document by its structure — a member removed, duplicated or renamed, a value
/// replaced by one of another type or at the edge of its range, a string with control,
/// bidirectional or decomposed characters, a list emptied or repeated, deep nesting — so that
/// the manifest's validator and the package's content checks are fuzzed with documents that
/// parse, not only with broken bytes.
public enum JSONMutator {
    /// `bytes` with one structural change, or nil when they are not JSON.
    /// A mutated document and what was done to it.
    public struct Mutation: Sendable {
        /// The document after the mutation.
        public var bytes: [UInt8]
        /// What was changed, for the fuzzer's log.
        public var what: String
    }

    public static func mutate(_ bytes: [UInt8], using random: inout some RandomNumberGenerator) -> Mutation? {
        guard let document = try? JSONParser.parse(bytes) else { return nil }
        var value = document.value
        var paths: [[Int]] = []
        collect(value, at: [], into: &paths)
        guard let path = paths.randomElement(using: &random) else { return nil }
        let what = change(&value, at: path[...], using: &random)
        return Mutation(bytes: JSONWriter.bytes(value), what: what)
    }

    /// Every position in the tree, as member or element indexes.
    private static func collect(_ value: JSONValue, at path: [Int], into paths: inout [[Int]]) {
        paths.append(path)
        switch value {
        case .object(let members): for (i, m) in members.enumerated() { collect(m.value, at: path + [i], into: &paths) }
        case .array(let items): for (i, v) in items.enumerated() { collect(v, at: path + [i], into: &paths) }
        default: break
        }
    }

    private static func change(
        _ value: inout JSONValue, at path: ArraySlice<Int>, using random: inout some RandomNumberGenerator
    ) -> String {
        if let first = path.first {
            switch value {
            case .object(var members) where members.indices.contains(first):
                if path.count == 1, Int.random(in: 0..<4, using: &random) == 0 {
                    // Change the member itself rather than its value.
                    let what = changeMember(&members, at: first, using: &random)
                    value = .object(members)
                    return what
                }
                let what = change(&members[first].value, at: path.dropFirst(), using: &random)
                value = .object(members)
                return "\(members[first].key).\(what)"
            case .array(var items) where items.indices.contains(first):
                if path.count == 1, Int.random(in: 0..<4, using: &random) == 0 {
                    if Bool.random(using: &random) {
                        items.remove(at: first)
                    } else {
                        items.insert(items[first], at: first)
                    }
                    value = .array(items)
                    return "[\(first)] removed or repeated"
                }
                let what = change(&items[first], at: path.dropFirst(), using: &random)
                value = .array(items)
                return "[\(first)].\(what)"
            default:
                return "(nothing)"
            }
        }
        value = replacement(for: value, using: &random)
        return "= \(JSONWriter.string(value, pretty: false).prefix(60))"
    }

    private static func changeMember(
        _ members: inout [JSONMember], at i: Int, using random: inout some RandomNumberGenerator
    ) -> String {
        let key = members[i].key
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            members.remove(at: i)
            return "\(key) removed"
        case 1:
            members.insert(members[i], at: i)
            return "\(key) duplicated"
        case 2:
            members[i].key = key.uppercased()
            return "\(key) renamed \(members[i].key)"
        default:
            members.append(JSONMember("unknownField", .string("x")))
            return "unknown member added"
        }
    }

    /// A value of another type, or at the edge of its own.
    private static func replacement(for value: JSONValue, using random: inout some RandomNumberGenerator) -> JSONValue {
        let strings = [
            "", " ", "\u{1b}[31m", "a\u{202e}b", "e\u{301}", "../../etc/passwd", "waypoints/x/../../a",
            String(repeating: "x", count: 4097), "CON", "\u{0}", "0", "1.0.0", "Ω",
        ]
        let numbers = [
            "0", "-0", "1", "-1", "90.0000001", "-180.000001", "1e308", "-1e308", "9223372036854775807",
            "9223372036854775808", "18446744073709551615", "0.1e-400", "4294967295",
        ]
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return .string(strings.randomElement(using: &random)!)
        case 1: return .number(JSONNumber(literal: numbers.randomElement(using: &random)!))
        case 2: return [.null, .bool(true), .bool(false)].randomElement(using: &random)!
        case 3: return .array(Bool.random(using: &random) ? [] : [value, value])
        case 4: return .object([])
        default:
            var nested = value
            for _ in 0..<Int.random(in: 1...40, using: &random) { nested = .array([nested]) }
            return nested
        }
    }
}
