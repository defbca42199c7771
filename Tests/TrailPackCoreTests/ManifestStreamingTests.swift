import Foundation
import Testing
import TrailPackTestSupport

@testable import TrailPackCore

/// `ManifestReader` decodes each waypoint as it is parsed and lets its JSON go. Whatever the
/// document, the result must be what decoding the whole tree at once gives: the same manifest and
/// the same findings in the same order.
@Suite("manifest read a waypoint at a time", .ownThreads)
struct ManifestStreamingTests {
    /// The reading of `bytes` from one tree of the whole document (as before streaming).
    static func wholeTree(_ bytes: [UInt8]) -> ManifestReading {
        let document: JSONDocument
        do { document = try JSONParser.parse(bytes) } catch {
            return .init(
                manifest: nil,
                findings: [Finding(error.code.findingCode ?? .jsonSyntax, path: .root, "not valid JSON at \(error)")])
        }
        var findings = document.duplicateKeys.map(\.finding)
        let decoded = ManifestDecoder.decode(document.value)
        findings += decoded.findings
        if let manifest = decoded.manifest {
            findings += ManifestValidator.validate(manifest, unreadable: decoded.unreadable)
        }
        return .init(manifest: decoded.manifest, findings: findings)
    }

    static let examples: [String] = ["valid", "invalid"].flatMap { folder in
        ((try? FileManager.default.contentsOfDirectory(atPath: Support.root + "/manifests/examples/" + folder)) ?? [])
            .sorted()
            .map { folder + "/" + $0 }
    }

    @Test("every example manifest, valid and invalid, reads the same", arguments: examples)
    func examplesReadTheSame(example: String) throws {
        let bytes = try Support.read(Support.root + "/manifests/examples/" + example)
        let streamed = ManifestReader.read(bytes), whole = Self.wholeTree(bytes)
        #expect(streamed.manifest == whole.manifest)
        #expect(streamed.findings == whole.findings, "\(example)")
    }

    /// Documents whose `waypoints` are odd: where the streamed list and the whole tree could part.
    static let oddDocuments: [String] = {
        let stop =
            #"{"name": "A", "slug": "a", "order": 1, "coordinate": {"latitude": 44.4, "longitude": -122.2}, "description": "x", "assets": []}"#
        let bad =
            #"{"name": 3, "slug": "a", "order": "1", "coordinate": {"latitude": 444, "longitude": -122.2}, "nonsense": true, "assets": [{"path": "x"}]}"#
        let head =
            #""id": "org.example.odd", "version": "1", "name": "Odd", "park": "P", "site": {"id": "s", "name": "S"}, "mapName": "m", "bounds": {"southwest": {"latitude": 44, "longitude": -123}, "northeast": {"latitude": 45, "longitude": -122}}, "description": "d""#
        return [
            #"{"formatVersion": 1, \#(head), "waypoints": [\#(stop), \#(bad)]}"#,
            #"{"waypoints": [\#(bad), \#(stop)], "formatVersion": 1, \#(head)}"#,  // before the format version
            #"{"waypoints": [\#(bad)], "formatVersion": 2, \#(head)}"#,  // an unsupported format: nothing else judged
            // the first one counts
            #"{"formatVersion": 1, \#(head), "waypoints": [\#(stop)], "waypoints": [\#(bad)]}"#,
            // not a list, then a list
            #"{"formatVersion": 1, \#(head), "waypoints": {"a": [\#(bad)]}, "waypoints": [\#(stop)]}"#,
            #"{"formatVersion": 1, \#(head), "waypoints": []}"#,
            #"{"formatVersion": 1, \#(head)}"#,
            #"{"formatVersion": 1, \#(head), "waypoints": [1, "two", null, [\#(stop)]]}"#,
            #"{"formatVersion": 1, \#(head), "site": {"id": "s", "name": "S", "waypoints": [\#(bad)]}, "waypoints": [\#(stop), {"name": "B", "name": "C"}]}"#,
            #"{"formatVersion": 1, \#(head), "waypoints": [\#(stop), \#(stop)"#,  // cut short
            #"[{"waypoints": [\#(stop)]}]"#,
        ]
    }()

    @Test(
        "odd waypoints lists read the same: duplicates, not a list, before the format version, cut short",
        arguments: oddDocuments.indices)
    func oddDocumentsReadTheSame(index: Int) {
        let bytes = Array(Self.oddDocuments[index].utf8)
        let streamed = ManifestReader.read(bytes), whole = Self.wholeTree(bytes)
        // Compared as text: a coordinate that could not be read is NaN, which is never == itself.
        #expect(String(describing: streamed.manifest) == String(describing: whole.manifest))
        #expect(streamed.findings == whole.findings, "\(Self.oddDocuments[index])")
    }

    @Test("the parser hands over the first top-level list of that name element by element, and keeps nothing of it")
    func parserStreams() throws {
        let text = #"{"a": {"list": [9]}, "list": [1, {"x": [2]}, "three"], "list": [4]}"#
        var got: [(Int, JSONValue)] = []
        let document = try JSONParser.parse(Array(text.utf8), streaming: "list") { got.append(($0, $1)) }
        #expect(got.map(\.0) == [0, 1, 2])
        #expect(
            got.map(\.1) == [
                .number(JSONNumber(Int64(1))), .object([JSONMember("x", .array([.number(JSONNumber(Int64(2)))]))]),
                .string("three"),
            ])
        let whole = try JSONParser.parse(Array(text.utf8))
        guard case .object(var members) = whole.value else { Issue.record("not an object"); return }
        members[1].value = .array([])
        #expect(document.value == .object(members))
        #expect(document.duplicateKeys == whole.duplicateKeys)
    }
}
