import Foundation
import Testing
import TrailPackFuzzing
import TrailPackTestSupport

@testable import TrailPackCore

/// The verifier parses a manifest as it is inflated (`JSONParser.parse(chunks:…)`), holding about
/// 64 KiB of it: whatever the document and wherever its chunks end, the outcome must be the one
/// parsing all its bytes at once gives — the same value, elements, duplicate keys, or the same
/// error at the same line and column.
@Suite("JSON read in chunks", .ownThreads)
struct JSONChunkedTests {
    /// What parsing came to, comparable.
    enum Outcome: Equatable, CustomStringConvertible {
        case parsed(JSONValue, elements: [JSONValue], duplicates: [JSONDuplicateKey])
        case failed(CoreError.Code, String, line: Int?, column: Int?)

        var description: String {
            switch self {
            case .parsed(_, let elements, let duplicates): "parsed, \(elements.count) elements, \(duplicates)"
            case .failed(let code, let message, let line, let column):
                "\(code) at \(line ?? 0):\(column ?? 0): \(message)"
            }
        }
    }

    /// Hands out `bytes` in chunks of the sizes `sizes` gives in turn, each in a buffer of its own
    /// that is overwritten by the next (as an inflater's is).
    final class Chunks {
        let bytes: [UInt8]
        let sizes: [Int]
        var offset = 0
        var turn = 0
        let buffer: UnsafeMutableRawBufferPointer

        init(_ bytes: [UInt8], sizes: [Int]) {
            self.bytes = bytes
            self.sizes = sizes
            buffer = .allocate(byteCount: sizes.max()!, alignment: 1)
        }
        deinit { buffer.deallocate() }

        func next() -> UnsafeRawBufferPointer? {
            guard offset < bytes.count else { return nil }
            let n = min(sizes[turn % sizes.count], bytes.count - offset)
            turn += 1
            buffer.initializeMemory(as: UInt8.self, repeating: 0xEE)  // what the caller kept is gone
            buffer.copyBytes(from: bytes[offset..<offset + n])
            offset += n
            return UnsafeRawBufferPointer(rebasing: buffer[0..<n])
        }
    }

    static func whole(_ bytes: [UInt8], limits: JSONLimits = .manifest) -> Outcome {
        var elements: [JSONValue] = []
        do {
            let d = try JSONParser.parse(bytes, limits: limits, streaming: "waypoints") { elements.append($1) }
            return .parsed(d.value, elements: elements, duplicates: d.duplicateKeys)
        } catch {
            return .failed(error.code, error.message, line: error.line, column: error.column)
        }
    }

    static func chunked(_ bytes: [UInt8], sizes: [Int], limits: JSONLimits = .manifest) -> Outcome {
        var elements: [JSONValue] = []
        let chunks = Chunks(bytes, sizes: sizes)
        do {
            let d = try JSONParser.parse(chunks: chunks.next, limits: limits, streaming: "waypoints") {
                elements.append($1)
            }
            return .parsed(d.value, elements: elements, duplicates: d.duplicateKeys)
        } catch {
            return .failed(error.code, error.message, line: error.line, column: error.column)
        }
    }

    /// Chunk sizes: one byte at a time, odd sizes that split every kind of token, and whole blocks.
    static let sizeSets: [[Int]] = [[1], [2, 3], [7], [1, 64, 5], [4096], [65_536], [70_001, 13]]

    /// A manifest of `stops` waypoints, printed over many lines: past the bytes the parser keeps,
    /// so that what it let go must still count for lines, columns and duplicate keys.
    static func large(stops: Int, tail: String = "") -> [UInt8] {
        var text =
            #"{"formatVersion": 1, "id": "org.example.large", "version": "1.0.0", "name": "Große Runde", "waypoints": ["#
        for i in 0..<stops {
            text += i == 0 ? "\n" : ",\n"
            text += """
                  {"name": "Stop \(i) — “über” \\u00e9\\ud83c\\udf32", "order": \(i + 1), "slug": "s\(i)",
                   "coordinate": {"latitude": 44.\(i), "longitude": -122.5e0},
                   "assets": [{"path": "waypoints/s\(i)/a.txt", "size": \(i * 7), "sha256": "\(String(repeating: "ab", count: 32))"}]}
                """
        }
        text += "\n]" + tail + "}\n"
        return Array(text.utf8)
    }

