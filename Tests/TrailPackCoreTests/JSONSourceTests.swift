import Foundation
import Testing
import TrailPackCore
import TrailPackTestSupport

@Suite("JSON in the ranger's files", .ownThreads)
struct JSONSourceTests {
    struct Mistake: Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        var line: Int
        var words: String
        var testDescription: String { name }
    }

    static let mistakes: [Mistake] = [
        Mistake(
            name: "trailing comma in an object", text: "{\n  \"name\": \"A\",\n  \"order\": 2,\n}\n", line: 3,
            words: "there is a comma after the last item on line 3; remove it"),
        Mistake(
            name: "trailing comma in a list", text: "{\"assets\": [\n  \"a.md\",\n  \"b.png\",\n]}", line: 3,
            words: "there is a comma after the last item on line 3"),
        Mistake(
            name: "curly quotes", text: "{\n  “name”: “House Rock”\n}", line: 2,
            words: "this line uses curly quotes “ ” from a word processor; use straight quotes \""),
        Mistake(
            name: "backslash in a file name", text: "{\"assets\": [\"photos\\IMG_002.JPG\"]}", line: 1,
            words: "a backslash (\\) in a file name: use / instead (photos/IMG_002.JPG)"),
        Mistake(
            name: "decimal comma", text: "{\"coordinate\": {\n  \"latitude\": 44,28,\n  \"longitude\": -122.1}}",
            line: 2,
            words: "a decimal comma in 44,28: write 44.28 with a point"),
        Mistake(
            name: "quote inside text", text: "{\"description\": \"The \"Old\" mill\"}", line: 1,
            words: "a quote (\") inside the text ends the text early; write \\\" for a quote inside text, or use ’"),
        Mistake(
            name: "missing comma", text: "{\n  \"name\": \"A\"\n  \"order\": 2\n}", line: 2,
            words: "a comma is missing at the end of line 2"),
        Mistake(name: "single quotes", text: "{'name': 'A'}", line: 1, words: "double quotes \", not single quotes '"),
        Mistake(name: "unquoted text", text: "{\"name\": House Rock}", line: 1, words: "write \"House Rock\""),
    ]

    @Test("every typical mistake gets its plain-words message, on the right line", arguments: mistakes)
    func plainWords(_ m: Mistake) throws {
        let doc = JSONParser.parseSource(Array(m.text.utf8))
        let issue = try #require(doc.issues.first, "no issue for \(m.name)")
        #expect(issue.message.contains(m.words), "\(m.name): \(issue.message)")
        #expect(issue.line == m.line, "\(m.name): reported on line \(issue.line)")
        // The package's manifest stays strict: the same bytes are refused by the strict parser.
        #expect(throws: CoreError.self) { try JSONParser.parse(Array(m.text.utf8)) }
    }

    @Test("a byte-order mark and trailing commas are accepted with a warning; the value is what was meant")
    func forgiven() throws {
        let doc = JSONParser.parseSource(
            [0xEF, 0xBB, 0xBF] + Array("{\n\"a\": [1, 2,],\n\"b\": 44,28,\n\"c\": \"x\",\n}".utf8))
        #expect(doc.issues.filter(\.forgiven).count == 3)
        #expect(doc.issues.filter { !$0.forgiven }.count == 1, "the decimal comma is an error")
        let value = try #require(doc.value)
        #expect(value["a"] == .array([.number(JSONNumber(literal: "1")), .number(JSONNumber(literal: "2"))]))
        #expect(value["b"] == .number(JSONNumber(literal: "44.28")))
        #expect(value["c"] == .string("x"))
        #expect(doc.issues.first?.line == 1 && doc.issues.first?.message.contains("byte-order mark") == true)
        #expect(doc.issues[1].line == 2, "lines count from after the BOM")
        #expect(throws: CoreError.self) { try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("{}".utf8)) }
    }
}

@Suite("source mode against hostile and mutated input", .ownThreads)
struct JSONSourceMutationTests {
    @Test("mutated tour files never crash source mode, and a document the strict parser accepts reads the same")
    func mutations() throws {
        let original = try Support.read(
            Support.fixture("santiam-wagon-road") + "/waypoints/04-house-rock/waypoint.json")
        let interesting: [[UInt8]] = [
            [0x2C], [0x22], [0x5C], [0x7D], [0x5D], [0x7B], [0x5B], [0x3A], [0xE2, 0x80, 0x9C], [0xE2, 0x80, 0x9D],
            [0x30], [0x61], [0x0A], [0x27], [0xEF, 0xBB, 0xBF], [], [0xE2],
        ]
        var seed: UInt64 = 0x5EED
        func next() -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int(seed >> 33) }
        var lenientOnly = 0
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<(1 + next() % 3) {
                let at = next() % bytes.count
                let piece = interesting[next() % interesting.count]
                if next() % 2 == 0 {
                    bytes.replaceSubrange(at..<min(bytes.count, at + 1), with: piece)
                } else {
                    bytes.insert(contentsOf: piece, at: at)
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            let source = JSONParser.parseSource(bytes)
            #expect(source.issues.count <= JSONParser.maxIssues)
            if let strict = try? JSONParser.parse(bytes) {
                #expect(source.value == strict.value, "source mode read a valid document differently")
                #expect(source.issues.isEmpty)
            } else if source.issues.allSatisfy(\.forgiven), source.value != nil {
                lenientOnly += 1
            } else {
                #expect(
                    !source.issues.filter { !$0.forgiven }.isEmpty,
                    "a document the strict parser refuses has no error in source mode")
            }
        }
        #expect(lenientOnly > 0, "some mutations are only trailing commas or BOMs, accepted with a warning")
    }

    @Test("a file of nothing but mistakes stops at the limit, quickly")
    func manyMistakes() {
        let bytes = Array(("{" + (0..<50_000).map { "\"a\($0)\": 1,2\n" }.joined() + "}").utf8)
        let doc = JSONParser.parseSource(bytes)
        #expect(doc.issues.count == JSONParser.maxIssues)
    }
}
