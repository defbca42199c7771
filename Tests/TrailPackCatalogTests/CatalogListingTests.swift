import Foundation
import Testing
@_spi(Testing) import TrailPackCatalog
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

@Suite("catalog: listing")
struct CatalogListingTests {
    @Test(
        "a catalog from before normalisation holding 1.0 and 1.0.0 lists the package once, and pagination's next page is not empty",
        .needs(.unzip))
    func legacyDuplicates() throws {
        try Support.withTemporaryDirectory { dir in
            let catalog = try Catalog(path: dir + "/catalog.sqlite")
            let pkg = try Support.buildFixture("santiam-wagon-road", into: dir)
            let unzipped = try Support.run("unzip", ["-p", pkg, "manifest.json"])
            #expect(unzipped.status == 0, "\(unzipped.stderr)")
            let manifest = try #require(ManifestReader.read(Array(unzipped.stdoutBytes)).manifest)
            var a = manifest, b = manifest
            a.id = "a.package"
            b.id = "b.package"
            #expect(
                try catalog.register(
                    manifest: a, manifestJSON: "{}", sha256: String(repeating: "a", count: 64), size: 1, actor: "x")
                    == .created)
            #expect(
                try catalog.register(
                    manifest: b, manifestJSON: "{}", sha256: String(repeating: "b", count: 64), size: 1, actor: "x")
                    == .created)
            // What an older server let in: the same version twice, under two spellings.
            try catalog.execute(
                """
                INSERT INTO packageVersion (packageID, version, versionKey, siteID, siteName, name, park, description, sha256, size, manifest, status, uploadedBy, createdAt)
                SELECT packageID, '1.0', versionKey, siteID, siteName, name, park, description, sha256, size, manifest, status, uploadedBy, createdAt || 'z'
                FROM packageVersion WHERE packageID = 'a.package'
                """)
            let first = try catalog.packages(site: manifest.site.id, limit: 1, after: nil)
            #expect(first.packages.map(\.id) == ["a.package"])
            let second = try catalog.packages(site: manifest.site.id, limit: 1, after: first.next)
            #expect(second.packages.map(\.id) == ["b.package"], "the next page holds the next package")
            #expect(try catalog.packages(site: manifest.site.id, limit: 10, after: nil).packages.count == 2)
        }
    }
}
