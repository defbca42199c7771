import Foundation
import Testing
import TrailPackBuilder
import TrailPackTestSupport
import TrailPackVerifier

#if canImport(Glibc)
import Glibc
#endif

/// Libraries that behave as libraries: a host that builds, verifies and reads keeps its process state.
@Suite("split: the libraries leave the process alone", .ownThreads)
struct HostProcessTests {
    /// The disposition of `signal` (its handler address, or SIG_DFL/SIG_IGN) and its flags.
    static func disposition(_ signal: Int32) -> String {
        var action = sigaction()
        sigaction(signal, nil, &action)
        return "\(unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)) \(action.sa_flags)"
    }

    static func blockedSignals() -> [Int32] {
        var set = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &set)
        return [SIGINT, SIGTERM, SIGHUP].filter { sigismember(&set, $0) == 1 }
    }

    @Test(
        "a host that builds, verifies and reads through the libraries keeps its TZ, signal handlers, signal mask and malloc settings"
    )
    func hostProcessUntouched() throws {
        // The host's own SIGINT handler, and a blocked SIGHUP (as some supervisors start programs).
        var hostAction = sigaction()
        hostAction.__sigaction_handler.sa_handler = { _ in }
        var previous = sigaction()
        sigaction(SIGINT, &hostAction, &previous)
        defer { sigaction(SIGINT, &previous, nil) }
        var hup = sigset_t(), oldMask = sigset_t()
        sigemptyset(&hup)
        sigaddset(&hup, SIGHUP)
        pthread_sigmask(SIG_BLOCK, &hup, &oldMask)
        defer { pthread_sigmask(SIG_SETMASK, &oldMask, nil) }

        let tzBefore = getenv("TZ").map { String(cString: $0) }
        let before = [SIGINT, SIGTERM, SIGHUP].map(Self.disposition)
        let blockedBefore = Self.blockedSignals()
        #expect(blockedBefore.contains(SIGHUP))

        try Support.withTemporaryDirectory { dir in
            let plan = try TourBuilder.plan(Support.fixture("santiam-wagon-road")).plan
            let result = try TourBuilder.write(try #require(plan), to: dir + "/p.zip", timestamp: 1_700_000_000)
            let report = try Verifier.verify(path: result.packagePath, options: .init(expectedSHA256: result.sha256))
            #expect(report.isValid, "\(report.findings)")
            let reader = try PackageReader(path: result.packagePath)
            let asset = try #require(reader.manifest.allAssets.first)
            let stream = try reader.openAsset(asset.path)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
            defer { buffer.deallocate() }
            while case let n = try stream.read(into: buffer), n > 0 {}
        }

        #expect(getenv("TZ").map { String(cString: $0) } == tzBefore, "a library changed TZ")
        #expect([SIGINT, SIGTERM, SIGHUP].map(Self.disposition) == before, "a library changed a signal's disposition")
        #expect(Self.blockedSignals() == blockedBefore, "a library changed the signal mask")
    }
}
