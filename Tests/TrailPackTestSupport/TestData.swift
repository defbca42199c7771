import Foundation
import Testing
import TrailPackCore

/// Packages built once per run by the trailpack program (so that targets which may not link the
/// builder, such as the verifier's, can use them too).
package enum Packages {
    /// A small valid package (family hikes: 17 entries, deflated and stored).
    /// Empty when the fixture cannot be built: every test using it then fails on its own, instead
    /// of a `try!` aborting the whole run.
    package static let familyHikes: [UInt8] = {
        (try? Support.withTemporaryDirectory { dir in
            try Support.read(Support.buildWithProgram("family-hikes", into: dir))
        }) ?? []
    }()
}

/// The example manifests of manifests/examples and what each must give (expected.json).
package enum ManifestExamples {
    package struct Expectation: Decodable {
        package var valid: Bool
        package var codes: [String]
        package var schema: String
    }

    package static let examplesDir = Support.root + "/manifests/examples"

    package static func expectations() throws -> [String: Expectation] {
        try JSONDecoder().decode(
            [String: Expectation].self, from: Data(contentsOf: URL(fileURLWithPath: examplesDir + "/expected.json")))
    }

    /// Python's jsonschema (Draft 2020-12) over `files`: path → valid (needs `PeerTool.python3`
    /// and `PeerTool.jsonschema`).
    package static func schemaVerdicts(_ files: [String]) throws -> [String: Bool] {
        let out = try Support.run(
            "python3",
            [Support.root + "/scripts/check_schema.py", Support.root + "/manifests/manifest-v1.schema.json"] + files)
        #expect(out.status == 0, "\(out.stderr)")
        let decoded = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: [String: Any]] ?? [:]
        return decoded.mapValues { $0["valid"] as? Bool ?? false }
    }
}

/// The sample maps (fixtures/) and the frame they are checked against.
package enum MapFixtures {
    package static let baseMap = Support.fixture("santiam-wagon-road/map/santiam-wagon-road.pmtiles")
    package static let cornerMissing = Support.fixture("maps/santiam-corner-missing.pmtiles")
    package static let santiamFrame = Bounds(
        southwest: Coordinate(latitude: 44.3, longitude: -122.8),
        northeast: Coordinate(latitude: 44.5, longitude: -121.6))
}

/// A small deterministic generator for tests (SplitMix64): the same inputs on every run, so a
/// failing one comes back. The one generator of the tests (three suites had copies of their own).
package struct SplitMix: RandomNumberGenerator {
    package var state: UInt64
    package init(seed: UInt64) { state = seed }
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A number in `0..<n` (0 when `n` is not positive).
    package mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(1, n))) }
    /// One of `items`, which must not be empty.
    package mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    /// `count` bytes.
    package mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
}

/// JSON printed by a program (trailpack's reports, a server's answers), decoded before a test asserts
/// on it: with the house parser, so members keep their order and numbers their exact text.
package enum JSON {
    /// The value of `text`, which must be one JSON document.
    package static func parse(_ text: some StringProtocol) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8)).value
    }
    package static func parse(_ bytes: Data) throws -> JSONValue { try JSONParser.parse(Array(bytes)).value }
}

extension JSONValue {
    /// The string, if this is one.
    package var string: String? { if case .string(let s) = self { s } else { nil } }
    /// The whole number, if this is one.
    package var int: Int? { if case .number(let n) = self { n.int64.map(Int.init) } else { nil } }
    /// The elements, if this is an array.
    package var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    /// The members' keys, in order, if this is an object.
    package var keys: [String]? { if case .object(let m) = self { m.map(\.key) } else { nil } }
}
