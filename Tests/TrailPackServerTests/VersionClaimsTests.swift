import Testing
import TrailPackTestSupport

@testable import TrailPackServer

/// One upload of a version at a time on a server: other bytes are refused at once, the same bytes
/// wait until the first upload lets go, woken by it (a waiter that was never woken would hang the
/// run, which the test watchdog reports).
@Suite("intake: version claims on one server", .ownThreads)
struct VersionClaimsTests {
    @Test(
        "a claim is taken, other bytes are refused, the same bytes wait and take it once it is let go; 1.0 and 1.0.0 are one claim"
    )
    func claims() async throws {
        let claims = VersionClaims()
        guard case .claimed(let first) = await claims.claim(package: "p", version: "1.0", sha256: "aa") else {
            Issue.record("the first claim was not taken")
            return
        }
        #expect(first.version == "1")
        // Other bytes of the same version (trailing zeros do not make another one): refused now.
        guard case .otherBytesInProgress = await claims.claim(package: "p", version: "1.0.0", sha256: "bb") else {
            Issue.record("other bytes were not refused")
            return
        }
        // Another version, or another package, is free.
        guard case .claimed(let other) = await claims.claim(package: "p", version: "2.0", sha256: "bb"),
            case .claimed(let elsewhere) = await claims.claim(package: "q", version: "1.0", sha256: "aa")
        else {
            Issue.record("an unrelated claim was not taken")
            return
        }
        claims.release(other)
        claims.release(elsewhere)
        // Two uploads of the same bytes wait; letting go wakes them, and one after the other takes it
        // (each lets go as soon as it has it, as an upload does when it is done).
        let taken = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    guard case .claimed(let claim) = await claims.claim(package: "p", version: "1", sha256: "aa")
                    else { return false }
                    claims.release(claim)
                    return true
                }
            }
            claims.release(first)
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(taken == 2)
        // Once let go, the version is free for any bytes.
        guard case .claimed = await claims.claim(package: "p", version: "1.0", sha256: "cc") else {
            Issue.record("a released version could not be claimed")
            return
        }
    }
}
