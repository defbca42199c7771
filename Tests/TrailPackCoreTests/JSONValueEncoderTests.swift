import Foundation
import Testing
import TrailPackCore
import TrailPackTestSupport

@Suite("JSONValueEncoder: Codable straight into the house JSON tree", .ownThreads)
struct JSONValueEncoderTests {
    struct Inner: Encodable { var a: Int; var b: [Double]; var c: String? }
    struct Outer: Encodable {
        var name: String
        var inner: Inner
        var list: [Inner]
        var flag: Bool
        var missing: String?
        var big: UInt64
        var negative: Int64
    }

    @Test(
        "members keep the order the type encodes them; nil optionals are left out (as JSONEncoder does); numbers keep their exact text"
    )
    func shape() throws {
        let value = Outer(
            name: "Tombstone \"Prairie\"", inner: Inner(a: 1, b: [0.5, 333.6, -2], c: nil),
            list: [Inner(a: 2, b: [], c: "x")],
            flag: true, missing: nil, big: .max, negative: .min)
        let tree = try JSONValueEncoder().encode(value)
        guard case .object(let members) = tree else {
            Issue.record("not an object: \(tree)")
            return
        }
        #expect(members.map(\.key) == ["name", "inner", "list", "flag", "big", "negative"])
        // The same document Foundation's encoder writes, once both are parsed.
        let foundation = try JSONParser.parse(Array(try JSONEncoder().encode(value))).value
        #expect(Self.canonical(tree) == Self.canonical(foundation))
        #expect(
            JSONWriter.string(tree, pretty: false).contains(
                "\"big\":18446744073709551615,\"negative\":-9223372036854775808"))
    }

    @Test("a non-finite double is an encoding error, not a bad document")
    func nonFinite() {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(["x": Double.infinity]) }
    }

    /// Members sorted by key, recursively, numbers by value: for comparing two encoders' output.
    static func canonical(_ v: JSONValue) -> String {
        switch v {
        case .object(let members):
            "{" + members.sorted { $0.key < $1.key }.map { "\($0.key):\(canonical($0.value))" }.joined(separator: ",")
                + "}"
        case .array(let items): "[" + items.map(canonical).joined(separator: ",") + "]"
        case .number(let n): Double(n.literal).map { "\($0)" } ?? n.literal
        default: JSONWriter.string(v, pretty: false)
        }
    }
}
