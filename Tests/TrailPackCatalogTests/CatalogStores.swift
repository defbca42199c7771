import Foundation
import Logging
import Synchronization
import Testing
@_spi(Testing) import TrailPackCatalog
import TrailPackCatalogModel
@_spi(Testing) import TrailPackCatalogPostgres
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

/// The two catalog stores the same tests run on: SQLite (a fresh file) and PostgreSQL (a fresh
/// database on the test process's real server, `PostgresServer`). With `TRAILPACK_SKIP_POSTGRES=1`
/// only SQLite.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    static var allCases: [StoreKind] { PostgresServer.isSkipped ? [.sqlite] : [.sqlite, .postgres] }

    var testDescription: String { rawValue }
}

/// A store the tests can also send raw SQL to (to edit a catalog behind its back).
protocol TestedStore: CatalogStore {
    func execute(_ sql: String) async throws
}

extension SQLiteCatalog: TestedStore {}
extension PostgresCatalog: TestedStore {}

/// Runs `body` with a fresh, empty store of `kind` and a temporary folder, both gone after.
@discardableResult
func withStore<T>(
    _ kind: StoreKind, _ body: (any TestedStore, String) async throws -> T
) async throws -> T {
    try await withTemporaryFolder { folder in
        switch kind {
        case .sqlite:
            return try await body(try SQLiteCatalog(path: folder + "/catalog.sqlite"), folder)
        case .postgres:
            let location = try PostgresTesting.freshLocation()
            return try await PostgresCatalog.withCatalog(
                location, logger: PostgresTesting.logger, connectionWait: PostgresTesting.connectionWait
            ) { catalog in
                try await body(catalog, folder)
            }
        }
    }
}

/// A fresh temporary folder for an async test, removed after.
func withTemporaryFolder<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = NSTemporaryDirectory() + "trailpack-test-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

enum PostgresTesting {
    /// Warnings and errors only: the tests' output stays readable.
    static let logger: Logger = {
        var logger = Logger(label: "trailpack.catalog.test")
        logger.logLevel = .warning
        return logger
    }()

    /// How long a call waits for a connection before it is refused as busy: a server's 10 s is
    /// too short while the whole test run shares two cores (a lease could wait that long for a
    /// thread, not for PostgreSQL).
    static let connectionWait: Duration = .seconds(120)

    /// A fresh database on the shared test server, as the catalog names it.
    static func freshLocation() throws -> PostgresLocation {
        let database = try PostgresServer.shared().createDatabase()
        return try PostgresLocation(url: database.url, passwordFile: database.passwordFile, environment: [:])
    }

    /// Runs `body` with two catalogs (two clients, as two servers would have) on one fresh database.
    static func withTwoCatalogs<T>(
        _ body: (PostgresCatalog, PostgresCatalog, PostgresLocation) async throws -> T
    ) async throws -> T {
        let location = try freshLocation()
        return try await PostgresCatalog.withCatalog(location, logger: logger, connectionWait: connectionWait) { a in
            try await PostgresCatalog.withCatalog(location, logger: logger, connectionWait: connectionWait) { b in
                try await body(a, b, location)
            }
        }
    }
}

/// The manifest of the family-hikes fixture (built once per test process, read with unzip, an
/// independent reader).
enum TestManifest {
    private static let built = Mutex<Manifest?>(nil)

    static func familyHikes() throws -> Manifest {
        try built.withLock { built in
            if let built { return built }
            let manifest = try Support.withTemporaryDirectory { dir in
                try PackageReaderShim.manifest(try Support.buildFixture("family-hikes", into: dir))
            }
            built = manifest
            return manifest
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

/// Adds the usual cast: a publisher, two reviewers and an admin; returns them by name.
func addCast(_ catalog: any CatalogStore) async throws -> [String: Catalog.User] {
    for (name, role) in [
        ("maria", Catalog.Role.publisher), ("ken", .reviewer), ("lee", .reviewer), ("ada", .admin),
    ] {
        try await catalog.addUser(name: name, role: role, publicKey: nil)
    }
    return Dictionary(uniqueKeysWithValues: try await catalog.users().map { ($0.name, $0) })
}

/// Registers `manifest` at `version` as a draft by maria.
@discardableResult
func registerDraft(
    _ catalog: any CatalogStore, _ manifest: Manifest, version: String, sha: Character = "a",
    status: Catalog.PublishStatus = .draft
) async throws -> Catalog.RegisterOutcome {
    var m = manifest
    m.version = version
    return try await catalog.register(
        manifest: m, manifestJSON: "{}", sha256: String(repeating: sha, count: 64), size: 1, actor: "maria",
        status: status)
}

extension Catalog.TransitionOutcome {
    var moved: Bool { if case .moved = self { true } else { false } }
}
