import Foundation
import Testing
import TrailPackTestSupport

@testable import TrailPackCore

@Suite("strict JSON parser", .ownThreads)
struct JSONTests {
    func parse(_ text: String) throws(CoreError) -> JSONDocument { try JSONParser.parse(Array(text.utf8)) }

    @Test("parses nested values and keeps member order")
    func parsesValues() throws {
        let doc = try parse(#"{"b": [1, -2.5e3, true, false, null, "x\u00e9\n"], "a": {"c": "\ud83c\udf32"}}"#)
        guard case .object(let members) = doc.value else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["b", "a"])
        #expect(doc.value["a"]?["c"] == .string("🌲"))
        #expect(
            doc.value["b"]
                == .array([
                    .number(JSONNumber(literal: "1")), .number(JSONNumber(literal: "-2.5e3")), .bool(true),
                    .bool(false), .null, .string("xé\n"),
                ]))
        #expect(doc.duplicateKeys.isEmpty)
    }

    @Test("reports every duplicate key with its path")
    func duplicates() throws {
        let doc = try parse(#"{"a": 1, "w": [{"n": 1, "n": 2}], "a": 3}"#)
        #expect(doc.duplicateKeys.map(\.key) == ["n", "a"])
        #expect(doc.duplicateKeys.first?.path.description == "w[0]")
    }

    @Test(
        "rejects malformed documents with the kind of error",
        arguments: [
            ("", CoreError.Code.syntax),
            ("{", .syntax),
            ("{\"a\" 1}", .syntax),
            ("[1,]", .syntax),
            ("{\"a\":1}x", .syntax),
            ("'a'", .syntax),
            ("[01]", .number),
            ("[1.]", .number),
            ("[-]", .number),
            ("[1e999]", .number),
            ("\u{FEFF}{}", .encoding),
            ("[\"\\ud800\"]", .encoding),
            ("[\"a\u{01}b\"]", .syntax),
            ("[\"\\x\"]", .syntax),
            ("[NaN]", .syntax),
        ])
    func rejects(text: String, kind: CoreError.Code) {
        #expect(throws: CoreError.self) { try parse(text) }
        do { _ = try parse(text) } catch { #expect(error.code == kind, "\(text): \(error)") }
    }

    @Test("invalid UTF-8 and UTF-16 are refused")
    func encodings() {
        for bytes: [UInt8] in [
            [0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D], [0xFF, 0xFE, 0x7B, 0x00], [0x7B, 0x00, 0x7D, 0x00],
        ] {
            do {
                _ = try JSONParser.parse(bytes)
                Issue.record("accepted \(bytes)")
            } catch {
                #expect(error.code == .encoding)
            }
        }
    }

    @Test("10,000-deep nesting stops at the depth limit without crashing")
    func deepNesting() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        do { _ = try parse(text); Issue.record("accepted") } catch { #expect(error.code == .tooDeep) }
    }

    @Test("a number with 5,000 digits is refused")
    func longNumber() {
        do { _ = try parse("[" + String(repeating: "7", count: 5_000) + "]"); Issue.record("accepted") } catch {
            #expect(error.code == .number)
            #expect(error.message.contains("5000"))
        }
    }

    @Test("a document over the size limit is refused before parsing")
    func tooLarge() {
        let bytes = [UInt8](repeating: 0x20, count: 100)
        do { _ = try JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 50)); Issue.record("accepted") } catch {
            #expect(error.code == .tooLarge)
        }
    }

    @Test("errors carry line and column")
    func position() {
        do { _ = try parse("{\n  \"a\": 1,\n  \"b\": ?\n}"); Issue.record("accepted") } catch {
            #expect(error.line == 3)
            #expect(error.column == 8)
        }
    }

    @Test("the writer round-trips through the parser and escapes control characters")
    func writerRoundTrip() throws {
        let value: JSONValue = .object([
            "text": .string("line\nbreak \"quoted\" \\ tab\t \u{01} é 🌲"),
            "n": .number(JSONNumber(44.3976)),
            "i": .number(JSONNumber(Int64(-122))),
            "list": .array([.null, .bool(true), .array([]), .object([:])]),
        ])
        let bytes = JSONWriter.bytes(value)
        #expect(try JSONParser.parse(bytes).value == value)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\\u0001"))
        #expect(JSONNumber(-122.0).literal == "-122")
        #expect(JSONNumber(0.1).literal == "0.1")
    }
}
