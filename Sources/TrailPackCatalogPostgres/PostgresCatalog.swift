import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization
import TrailPackCatalogModel

/// The catalog in PostgreSQL, shared by several servers: the same tables, rules and answers as
/// the SQLite store (`SQLiteCatalog`), over postgres-nio's `PostgresClient`.
///
/// ``open(_:logger:maxConnections:maxWaiting:)`` connects once (so that a wrong password or an
/// unknown database is said at once) and migrates the schema under an advisory lock; the catalog
/// then works while its ``run()`` runs — in a ServiceLifecycle `ServiceGroup` (it is a `Service`),
/// or around one piece of work with ``withCatalog(_:logger:_:)`` (`trailpack admin`).
///
/// Every change is one transaction. Where two servers could race — two approvals of one version,
/// two uploads of one version, parallel sign-in guesses, confirmations — the transaction locks the
/// version's row or an advisory lock first, so the outcome is one of the legal ones; a deadlock or
/// a serialization failure is retried. A call beyond `maxWaiting` at once, or one that waited 10 s
/// for a lock, fails with ``CatalogError/busy(_:)``. The audit log is append-only (triggers refuse
/// UPDATE, DELETE and TRUNCATE), its entries numbered in the order they are committed.
///
/// ``publicChangeCount`` moves when this catalog commits a change to the public answers, and when
/// another server does: the tables' triggers `NOTIFY trailpack_catalog` in every such transaction,
/// and ``run()`` listens on a connection of its own.
public final class PostgresCatalog: CatalogStore, Service {
    /// Where the catalog is (the password kept out of its description).
    public let location: PostgresLocation
    let client: PostgresClient
    let logger: Logger
    /// This catalog's name in the notifications it causes (its own are counted at commit).
    let instance: String
    private let changes = Atomic<UInt64>(0)
    /// Whether ``run()`` has started the client (a lease before that only waits, with a warning).
    private let clientRunning = Atomic<Bool>(false)
    private let waiting = Atomic<Int>(0)
    /// How many calls may wait for a connection at once; the next is refused as busy.
    public let maxWaiting: Int
    /// How long a call waits for a connection before it is refused as busy (503 with `Retry-After`):
    /// with PostgreSQL down, the pool keeps trying to connect, and a request must not hang meanwhile.
    public let connectionWait: Duration

    /// The channel every change to the public answers is notified on.
    static let channel = "trailpack_catalog"

