import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import TrailPackCatalogModel
@_spi(Testing) import TrailPackCatalogPostgres
import TrailPackCore
import TrailPackTestFixtures
import TrailPackTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// What only the shared PostgreSQL catalog has: its location's rules, its migrations, the
/// notifications that move another server's change count, its connections' life.
@Suite("catalog: PostgreSQL", .ownThreads)
struct CatalogPostgresTests {
    static let enabled = ConditionTrait.enabled(if: !PostgresServer.isSkipped, "TRAILPACK_SKIP_POSTGRES=1")

    // MARK: the location

    @Test(
        "a catalog URL breaking a rule is refused, naming the part and the rule — and never echoing a password",
        arguments: [
            ("postgres://trailpack:s3cret@db.example.org:5432/catalog", "holds a password"),
            ("postgres://trailpack:@db.example.org/catalog", "holds a password"),
            ("postgres://trailpack:s3cret@db.example.org", "holds a password"),
            ("postgresql://trailpack@db.example.org/catalog?password=s3cret", "holds a password"),
            ("mysql://trailpack@db.example.org/catalog", "scheme is 'mysql'"),
            ("db.example.org/catalog", "has no scheme"),
            ("postgres://trailpack@db.example.org:99999/catalog", "port '99999' is not a number from 1 to 65535"),
            ("postgres://trailpack@db.example.org:x/catalog", "port 'x'"),
            ("postgres://db.example.org/catalog", "names no user"),
            ("postgres://trailpack@db.example.org", "names no database"),
            ("postgres://trailpack@db.example.org/", "database '' is empty"),
            ("postgres://trailpack@/catalog", "names no host"),
            ("postgres://trailpack@db.example.org/catalog?sslmode=maybe", "sslmode 'maybe' is not one of disable"),
            ("postgres://trailpack@db.example.org/catalog?host=/tmp", "parameter 'host' is not one trailpack reads"),
            ("postgres://trailpack@db.example.org/catalog#x", "fragment"),
            ("postgres://trailpack@db.example.org/catalog?sslrootcert=ca.pem", "is not an absolute path"),
            (
                "postgres://trailpack@db.example.org/catalog?sslmode=verify-full&sslrootcert=/no/such/ca.pem",
                "cannot be read"
            ),
            ("postgres://trailpack@db.example.org/catalog?sslrootcert=/etc/hostname", "add sslmode=verify-full"),
        ])
    func locationRules(_ url: String, _ says: String) throws {
        #expect {
            try PostgresLocation(url: url, environment: [:])
        } throws: { error in
            guard let error = error as? PostgresCatalogError, error.code == .location else { return false }
            #expect(error.message.contains(says), "\(error.message)")
            #expect(!error.message.contains("s3cret"))
            return true
        }
    }

    @Test(
        "a catalog URL read: user, host, port, database and sslmode; the password from a file or PGPASSWORD, never shown"
    )
    func locationRead() throws {
        try Support.withTemporaryDirectory { dir in
            let url = "postgresql://trail%40pack@[::1]:6543/cat%20alog?sslmode=disable"
            let bare = try PostgresLocation(url: url, environment: [:])
            #expect(bare.user == "trail@pack" && bare.host == "::1" && bare.port == 6543)
            #expect(bare.database == "cat alog" && bare.tls == .disable && bare.passwordSource == "no password")
            #expect(try PostgresLocation(url: "postgres://u@h/d", environment: [:]).port == 5432)
            // TLS required off this machine unless the URL says otherwise; preferred on it.
            for (host, mode) in [
                ("h", PostgresLocation.TLSMode.require), ("db.example.org", .require), ("10.0.0.5", .require),
                ("127.0.0.1", .prefer), ("127.1.2.3", .prefer), ("localhost", .prefer), ("[::1]", .prefer),
                ("127.0.0.1.example.org", .require), ("[2001:db8::1]", .require),
            ] {
                #expect(try PostgresLocation(url: "postgres://u@\(host)/d", environment: [:]).tls == mode, "\(host)")
            }
            #expect(try PostgresLocation(url: "postgres://u@h/d?sslmode=prefer", environment: [:]).tls == .prefer)
            // sslrootcert: the authorities a verify-full catalog's certificate is checked against;
            // said back in the description, which parses back to the same location.
            let ca = dir + "/ca.pem"
            try Data("-----BEGIN CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: ca))
            let verified = try PostgresLocation(
                url: "postgres://u@db.example.org/d?sslmode=verify-full&sslrootcert=\(ca)", environment: [:])
            #expect(verified.tls == .verifyFull && verified.rootCertificates == ca)
            #expect(try PostgresLocation(url: "\(verified)", environment: [:]) == verified, "\(verified)")
            let remote = try PostgresLocation(url: "postgres://u@db.example.org/d?sslmode=prefer", environment: [:])
            #expect(try PostgresLocation(url: "\(remote)", environment: [:]).tls == .prefer, "\(remote)")
            let fromVariable = try PostgresLocation(url: url, environment: ["PGPASSWORD": "env-s3cret"])
            #expect(fromVariable.passwordSource == "PGPASSWORD")
            let file = dir + "/password"
            try Data("file-s3cret\r\nsecond line\n".utf8).write(to: URL(fileURLWithPath: file))
            let fromFile = try PostgresLocation(url: url, passwordFile: file, environment: ["PGPASSWORD": "env-s3cret"])
            #expect(fromFile.passwordSource == "the password file '\(file)'")
            #expect(fromFile != fromVariable, "the file's first line, not the variable, is the password")
            for location in [fromVariable, fromFile] {
                var dumped = ""
                dump(location, to: &dumped)
                for text in ["\(location)", String(reflecting: location), dumped] {
                    #expect(!text.contains("s3cret"), "\(text)")
                }
            }
            #expect("\(fromFile)" == "postgres://trail%40pack@[::1]:6543/cat%20alog?sslmode=disable")
            // The file's rules: there, and a password on its first line.
            for (content, says) in [
                ("", "no password on its first line"), ("\nlater", "no password on its first line"),
            ] {
                try Data(content.utf8).write(to: URL(fileURLWithPath: file))
                #expect(throws: PostgresCatalogError.self) { try PostgresLocation(url: url, passwordFile: file) }
                do { _ = try PostgresLocation(url: url, passwordFile: file) } catch {
                    #expect("\(error)".contains(says), "\(error)")
                }
            }
            do { _ = try PostgresLocation(url: url, passwordFile: dir + "/missing") } catch {
                #expect("\(error)".contains("'\(dir)/missing' cannot be read"), "\(error)")
            }
        }
    }

    @Test("a wrong password: an error naming the user and the server, not the password", enabled)
    func wrongPassword() async throws {
        let database = try PostgresServer.shared().createDatabase()
        try await withTemporaryFolder { dir in
            let file = dir + "/wrong"
            try Data("not-the-s3cret\n".utf8).write(to: URL(fileURLWithPath: file))
            let location = try PostgresLocation(url: database.url, passwordFile: file, environment: [:])
            await #expect {
                _ = try await PostgresCatalog.open(
                    location, logger: PostgresTesting.logger, connectionWait: PostgresTesting.connectionWait)
            } throws: { error in
                guard let error = error as? PostgresCatalogError else { return false }
                #expect(error.code == .authentication && error.sqlState == "28P01")
                #expect(error.message.contains("user 'trailpack'"), "\(error.message)")
                #expect(error.message.contains("127.0.0.1:\(location.port)"), "\(error.message)")
                #expect(error.message.contains("the password file '\(file)'"), "\(error.message)")
                #expect(!error.message.contains("s3cret"))
                return true
            }
            // No password at all, where the server asks one.
            let none = try PostgresLocation(url: database.url, environment: [:])
            await #expect {
                _ = try await PostgresCatalog.open(
                    none, logger: PostgresTesting.logger, connectionWait: PostgresTesting.connectionWait)
            } throws: { error in
                (error as? PostgresCatalogError)?.code == .authentication && "\(error)".contains("none was given")
            }
        }
    }

    /// This machine's first IPv4 address that is not loopback (`getifaddrs`), or nil. (Read without
    /// running a program: a trait's condition is evaluated while the tests are being found.)
    static let outsideAddress: String? = {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else {
                continue
            }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            var ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &ipv4, &text, socklen_t(text.count)) != nil else { continue }
            let shown = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !shown.hasPrefix("127.") { return shown }
        }
        return nil
    }()

    @Test(
        "a catalog off this machine gets TLS or nothing: a server that refuses TLS and asks for the password in clear text never receives it",
        .enabled(if: outsideAddress != nil, "no address other than loopback"))
    func cleartextNeverOffered() async throws {
        let address = try #require(Self.outsideAddress)
        try await withTemporaryFolder { dir in
            // A stand-in for whatever answers on the catalog's address: it refuses TLS ('N'), asks
            // for a clear-text password (AuthenticationCleartextPassword) and keeps what it is sent.
            let port = try PostgresServer.freePort()
            let script = """
                import socket, struct, sys
                server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                server.bind((sys.argv[1], int(sys.argv[2]))); server.listen(8)
                open(sys.argv[3] + ".ready", "w").close()
                while True:
                    c, _ = server.accept(); c.settimeout(5)
                    try:
                        got = c.recv(8)
                        if got[4:8] == struct.pack("!I", 80877103):
                            c.sendall(b"N"); got += c.recv(4096)
                        c.sendall(b"R" + struct.pack("!II", 8, 3))
                        got += c.recv(4096)
                    except Exception:
                        pass
                    with open(sys.argv[3], "ab") as f: f.write(got)
                    c.close()
                """
            try script.write(toFile: dir + "/fake.py", atomically: true, encoding: .utf8)
            let fake = Process()
            fake.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            fake.arguments = [dir + "/fake.py", address, String(port), dir + "/received"]
            try fake.run()
            defer {
                // SIGKILL: a child of the test process may inherit a mask that blocks SIGTERM.
                kill(fake.processIdentifier, SIGKILL)
                fake.waitUntilExit()
            }
            while !FileManager.default.fileExists(atPath: dir + "/received.ready") {
                try await Task.sleep(for: .milliseconds(20))
                #expect(fake.isRunning, "the stand-in server did not start")
                if !fake.isRunning { return }
            }
            let file = dir + "/password"
            try Data("never-in-clear-s3cret\n".utf8).write(to: URL(fileURLWithPath: file))
            let location = try PostgresLocation(
                url: "postgres://trailpack@\(address):\(port)/catalog", passwordFile: file, environment: [:])
            #expect(location.tls == .require)
            await #expect(throws: (any Error).self) {
                _ = try await PostgresCatalog.open(
                    location, logger: PostgresTesting.logger, connectionWait: .seconds(3))
            }
            let received = (try? String(contentsOfFile: dir + "/received", encoding: .isoLatin1)) ?? ""
            #expect(!received.contains("s3cret"), "the password was sent in clear text")
        }
    }

    @Test("no such database, and no server listening: errors saying so", enabled)
    func unreachable() async throws {
        let server = try PostgresServer.shared()
        let missing = try PostgresLocation(
            url: "postgres://trailpack@127.0.0.1:\(server.port)/no_such_catalog?sslmode=disable",
            passwordFile: server.passwordFile)
        await #expect {
            _ = try await PostgresCatalog.open(
                missing, logger: PostgresTesting.logger, connectionWait: PostgresTesting.connectionWait)
        } throws: { error in
            (error as? PostgresCatalogError)?.code == .noDatabase
                && "\(error)".contains("no database 'no_such_catalog'")
        }
        // Port 1 on loopback: nothing listens there.
        let nobody = try PostgresLocation(
            url: "postgres://trailpack@127.0.0.1:1/catalog?sslmode=disable", environment: [:])
        await #expect {
            _ = try await PostgresCatalog.open(
                nobody, logger: PostgresTesting.logger, connectionWait: PostgresTesting.connectionWait)
        } throws: { error in
            (error as? PostgresCatalogError)?.code == .connection && "\(error)".contains("127.0.0.1:1")
        }
    }

    // MARK: the schema

    @Test("servers starting at once on an empty database migrate it once", enabled)
    func migratesOnce() async throws {
        for _ in 0..<3 {
            let location = try PostgresTesting.freshLocation()
            let users = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await PostgresCatalog.withCatalog(
                            location, logger: PostgresTesting.logger, connectionWait: PostgresTesting.connectionWait
                        ) {
                            try await $0.users().count
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(users == 0)
            let applied = try PostgresServer.shared().superuser(
                ["-At", "-c", "SELECT id || ':' || count(*) FROM schema_migrations GROUP BY id ORDER BY id"],
                database: location.database)
            // Every migration once (a new one is added to this list).
            let every = [
                "v1:1", "v10-user-email:1", "v11-version-claims:1", "v8-site-frame:1", "v9-replaced-versions:1",
            ]
            #expect(applied.split(separator: "\n").map(String.init) == every, "\(applied)")
            // Opening again runs nothing.
            try await PostgresCatalog.withCatalog(
                location, logger: PostgresTesting.logger, connectionWait: PostgresTesting.connectionWait
            ) { _ in }
            let again = try PostgresServer.shared().superuser(
                ["-At", "-c", "SELECT count(*) FROM schema_migrations"], database: location.database)
            #expect(again.trimmingCharacters(in: .whitespacesAndNewlines) == "\(every.count)")
        }
    }

    @Test("the audit log is append-only: UPDATE, DELETE (and TRUNCATE) refused", arguments: StoreKind.allCases)
    func auditAppendOnly(_ kind: StoreKind) async throws {
        try await withStore(kind) { catalog, _ in
            try await catalog.addUser(name: "maria", role: .publisher, publicKey: nil)
            let statements =
                ["UPDATE auditLog SET actor = 'someone else'", "DELETE FROM auditLog"]
                + (kind == .postgres ? ["TRUNCATE auditLog"] : [])
            for sql in statements {
                await #expect {
                    try await catalog.execute(sql)
                } throws: { error in
                    "\(error)".contains("the audit log is append-only")
                }
            }
            #expect(try await catalog.auditLog(after: 0, limit: 10).map(\.actor) == ["admin-cli"])
        }
    }

    @Test("a backup is PostgreSQL's own: the error names pg_dump", enabled)
    func backupSaysPgDump() async throws {
        try await withStore(.postgres) { catalog, folder in
            await #expect {
                try await catalog.backup(to: folder + "/copy")
            } throws: { error in
                (error as? CatalogError)?.code == .unsupported && "\(error)".contains("pg_dump")
            }
        }
    }

    // MARK: changes seen by another server

    /// Waits until `condition` holds, for at most `seconds`; whether it did.
    /// Whether `condition` holds within `seconds` of polls 5 ms apart. The budget is counted in polls,
    /// not on the wall clock: when the whole test run starves this task of threads (two cores, a
    /// hundred suites at once), the condition still gets every chance it would get on a quiet machine.
    static func eventually(within seconds: Double, _ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<max(1, Int(seconds * 200)) {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    @Test(
        "a public change on one server moves the other's change count within a second; private changes move neither",
        .needs(.unzip), enabled)
    func notifiesOtherServer() async throws {
        try await PostgresTesting.withTwoCatalogs { a, b, _ in
            // Each counts one change when it starts listening.
            #expect(try await Self.eventually(within: 10) { a.publicChangeCount > 0 && b.publicChangeCount > 0 })
            let manifest = try TestManifest.familyHikes()
            let users = try await addCast(a)
            for round in 0..<5 {
                let before = (a: a.publicChangeCount, b: b.publicChangeCount)
                // Private: users, confirmations' counters, sessions, the audit log.
                try await a.setRole(name: "ken", role: round.isMultiple(of: 2) ? .admin : .reviewer)
                try await a.startSession(CatalogSessionTests.session("s\(round)"), replacing: nil)
                #expect(a.publicChangeCount == before.a, "a private change keeps the count")
                // Public: a version registered (a site and a blob with it).
                try await registerDraft(a, manifest, version: "8.\(round)", status: .released)
                #expect(a.publicChangeCount == before.a + 1, "this server's own change counts at once, once")
                let moved = try await Self.eventually(within: 1) { b.publicChangeCount != before.b }
                #expect(moved, "the other server's count moved within 1 s")
                try await Task.sleep(for: .milliseconds(200))
                #expect(
                    b.publicChangeCount == before.b + 1, "one notification for one transaction, none for private ones")
                #expect(a.publicChangeCount == before.a + 1, "a server's own notification is not counted again")
                // A confirmation counter is not public; a withdrawal is.
                _ = try await b.confirm(
                    package: manifest.id, version: "8.\(round)", sha256: String(repeating: "a", count: 64), count: true)
                #expect(b.publicChangeCount == before.b + 1)
                _ = try await b.apply(
                    .withdraw, package: manifest.id, version: "8.\(round)", by: users["ada"]!, required: 2,
                    signature: nil)
                #expect(b.publicChangeCount == before.b + 2)
                #expect(try await Self.eventually(within: 1) { a.publicChangeCount == before.a + 2 })
            }
        }
    }

    @Test("after its listening connection breaks, a server listens again, counting one change", .needs(.unzip), enabled)
    func listensAgain() async throws {
        try await PostgresTesting.withTwoCatalogs { a, b, location in
            #expect(try await Self.eventually(within: 10) { b.publicChangeCount > 0 })
            let before = b.publicChangeCount
            try PostgresServer.shared().superuser(
                [
                    "-c",
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
                ], database: location.database)
            #expect(
                try await Self.eventually(within: 10) { b.publicChangeCount > before },
                "counted once on listening again")
            let again = b.publicChangeCount
            try await a.addSite(id: "after-reconnect", name: "After")
            #expect(try await Self.eventually(within: 1) { b.publicChangeCount > again })
        }
    }

    // MARK: the connections' life

    @Test("withCatalog closes every connection it opened", enabled)
    func closesConnections() async throws {
        let location = try PostgresTesting.freshLocation()
        try await PostgresCatalog.withCatalog(
            location, logger: PostgresTesting.logger, connectionWait: PostgresTesting.connectionWait
        ) { catalog in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<8 { group.addTask { try await catalog.addSite(id: "site-\(n)", name: nil) } }
                try await group.waitForAll()
            }
        }
        let closed = try await Self.eventually(within: 5) {
            let open = try? PostgresServer.shared().superuser(
                [
                    "-At", "-c",
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(location.database)' AND pid != pg_backend_pid()",
                ],
                database: "postgres")
            return open?.trimmingCharacters(in: .whitespacesAndNewlines) == "0"
        }
        #expect(closed)
    }

    @Test("in a ServiceGroup the catalog serves until the group's graceful shutdown, then stops", enabled)
    func serviceGroup() async throws {
        let location = try PostgresTesting.freshLocation()
        let catalog = try await PostgresCatalog.open(
            location, logger: PostgresTesting.logger, connectionWait: PostgresTesting.connectionWait)
        let group = ServiceGroup(services: [catalog], logger: PostgresTesting.logger)
        let running = Task { try await group.run() }
        try await catalog.addUser(name: "maria", role: .publisher, publicKey: nil)
        #expect(try await catalog.users().map(\.name) == ["maria"])
        await group.triggerGracefulShutdown()
        try await running.value
    }
}
