import Testing
import TrailPackTestSupport

@testable import TrailPackBuilder

/// The progress line's text (how it shows on a terminal is tested in TrailPackIntegrationTests'
/// TerminalTests).
@Suite("terminal output: the progress line", .ownThreads)
struct BuildProgressTests {
    @Test("the time left waits for a second and 5% of the bytes")
    func estimateWaits() {
        let early = BuildProgress.status(
            phase: "hashing", files: (1, 17), bytes: (900_000, 400_000_000_000), seconds: 0.01)
        #expect(early.contains("estimating time left") && !early.contains(":"), "\(early)")
        let little = BuildProgress.status(phase: "hashing", files: (1, 17), bytes: (1 << 20, 100 << 20), seconds: 2)
        #expect(little.contains("estimating"), "1% done is too little to guess from: \(little)")
        let enough = BuildProgress.status(phase: "hashing", files: (8, 17), bytes: (50 << 20, 100 << 20), seconds: 2)
        #expect(enough.hasSuffix("0:02 left"), "\(enough)")
        #expect(BuildProgress.fit(String(repeating: "x", count: 100), width: 50).count == 49)
        #expect(BuildProgress.fit("short", width: 50) == "short")
    }
}
