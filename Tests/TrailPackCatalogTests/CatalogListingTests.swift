import Foundation
import Testing
import TrailPackCatalogModel
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

@Suite("catalog: listing", .ownThreads)
struct CatalogListingTests {
    @Test(
        "a catalog from before normalisation holding 1.0 and 1.0.0 lists the package once, and pagination's next page is not empty",
        .needs(.unzip), arguments: StoreKind.allCases)
    func legacyDuplicates(_ kind: StoreKind) async throws {
        try await withStore(kind) { catalog, _ in
            let manifest = try TestManifest.familyHikes()
            var a = manifest, b = manifest
            a.id = "a.package"
            b.id = "b.package"
            a.version = "1.0.0"
            b.version = "1.0.0"
            #expect(
                try await catalog.register(
                    manifest: a, manifestJSON: "{}", sha256: String(repeating: "a", count: 64), size: 1, actor: "x",
                    status: .released) == .created)
            #expect(
                try await catalog.register(
                    manifest: b, manifestJSON: "{}", sha256: String(repeating: "b", count: 64), size: 1, actor: "x",
                    status: .released) == .created)
            // What an older server let in: the same version twice, under two spellings.
            try await catalog.execute(
                """
                INSERT INTO packageVersion (packageID, version, versionKey, siteID, siteName, name, park, description, sha256, size, manifest, status, uploadedBy, createdAt)
                SELECT packageID, '1.0', versionKey, siteID, siteName, name, park, description, sha256, size, manifest, status, uploadedBy, createdAt || 'z'
                FROM packageVersion WHERE packageID = 'a.package'
                """)
            let first = try await catalog.packages(site: manifest.site.id, limit: 1, after: nil)
            #expect(first.packages.map(\.id) == ["a.package"])
            let second = try await catalog.packages(site: manifest.site.id, limit: 1, after: first.next)
            #expect(second.packages.map(\.id) == ["b.package"], "the next page holds the next package")
            #expect(second.next == nil)
            #expect(try await catalog.packages(site: manifest.site.id, limit: 10, after: nil).packages.count == 2)
        }
    }

    @Test(
        "ids, versions and sites come in byte order on every store, whatever the database's locale",
        .needs(.unzip), arguments: StoreKind.allCases)
    func byteOrder(_ kind: StoreKind) async throws {
        try await withStore(kind) { catalog, _ in
            let manifest = try TestManifest.familyHikes()
            // A locale's collation puts these in another order (case and punctuation ignored first).
            let ids = ["b.tour", "B.tour", "a-tour", "a.tour", "A.tour", "a_tour", "ab.tour", "é.tour"]
            for (n, id) in ids.enumerated() {
                var m = manifest
                m.id = id
                m.version = "1.0.\(n)"
                _ = try await catalog.register(
                    manifest: m, manifestJSON: "{}", sha256: String(repeating: "d", count: 64), size: 1, actor: "x",
                    status: .released)
            }
            let bytes = ids.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            var listed: [String] = [], after: String? = nil
            repeat {
                let page = try await catalog.packages(site: manifest.site.id, limit: 3, after: after)
                listed += page.packages.map(\.id)
                after = page.next
            } while after != nil
            #expect(listed == bytes, "\(kind)")
            #expect(try await catalog.sites().map(\.packages) == [ids.count])
            // Version order is numeric (the version key), not textual.
            for version in ["1.10", "1.9", "1.2.1"] {
                var m = manifest
                m.id = "v.tour"
                m.version = version
                _ = try await catalog.register(
                    manifest: m, manifestJSON: "{}", sha256: String(repeating: "e", count: 64), size: 1, actor: "x",
                    status: .released)
            }
            #expect(try await catalog.versions(package: "v.tour").map(\.version) == ["1.10", "1.9", "1.2.1"])
            #expect(
                try await catalog.version(package: "v.tour", version: nil, releasedOnly: true)?.summary.version
                    == "1.10")
        }
    }
}
