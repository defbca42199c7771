import Foundation
import Testing
import TrailPackTestFixtures
import TrailPackTestSupport

/// docs/OPERATORS.md's walkthrough, run as written against a real server (so it cannot go stale). The
/// README shows some of its lines; scripts/check_readme.py checks that every command it shows is run.
@Suite("docs/OPERATORS.md's walkthrough", .ownThreads, .needs(.jq, .curl, .python3, .sha256sum, .clamscan))
struct ReadmeWalkthroughTests {
    @Test(
        "every walkthrough block of docs/OPERATORS.md runs: accounts, server, upload, two signed approvals, release, offline check, fetch, backup"
    )
    func walkthrough() throws {
        try Support.withTemporaryDirectory { dir in
            let tour = try Support.buildFixture("santiam-wagon-road", into: dir)
            let run = try Support.run(
                Support.root + "/scripts/readme-walkthrough.sh",
                [Support.root + "/docs/OPERATORS.md", Support.binary, tour, TestClamAV.database])
            #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
            #expect(
                run.stdout.contains("running 4 walkthrough blocks") && run.stdout.contains("walkthrough passed"),
                "\(run.stdout)")
            #expect(run.stdout.contains("released"), "the walkthrough ends with a released version: \(run.stdout)")
            #expect(
                run.stdout.contains("installed gov.usda.fs.willamette.santiam-wagon-road 1.0.0"),
                "trailpack fetch installs the released version: \(run.stdout)")
        }
    }
}
