import Foundation
import Testing
import TrailPackBuilder
@testable import TrailPackCore

@Suite("JSON Schema and the Swift validator agree")
struct SchemaTests {
    struct Expectation: Decodable {
        var valid: Bool
        var codes: [String]
        var schema: String
    }

    static let examplesDir = Support.root + "/manifests/examples"

    static func expectations() throws -> [String: Expectation] {
        try JSONDecoder().decode([String: Expectation].self, from: Data(contentsOf: URL(fileURLWithPath: examplesDir + "/expected.json")))
    }

    /// Python's jsonschema (Draft 2020-12) over `files`: path → valid.
    static func schemaVerdicts(_ files: [String]) throws -> [String: Bool] {
        let out = try Support.run("python3", [Support.root + "/scripts/check_schema.py", Support.root + "/manifests/manifest-v1.schema.json"] + files)
        #expect(out.status == 0, "\(out.stderr)")
        let decoded = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: [String: Any]] ?? [:]
        return decoded.mapValues { $0["valid"] as? Bool ?? false }
    }

    @Test("every example gives exactly its expected codes, and the schema's verdict is the expected one")
    func examples() throws {
        let expected = try Self.expectations()
        #expect(expected.count >= 40)
        let files = expected.keys.sorted().map { Self.examplesDir + "/" + $0 }
        let verdicts = try Self.schemaVerdicts(files)
        for name in expected.keys.sorted() {
            let e = expected[name]!
            let result = ManifestReader.read(try Support.read(Self.examplesDir + "/" + name))
            #expect(result.isValid == e.valid, "\(name): \(result.findings)")
            #expect(result.findings.codes.map(\.rawValue) == e.codes.sorted(), "\(name)")
            let schemaValid = try #require(verdicts[Self.examplesDir + "/" + name])
            #expect(schemaValid == (e.schema == "valid"), "jsonschema on \(name)")
            // Where the rule is within what a schema can say, both validators agree.
            if e.schema == "invalid" || e.valid { #expect(schemaValid == result.isValid, "\(name): schema \(schemaValid), swift \(result.isValid)") }
        }
    }

    @Test("every example's expected code, and every rule beyond the schema, is documented")
    func examplesCoverDocumentedRules() throws {
        let expected = try Self.expectations()
        let beyond = Set(expected.values.filter { $0.schema == "valid" && !$0.valid }.flatMap(\.codes))
        let format = try String(contentsOfFile: Support.root + "/docs/FORMAT.md", encoding: .utf8)
        let section = format.components(separatedBy: "### Rules beyond the JSON Schema").last?.components(separatedBy: "## 4.").first ?? ""
        for code in beyond { #expect(section.contains("`\(code)`"), "\(code) is beyond the schema but not listed in FORMAT.md") }
    }

    @Test("the manifests the builder writes for the fixtures are valid for both validators")
    func fixtureManifests() throws {
        try Support.withTemporaryDirectory { dir in
            var files: [String] = []
            for name in Support.fixtureNames {
                let planned = try TourBuilder.plan(Support.fixture(name)), plan = planned.plan, findings = planned.findings
                let p = try #require(plan, "\(findings)")
                let path = dir + "/" + name + ".json"
                try Support.write(p.manifest.canonicalBytes, to: path)
                #expect(ManifestReader.read(p.manifest.canonicalBytes).findings.isEmpty)
                files.append(path)
            }
            let verdicts = try Self.schemaVerdicts(files)
            for f in files { #expect(verdicts[f] == true, "jsonschema rejects \(f)") }
        }
    }

    @Test("docs/FORMAT.md lists every finding code")
    func formatListsEveryCode() throws {
        let format = try String(contentsOfFile: Support.root + "/docs/FORMAT.md", encoding: .utf8)
        for code in FindingCode.allCases { #expect(format.contains("| `\(code.rawValue)` |"), "\(code.rawValue) missing from FORMAT.md") }
    }
}
