import Foundation
import Synchronization
import Testing
import TrailPackBlocking
import TrailPackCatalogModel
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

@Suite("catalog: the blocking pool, version aliases, damaged versions brought back, grants", .ownThreads)
struct CatalogEdgeTests {
    @Test("the pool runs jobs on its own threads and returns their values and errors")
    func poolRuns() async throws {
        let pool = BlockingPool(name: "test", threads: 2, queueLimit: 32)
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<20 { group.addTask { try await pool.run { i * 2 } } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values.sorted() == (0..<20).map { $0 * 2 })
        struct Boom: Error {}
        await #expect(throws: Boom.self) { try await pool.run { throw Boom() } }
        pool.shutdown()
    }

    @Test("what a job captured is let go once the job ran, not kept in the queue's slot until 1,024 more jobs")
    func poolLetsGo() async throws {
        // An upload's 1 MiB batches were each held by their job's slot: a 512 MiB upload held 512 MiB.
        final class Batch: Sendable {}
        let pool = BlockingPool(name: "test", threads: 1, queueLimit: 8)
        weak var kept: Batch?
        do {
            let batch = Batch()
            kept = batch
            try await pool.run { withExtendedLifetime(batch) {} }
        }
        // One thread: once a later job ran, the first one's turn of the loop (and its local) is over.
        try await pool.run {}
        #expect(kept == nil, "the job's closure, and what it captured, outlived the job")
        pool.shutdown()
    }

