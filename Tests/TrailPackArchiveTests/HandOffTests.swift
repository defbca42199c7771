import Glibc
import Synchronization
import Testing
import TrailPackArchive
import TrailPackArchiveWriter
import TrailPackTestSupport

/// What the writer's helpers hand from one thread to another (the manifest's pieces, the small
/// files read ahead): every item arrives, in order and unchanged; the maker is never more than
/// `capacity` items in front; a user that stops early frees a maker that waits, and nothing waits
/// for it afterwards.
@Suite("Items handed from one thread to another", .ownThreads)
struct HandOffTests {
    static let capacity = 8

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
        let relay = HandOff<[UInt8]>(capacity: Self.capacity)
        let count = 1_000
        let maker = OwnedThread {
            for i in 0..<count { relay.put(Self.piece(i)) }
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
        let relay = HandOff<[UInt8]>(capacity: Self.capacity)
        let maker = OwnedThread { relay.finish() }
        #expect(relay.take() == nil)
        maker.join()
    }

    @Test("the maker waits once `capacity` items wait, and goes on as they are taken")
    func bounded() {
        let relay = HandOff<[UInt8]>(capacity: Self.capacity)
        let made = Atomic<Int>(0)
        let count = Self.capacity * 3
        let maker = OwnedThread {
            for i in 0..<count {
                relay.put(Self.piece(i + 1))
                made.add(1, ordering: .sequentiallyConsistent)
            }
            relay.finish()
        }
        #expect(Self.eventually { made.load(ordering: .sequentiallyConsistent) >= Self.capacity })
        // The next put waits for room: however long the maker is given, it has made no more.
        for _ in 0..<1_000 { sched_yield() }
        #expect(made.load(ordering: .sequentiallyConsistent) == Self.capacity)
        for i in 0..<count { #expect(relay.take() == Self.piece(i + 1), "piece \(i)") }
        #expect(relay.take() == nil)
        maker.join()
        #expect(made.load(ordering: .sequentiallyConsistent) == count)
    }

    @Test(
        "a user that stops (a failed write) frees the waiting maker; its later items are dropped at once, and a take after it is the end"
    )
    func stopFreesTheMaker() {
        let relay = HandOff<[UInt8]>(capacity: Self.capacity)
        let made = Atomic<Int>(0)
        let refused = Atomic<Int>(0)
        let count = Self.capacity * 4
        let maker = OwnedThread {
            for i in 0..<count {
                let queued = relay.put(Self.piece(i))
                if !queued { refused.add(1, ordering: .sequentiallyConsistent) }
                made.add(1, ordering: .sequentiallyConsistent)
            }
            relay.finish()
        }
        #expect(Self.eventually { made.load(ordering: .sequentiallyConsistent) >= Self.capacity })
        #expect(relay.take() == Self.piece(0))
        relay.stop()
        // Joined: no put waited for a writer that takes no more.
        maker.join()
        #expect(made.load(ordering: .sequentiallyConsistent) == count)
        #expect(refused.load(ordering: .sequentiallyConsistent) >= count - Self.capacity - 1)
        #expect(relay.take() == nil, "items waiting when it stopped were dropped")
    }
}
