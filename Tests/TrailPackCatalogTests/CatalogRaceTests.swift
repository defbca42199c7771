import Foundation
import Testing
import TrailPackCatalog
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

/// The catalog's state transitions called at once from two threads (what the server's workflow
/// routes call; the routes themselves are tested in TrailPackIntegrationTests' WorkflowTests).
@Suite("catalog: racing transitions")
struct CatalogRaceTests {
    @Test(
        "races: two approvals at once, approve against deny, a double release — every outcome a legal one",
        .needs(.unzip))
    func races() throws {
        try Support.withTemporaryDirectory { dir in
            let catalog = try Catalog(path: dir + "/catalog.sqlite")
            for (name, role) in [("maria", Catalog.Role.publisher), ("ken", .reviewer), ("lee", .reviewer)] {
                try catalog.addUser(name: name, role: role)
            }
            let users = try Dictionary(uniqueKeysWithValues: catalog.users().map { ($0.name, $0) })
            let pkg = try Support.buildFixture("family-hikes", into: dir)
            let unzipped = try Support.run("unzip", ["-p", pkg, "manifest.json"])
            #expect(unzipped.status == 0, "\(unzipped.stderr)")
            let manifest = try #require(ManifestReader.read(Array(unzipped.stdoutBytes)).manifest)
            for round in 0..<20 {
                var m = manifest
                m.version = "3.\(round)"
                #expect(
                    try catalog.register(
                        manifest: m, manifestJSON: "{}", sha256: String(repeating: "a", count: 64), size: 1,
                        actor: "maria", status: .draft) == .created)
                _ = try catalog.apply(.start, package: m.id, version: m.version, by: users["maria"]!, required: 2)
                func race(
                    _ a: @escaping @Sendable () throws -> Catalog.TransitionOutcome,
                    _ b: @escaping @Sendable () throws -> Catalog.TransitionOutcome
                ) -> [Catalog.TransitionOutcome] {
                    let results = LockedResults()
                    // A call that throws (a database error, say) fails the test: it is not an outcome.
                    DispatchQueue.concurrentPerform(iterations: 2) { i in
                        do { results.add(try (i == 0 ? a : b)()) } catch { results.fail("\(error)") }
                    }
                    #expect(results.failures.isEmpty, "a racing call threw: \(results.failures)")
                    return results.all
                }
                let v = m.version, id = m.id
                // Two approvals at once: both count, the version is ready.
                let both = race(
                    { try catalog.apply(.approve, package: id, version: v, by: users["ken"]!, required: 2) },
                    { try catalog.apply(.approve, package: id, version: v, by: users["lee"]!, required: 2) })
                #expect(both.allSatisfy { if case .moved = $0 { true } else { false } })
                #expect(try catalog.state(package: id, version: v)?.status == .ready)
                #expect(try catalog.state(package: id, version: v)?.approvals == ["ken", "lee"])
                // A double release: exactly one wins.
                let pushes = race(
                    { try catalog.apply(.push, package: id, version: v, by: users["maria"]!, required: 2) },
                    { try catalog.apply(.push, package: id, version: v, by: users["maria"]!, required: 2) })
                #expect(pushes.filter { if case .moved = $0 { true } else { false } }.count == 1, "\(pushes)")
                #expect(try catalog.state(package: id, version: v)?.status == .released)
                // Approve against deny on a fresh request: whichever runs first, the end is a draft without approvals.
                var n = manifest
                n.version = "4.\(round)"
                _ = try catalog.register(
                    manifest: n, manifestJSON: "{}", sha256: String(repeating: "a", count: 64), size: 1, actor: "maria",
                    status: .draft)
                _ = try catalog.apply(.start, package: n.id, version: n.version, by: users["maria"]!, required: 2)
                let w = n.version
                _ = race(
                    { try catalog.apply(.approve, package: id, version: w, by: users["ken"]!, required: 2) },
                    { try catalog.apply(.deny, package: id, version: w, by: users["lee"]!, required: 2) })
                let end = try catalog.state(package: id, version: w)
                #expect(end?.status == .draft && end?.approvals == [], "\(String(describing: end))")
            }
        }
    }
}

final class LockedResults: @unchecked Sendable {  // every access holds `lock`
    private let lock = NSLock()
    private var outcomes: [Catalog.TransitionOutcome] = []
    private var errors: [String] = []
    var all: [Catalog.TransitionOutcome] { lock.withLock { outcomes } }
    var failures: [String] { lock.withLock { errors } }
    func add(_ r: Catalog.TransitionOutcome) { lock.withLock { outcomes.append(r) } }
    func fail(_ error: String) { lock.withLock { errors.append(error) } }
}
