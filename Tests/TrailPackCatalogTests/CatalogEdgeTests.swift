import Foundation
import Synchronization
import Testing
@_spi(Testing) import TrailPackCatalog
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

@Suite("catalog: the blocking pool, version aliases, damaged versions brought back, grants")
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
            (error as? CatalogError)?.code == .busy && CatalogError.isBusy(error)
        }
        try await Task.sleep(for: .milliseconds(400))
        gate.signal()
        try await holder.value
        await #expect {
            try await waiter.value
        } throws: { error in
            (error as? CatalogError)?.code == .busy && "\(error)".contains("waited")
        }
        #expect(ran.value == 1, "the job that waited too long did not run")
        pool.shutdown()
    }

    static func catalogWithVersion(_ dir: String, version: String) throws -> (Catalog, Manifest) {
        let catalog = try Catalog(path: dir + "/catalog.sqlite")
        let pkg = try Support.buildFixture("family-hikes", into: dir)
        let reading = try PackageReaderShim.manifest(pkg)
        var manifest = reading
        manifest.version = version
        #expect(
            try catalog.register(
                manifest: manifest, manifestJSON: "{}", sha256: String(repeating: "c", count: 64), size: 1, actor: "x",
                status: .released) == .created)
        return (catalog, manifest)
    }

    @Test("a version answers to its aliases in every lookup: 2, 2.0 and 2.0.0 name the stored 2.0", .needs(.unzip))
    func aliases() throws {
        try Support.withTemporaryDirectory { dir in
            let (catalog, manifest) = try Self.catalogWithVersion(dir, version: "2.0")
            for alias in ["2", "2.0", "2.0.0", "2.0.0.0"] {
                #expect(try catalog.storedVersion(package: manifest.id, version: alias) == "2.0", "\(alias)")
                #expect(try catalog.version(package: manifest.id, version: alias)?.summary.version == "2.0")
                #expect(try catalog.state(package: manifest.id, version: alias)?.status == .released)
                #expect(try catalog.record(package: manifest.id, version: alias) != nil)
                #expect(
                    try catalog.confirm(
                        package: manifest.id, version: alias, sha256: String(repeating: "c", count: 64))?
                        .match == true)
            }
            for other in ["2.1", "20", "2.0.1", "x", ""] {
                #expect(try catalog.storedVersion(package: manifest.id, version: other) == nil, "\(other)")
                #expect(try catalog.state(package: manifest.id, version: other) == nil)
            }
        }
    }

    @Test(
        "a damaged version comes back to the state it had, audited; one damaged before that was recorded comes back a draft",
        .needs(.unzip))
    func restoreDamaged() throws {
        try Support.withTemporaryDirectory { dir in
            let (catalog, manifest) = try Self.catalogWithVersion(dir, version: "2.0")
            let sha = String(repeating: "c", count: 64)
            #expect(try catalog.markDamaged(sha256: sha, reason: "test", actor: "t") == ["\(manifest.id) 2.0"])
            #expect(try catalog.state(package: manifest.id, version: "2.0")?.status == .damaged)
            #expect(try catalog.damagedVersions(sha256: sha) == ["\(manifest.id) 2.0"])
            #expect(try catalog.restoreDamaged(sha256: sha, actor: "t", detail: "test") == ["\(manifest.id) 2.0"])
            #expect(try catalog.state(package: manifest.id, version: "2.0")?.status == .released)
            #expect(
                try catalog.auditLog().contains { $0.action == "restored" && $0.detail.hasPrefix("damaged → released") }
            )
            #expect(
                try catalog.restoreDamaged(sha256: sha, actor: "t", detail: "again").isEmpty, "nothing left to restore")
            // Damaged by an older trailpack (no state kept): back as a draft, to be reviewed again.
            try catalog.execute("UPDATE packageVersion SET status = 'damaged', statusBeforeDamage = NULL")
            _ = try catalog.restoreDamaged(sha256: sha, actor: "t", detail: "old")
            #expect(try catalog.state(package: manifest.id, version: "2.0")?.status == .draft)
        }
    }

    @Test("a grant names a site that exists; a site added without a name takes its first release's")
    func grants() throws {
        try Support.withTemporaryDirectory { dir in
            let catalog = try Catalog(path: dir + "/catalog.sqlite")
            try catalog.addUser(name: "maria", role: .publisher)
            #expect {
                try catalog.grant(user: "maria", site: "nowhere")
            } throws: { error in
                (error as? CatalogError)?.code == .noSuchSite && "\(error)".contains("site add nowhere")
            }
            try catalog.addSite(id: "willamette-sweet-home", name: nil)
            try catalog.grant(user: "maria", site: "willamette-sweet-home")
            #expect(try catalog.grants().map(\.site) == ["willamette-sweet-home"])
            #expect(throws: CatalogError.self) { try catalog.addSite(id: "willamette-sweet-home", name: nil) }
        }
    }
}

/// The manifest of a built package, read with unzip (an independent reader).
enum PackageReaderShim {
    static func manifest(_ package: String) throws -> Manifest {
        let unzipped = try Support.run("unzip", ["-p", package, "manifest.json"])
        #expect(unzipped.status == 0, "\(unzipped.stderr)")
        return try #require(ManifestReader.read(Array(unzipped.stdoutBytes)).manifest)
    }
}

final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
