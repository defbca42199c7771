import Foundation
import Testing
import TrailPackCatalogModel
import TrailPackCatalogPostgres
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

/// One story of a catalog's life told to both stores: every answer, refusal and audit entry the
/// same (but for times and token ids) — the rules and texts are written once (`Catalog.Workflow`),
/// and the statements mean the same in SQLite and in PostgreSQL.
@Suite("catalog: the same answers from SQLite and PostgreSQL", .ownThreads)
struct CatalogParityTests {
    /// What a store answered through the story, as text.
    static func story(_ catalog: any CatalogStore) async throws -> [String] {
        var said: [String] = []
        func note(_ what: String, _ value: Any) { said.append("\(what): \(value)") }
        let users = try await addCast(catalog)
        let maria = users["maria"]!, ken = users["ken"]!, lee = users["lee"]!, ada = users["ada"]!
        await expectError(catalog) { try await $0.addUser(name: "maria", role: .admin, publicKey: nil) }
        await expectError(catalog) { try await $0.setRole(name: "nobody", role: .admin) }
        await expectError(catalog) { try await $0.setPublicKey(name: "nobody", publicKey: nil) }
        // Mail addresses set, read back, taken away; an unknown user refused.
        await expectError(catalog) { try await $0.setEmail(name: "nobody", email: "n@example.org") }
        try await catalog.setEmail(name: "ken", email: "ken@example.org")
        try await catalog.setEmail(name: "maria", email: "maria@example.org")
        try await catalog.setEmail(name: "maria", email: nil)
        note("addresses", try await catalog.emailAddresses().sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
        // A reviewer's key replaced, then taken away, then given back: read back each time.
        try await catalog.setPublicKey(name: "ken", publicKey: "a new key\n")
        note("ken's new key", try await catalog.user(name: "ken")?.publicKey ?? "none")
        try await catalog.setPublicKey(name: "ken", publicKey: nil)
        note("ken's key taken away", try await catalog.user(name: "ken")?.publicKey ?? "none")
        try await catalog.setPublicKey(name: "ken", publicKey: ken.publicKey)
        try await catalog.ensureUser(name: "maria", role: .admin)
        try await catalog.ensureUser(name: "bootstrap", role: .admin)
        note("users", try await catalog.users().map { "\($0.name)=\($0.role)" })
        let manifest = try TestManifest.familyHikes()
        let id = manifest.id, site = manifest.site.id
        note("refusal before grant", try await catalog.uploadRefusal(user: maria, package: id, site: site) ?? "none")
        note("admin may", try await catalog.uploadRefusal(user: ada, package: id, site: site) ?? "none")
        await expectError(catalog) { try await $0.grant(user: "maria", site: site) }
        try await catalog.addSite(id: site, name: nil)
        // A home frame set, read back, taken away; a site that does not exist refused.
        await expectError(catalog) { try await $0.setSiteFrame(id: "no-such-site", frame: nil) }
        note("no home frame yet", "\(String(describing: try await catalog.siteFrame(id: site)))")
        try await catalog.setSiteFrame(
            id: site,
            frame: Bounds(
                southwest: Coordinate(latitude: 44.35, longitude: -122.3),
                northeast: Coordinate(latitude: 44.45, longitude: -122.1)))
        note("home frame", "\(String(describing: try await catalog.siteFrame(id: site)))")
        try await catalog.setSiteFrame(id: site, frame: nil)
        note("home frame taken away", "\(String(describing: try await catalog.siteFrame(id: site)))")
        try await catalog.grant(user: "maria", site: site)
        note("refusal after grant", try await catalog.uploadRefusal(user: maria, package: id, site: site) ?? "none")
        note("another site", try await catalog.uploadRefusal(user: ada, package: id, site: "other") ?? "none")
        try await catalog.recordBlob(sha256: String(repeating: "f", count: 64), size: 9)
        note("register", try await registerDraft(catalog, manifest, version: "1.0"))
        note("register again", try await registerDraft(catalog, manifest, version: "1.0"))
        note("register other bytes", try await registerDraft(catalog, manifest, version: "1.0.0", sha: "b"))
        note("sites while draft", try await catalog.sites())
        note("site name while draft", try await catalog.workableSites(for: ada).map { "\($0.id)=\($0.name)" })
        note(
            "unreleased",
            try await catalog.unreleased(sha256: String(repeating: "a", count: 64), package: nil, version: nil).map {
                "\($0.summary.version) \($0.uploadedBy)"
            })
        note(
            "unreleased by version",
            try await catalog.unreleased(sha256: nil, package: id, version: "1").map(\.summary.version))
        func apply(
            _ t: Catalog.Transition, _ user: Catalog.User, signature: String? = nil, reason: String? = nil
        )
            async throws
        {
            note(
                "\(t) by \(user.name)",
                try await catalog.apply(
                    t, package: id, version: "1.0", by: user, required: 2, signature: signature, reason: reason))
        }
        try await apply(.approve, ken)
        try await apply(.push, maria)
        try await apply(.start, ken)
        try await apply(.start, maria)
        try await apply(.start, maria)
        try await apply(.approve, maria)
        try await apply(.approve, ken)
        try await apply(.approve, ken)
        try await apply(.approve, ken, signature: "sig-ken")
        try await apply(.approve, ken, signature: "sig-ken")
        try await apply(.deny, lee, reason: "  the map is missing  ")
        try await apply(.start, maria)
        try await apply(.approve, ken, signature: "sig-ken")
        try await apply(.approve, lee)
        try await apply(.withdraw, ada)
        try await catalog.setScan(package: id, version: "1.0", status: .held, detail: "scanner timed out")
        try await apply(.push, ada)
        try await apply(.push, maria)
        try await catalog.recordRescan(package: id, version: "1", status: .clean, detail: "", actor: "admin-cli")
        try await apply(.push, maria)
        try await apply(.withdraw, ken)
        note(
            "signatures",
            try await catalog.approvalSignatures(package: id, version: "1.0.0").map { "\($0.reviewer) \($0.signature)" }
        )
        note("state", try await catalog.state(package: id, version: "1.0") as Any)
        note("sites", try await catalog.sites())
        note("page", try await catalog.sitePage(site: site, limit: 5, after: nil)?.packages ?? [])
        note("no site page", try await catalog.sitePage(site: "nowhere", limit: 5, after: nil) == nil)
        note("versions", try await catalog.versions(package: id))
        note("released blob", try await catalog.isReleasedBlob(String(repeating: "a", count: 64)) as Any)
        note(
            "confirm",
            try await catalog.confirm(
                package: id, version: "1", sha256: String(repeating: "A", count: 64), refused: false, count: true)
                as Any)
        note(
            "confirm wrong",
            try await catalog.confirm(package: id, version: "1.0", sha256: "00", refused: false, count: true) as Any)
        note(
            "confirm uncounted",
            try await catalog.confirm(package: id, version: "1.0", sha256: "00", refused: false, count: false) as Any)
        // The right bytes refused by the client (its signatures check): a mismatch.
        note(
            "confirm refused",
            try await catalog.confirm(
                package: id, version: "1.0", sha256: String(repeating: "a", count: 64), refused: true, count: true)
                as Any)
        note("confirmations", try await catalog.confirmations())
        note("waiting for lee", try await catalog.waitingCount(for: "lee"))
        note("blobs", try await catalog.storedBlobs(inService: false).map(\.sha256.first))
        note("unused", try await catalog.unusedBlobs(recordedBefore: Date.distantFuture).map(\.first))
        try await catalog.forgetUnusedBlob(sha256: String(repeating: "f", count: 64))
        note("blob hashes", try await catalog.blobHashes().map(\.first).sorted { "\($0 as Any)" < "\($1 as Any)" })
        note(
            "damaged",
            try await catalog.markDamaged(
                sha256: String(repeating: "a", count: 64), reason: "bytes differ", actor: "admin-cli"))
        note(
            "damaged none",
            try await catalog.markDamaged(sha256: String(repeating: "9", count: 64), reason: "gone", actor: "admin-cli")
        )
        note("scan targets", try await catalog.scanTargets(heldOnly: false).map { "\($0.version) \($0.scanStatus)" })
        note(
            "restored",
            try await catalog.restoreDamaged(
                sha256: String(repeating: "a", count: 64), actor: "admin-cli", detail: "bytes back"))
        try await apply(.withdraw, ada)
        note(
            "review queue",
            try await catalog.reviewQueue(statuses: [.released, .withdrawn], limit: 10).map(\.summary.version))
        note(
            "history",
            try await catalog.history(package: id).map {
                "\($0.summary.version) \($0.summary.status) \($0.uploadedBy) \($0.scanStatus) \($0.scanDetail) "
                    + $0.approvals.map { "\($0.reviewer)\($0.signed ? "+" : "")" }.joined(separator: ",")
            })
        note("record", try await catalog.record(package: id, version: "1.0.0")?.summary as Any)
        // A draft built again under its number: refused while it holds other bytes than the builder
        // saw, or once it is under review; otherwise its old manifest kept.
        note("register 2.0", try await registerDraft(catalog, manifest, version: "2.0", sha: "d"))
        var rebuilt = manifest
        rebuilt.version = "2.0"
        func replace(replacing old: Character) async throws -> String {
            try await catalog.replaceDraft(
                manifest: rebuilt, manifestJSON: "{\"rebuilt\":true}", sha256: String(repeating: "e", count: 64),
                size: 2, actor: "lee", status: .draft, replacing: String(repeating: old, count: 64)) ?? "replaced"
        }
        note("replace, other bytes seen", try await replace(replacing: "9"))
        note("replace", try await replace(replacing: "d"))
        note(
            "replaced bytes",
            try await catalog.replacedBytes(package: id, version: "2.0").map {
                "\($0.sha256.prefix(1)) \($0.size) \($0.manifest) \($0.replacedBy)"
            })
        note(
            "after replace",
            try await catalog.record(package: id, version: "2.0").map {
                "\($0.summary.sha256.prefix(1)) \($0.summary.size) \($0.uploadedBy) \($0.summary.status)"
            } as Any)
        note(
            "start 2.0",
            try await catalog.apply(.start, package: id, version: "2.0", by: lee, required: 2, signature: nil))
        note("replace while pending", try await replace(replacing: "e"))
        // Accounts.
        try await catalog.setPassword(name: "maria", hash: "scrypt$test")
        note(
            "sign-in",
            try await catalog.signInRecord(name: "maria").map { "\($0.user.name) \($0.passwordHash ?? "-")" } as Any)
        let token = try await catalog.issueToken(user: "ken")
        note("authenticated", try await catalog.authenticate(token: token.token)?.name as Any)
        note("bad token", try await catalog.authenticate(token: token.token + "0")?.name as Any)
        note("revoked", try await catalog.revokeToken(id: token.id))
        note("revoked again", try await catalog.revokeToken(id: token.id))
        note("after revoke", try await catalog.authenticate(token: token.token)?.name as Any)
        note("tokens", try await catalog.tokens().map { "\($0.user) \($0.revokedAt != nil)" })
        try await catalog.renameSite(id: site, name: "Renamed")
        await expectError(catalog) { try await $0.renameSite(id: "nowhere", name: "x") }
        try await catalog.removeUser(name: "maria")
        await expectError(catalog) { try await $0.removeUser(name: "maria") }
        await expectError(catalog) { try await $0.addUser(name: "maria", role: .publisher, publicKey: nil) }
        note("users at the end", try await catalog.users().map(\.name))
        note("grants at the end", try await catalog.grants().map { "\($0.user) \($0.site)" })
        note("user", try await catalog.user(name: "maria") as Any)
        note("publisher's sites", try await catalog.workableSites(for: lee).map { "\($0.id)=\($0.name)" })
        try await catalog.audit(
            actor: "admin-cli", action: .gcQuarantine, id: nil, version: nil, sha256: nil, detail: "1 blob")
        let log = try await catalog.auditLog(after: 0, limit: 1000)
        #expect(log.map(\.id) == log.map(\.id).sorted())
        said += log.map {
            "audit: \($0.actor) \($0.action) \($0.packageID ?? "-") \($0.version ?? "-") \($0.sha256?.prefix(1) ?? "-") \($0.detail.replacingOccurrences(of: token.id, with: "ID"))"
        }
        said += try await catalog.auditLog(package: id, limit: 3).map { "package audit: \($0.action)" }
        return said
    }

    static func expectError(_ catalog: any CatalogStore, _ body: (any CatalogStore) async throws -> Void) async {
        do {
            try await body(catalog)
            Issue.record("expected a refusal")
        } catch {
            #expect(error is CatalogError, "\(error)")
        }
    }

    @Test(
        "every answer, refusal and audit entry of one story is the same from both stores", .needs(.unzip),
        .enabled(if: !PostgresServer.isSkipped, "TRAILPACK_SKIP_POSTGRES=1"))
    func sameStory() async throws {
        let sqlite = try await withStore(.sqlite) { catalog, _ in try await Self.story(catalog) }
        let postgres = try await withStore(.postgres) { catalog, _ in try await Self.story(catalog) }
        #expect(sqlite.count == postgres.count)
        for (a, b) in zip(sqlite, postgres) where a != b {
            Issue.record("SQLite: \(a)\nPostgreSQL: \(b)")
        }
        // The story reached what it tells of.
        for told in [
            "start by ken: forbidden", "approve by ken: illegal", "approve by ken: moved", "push by maria: moved",
            "withdraw by ken: forbidden", "audit: lee deny", "audit: maria push-refused", "restored: [",
            "replace: replaced", "replace, other bytes seen: version 2.0 was built again by someone else",
            "replace while pending: version 2.0 is pending now", "replaced bytes: [\"d 1 {} lee\"]",
            "after replace: Optional(\"e 2 lee draft\")", "addresses: [\"ken=ken@example.org\"]",
        ] {
            #expect(sqlite.contains { $0.hasPrefix(told) }, "\(told)")
        }
    }
}
