import Foundation
import Testing
import TrailPackTestFixtures
import TrailPackTestSupport

/// README.md's operator walkthrough, run as written against a real server (so it cannot go stale).
@Suite("README operator walkthrough", .ownThreads, .needs(.jq, .curl, .python3, .sha256sum, .clamscan))
struct ReadmeWalkthroughTests {
    @Test(
        "every walkthrough block of README.md runs: accounts, server, upload, two signed approvals, release, offline check, backup"
    )
    func walkthrough() throws {
        try Support.withTemporaryDirectory { dir in
            let tour = try Support.buildFixture("santiam-wagon-road", into: dir)
            let run = try Support.run(
                Support.root + "/scripts/readme-walkthrough.sh",
                [Support.root + "/README.md", Support.binary, tour, TestClamAV.database])
            #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
            #expect(
                run.stdout.contains("running 4 walkthrough blocks") && run.stdout.contains("walkthrough passed"),
                "\(run.stdout)")
            #expect(run.stdout.contains("released"), "the walkthrough ends with a released version: \(run.stdout)")
        }
    }
}
