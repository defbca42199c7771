import Foundation
import Testing
import TrailPackTestSupport

/// The executor every suite's tests run on (``OwnThreads``): waiting tests never hold the shared pool.
@Suite("test threads: a waiting test holds a thread of its own", .ownThreads)
struct OwnThreadsTests {
    /// A barrier of `parties` threads that gives up after a minute, so that a broken executor fails
    /// the test instead of hanging the run.
    final class Barrier: @unchecked Sendable {
        private let condition = NSCondition()
        private var arrived = 0
        private let parties: Int
        init(parties: Int) { self.parties = parties }

        /// Whether all parties arrived.
        func arriveAndWait() -> Bool {
            condition.lock()
            defer { condition.unlock() }
            arrived += 1
            condition.broadcast()
            let deadline = Date().addingTimeInterval(60)
            while arrived < parties {
                if !condition.wait(until: deadline) { return false }
            }
            return true
        }
    }

    @Test("the test body runs on the executor's threads, not the shared pool's")
    func bodyRunsOnOwnThreads() {
        #expect(Thread.current.name == "own-threads")
    }

    /// More than the shared pool's threads (one a core), so that the tests fail on it.
    static let beyondThePool = ProcessInfo.processInfo.activeProcessorCount + 2

    @Test("child tasks that block until all of them have started all finish, twice (new threads, then waiting ones)")
    func blockingChildrenAllRun() async {
        for _ in 0..<2 {
            let barrier = Barrier(parties: Self.beyondThePool)
            let met = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<Self.beyondThePool { group.addTask { barrier.arriveAndWait() } }
                return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(met == Self.beyondThePool)
        }
    }

    @Test("while as many child tasks as there are cores block, a task on the shared pool still runs and sets them free")
    func sharedPoolStaysFree() async {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let barrier = Barrier(parties: cores + 1)
        let met = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<cores { group.addTask { barrier.arriveAndWait() } }
            // Not a child: runs on the shared pool, with no executor preference.
            let free = Task.detached { barrier.arriveAndWait() }
            let children = await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            return children + (await free.value ? 1 : 0)
        }
        #expect(met == cores + 1)
    }

    @Test("a gate of width 2 lets two in; the third waits until one leaves, then enters")
    func gateAdmitsItsWidth() async throws {
        let gate = TestGate(width: 2)
        await gate.enter()
        await gate.enter()
        /// Until a caller waits at the gate, for a minute at most.
        func untilOneWaits() async throws {
            var polls = 0
            while await gate.waiters == 0, polls < 6000 {
                try await Task.sleep(for: .milliseconds(10))
                polls += 1
            }
        }
        let third = Task { await gate.enter() }
        try await untilOneWaits()
        #expect(await gate.waiters == 1, "the third caller was let in beyond the width")
        await gate.leave()
        await third.value
        #expect(await gate.waiters == 0)
        // Two inside again; a fourth would wait too.
        let fourth = Task { await gate.enter() }
        try await untilOneWaits()
        #expect(await gate.waiters == 1)
        await gate.leave()
        await fourth.value
    }
}
