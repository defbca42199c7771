import Foundation
import Testing
import TrailPackTestSupport

@testable import TrailPackCore

@Suite("JSON Schema and the Swift validator agree", .ownThreads)
struct SchemaTests {
    static let examplesDir = ManifestExamples.examplesDir

    static func expectations() throws -> [String: ManifestExamples.Expectation] { try ManifestExamples.expectations() }

    @Test(
        "every example gives exactly its expected codes, and the schema's verdict is the expected one",
        .needs(.python3, .jsonschema))
    func examples() throws {
        let expected = try Self.expectations()
        #expect(expected.count >= 40)
        let files = expected.keys.sorted().map { Self.examplesDir + "/" + $0 }
        let verdicts = try ManifestExamples.schemaVerdicts(files)
        for name in expected.keys.sorted() {
            let e = expected[name]!
            let result = ManifestReader.read(try Support.read(Self.examplesDir + "/" + name))
            #expect(result.isValid == e.valid, "\(name): \(result.findings)")
            #expect(result.findings.codes.map(\.rawValue) == e.codes.sorted(), "\(name)")
            let schemaValid = try #require(verdicts[Self.examplesDir + "/" + name])
            #expect(schemaValid == (e.schema == "valid"), "jsonschema on \(name)")
            // Where the rule is within what a schema can say, both validators agree.
            if e.schema == "invalid" || e.valid {
                #expect(schemaValid == result.isValid, "\(name): schema \(schemaValid), swift \(result.isValid)")
            }
        }
    }

    @Test("every example's expected code, and every rule beyond the schema, is documented")
    func examplesCoverDocumentedRules() throws {
        let expected = try Self.expectations()
        let beyond = Set(expected.values.filter { $0.schema == "valid" && !$0.valid }.flatMap(\.codes))
        let format = try String(contentsOfFile: Support.root + "/docs/FORMAT.md", encoding: .utf8)
        let section =
            format.components(separatedBy: "### Rules beyond the JSON Schema").last?.components(separatedBy: "## 4.")
            .first ?? ""
        for code in beyond {
            #expect(section.contains("`\(code)`"), "\(code) is beyond the schema but not listed in FORMAT.md")
        }
    }

    @Test("docs/FORMAT.md lists every finding code")
    func formatListsEveryCode() throws {
        let format = try String(contentsOfFile: Support.root + "/docs/FORMAT.md", encoding: .utf8)
        for code in FindingCode.allCases {
            #expect(format.contains("| `\(code.rawValue)` |"), "\(code.rawValue) missing from FORMAT.md")
        }
    }
}
