import Foundation
import Testing

/// A task executor that gives every job that runs at once a thread: a job runs on a waiting thread
/// of the executor if there is one, else on a new one. Threads stay for the next jobs.
///
/// Swift concurrency's shared pool has one thread per core and does not grow when its threads block
/// (on this two-core machine, two tasks in `sleep` keep a third from running until they end). Most
/// tests wait on child programs — the CLI, Chromium through Selenium, nginx, `unzip` — and a
/// synchronous test body holds its thread for the whole wait. Two such tests at once froze every
/// in-process server and client of the other tests: CI on 8849f9e saw requests answered after 75
/// and 130 s and an S3 upload fail with a write timeout, all set free in the second the two
/// Chromium tests ended; a run here saw a panel request wait 306 s.
package final class OwnThreadsExecutor: TaskExecutor, @unchecked Sendable {
    /// The one executor of the test process.
    package static let shared = OwnThreadsExecutor()

    private let condition = NSCondition()
    /// Jobs not yet taken.
    private var jobs = FIFO<UnownedJob>()
    /// Threads in `condition.wait()`, counting one signalled but not yet awake: it takes a job
    /// when it wakes, or finds the queue empty and waits again, so the count never hides a need.
    private var waiting = 0

    private init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        // Each waiting thread takes one job; when jobs outnumber them, one more thread.
        let start = waiting < jobs.count
        if !start { condition.signal() }
        condition.unlock()
        if start {
            let thread = Thread { [self] in work() }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    private func work() {
        // Set from the thread itself: a name given before `start()` is not applied on Linux, and a
        // new thread otherwise keeps the name of the one that made it.
        Thread.current.name = "own-threads"
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.count == 0 {
                waiting += 1
                condition.wait()
                waiting -= 1
            }
            let job = jobs.popFirst()
            condition.unlock()
            job?.runSynchronously(on: executor)
        }
    }
}

/// Runs a suite's set-up and each of its tests, with what they start in structured child tasks (an
/// in-process server's tasks too), on ``OwnThreadsExecutor`` instead of the shared pool: a test
/// that waits holds a thread of its own. An unstructured `Task {}` does not inherit the preference
/// and runs on the shared pool. Every suite carries it (`scripts/check_suites.py` checks).
///
/// The shared pool's two threads were also all that kept Swift Testing 6.3 from running every test
/// at once (its width is unlimited unless `SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH` says
/// otherwise), so the trait admits at most ``TestGate/width`` test cases at a time; the others wait
/// without a thread.
package struct OwnThreads: SuiteTrait, TestTrait, TestScoping {
    package var isRecursive: Bool { true }

    /// A suite's own scope (its set-up may wait on programs: SeaweedFS, `scripts/stack.py`) and each
    /// test case's; not a test function's as a whole, which would take a second place at the gate.
    package func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase != nil ? self : nil
    }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await Self.onOwnThreads(function) }
        await TestGate.shared.enter()
        do {
            try await Self.onOwnThreads(function)
        } catch {
            await TestGate.shared.leave()
            throw error
        }
        await TestGate.shared.leave()
    }

    /// A child task starts on its preferred executor; `withTaskExecutorPreference` alone would run a
    /// synchronous test body on the caller's thread, with no suspension to move it. The group waits
    /// for its child, so `function` does not outlive the call.
    private static func onOwnThreads(_ function: @Sendable () async throws -> Void) async throws {
        try await withoutActuallyEscaping(function) { function in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask(executorPreference: OwnThreadsExecutor.shared) { try await function() }
                try await group.waitForAll()
            }
        }
    }
}

/// At most `width` test cases at once; the others wait their turn in order, holding no thread.
package actor TestGate {
    package static let shared = TestGate(width: TestGate.width)

    /// `TRAILPACK_TEST_WIDTH`, else twice the cores (what Swift Testing's own limit was meant to be).
    package static var width: Int {
        if let text = ProcessInfo.processInfo.environment["TRAILPACK_TEST_WIDTH"], let n = Int(text), n > 0 {
            return n
        }
        return 2 * max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    private var free: Int
    private var waiting = FIFO<CheckedContinuation<Void, Never>>()

    package init(width: Int) { free = width }

    /// Callers of ``enter()`` waiting for a place.
    package var waiters: Int { waiting.count }

    package func enter() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    package func leave() {
        if let next = waiting.popFirst() { next.resume() } else { free += 1 }
    }
}

/// First in, first out, reusing its storage once emptied.
struct FIFO<Element> {
    private var items: [Element] = []
    private var head = 0

    var count: Int { items.count - head }

    mutating func append(_ item: Element) { items.append(item) }

    mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        return item
    }
}

extension Trait where Self == OwnThreads {
    /// The tests run on threads of their own (``OwnThreads``).
    package static var ownThreads: Self { OwnThreads() }
}
