import Foundation
import Synchronization

/// A real PostgreSQL 15 (Debian's `postgresql` package) for the tests of the shared catalog: one
/// server per test process, in a temporary folder, on a free loopback port, started on first use
/// and stopped when the process exits; a fresh database per test (``createDatabase()``).
///
/// How it runs:
/// - `initdb` into the folder (ICU's `en-US` collation, so that an order that leans on the
///   database's locale shows), then `postgres -D DATA -p PORT -k SOCKETS -c listen_addresses=127.0.0.1`.
///   PostgreSQL refuses to run as root: as root each program runs through `runuser -u postgres --`
///   (the user Debian's package makes), the folder owned by it.
/// - Clients sign in over TCP with a password (`host all all 127.0.0.1/32 scram-sha-256`) as the
///   role `trailpack`, whose password is in ``passwordFile``: the catalog's password-file path runs
///   for real. The superuser `postgres` is reached over the Unix socket in the private folder only.
/// - Stopping: `SIGINT` to the postmaster (PostgreSQL's fast shutdown: clients are disconnected;
///   `SIGTERM` is its smart shutdown, which waits for every client), then `SIGKILL` to it and its
///   children after 10 s; the folder is removed. A watchdog (`sh`) does the same if the test
///   process dies without exiting, so no postgres outlives a test run.
///
/// Without PostgreSQL the tests that need it fail, saying to run `make deps`, unless
/// `TRAILPACK_SKIP_POSTGRES=1` (then ``isSkipped`` and they are left out).
package final class PostgresServer: Sendable {
    /// Where the server's programs are: `TRAILPACK_PG_BIN`, else Debian's PostgreSQL 15.
    package static let binaries =
        ProcessInfo.processInfo.environment["TRAILPACK_PG_BIN"] ?? "/usr/lib/postgresql/15/bin"
    /// Whether the tests that need PostgreSQL are left out (`TRAILPACK_SKIP_POSTGRES=1`).
    package static let isSkipped = ProcessInfo.processInfo.environment["TRAILPACK_SKIP_POSTGRES"] == "1"
    /// The role the tests sign in as.
    package static let role = "trailpack"

    /// The loopback port it listens on.
    package let port: Int
    /// The file holding the role's password (its first line, then a newline).
    package let passwordFile: String
    /// The temporary folder: the data, the sockets, the log.
    package let folder: String
    private let postmaster: Int32
    private let launcher: Process
    private let watchdog: Process
    private let stopped = Mutex(false)
    private let databases = Mutex(0)

    /// A database made for one test.
    package struct Database: Sendable {
        /// Its name.
        package let name: String
        /// `postgres://trailpack@127.0.0.1:PORT/NAME?sslmode=disable`: no password in it.
        package let url: String
        /// The file holding the password.
        package let passwordFile: String
    }

    private static let state = Mutex<Result<PostgresServer, any Error>?>(nil)

    /// The server of this test process, started on first use (and stopped when the process exits).
    /// - Throws: when PostgreSQL is not installed (saying to run `make deps`) or does not start
    ///   (with the end of its log); every later call throws the same.
    package static func shared() throws -> PostgresServer {
        try state.withLock { state in
            if let state { return try state.get() }
            let result = Result { try PostgresServer.start() }
            state = result
            if case .success = result { atexit { PostgresServer.stopShared() } }
            return try result.get()
        }
    }

    /// Makes a fresh database owned by the test role.
    package func createDatabase() throws -> Database {
        let name = "catalog_\(databases.withLock { $0 += 1; return $0 })_\(UInt32.random(in: 0...UInt32.max))"
        try superuser(["-c", "CREATE DATABASE \(name) OWNER \(Self.role)"])
        return Database(
            name: name, url: "postgres://\(Self.role)@127.0.0.1:\(port)/\(name)?sslmode=disable",
            passwordFile: passwordFile)
    }

    /// Runs SQL as the superuser (over the socket), for what a test does behind the catalog's back.
    @discardableResult
    package func superuser(_ psqlArguments: [String], database: String = "postgres") throws -> String {
        let out = try Self.run(
            Self.binaries + "/psql",
            [
                "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", folder + "/sockets", "-p", "\(port)", "-U", "postgres", "-d",
                database,
            ]
                + psqlArguments, in: folder)
        guard out.status == 0 else {
            throw Failure("psql \(psqlArguments.joined(separator: " ")): exit \(out.status): \(out.stderr)")
        }
        return out.stdout
    }

    /// Stops the server (fast shutdown, then SIGKILL after 10 s) and removes its folder. Idempotent.
    package func stop() {
        guard
            stopped.withLock({ (was: inout Bool) -> Bool in
                defer { was = true }
                return !was
            })
        else { return }
        kill(postmaster, SIGINT)
        if !Self.waitGone(postmaster, seconds: 10) {
            for child in Self.children(of: postmaster) { kill(child, SIGKILL) }
            kill(postmaster, SIGKILL)
            _ = Self.waitGone(postmaster, seconds: 5)
        }
        // Bounded waits: this also runs from atexit, where nothing may hang.
        let deadline = Date().addingTimeInterval(5)
        while launcher.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        kill(watchdog.processIdentifier, SIGKILL)
        try? FileManager.default.removeItem(atPath: folder)
    }

    private static func stopShared() {
        let server = state.withLock { try? $0?.get() }
        server?.stop()
    }

    private init(
        port: Int, passwordFile: String, folder: String, postmaster: Int32, launcher: Process, watchdog: Process
    ) {
        self.port = port
        self.passwordFile = passwordFile
        self.folder = folder
        self.postmaster = postmaster
        self.launcher = launcher
        self.watchdog = watchdog
    }

    // MARK: starting

    private static var asRoot: Bool { geteuid() == 0 }

    private static func start() throws -> PostgresServer {
        for program in ["initdb", "postgres", "pg_isready", "psql"]
        where !FileManager.default.isExecutableFile(atPath: binaries + "/" + program) {
            throw Failure(
                "PostgreSQL 15 is not installed (\(binaries)/\(program) is missing): run make deps (it installs "
                    + "Debian's postgresql), or set TRAILPACK_SKIP_POSTGRES=1 to leave these tests out")
        }
        let folder = NSTemporaryDirectory() + "trailpack-postgres-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder + "/sockets", withIntermediateDirectories: true)
        do {
            return try start(in: folder)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    private static func start(in folder: String) throws -> PostgresServer {
        let password = (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let passwordFile = folder + "/password"
        // The catalog reads the first line; the newline after it is part of the test.
        try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
        let setup = folder + "/setup.sql"
        try Data("CREATE ROLE \(role) LOGIN PASSWORD '\(password)';\n".utf8).write(to: URL(fileURLWithPath: setup))
        if asRoot {
            for path in [folder, folder + "/sockets", setup] {
                try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: path)
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passwordFile)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder + "/sockets")
        let data = folder + "/data"
        let initdb = try run(
            binaries + "/initdb",
            [
                "-D", data, "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8", "--locale-provider=icu",
                "--icu-locale=en-US", "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync",
            ], in: folder)
        guard initdb.status == 0 else { throw Failure("initdb: exit \(initdb.status): \(initdb.stderr)") }
        try Data(
            """
            local all postgres trust
            host all all 127.0.0.1/32 scram-sha-256

            """.utf8
        ).write(to: URL(fileURLWithPath: data + "/pg_hba.conf"))
        var lastError = ""
        for _ in 0..<3 {
            let port = try freePort()
            let log = folder + "/postgres.log"
            FileManager.default.createFile(atPath: log, contents: nil)
            let launcher = Process()
            launcher.executableURL = URL(fileURLWithPath: asRoot ? runuser : binaries + "/postgres")
            let arguments = [
                "-D", data, "-p", "\(port)", "-k", folder + "/sockets", "-c", "listen_addresses=127.0.0.1",
                "-c", "max_connections=1000", "-c", "fsync=off", "-c", "synchronous_commit=off",
                "-c", "full_page_writes=off", "-c", "shared_buffers=32MB",
            ]
            launcher.arguments = asRoot ? ["-u", "postgres", "--", binaries + "/postgres"] + arguments : arguments
            launcher.currentDirectoryURL = URL(fileURLWithPath: folder)
            launcher.standardInput = FileHandle.nullDevice
            launcher.standardOutput = FileHandle(forWritingAtPath: log)
            launcher.standardError = FileHandle(forWritingAtPath: log)
            try launcher.run()
            if let postmaster = try waitReady(data: data, port: port, launcher: launcher) {
                let watchdog = try startWatchdog(postmaster: postmaster)
                let server = PostgresServer(
                    port: port, passwordFile: passwordFile, folder: folder, postmaster: postmaster, launcher: launcher,
                    watchdog: watchdog)
                do {
                    try server.superuser(["-f", setup])
                } catch {
                    server.stop()
                    throw error
                }
                return server
            }
            launcher.waitUntilExit()
            lastError = (try? String(contentsOfFile: log, encoding: .utf8)).map { String($0.suffix(2000)) } ?? ""
        }
        throw Failure("postgres did not start; its log ends: \(lastError)")
    }

    /// The postmaster's pid once the server accepts connections; nil when it exited first.
    private static func waitReady(data: String, port: Int, launcher: Process) throws -> Int32? {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            guard launcher.isRunning else { return nil }
            let ready = try run(
                binaries + "/pg_isready", ["-q", "-h", "127.0.0.1", "-p", "\(port)"], in: nil, asPostgres: false)
            if ready.status == 0,
                let text = try? String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8),
                let pid = text.split(separator: "\n").first.flatMap({ Int32($0) })
            {
                return pid
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw Failure("postgres did not accept connections on port \(port) within 60 s")
    }

    /// A shell that waits for this test process to end, then stops the postmaster if it still runs.
    private static func startWatchdog(postmaster: Int32) throws -> Process {
        let watchdog = Process()
        watchdog.executableURL = URL(fileURLWithPath: "/bin/sh")
        watchdog.arguments = [
            "-c",
            """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            kill -INT \(postmaster) 2>/dev/null || exit 0
            sleep 10
            pkill -KILL -P \(postmaster) 2>/dev/null; kill -KILL \(postmaster) 2>/dev/null
            """,
        ]
        watchdog.standardInput = FileHandle.nullDevice
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        try watchdog.run()
        return watchdog
    }

    private static let runuser =
        ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        } ?? "/usr/sbin/runuser"

    /// Runs a PostgreSQL program, as the user postgres when this is root.
    private static func run(
        _ program: String, _ arguments: [String], in directory: String?, asPostgres: Bool = true
    ) throws -> Support.Output {
        if asRoot && asPostgres {
            return try Support.run(runuser, ["-u", "postgres", "--", program] + arguments, directory: directory)
        }
        return try Support.run(program, arguments, directory: directory)
    }

    /// A loopback port nothing listens on now.
    package static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw Failure("bind: errno \(errno)") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Failure("getsockname: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether `pid` ended within `seconds`.
    private static func waitGone(_ pid: Int32, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if kill(pid, 0) != 0 && errno == ESRCH { return true }
            // Ended but not yet reaped (the postmaster is this process's child when it is not root).
            if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")"), stat[stat.index(after: close)...].hasPrefix(" Z")
            {
                return true
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// The processes whose parent is `pid` (the postmaster's backends), from /proc.
    private static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let child = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // pid (comm) state ppid …: the fields after the command's closing parenthesis.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid ? child : nil
        }
    }

    /// A failure to start or use the server, said for the test's output.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }
}