    private init(
        location: PostgresLocation, logger: Logger, maxConnections: Int, maxWaiting: Int, connectionWait: Duration
    ) {
        self.location = location
        self.logger = logger
        self.maxWaiting = max(1, maxWaiting)
        self.connectionWait = connectionWait
        instance = UUID().uuidString.lowercased()
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password?.value,
            database: location.database, tls: location.clientTLS)
        configuration.options.maximumConnections = max(2, maxConnections)
        configuration.options.additionalStartupParameters = Self.startupParameters(instance: instance)
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    /// Connects to the catalog at `location`, creating or migrating its schema (once, however many
    /// servers start at the same moment: they wait for one another's advisory lock), and returns
    /// it. Use it while its ``run()`` runs.
    ///
    /// - Parameters:
    ///   - maxConnections: the most connections to the server at once (one of them listens).
    ///   - maxWaiting: the most calls waiting for a connection at once.
    ///   - connectionWait: how long a call waits for a connection before it is refused as busy
    ///     (10 s for a server; a test on a loaded machine may wait longer).
    /// - Throws: ``PostgresCatalogError`` saying what is wrong: the server unreachable, the user or
    ///   password refused (naming the user and the server), no such database.
    public static func open(
        _ location: PostgresLocation, logger: Logger = Logger(label: "trailpack.catalog.postgres"),
        maxConnections: Int = 20, maxWaiting: Int = 256, connectionWait: Duration = .seconds(10)
    ) async throws -> PostgresCatalog {
        let catalog = PostgresCatalog(
            location: location, logger: logger, maxConnections: maxConnections, maxWaiting: maxWaiting,
            connectionWait: connectionWait)
        do {
            // One connection of its own: a pool retries a refused password for a minute, this says it at once.
            var configuration = PostgresConnection.Configuration(
                host: location.host, port: location.port, username: location.user,
                password: location.password?.value, database: location.database, tls: try location.connectionTLS())
            configuration.options.additionalStartupParameters = [("application_name", "trailpack")]
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            do {
                try await PostgresMigrations.migrate(connection, logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try? await connection.close()
        } catch {
            throw PostgresCatalogError.wrap(error, at: location)
        }
        return catalog
    }

    /// Opens the catalog at `location`, runs it around `body` and stops it after: for a command
    /// (`trailpack admin`) that has no service group.
    public static func withCatalog<T>(
        _ location: PostgresLocation, logger: Logger = Logger(label: "trailpack.catalog.postgres"),
        connectionWait: Duration = .seconds(10), _ body: (PostgresCatalog) async throws -> T
    ) async throws -> T {
        let catalog = try await open(location, logger: logger, connectionWait: connectionWait)
        return try await withThrowingTaskGroup(of: Void.self, returning: T.self) { group in
            group.addTask { try await catalog.run() }
            defer { group.cancelAll() }
            return try await body(catalog)
        }
    }

    /// Runs the connections and the listener for other servers' changes until cancelled or, in a
    /// `ServiceGroup`, until a graceful shutdown. Call it once.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    self.clientRunning.store(true, ordering: .releasing)
                    await self.client.run()
                }
                group.addTask {
                    await self.untilClientRuns()
                    await self.listenForChanges()
                }
            }
        }
    }

    /// Moves whenever a committed change alters the public answers (sites, released versions,
    /// manifests, blobs): at once for this catalog's own, within moments for another server's (a
    /// notification), and once each time the listener (re)connects, since notifications may have
    /// been missed meanwhile.
    public var publicChangeCount: UInt64 { changes.load(ordering: .acquiring) }

    private func changed() { changes.wrappingAdd(1, ordering: .releasing) }

    /// Waits until ``run()`` has started the client (at most 10 s: a catalog never run waits in the
    /// pool after that), so that a call made as the service group starts leases no connection first.
    private func untilClientRuns() async {
        let deadline = ContinuousClock.now + .seconds(10)
        while !clientRunning.load(ordering: .acquiring) && ContinuousClock.now < deadline && !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(1))
        }
        await Task.yield()
    }

    /// Listens for the notifications of committed changes, on a connection held for it; after a
    /// broken connection, again (counting one change, as notifications may have been missed).
    private func listenForChanges() async {
        var delay = Duration.milliseconds(50)
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        changed()
                        delay = .milliseconds(50)
                        for try await notification in notifications where notification.payload != instance {
                            changed()
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning(
                    "catalog: listening for other servers' changes failed; trying again",
                    metadata: ["error": "\(PostgresCatalogError.wrap(error, at: location))"])
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    // MARK: transactions

    /// Reads in one snapshot (a read-only, repeatable-read transaction).
    func read<T: Sendable>(_ body: (Transaction) async throws -> T) async throws -> T {
        try await transaction(readOnly: true, body)
    }

    /// Writes in one transaction; retried whole after a deadlock or a serialization failure.
    func write<T: Sendable>(_ body: (Transaction) async throws -> T) async throws -> T {
        try await transaction(readOnly: false, body)
    }

    private func transaction<T: Sendable>(
        readOnly: Bool, _ body: (Transaction) async throws -> T
    ) async throws -> T {
        let now = waiting.wrappingAdd(1, ordering: .relaxed).newValue
        defer { waiting.wrappingSubtract(1, ordering: .relaxed) }
        guard now <= maxWaiting else { throw CatalogError.busy("\(maxWaiting) requests are already waiting for it") }
        if !clientRunning.load(ordering: .acquiring) { await untilClientRuns() }
        let deadline = ContinuousClock.now + connectionWait
        var attempt = 1
        while true {
            do {
                let (value, changedPublic) = try await withConnection { connection in
                    try await self.run(on: connection, readOnly: readOnly, before: deadline, body)
                }
                if changedPublic { changed() }
                return value
            } catch let error as PSQLError where attempt < 4 && Self.isRetryable(error) {
                attempt += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 5...40) * attempt))
            } catch {
                throw PostgresCatalogError.wrap(error, at: location)
            }
        }
    }

    /// `body` on a pooled connection, refused with ``CatalogError/busy(_:)`` when none is leased
    /// within ``connectionWait``.
    private func withConnection<T: Sendable>(
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        // The task group awaits both of its tasks before it returns, so `body` never outlives this
        // call (what `withoutActuallyEscaping` asks), and it runs in one task at a time.
        try await withoutActuallyEscaping(body) { body in
            nonisolated(unsafe) let body = body
            return try await leaseWithin(connectionWait) { connection in try await body(connection) }
        }
    }

    private func leaseWithin<T: Sendable>(
        _ wait: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let leased = LeaseFlag()
        return try await withThrowingTaskGroup(of: LeaseOutcome<T>.self) { group in
            group.addTask {
                .done(
                    try await self.client.withConnection { connection in
                        leased.value.store(true, ordering: .releasing)
                        return try await body(connection)
                    })
            }
            group.addTask {
                try await Task.sleep(for: wait)
                return .waited
            }
            while let outcome = try await group.next() {
                switch outcome {
                case .done(let value):
                    group.cancelAll()
                    return value
                case .waited:
                    guard leased.value.load(ordering: .acquiring) else {
                        group.cancelAll()
                        throw CatalogError.busy(
                            "PostgreSQL at \(location.host):\(location.port) gave no connection within \(connectionWait.components.seconds) s: is it running?"
                        )
                    }
                }
            }
            throw CancellationError()
        }
    }

    /// `body` in one transaction on `connection`, which is closed if the call is not over by
    /// `deadline` (the call's ``connectionWait`` from its start): a PostgreSQL whose processes are
    /// stopped, or whose packets are dropped, keeps the connection open and answers nothing, and
    /// neither `lock_timeout` nor `statement_timeout` (the server's own clocks) can end that. The
    /// call is then refused as busy (503 with Retry-After); a commit cut off there either happened
    /// whole or not at all, as PostgreSQL's transactions do.
    private nonisolated(nonsending) func run<T: Sendable>(
        on connection: PostgresConnection, readOnly: Bool, before deadline: ContinuousClock.Instant,
        _ body: (Transaction) async throws -> T
    ) async throws -> (T, Bool) {
        let cutOff = LeaseFlag()
        let watchdog = Task {
            try await Task.sleep(until: deadline)
            cutOff.value.store(true, ordering: .releasing)
            try? await connection.close()
        }
        defer { watchdog.cancel() }
        do {
            return try await runTransaction(on: connection, readOnly: readOnly, body)
        } catch  where cutOff.value.load(ordering: .acquiring) {
            let what =
                "PostgreSQL at \(location.host):\(location.port) gave no answer within \(connectionWait.components.seconds) s: is it stalled, or the network to it?"
            if readOnly { throw CatalogError.busy(what) }
            throw CatalogError(
                code: .busy,
                message:
                    "the catalog is busy (\(what)); the change was cut off waiting for its answer, so it was made whole or not at all: look before trying again",
                name: "")
        }
    }

    private nonisolated(nonsending) func runTransaction<T: Sendable>(
        on connection: PostgresConnection, readOnly: Bool, _ body: (Transaction) async throws -> T
    ) async throws -> (T, Bool) {
        let transaction = Transaction(connection: connection, logger: logger)
        try await transaction.execute(readOnly ? "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY" : "BEGIN")
        do {
            let value = try await body(transaction)
            var changedPublic = false
            if !readOnly {
                try await transaction.writeAudits()
                // Set by the tables' triggers (see PostgresMigrations) in this transaction only.
                changedPublic =
                    try await transaction.value(
                        "SELECT current_setting('trailpack.public_changed', true) = '1'", as: Bool?.self) == true
            }
            try await transaction.execute("COMMIT")
            return (value, changedPublic)
        } catch {
            // A failed statement leaves the transaction aborted: end it before the connection goes back.
            try? await transaction.execute("ROLLBACK")
            throw error
        }
    }

    /// A deadlock or a serialization failure: the transaction was rolled back whole and may run again.
    private static func isRetryable(_ error: PSQLError) -> Bool {
        guard error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40P01" || state == "40001"
    }

    /// What every pooled connection sets at its start: how long a statement waits for a lock (then
    /// the call is busy), and this catalog's name for the notifications its changes cause.
    static func startupParameters(instance: String) -> [(String, String)] {
        [("application_name", "trailpack"), ("lock_timeout", "10s"), ("trailpack.instance", instance)]
    }

    /// Runs raw SQL (tests use it to show the audit log refuses changes): `@_spi(Testing) import TrailPackCatalogPostgres`.
    @_spi(Testing) public func execute(_ sql: String) async throws {
        try await write { transaction in try await transaction.execute(PostgresQuery(unsafeSQL: sql)) }
    }
}