    @Test("a full queue is refused at once with busy; a job that waited past the timeout is refused, not run")
    func poolRefuses() async throws {
        let pool = BlockingPool(name: "test", threads: 1, queueLimit: 1, queueTimeout: .milliseconds(200))
        let gate = DispatchSemaphore(value: 0)
        let ran = Counter()
        // One job holds the only thread; one waits in the queue; the third finds the queue full.
        let holder = Task {
            try await pool.run {
                gate.wait(); ran.add()
            }
        }
        while pool.load.running == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let waiter = Task { try await pool.run { ran.add() } }
        while pool.load.waiting == 0 { try await Task.sleep(for: .milliseconds(5)) }
        await #expect {
            try await pool.run { ran.add() }
        } throws: { error in
            error is BlockingPool.Busy && CatalogError.isBusy(error)
        }
        try await Task.sleep(for: .milliseconds(400))
        gate.signal()
        try await holder.value
        await #expect {
            try await waiter.value
        } throws: { error in
            error is BlockingPool.Busy && "\(error)".contains("waited")
        }
        #expect(ran.value == 1, "the job that waited too long did not run")
        pool.shutdown()
    }

    static func register(_ catalog: any CatalogStore, version: String) async throws -> Manifest {
        var manifest = try TestManifest.familyHikes()
        manifest.version = version
        #expect(
            try await catalog.register(
                manifest: manifest, manifestJSON: "{}", sha256: String(repeating: "c", count: 64), size: 1, actor: "x",
                status: .released) == .created)
        return manifest
    }

    @Test(
        "a version answers to its aliases in every lookup: 2, 2.0 and 2.0.0 name the stored 2.0", .needs(.unzip),
        arguments: StoreKind.allCases)
    func aliases(_ kind: StoreKind) async throws {
        try await withStore(kind) { catalog, _ in
            let manifest = try await Self.register(catalog, version: "2.0")
            for alias in ["2", "2.0", "2.0.0", "2.0.0.0"] {
                #expect(try await catalog.storedVersion(package: manifest.id, version: alias) == "2.0", "\(alias)")
                #expect(
                    try await catalog.version(package: manifest.id, version: alias, releasedOnly: true)?.summary.version
                        == "2.0")
                #expect(try await catalog.state(package: manifest.id, version: alias)?.status == .released)
                #expect(try await catalog.record(package: manifest.id, version: alias) != nil)
                #expect(
                    try await catalog.confirm(
                        package: manifest.id, version: alias, sha256: String(repeating: "c", count: 64), refused: false,
                        count: true)?
                        .match == true)
            }
            for other in ["2.1", "20", "2.0.1", "x", ""] {
                #expect(try await catalog.storedVersion(package: manifest.id, version: other) == nil, "\(other)")
                #expect(try await catalog.state(package: manifest.id, version: other) == nil)
            }
            #expect(try await catalog.confirmations().map(\.match) == [4])
        }
    }

    @Test(
        "a damaged version comes back to the state it had, audited; one damaged before that was recorded comes back a draft",
        .needs(.unzip), arguments: StoreKind.allCases)
    func restoreDamaged(_ kind: StoreKind) async throws {
        try await withStore(kind) { catalog, _ in
            let manifest = try await Self.register(catalog, version: "2.0")
            let sha = String(repeating: "c", count: 64)
            #expect(try await catalog.markDamaged(sha256: sha, reason: "test", actor: "t") == ["\(manifest.id) 2.0"])
            #expect(try await catalog.state(package: manifest.id, version: "2.0")?.status == .damaged)
            #expect(try await catalog.damagedVersions(sha256: sha) == ["\(manifest.id) 2.0"])
            #expect(try await catalog.storedBlobs(inService: true).isEmpty)
            #expect(try await catalog.storedBlobs(inService: false).map(\.sha256) == [sha])
            #expect(
                try await catalog.restoreDamaged(sha256: sha, actor: "t", detail: "test") == ["\(manifest.id) 2.0"])
            #expect(try await catalog.state(package: manifest.id, version: "2.0")?.status == .released)
            #expect(
                try await catalog.auditLog(after: 0, limit: 100).contains {
                    $0.action == "restored" && $0.detail.hasPrefix("damaged → released")
                })
            #expect(
                try await catalog.restoreDamaged(sha256: sha, actor: "t", detail: "again").isEmpty,
                "nothing left to restore")
            // Damaged by an older trailpack (no state kept): back as a draft, to be reviewed again.
            try await catalog.execute("UPDATE packageVersion SET status = 'damaged', statusBeforeDamage = NULL")
            _ = try await catalog.restoreDamaged(sha256: sha, actor: "t", detail: "old")
            #expect(try await catalog.state(package: manifest.id, version: "2.0")?.status == .draft)
        }
    }

    @Test(
        "a grant names a site that exists; a site added without a name takes its first release's",
        arguments: StoreKind.allCases)
    func grants(_ kind: StoreKind) async throws {
        try await withStore(kind) { catalog, _ in
            try await catalog.addUser(name: "maria", role: .publisher, publicKey: nil)
            await #expect {
                try await catalog.grant(user: "maria", site: "nowhere")
            } throws: { error in
                (error as? CatalogError)?.code == .noSuchSite && "\(error)".contains("site add nowhere")
                    && "\(error)".contains("there are no sites yet")
            }
            try await catalog.addSite(id: "willamette-sweet-home", name: nil)
            try await catalog.grant(user: "maria", site: "willamette-sweet-home")
            #expect(try await catalog.grants().map(\.site) == ["willamette-sweet-home"])
            await #expect(throws: CatalogError.self) {
                try await catalog.addSite(id: "willamette-sweet-home", name: nil)
            }
            // A site with no name yet takes an admin's; a named one is refused.
            try await catalog.addSite(id: "willamette-sweet-home", name: "Sweet Home")
            await #expect {
                try await catalog.addSite(id: "willamette-sweet-home", name: "Other")
            } throws: { error in
                (error as? CatalogError)?.code == .siteExists
            }
            #expect(
                try await catalog.workableSites(for: Catalog.User(name: "maria", role: .publisher, publicKey: nil)).map(
                    \.name) == ["Sweet Home"])
            await #expect {
                try await catalog.grant(user: "maria", site: "nowhere")
            } throws: { error in
                "\(error)".contains("the sites are willamette-sweet-home")
            }
            #expect(try await catalog.revokeGrant(user: "maria", site: "willamette-sweet-home"))
            #expect(try await catalog.revokeGrant(user: "maria", site: "willamette-sweet-home") == false)
        }
    }
}

final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
