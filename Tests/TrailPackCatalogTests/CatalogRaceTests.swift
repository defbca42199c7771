import Foundation
import Testing
import TrailPackCatalogModel
import TrailPackCatalogPostgres
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

/// The catalog's state transitions called at once (what the server's workflow routes call; the
/// routes themselves are tested in TrailPackIntegrationTests' WorkflowTests): on one store, and on
/// two PostgreSQL catalogs sharing one database, as two servers do.
@Suite("catalog: racing transitions", .ownThreads)
struct CatalogRaceTests {
    /// Runs `a` and `b` at once; a call that throws (a database error, say) fails the test: it is not an outcome.
    static func race(
        _ a: @escaping @Sendable () async throws -> Catalog.TransitionOutcome,
        _ b: @escaping @Sendable () async throws -> Catalog.TransitionOutcome
    ) async -> [Catalog.TransitionOutcome] {
        @Sendable func outcome(
            _ call: @Sendable () async throws -> Catalog.TransitionOutcome
        ) async
            -> Catalog.TransitionOutcome?
        {
            do { return try await call() } catch {
                Issue.record("a racing call threw: \(error)")
                return nil
            }
        }
        async let first = outcome(a)
        async let second = outcome(b)
        return await [first, second].compactMap { $0 }
    }

    /// The rounds of races, with `one` and `other` the catalogs the two sides call (the same one, or two servers').
    static func rounds(_ one: any CatalogStore, _ other: any CatalogStore, count: Int) async throws {
        let users = try await addCast(one)
        let manifest = try TestManifest.familyHikes()
        let id = manifest.id, maria = users["maria"]!, ken = users["ken"]!, lee = users["lee"]!
        for round in 0..<count {
            let v = "3.\(round)", w = "4.\(round)", x = "5.\(round)"
            #expect(try await registerDraft(one, manifest, version: v) == .created)
            _ = try await one.apply(.start, package: id, version: v, by: maria, required: 2, signature: nil)
            // Two approvals at once: both count, the version is ready.
            let both = await race(
                { try await one.apply(.approve, package: id, version: v, by: ken, required: 2, signature: nil) },
                { try await other.apply(.approve, package: id, version: v, by: lee, required: 2, signature: nil) })
            #expect(both.allSatisfy { $0.moved }, "\(both)")
            #expect(
                Set(both.compactMap { if case .moved(_, let to, let n) = $0 { "\(to) \(n)" } else { nil } }) == [
                    "pending 1", "ready 2",
                ])
            var state = try await other.state(package: id, version: v)
            #expect(state?.status == .ready && state?.approvals == ["ken", "lee"], "\(String(describing: state))")
            // A double release: exactly one wins.
            let pushes = await race(
                { try await one.apply(.push, package: id, version: v, by: maria, required: 2, signature: nil) },
                { try await other.apply(.push, package: id, version: v, by: maria, required: 2, signature: nil) })
            #expect(pushes.filter { $0.moved }.count == 1, "\(pushes)")
            #expect(try await one.state(package: id, version: v)?.status == .released)
            // Approve against deny on a fresh request: whichever runs first, the end is a draft without approvals.
            try await registerDraft(one, manifest, version: w)
            _ = try await one.apply(.start, package: id, version: w, by: maria, required: 2, signature: nil)
            _ = await race(
                { try await one.apply(.approve, package: id, version: w, by: ken, required: 2, signature: nil) },
                { try await other.apply(.deny, package: id, version: w, by: lee, required: 2, signature: nil) })
            let end = try await other.state(package: id, version: w)
            #expect(end?.status == .draft && end?.approvals == [], "\(String(describing: end))")
            // The same reviewer twice at once: one counts, the other is refused as a repeat.
            try await registerDraft(one, manifest, version: x)
            _ = try await one.apply(.start, package: id, version: x, by: maria, required: 2, signature: nil)
            let twice = await race(
                { try await one.apply(.approve, package: id, version: x, by: ken, required: 2, signature: nil) },
                { try await other.apply(.approve, package: id, version: x, by: ken, required: 2, signature: nil) })
            #expect(twice.filter { $0.moved }.count == 1, "\(twice)")
            #expect(
                twice.contains {
                    if case .illegal(_, let reason) = $0 { reason.contains("already approved") } else { false }
                }, "\(twice)")
            state = try await one.state(package: id, version: x)
            #expect(state?.status == .pending && state?.approvals == ["ken"], "\(String(describing: state))")
        }
        // Every transition and refusal was audited once: the log agrees with the outcomes.
        let log = try await one.auditLog(package: id, limit: 10_000)
        func entries(_ action: String, _ prefix: String) -> Int {
            log.filter { $0.action == action && $0.version?.hasPrefix(prefix) == true }.count
        }
        #expect(entries("approve", "3.") == 2 * count)
        #expect(entries("approve", "5.") == count && entries("approve-refused", "5.") == count)
        #expect(entries("deny", "4.") == count)
        #expect(log.filter { $0.action == "push" }.count == count)
        #expect(log.filter { $0.action == "push-refused" }.count == count)
        #expect(log.map(\.id) == log.map(\.id).sorted())
    }

    @Test(
        "races on one store: two approvals at once, approve against deny, a double release, a repeated approval — every outcome a legal one",
        .needs(.unzip), arguments: StoreKind.allCases)
    func races(_ kind: StoreKind) async throws {
        try await withStore(kind) { catalog, _ in try await Self.rounds(catalog, catalog, count: 20) }
    }

    @Test(
        "races between two servers (two PostgreSQL clients on one database): no approval is lost, one release wins",
        .needs(.unzip), .enabled(if: !PostgresServer.isSkipped, "TRAILPACK_SKIP_POSTGRES=1"))
    func racesAcrossServers() async throws {
        try await PostgresTesting.withTwoCatalogs { a, b, _ in try await Self.rounds(a, b, count: 40) }
    }

    @Test(
        "two servers registering one version at once: one creates it; the same bytes are unchanged, other bytes or another spelling a conflict",
        .needs(.unzip), .enabled(if: !PostgresServer.isSkipped, "TRAILPACK_SKIP_POSTGRES=1"))
    func registerAcrossServers() async throws {
        try await PostgresTesting.withTwoCatalogs { a, b, _ in
            let manifest = try TestManifest.familyHikes()
            for round in 0..<20 {
                async let one = registerDraft(a, manifest, version: "6.\(round)", sha: "a")
                async let same = registerDraft(b, manifest, version: "6.\(round)", sha: "a")
                let outcomes = try await [one, same]
                #expect(outcomes.sorted { "\($0)" < "\($1)" } == [.created, .unchanged], "\(outcomes)")
                async let plain = registerDraft(a, manifest, version: "7.\(round)", sha: "b")
                async let spelled = registerDraft(b, manifest, version: "7.\(round).0", sha: "b")
                let both = try await [plain, spelled]
                #expect(both.filter { $0 == .created }.count == 1, "\(both)")
                #expect(
                    both.contains { if case .conflict = $0 { true } else { false } }, "1.0 and 1.0.0 are one version")
            }
            #expect(try await a.history(package: manifest.id).count == 40)
        }
    }

    /// Two administrators demoting (or removing) each other at once: exactly one change is made,
    /// the other is refused as the last administrator's, and one administrator is left.
    static func demotionRounds(_ one: any CatalogStore, _ other: any CatalogStore, count: Int) async throws {
        for round in 0..<count {
            let a = "ada\(round)", b = "bo\(round)"
            try await one.addUser(name: a, role: .admin, publicKey: nil)
            try await one.addUser(name: b, role: .admin, publicKey: nil)
            // Every earlier round left one administrator of its own: take theirs away first.
            for user in try await one.users() where user.role == .admin && user.name != a && user.name != b {
                try await one.setRole(name: user.name, role: .publisher)
            }
            @Sendable func outcome(_ call: @Sendable () async throws -> Void) async -> String {
                do {
                    try await call()
                    return "done"
                } catch let error as CatalogError {
                    return "\(error.code)"
                } catch {
                    return "threw \(error)"
                }
            }
            let removing = round % 2 == 1
            async let first = outcome {
                if removing {
                    try await one.removeUser(name: b)
                } else {
                    try await one.setRole(name: b, role: .reviewer)
                }
            }
            async let second = outcome { try await other.setRole(name: a, role: .publisher) }
            let outcomes = await [first, second].sorted()
            #expect(outcomes == ["done", "last-administrator"], "round \(round): \(outcomes)")
            let admins = try await one.users().filter { $0.role == .admin }.map(\.name)
            #expect(admins.count == 1, "round \(round): administrators \(admins)")
        }
        // The last one can neither be demoted nor removed, and the refusal says what to do.
        let last = try #require(try await one.users().first { $0.role == .admin })
        let refusal = await #expect(throws: CatalogError.self) { try await one.removeUser(name: last.name) }
        #expect(refusal?.code == .lastAdministrator && refusal?.message.contains("make another person") == true)
        await #expect(throws: CatalogError.self) { try await other.setRole(name: last.name, role: .reviewer) }
        #expect(try await one.user(name: last.name)?.role == .admin)
    }

    @Test("two administrators demoting each other at once leave one administrator", arguments: StoreKind.allCases)
    func demotions(_ kind: StoreKind) async throws {
        try await withStore(kind) { catalog, _ in try await Self.demotionRounds(catalog, catalog, count: 10) }
    }

    @Test(
        "two servers demoting each other's administrator at once leave one (the rule holds inside PostgreSQL's transaction)",
        .enabled(if: !PostgresServer.isSkipped, "TRAILPACK_SKIP_POSTGRES=1"))
    func demotionsAcrossServers() async throws {
        try await PostgresTesting.withTwoCatalogs { a, b, _ in try await Self.demotionRounds(a, b, count: 20) }
    }
}
