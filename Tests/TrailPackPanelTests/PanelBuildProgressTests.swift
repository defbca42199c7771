import Foundation
import Testing
import TrailPackTestFixtures
import TrailPackTestSupport
import TrailPackVerifier

@testable import TrailPackBuilder
@testable import TrailPackPanel

/// The panel's build progress: what `…/build-status` answers while the builder runs.
@Suite("panel: build progress", .ownThreads)
struct PanelBuildProgressTests {
    @Test(
        "a running build reports its phase, files, bytes and percentage, then the checks' stage in words; none once it ended; a silent progress writes nowhere"
    )
    func status() {
        let builds = PanelBuilds()
        #expect(builds.status("/drafts/a/b") == nil)
        let progress = BuildProgress(fileDescriptor: -1)
        #expect(builds.begin("/drafts/a/b", progress))
        #expect(!builds.begin("/drafts/a/b", BuildProgress(fileDescriptor: -1)), "one build per draft at a time")
        #expect(builds.status("/drafts/a/b")?.text == "reading the tour folder")
        progress.start(phase: "writing", files: 4, bytes: 4 << 20)
        progress.advance(files: 1, bytes: 1 << 20)
        let running = builds.status("/drafts/a/b")
        #expect(running?.percent == 25)
        #expect(running?.text.hasPrefix("writing 1/4 files  1.0 MiB / 4.0 MiB") == true, "\(running?.text ?? "")")
        #expect(progress.snapshot.files == (1, 4) && progress.snapshot.bytes.done == 1 << 20)
        builds.stage("/drafts/a/b", "checking the package")
        #expect(
            builds.status("/drafts/a/b")?.text == "checking the package" && builds.status("/drafts/a/b")?.percent == nil
        )
        #expect(builds.status("/drafts/other/tour") == nil, "one draft's build is not another's")
        builds.end("/drafts/a/b")
        #expect(builds.status("/drafts/a/b") == nil)
        progress.finish()  // fileDescriptor -1: draws nothing, and does not fail
    }

    @Test("a stored package is verified once for its review pages, the report kept by SHA-256 up to a limit")
    func reports() throws {
        try Support.withTemporaryDirectory { dir in
            let package = try Support.buildFixture("family-hikes", into: dir)
            let reports = PanelReports(limit: 1)
            var runs = 0
            func verify() -> VerificationReport? { runs += 1; return try? Verifier.verify(path: package) }
            let first = reports.report(sha256: "a", make: verify)
            #expect(first != nil && first?.findings.hasErrors == false)
            _ = reports.report(sha256: "a", make: verify)
            #expect(runs == 1, "the second view reuses the report")
            _ = reports.report(sha256: "b", make: verify)
            _ = reports.report(sha256: "a", make: verify)
            #expect(runs == 3, "past the limit the oldest report is made again")
        }
    }
}
