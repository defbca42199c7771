import Foundation

/// A fixed set of threads for work that blocks — SQLite waiting on a lock, a file's write, fsync or
/// positioned read, a password hash — with a bounded queue: so that a locked catalog or a slow disk
/// slows the requests that need it and nothing else. The server makes one and hands it to the
/// catalog, the blob stores and their S3 client, the intake and every room of the panel.
///
/// Swift's cooperative pool and Dispatch's global queues share a few threads on Linux (one per
/// core); work that blocks there starves every other request, `/healthz` included. Here a full
/// queue, or a job that waited longer than `queueTimeout` before a thread was free, is refused at
/// once with ``Busy`` (the server answers 503 with `Retry-After`) instead of piling up behind the
/// lock.
public final class BlockingPool: @unchecked Sendable {
    /// A job the pool refused: its queue was full, the job waited longer than `queueTimeout` for a
    /// thread, or the pool is stopping. Nothing of the job ran.
    public struct Busy: Error, CustomStringConvertible, Sendable {
        /// Why, in words: "256 requests are already waiting for it".
        public let reason: String
        public var description: String { "the server is busy (\(reason)); nothing was changed: try again in a moment" }
    }

    // @unchecked: every mutable field is read and written with `condition` locked.
    private struct Job {
        let enqueued: ContinuousClock.Instant
        let run: () -> Void
        let refuse: (String) -> Void
    }

    public let threadCount: Int
    public let queueLimit: Int
    public let queueTimeout: Duration
    private let condition = NSCondition()
    /// The queue: `jobs[head...]` wait; the slots before `head` were taken and are emptied at once
    /// (a taken job's closure holds what it captured — an upload's batch of 1 MiB — until its slot
    /// is let go, and slots are compacted only every 1,024 jobs: a 512 MiB upload held 512 MiB).
    private var jobs: [Job?] = []
    private var head = 0
    private var stopping = false
    private var running = 0
    /// Threads alive, and those of them waiting for a job.
    private var workers = 0
    private var idle = 0
    private let name: String
    /// A thread with nothing to do for this long ends (a new one starts with the next job).
    private let idleTimeout: TimeInterval = 30

    /// A pool of at most `threads` threads named `name` (started when work comes, ended when idle);
    /// at most `queueLimit` jobs wait for them.
    public init(name: String, threads: Int = 8, queueLimit: Int = 256, queueTimeout: Duration = .seconds(10)) {
        self.name = name
        threadCount = max(1, threads)
        self.queueLimit = max(1, queueLimit)
        self.queueTimeout = queueTimeout
    }

    /// Runs `body` on one of the pool's threads and returns its value; throws ``Busy`` when the queue
    /// is full or the job waited longer than `queueTimeout` for a thread.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = Job(
                enqueued: .now, run: { continuation.resume(with: Result { try body() }) },
                refuse: { continuation.resume(throwing: Busy(reason: $0)) })
            condition.lock()
            guard !stopping, jobs.count - head < queueLimit else {
                let why = stopping ? "the server is stopping" : "\(queueLimit) requests are already waiting for it"
                condition.unlock()
                job.refuse(why)
                return
            }
            jobs.append(job)
            if idle == 0 && workers < threadCount {
                workers += 1
                let thread = Thread { self.work() }
                thread.name = "\(name)-\(workers)"
                thread.start()
            } else {
                condition.signal()
            }
            condition.unlock()
        }
    }

    /// Jobs waiting for a thread, and jobs running now (for tests and the log).
    public var load: (waiting: Int, running: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (jobs.count - head, running)
    }

    /// Refuses what is still queued and new jobs, and lets the threads end once their current job is done.
    public func shutdown() {
        condition.lock()
        stopping = true
        let left = jobs[head...].compactMap { $0 }
        jobs = []
        head = 0
        condition.broadcast()
        condition.unlock()
        for job in left { job.refuse("the server is stopping") }
    }

    private func work() {
        while true {
            condition.lock()
            var timedOut = false
            while jobs.count == head && !stopping && !timedOut {
                idle += 1
                timedOut = !condition.wait(until: Date(timeIntervalSinceNow: idleTimeout))
                idle -= 1
            }
            if jobs.count == head {
                workers -= 1
                condition.unlock()
                return
            }
            let taken = jobs[head]
            jobs[head] = nil
            head += 1
            if head > 1024 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            // (A waiting slot always holds its job: only a taken one is emptied.)
            guard let job = taken else {
                condition.unlock()
                continue
            }
            running += 1
            condition.unlock()
            let waited = ContinuousClock.now - job.enqueued
            if waited > queueTimeout {
                job.refuse("a request waited \(waited.components.seconds) s for it")
            } else {
                job.run()
            }
            condition.lock()
            running -= 1
            condition.unlock()
        }
    }
}
