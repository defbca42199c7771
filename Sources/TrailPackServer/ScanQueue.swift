import Foundation
import TrailPackBlocking
import TrailPackCatalogModel

/// Malware scans, at most `concurrency` at once (each is a clamscan process that loads the whole
/// signature database: CPU and memory bound), in arrival order. Uploads of the same bytes while
/// one is being scanned wait for that scan's verdict instead of starting another.
actor ScanQueue {
    let concurrency: Int
    /// The threads that wait for the scanner's process.
    let pool: BlockingPool
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var inFlight: [String: Task<MalwareScanner.Verdict, Never>] = [:]

    init(concurrency: Int, pool: BlockingPool) {
        self.concurrency = max(1, concurrency)
        self.pool = pool
    }

    /// The verdict on the file at `path` whose SHA-256 is `sha256`.
    func scan(path: String, sha256: String, engine: MalwareScanner.Engine) async -> MalwareScanner.Verdict {
        if case .off = engine { return .notScanned }
        if let task = inFlight[sha256] { return await task.value }
        let task = Task { await self.run(path: path, engine: engine) }
        inFlight[sha256] = task
        let verdict = await task.value
        inFlight[sha256] = nil
        return verdict
    }

    /// Scans waiting for a place (for tests and the log).
    var queued: Int { waiting.count }

    private func run(path: String, engine: MalwareScanner.Engine) async -> MalwareScanner.Verdict {
        await acquire()
        defer { release() }
        let scanner = MalwareScanner(engine: engine)
        do { return try await pool.run { scanner.scan(path) } } catch {
            return .held(reason: "the scan could not start: \(error)")
        }
    }

    private func acquire() async {
        if running < concurrency {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