    /// Enough waypoints that the document is several times what the parser keeps.
    static let stops = 1000

    static let documents: [(String, [UInt8])] = {
        var documents: [(String, [UInt8])] = []
        for folder in ["valid", "invalid"] {
            let dir = Support.root + "/manifests/examples/" + folder
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() {
                if let bytes = try? Support.read(dir + "/" + name) { documents.append((folder + "/" + name, bytes)) }
            }
        }
        for (i, text) in ManifestStreamingTests.oddDocuments.enumerated() {
            documents.append(("odd \(i)", Array(text.utf8)))
        }
        let large = Self.large(stops: stops)
        documents.append(("\(stops) stops", large))
        documents.append(
            ("\(stops) stops, a key twice at the end", Self.large(stops: Self.stops, tail: #", "id": "again""#)))
        documents.append(("\(stops) stops, cut short", Array(large.prefix(large.count - 40))))
        documents.append(
            ("\(stops) stops, a comma missing at the end", Self.large(stops: Self.stops, tail: #" "x": 1"#)))
        documents.append(("\(stops) stops, then more", large + Array(" {}".utf8)))
        documents.append(
            ("\(stops) stops, a bad byte at the end", Self.large(stops: Self.stops, tail: ", \"x\": \"\u{7}\"")))
        documents.append(("\(stops) stops, bad UTF-8 at the end", Self.large(stops: stops) + [0xC3, 0x28]))
        let long = String(repeating: "long text ", count: 30_000)
        documents.append(("a 300 KB string", Array(#"{"a": "\#(long)", "b": "\#(long)\u00e9"}"#.utf8)))
        documents.append(("a 300 KB string, not closed", Array(#"{"a": "\#(long)"#.utf8)))
        documents.append(
            (
                "a long number",
                Array(
                    #"{"a": 1\#(String(repeating: "0", count: 39)), "b": 1\#(String(repeating: "0", count: 40))}"#.utf8)
            ))
        documents.append(("empty", []))
        documents.append(("a byte-order mark", [0xEF, 0xBB, 0xBF] + Array("{}".utf8)))
        documents.append(("UTF-16", [0x7B, 0x00, 0x7D, 0x00]))
        documents.append(("whitespace only", Array("  \n ".utf8)))
        return documents
    }()

    @Test("every document reads the same whole and in chunks of every size", arguments: documents.indices)
    func sameOutcome(index: Int) {
        let (name, bytes) = Self.documents[index]
        let expected = Self.whole(bytes)
        for sizes in Self.sizeSets {
            let got = Self.chunked(bytes, sizes: sizes)
            #expect(got == expected, "\(name), chunks of \(sizes): \(got), whole: \(expected)")
        }
    }

    @Test("the large documents really go past what the parser keeps, and the errors in them are where they are")
    func largeDocumentsAreLarge() {
        let bytes = Self.large(stops: Self.stops, tail: #", "id": "again""#)
        #expect(bytes.count > 3 * JSONParser.keptBytes)
        guard case .parsed(_, let elements, let duplicates) = Self.chunked(bytes, sizes: [4096]) else {
            Issue.record("not parsed")
            return
        }
        #expect(elements.count == Self.stops)
        // What the parser held at once: what it keeps, a chunk, and the token it was in.
        let kept = JSONParser.parseCountingKept(chunks: Chunks(bytes, sizes: [4096]).next).mostKept
        #expect(kept <= JSONParser.keptBytes + 2 * 4096, "\(kept) bytes kept of \(bytes.count)")
        #expect(duplicates.map(\.key) == ["id"])
        #expect(duplicates.first?.line == 3 * Self.stops + 2)
        guard
            case .failed(.syntax, _, let line?, _) = Self.chunked(
                Self.large(stops: Self.stops, tail: #" "x": 1"#), sizes: [1])
        else {
            Issue.record("a missing comma was not an error")
            return
        }
        #expect(line == 3 * Self.stops + 2)
    }

    @Test("a document in chunks stops at its size limit")
    func sizeLimit() {
        let bytes = Self.large(stops: 20)
        let limits = JSONLimits(maxBytes: bytes.count - 1)
        guard case .failed(.tooLarge, _, _, _) = Self.whole(bytes, limits: limits) else {
            Issue.record("whole: not too large")
            return
        }
        for sizes in Self.sizeSets {
            guard case .failed(.tooLarge, let message, _, _) = Self.chunked(bytes, sizes: sizes, limits: limits) else {
                Issue.record("chunks of \(sizes): not too large")
                continue
            }
            #expect(message.contains("\(bytes.count - 1)"))
        }
        #expect(Self.chunked(bytes, sizes: [100], limits: JSONLimits(maxBytes: bytes.count)) == Self.whole(bytes))
        // An error before the limit gives way to it, as the whole bytes are judged before they are parsed.
        for (text, limit) in [("x     ", 4), ("{\"a\": tru" + String(repeating: " ", count: 100), 50), ("[1,]   ", 6)] {
            let small = JSONLimits(maxBytes: limit)
            for sizes in Self.sizeSets {
                let got = Self.chunked(Array(text.utf8), sizes: sizes, limits: small)
                guard case .failed(.tooLarge, _, 1, 1) = got else {
                    Issue.record("'\(text)', limit \(limit), chunks of \(sizes): \(got)")
                    continue
                }
            }
        }
    }

    @Test("a megabyte of whitespace is let go as it is read, and still counts for lines and columns")
    func longRunsLetGo() {
        let spaces = Array(("{\"a\":" + String(repeating: " ", count: 1 << 20) + "1, \"b\": x}").utf8)
        let expected = Self.whole(spaces)
        guard case .failed(.syntax, _, 1, _) = expected else {
            Issue.record("\(expected)")
            return
        }
        #expect(Self.chunked(spaces, sizes: [4096]) == expected)
        let lines = Array(("{\"a\":" + String(repeating: " \n", count: 1 << 19) + "1, \"b\": x}").utf8)
        #expect(Self.chunked(lines, sizes: [4096]) == Self.whole(lines))
        for bytes in [spaces, lines] {
            let chunks = Chunks(bytes, sizes: [4096])
            let kept = JSONParser.parseCountingKept(chunks: chunks.next).mostKept
            #expect(kept <= JSONParser.keptBytes + 2 * 4096, "\(kept) bytes kept of \(bytes.count)")
        }
    }

    /// Byte changes at random places, and structure changes (`JSONMutator`) of parseable documents:
    /// damage in the middle of a token that a chunk splits is where the two ways could part.
    @Test("1,200 mutants of the documents read the same whole and in chunks")
    func mutants() {
        var random = SeededRandom(seed: 20_261_127)
        let special: [UInt8] = Array("{}[],:\"\\u0-.eE \n\t".utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xE2, 0xED, 0xF4, 0xFF]
        var compared = 0
        for round in 0..<1_200 {
            let (name, original) = Self.documents[Int(random.next() % UInt64(Self.documents.count))]
            var bytes = original
            var what = ""
            if round % 3 == 0, let mutation = JSONMutator.mutate(bytes, using: &random) {
                bytes = mutation.bytes
                what = mutation.what
            } else if !bytes.isEmpty {
                for _ in 0...(random.next() % 3) where !bytes.isEmpty {
                    let at = Int(random.next() % UInt64(bytes.count))
                    switch random.next() % 4 {
                    case 0: bytes[at] = special[Int(random.next() % UInt64(special.count))]
                    case 1: bytes.remove(at: at)
                    case 2: bytes.insert(special[Int(random.next() % UInt64(special.count))], at: at)
                    default: bytes.removeLast(bytes.count - at)
                    }
                    what += "bytes at \(at) "
                }
            }
            let sizes = Self.sizeSets[Int(random.next() % UInt64(Self.sizeSets.count))]
            let expected = Self.whole(bytes), got = Self.chunked(bytes, sizes: sizes)
            #expect(got == expected, "round \(round), \(name), \(what), chunks of \(sizes): \(got), whole: \(expected)")
            compared += 1
        }
        #expect(compared == 1_200)
    }

    @Test("a manifest read in chunks gives the manifest and findings of its bytes", arguments: documents.indices)
    func manifestsReadTheSame(index: Int) {
        let (name, bytes) = Self.documents[index]
        let whole = ManifestReader.read(bytes)
        let chunks = Chunks(bytes, sizes: [3, 4096])
        let chunked = ManifestReader.read(chunks: chunks.next)
        // As text when not equal: a coordinate that could not be read is NaN, never == itself.
        #expect(
            chunked.manifest == whole.manifest
                || String(describing: chunked.manifest) == String(describing: whole.manifest), "\(name)")
        #expect(chunked.findings == whole.findings, "\(name)")
    }
}
