import Foundation
import Testing
import TrailPackBuilder
import TrailPackCore
import TrailPackTestSupport

@Suite("JSON Schema and the builder's manifests", .ownThreads)
struct BuilderSchemaTests {
    @Test(
        "the manifests the builder writes for the fixtures are valid for both validators", .needs(.python3, .jsonschema)
    )
    func fixtureManifests() throws {
        try Support.withTemporaryDirectory { dir in
            var files: [String] = []
            for name in Support.fixtureNames {
                let planned = try TourBuilder.plan(Support.fixture(name)), plan = planned.plan,
                    findings = planned.findings
                let p = try #require(plan, "\(findings)")
                let path = dir + "/" + name + ".json"
                try Support.write(p.manifest.canonicalBytes, to: path)
                #expect(ManifestReader.read(p.manifest.canonicalBytes).findings.isEmpty)
                files.append(path)
            }
            let verdicts = try ManifestExamples.schemaVerdicts(files)
            for f in files { #expect(verdicts[f] == true, "jsonschema rejects \(f)") }
        }
    }
}
