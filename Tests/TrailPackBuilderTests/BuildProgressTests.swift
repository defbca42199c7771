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
        // Bytes done before the phase began (hashed while the folder was read) are shown as done
        // but are not its rate: 90 MiB before, 5 MiB in 2 s is 2.5 MiB/s and 2 s left.
        let ahead = BuildProgress.status(
            phase: "hashing", files: (15, 17), bytes: (95 << 20, 100 << 20), seconds: 2, bytesBefore: 90 << 20)
        #expect(ahead.contains("95.0 MiB / 100.0 MiB") || ahead.contains("95 MiB"), "\(ahead)")
        #expect(ahead.contains("2.5 MiB/s") && ahead.hasSuffix("0:02 left"), "\(ahead)")
        // Under 5% of what is left: still estimating, however much was done before.
        let soon = BuildProgress.status(
            phase: "hashing", files: (15, 17), bytes: (91 << 20, 200 << 20), seconds: 2, bytesBefore: 90 << 20)
        #expect(soon.contains("estimating"), "\(soon)")
        #expect(BuildProgress.fit(String(repeating: "x", count: 100), width: 50).count == 49)
        #expect(BuildProgress.fit("short", width: 50) == "short")
    }
}
