import Glibc
import Synchronization
import Testing
import TrailPackArchive
import TrailPackTestSupport

@testable import TrailPackBuilder

/// The manifest's pieces, made on one thread and deflated on another: every piece arrives, in
/// order and unchanged; the maker is never more than `ahead` pieces in front; a writer that stops
/// early frees a maker that waits, and nothing waits for it afterwards.
@Suite("The manifest's pieces between two threads", .ownThreads)
struct PieceRelayTests {
    /// Piece `i`: `i % 300` bytes (some empty), byte `j` of it `(i * 7 + j) % 256`.
    static func piece(_ i: Int) -> [UInt8] { (0..<(i % 300)).map { UInt8((i * 7 + $0) % 256) } }

    /// Waits (on the other thread's progress, not on a clock) until `condition` holds; false when
    /// it never came after many turns.
    static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<200_000 {
            if condition() { return true }
            sched_yield()
        }
        return condition()
    }

    @Test("every piece arrives in the order made and unchanged, then the end; the queue is compacted on the way")
    func inOrder() {
        let relay = PieceRelay()
        let count = 1_000
        let maker = OwnedThread {
            for i in 0..<count { Self.piece(i).withUnsafeBytes { _ = relay.put($0) } }
            relay.finish()
        }
        var taken = 0
        while let piece = relay.take() {
            #expect(piece == Self.piece(taken), "piece \(taken)")
            taken += 1
        }
        maker.join()
        #expect(taken == count)
        #expect(relay.take() == nil, "a second end")
    }

    @Test("a maker that finishes with no piece: the writer's first take is the end")
    func nothingMade() {
        let relay = PieceRelay()
        let maker = OwnedThread { relay.finish() }
        #expect(relay.take() == nil)
        maker.join()
    }

    @Test("the maker waits once `ahead` pieces wait, and goes on as they are taken")
    func bounded() {
        let relay = PieceRelay()
        let made = Atomic<Int>(0)
        let count = PieceRelay.ahead * 3
        let maker = OwnedThread {
            for i in 0..<count {
                Self.piece(i + 1).withUnsafeBytes { _ = relay.put($0) }
                made.add(1, ordering: .sequentiallyConsistent)
            }
            relay.finish()
        }
        #expect(Self.eventually { made.load(ordering: .sequentiallyConsistent) >= PieceRelay.ahead })
        // The next put waits for room: however long the maker is given, it has made no more.
        for _ in 0..<1_000 { sched_yield() }
        #expect(made.load(ordering: .sequentiallyConsistent) == PieceRelay.ahead)
        for i in 0..<count { #expect(relay.take() == Self.piece(i + 1), "piece \(i)") }
        #expect(relay.take() == nil)
        maker.join()
        #expect(made.load(ordering: .sequentiallyConsistent) == count)
    }

    @Test("a writer that stops (a failed write) frees the waiting maker; its later pieces are dropped at once")
    func stopFreesTheMaker() {
        let relay = PieceRelay()
        let made = Atomic<Int>(0)
        let refused = Atomic<Int>(0)
        let count = PieceRelay.ahead * 4
        let maker = OwnedThread {
            for i in 0..<count {
                let queued = Self.piece(i).withUnsafeBytes { relay.put($0) }
                if !queued { refused.add(1, ordering: .sequentiallyConsistent) }
                made.add(1, ordering: .sequentiallyConsistent)
            }
            relay.finish()
        }
        #expect(Self.eventually { made.load(ordering: .sequentiallyConsistent) >= PieceRelay.ahead })
        #expect(relay.take() == Self.piece(0))
        relay.stop()
        // Joined: no put waited for a writer that takes no more.
        maker.join()
        #expect(made.load(ordering: .sequentiallyConsistent) == count)
        #expect(refused.load(ordering: .sequentiallyConsistent) >= count - PieceRelay.ahead - 1)
    }
}
