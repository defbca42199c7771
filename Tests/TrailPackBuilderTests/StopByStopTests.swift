import Foundation
import Testing
import TrailPackCore
import TrailPackTestSupport

@testable import TrailPackBuilder

/// The plan holds its stops' assets only where the language rules read them, and makes the rest
/// from its file records when asked: what it writes, counts and finds must be what the whole
/// manifest gives.
@Suite("the plan's stops made from its records", .ownThreads)
struct StopByStopTests {
    /// Validates `m` stop by stop, letting go of the assets as the builder does.
    static func validatedStopByStop(_ m: Manifest) -> [Finding] {
        final class Paths: ManifestAssetSink {
            let paths: [String]
            init(_ m: Manifest) { paths = m.waypoints.flatMap(\.assets).map(\.path) }
            func take(_ assets: [Asset], waypoint: Int, first: Int) {}
            func path(ofAsset number: Int) -> String { paths[number] }
            var keepsAssets: Bool { false }
            var assetCapacity: Int { paths.count }
        }
        let validation = ManifestValidator.StopByStop(assets: Paths(m))
        var outline = m
        for i in outline.waypoints.indices { validation.take(&outline.waypoints[i], at: i) }
        #expect(validation.assetCount == m.waypoints.reduce(0) { $0 + $1.assets.count })
        return validation.validate(outline)
    }

    @Test(
        "every fixture: the manifest's bytes, its counts, a phone's bytes per language, its outline",
        arguments: Support.fixtureNames)
    func fixtures(name: String) throws {
        let plan = try #require(try TourBuilder.plan(Support.fixture(name)).plan)
        let m = plan.manifest
        #expect(plan.assetCount == m.assetCount)
        #expect(plan.outline.waypoints.count == m.waypoints.count)
        #expect(plan.outline.waypoints.reduce(0) { $0 + $1.assets.count } < m.assetCount, "every asset held")
        // The bytes written from the outline and the records are the whole manifest's.
        var written: [UInt8] = []
        let size = plan.outline.writeCanonical(stopAssets: plan.assets(ofStop:)) { written += $0 }
        #expect(size == written.count && written == m.canonicalBytes)
        for language in m.languages + [nil] { #expect(plan.phoneBytes(for: language) == m.bytes(for: language)) }
        #expect(Self.validatedStopByStop(m).map(\.description) == ManifestValidator.validate(m).map(\.description))
    }

    /// Every rule of the validator broken once (the example manifests), and each with its
    /// languages, language rule and translations after its stops: the same findings, stop by stop.
    @Test("every example manifest, checked stop by stop, finds what the whole manifest finds")
    func examples() throws {
        let root = ManifestExamples.examplesDir
        var count = 0
        for folder in ["valid", "invalid"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: root + "/" + folder).sorted()
            where name.hasSuffix(".json") {
                let read = ManifestReader.read(try Support.read(root + "/" + folder + "/" + name))
                guard let m = read.manifest else { continue }
                #expect(
                    Self.validatedStopByStop(m).map(\.description) == ManifestValidator.validate(m).map(\.description),
                    "\(folder)/\(name)")
                count += 1
            }
        }
        #expect(count >= 60)
    }
}