/// The advisory locks the catalog takes: one key for migrating, and a key space per kind of race.
enum AdvisoryLock {
    /// Held (per session) while one server migrates the schema: "trailpac" as a 64-bit number.
    static let migration: Int64 = 8_390_876_161_163_420_003
    /// Key spaces for `pg_advisory_xact_lock(space, hashtext(key))`.
    static let register: Int32 = 0x7470_0001
    static let throttle: Int32 = 0x7470_0002
    static let confirmation: Int32 = 0x7470_0003
    /// Taken just before the audit entries are written, so that they are numbered in commit order.
    static let audit: Int32 = 0x7470_0004
}

/// One transaction's connection: the queries a store method runs, and the audit entries it adds —
/// written at its end, after every row lock, under the audit lock.
final class Transaction {
    let connection: PostgresConnection
    let logger: Logger
    private var audits:
        [(at: String, actor: String, action: String, id: String?, version: String?, sha: String?, detail: String)] = []

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Runs a statement; its rows, if any, are read and dropped.
    func execute(_ query: PostgresQuery) async throws {
        _ = try await connection.query(query, logger: logger).collect()
    }

    /// The rows of a query.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await connection.query(query, logger: logger).collect()
    }

    /// The first column of the first row, or nil when there is no row.
    func value<C: PostgresDecodable>(_ query: PostgresQuery, as type: C.Type) async throws -> C? {
        guard let row = try await rows(query).first else { return nil }
        return try row.decode(C.self)
    }

    /// The first column of every row.
    func values<C: PostgresDecodable>(_ query: PostgresQuery, as type: C.Type) async throws -> [C] {
        try await rows(query).map { try $0.decode(C.self) }
    }

    /// The first row, decoded as `types`, or nil.
    func first<each C: PostgresDecodable>(
        _ query: PostgresQuery, as types: (repeat each C).Type
    ) async throws -> (repeat each C)? {
        guard let row = try await rows(query).first else { return nil }
        return try row.decode(types)
    }

    /// Every row, decoded as `types`.
    func all<each C: PostgresDecodable>(
        _ query: PostgresQuery, as types: (repeat each C).Type
    ) async throws -> [(repeat each C)] {
        try await rows(query).map { try $0.decode(types) }
    }

    /// How many rows a statement with `RETURNING 1` changed.
    func changes(_ query: PostgresQuery) async throws -> Int { try await rows(query).count }

    /// Takes a transaction-level advisory lock on `key` in `space` (held until the end).
    func lock(_ space: Int32, _ key: String) async throws {
        try await execute("SELECT pg_advisory_xact_lock(\(space), hashtext(\(key)))")
    }

    /// Adds an entry to the audit log, with this transaction.
    func audit(
        actor: String, action: Catalog.AuditAction, id: String?, version: String?, sha256: String?, detail: String
    ) {
        audits.append((Catalog.timestamp(), actor, action.rawValue, id, version, sha256, detail))
    }

    /// Writes the audit entries, numbered in commit order: the audit lock is held until the commit.
    func writeAudits() async throws {
        guard !audits.isEmpty else { return }
        try await execute("SELECT pg_advisory_xact_lock(\(AdvisoryLock.audit), 0)")
        for entry in audits {
            try await execute(
                """
                INSERT INTO auditLog (at, actor, action, packageID, version, sha256, detail)
                VALUES (\(entry.at), \(entry.actor), \(entry.action), \(entry.id), \(entry.version), \(entry.sha), \(entry.detail))
                """)
        }
        audits = []
    }
}

extension PostgresLocation {
    /// The pool's TLS, as `sslmode` says.
    var clientTLS: PostgresClient.Configuration.TLS {
        switch tls {
        case .disable: return .disable
        case .prefer: return .prefer(tlsConfiguration)
        case .require, .verifyCA, .verifyFull: return .require(tlsConfiguration)
        }
    }

    /// A single connection's TLS, as `sslmode` says.
    func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
        switch tls {
        case .disable: return .disable
        case .prefer: return .prefer(try NIOSSLContext(configuration: tlsConfiguration))
        case .require, .verifyCA, .verifyFull:
            return .require(try NIOSSLContext(configuration: tlsConfiguration))
        }
    }

    /// The client's TLS settings: what `sslmode` checks, against `sslrootcert`'s authorities when given.
    private var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let rootCertificates { configuration.trustRoots = .file(rootCertificates) }
        switch tls {
        case .disable, .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        return configuration
    }
}

/// What came first: the call's result, or the end of the wait for a connection.
private enum LeaseOutcome<T: Sendable>: Sendable {
    case done(T)
    case waited
}

/// Whether a call got its connection.
private final class LeaseFlag: Sendable {
    let value = Atomic<Bool>(false)
}
