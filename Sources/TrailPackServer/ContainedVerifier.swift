import Foundation
import NIOConcurrencyHelpers
import SystemPackage
import TrailPackCore
import TrailPackCrypto
import TrailPackFileIO
import TrailPackVerifier

#if canImport(Glibc)
import Glibc
#endif

/// Verifies an upload in a child process, so that a package that crashes the verifier (or makes it
/// run out of memory or time) costs one 422, never the server.
///
/// The child is the same `trailpack` binary (`trailpack verify-upload`, a hidden command). It
/// runs in its own process group, in the upload's own temporary folder (it changes to it first), with no inherited file
/// descriptors but its three standard ones, and it limits itself before reading a byte: address
/// space (`RLIMIT_AS`), CPU time (`RLIMIT_CPU`), file size 0 (`RLIMIT_FSIZE`: it cannot write a
/// file anywhere), no core files. The parent kills the whole group after the wall-clock timeout.
public struct ContainedVerifier: Sendable {
    /// The `trailpack` executable that runs `verify-upload`.
    public var executable: String
    public var maxMemoryBytes: Int64 = 4 << 30
    public var maxCPUSeconds: Int = 600
    public var timeoutSeconds: Double = 900

    public init(executable: String) { self.executable = executable }

    /// The running program itself (`/proc/self/exe`), for `trailpack serve`.
    public static func currentExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// What the child found, or why it gave no answer.
    public enum Outcome: Sendable {
        case report(valid: Bool, sha256: SHA256Digest, manifest: Manifest?, findings: [Finding])
        /// The child died, was killed by a limit, timed out, or answered nonsense.
        case failed(reason: String)
    }

    /// Verifies `file` (a name inside `folder`) in a contained child.
    public func verify(file: String, in folder: String) -> Outcome {
        let arguments = [
            executable, "verify-upload", "--max-memory-mb", String(maxMemoryBytes >> 20), "--max-cpu-seconds",
            String(maxCPUSeconds),
            "--directory", folder, file,
        ]
        let run: ChildRun
        do { run = try ChildRun.run(arguments: arguments, timeout: timeoutSeconds, maxOutput: 16 << 20) } catch {
            return .failed(reason: "the verifier could not be started: \(error)")
        }
        if run.timedOut {
            return .failed(reason: "the verifier took longer than \(Int(timeoutSeconds)) seconds and was stopped")
        }
        if let signal = run.signal {
            let name =
                [
                    SIGILL: "SIGILL, a trap", SIGTRAP: "SIGTRAP, a trap", SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS",
                    SIGABRT: "SIGABRT",
                    SIGKILL: "SIGKILL, the memory limit or the timeout", SIGXCPU: "SIGXCPU, the CPU-time limit",
                    SIGXFSZ: "SIGXFSZ, a write",
                ][signal] ?? "signal \(signal)"
            return .failed(reason: "the verifier crashed on this package (\(name))")
        }
        guard run.status == 0 || run.status == 1 else {
            let last = run.stderr.split(separator: "\n").last.map { ": " + $0 } ?? ""
            return .failed(reason: "the verifier stopped with exit status \(run.status)\(last)")
        }
        guard let doc = try? JSONParser.parse(run.stdout, limits: JSONLimits(maxBytes: 16 << 20)).value,
            case .bool(let valid)? = doc["valid"], case .string(let hex)? = doc["sha256"],
            let sha256 = SHA256Digest(hex: hex),
            case .array(let list)? = doc["findings"]
        else {
            return .failed(reason: "the verifier's answer could not be read")
        }
        var findings: [Finding] = []
        for item in list {
            guard case .string(let codeText)? = item["code"], let code = FindingCode(rawValue: codeText),
                case .string(let message)? = item["message"]
            else {
                return .failed(reason: "the verifier's answer could not be read")
            }
            var file: String?, path: String?
            if case .string(let f)? = item["file"] { file = f }
            if case .string(let p)? = item["path"] { path = p }
            findings.append(Finding(code, file: file, location: path.map(Finding.Location.text), message))
        }
        var manifest: Manifest?
        if let value = doc["manifest"], value != .null {
            // A refused package's manifest may itself break the rules (an asset path leading
            // outside, say): that is the refusal the findings already give, not a verifier failure.
            let read = ManifestReader.read(JSONWriter.bytes(value))
            if read.isValid {
                manifest = read.manifest
            } else if valid {
                return .failed(reason: "the verifier's answer holds a manifest that does not read back")
            }
        }
        if valid && manifest == nil { return .failed(reason: "the verifier's answer holds no manifest") }
        return .report(valid: valid, sha256: sha256, manifest: manifest, findings: findings)
    }
}

/// One child process: spawned in its own process group, both pipes read while it runs, killed
/// (the whole group) at the deadline, at the server's shutdown (`killAll`), and — through
/// `setpriv --pdeathsig KILL` where util-linux has it — when the server itself is killed.
struct ChildRun {
    /// The process groups of the children running now.
    private static let running = NIOLockedValueBox<Set<pid_t>>([])

    /// Kills every child still running, with its process group (the server is stopping).
    static func killAll() {
        for pid in running.withLockedValue({ $0 }) { kill(-pid, SIGKILL) }
    }

    /// `setpriv` makes the child die with the thread that started it (which waits for it): a
    /// server killed with SIGKILL leaves no scanner or verifier running.
    static let deathSignalPrefix: [String] =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        ? ["/usr/bin/setpriv", "--pdeathsig", "KILL", "--"] : []

    var status: Int32 = -1
    var signal: Int32?
    var timedOut = false
    var stdout: [UInt8] = []
    var stderr = ""

    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np` (the Glibc module does not show it to
    /// Swift): every descriptor from 3 up is closed in the child. Where the C library has none, every
    /// descriptor the server holds from 3 up is marked close-on-exec instead (the server never hands
    /// one to a program on purpose: the child's pipes are duplicated onto 0, 1 and 2).
    private static func closeTheRest(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np"),
            unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3) == 0
        {
            return
        }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for fd in names.compactMap({ Int32($0) }) where fd > 2 {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// The server's environment, with Swift's crash backtracer turned off: a verifier that traps on a
    /// hostile package dies at once, and the server says so ("the verifier crashed on this package").
    /// Otherwise every such upload started a `swift-backtrace` of its own (about 200 MB, up to 30 s of
    /// symbolication); one was seen still running 47 minutes later, holding the server's pipe.
    static func childEnvironment() -> [String] {
        var out: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if !text.hasPrefix("SWIFT_BACKTRACE=") { out.append(text) }
            entry += 1
        }
        return out + ["SWIFT_BACKTRACE=enable=no"]
    }

    /// A system call that failed while starting the child, as the server's error.
    static func spawnFailure(_ call: String, _ code: Int32) -> ServerError {
        var error = ServerError.internal("cannot start the verifier: \(call) failed: \(Errno(rawValue: code))")
        error.systemCall = SystemCall(call, Errno(rawValue: code))
        return error
    }

    /// Runs `arguments` (the first is the executable's path). The child is expected to change to its
    /// working folder itself (posix_spawn's chdir action is not visible to Swift here).
    static func run(arguments: [String], timeout: Double, maxOutput: Int) throws -> ChildRun {
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0 else { throw spawnFailure("pipe", errno) }
        guard pipe(&errPipe) == 0 else {
            close(outPipe[0]); close(outPipe[1])
            throw spawnFailure("pipe", errno)
        }
        // (pipe2 with O_CLOEXEC is not visible to Swift here.) Close-on-exec keeps these pipes out of other
        // children started meanwhile; this child gets them as 1 and 2 and nothing above (`closeTheRest`).
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        // Nothing else of the server's reaches the child: NIO's listening socket and epoll descriptors
        // are not close-on-exec, and a scanner (or `setpriv`, before the verifier closes them itself)
        // would otherwise hold them while it reads hostile bytes.
        closeTheRest(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group (killed whole at the deadline), default signal handling, nothing blocked.
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let command = deathSignalPrefix + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let envp: [UnsafeMutablePointer<CChar>?] = childEnvironment().map { strdup($0) } + [nil]
        defer { for p in envp { free(p) } }
        let spawned = posix_spawn(&pid, command[0], &actions, &attributes, argv, envp)
        close(outPipe[1])
        close(errPipe[1])
        guard spawned == 0 else {
            close(outPipe[0]); close(errPipe[0])
            throw spawnFailure("posix_spawn", spawned)
        }
        running.withLockedValue { _ = $0.insert(pid) }
        defer { running.withLockedValue { _ = $0.remove(pid) } }
        var result = ChildRun()
        var errBytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var fds = [
            pollfd(fd: outPipe[0], events: Int16(POLLIN), revents: 0),
            pollfd(fd: errPipe[0], events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var open = 2
        while open > 0 {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { result.timedOut = true; break }
            let ready = poll(&fds, 2, Int32(min(left, 1) * 1000))
            if ready < 0 && errno != EINTR { break }
            for i in 0..<2 where fds[i].fd >= 0 && fds[i].revents != 0 {
                let n = read(fds[i].fd, &buffer, buffer.count)
                if n > 0 {
                    if i == 0 {
                        // An answer larger than any report: stop the child (its status then says a signal).
                        if result.stdout.count + n > maxOutput {
                            kill(-pid, SIGKILL)
                        } else {
                            result.stdout += buffer[..<n]
                        }
                    } else if errBytes.count < 64 << 10 {
                        errBytes += buffer[..<n]
                    }
                } else if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) {
                    close(fds[i].fd)
                    fds[i].fd = -1
                    open -= 1
                }
            }
        }
        // The pipes are closed (or the time is up). Wait for the child to end without reaping it, so
        // that its process-group id cannot be reused before whatever it left in the group is killed.
        if result.timedOut { kill(-pid, SIGKILL) }
        while true {
            var info = siginfo_t()
            let r = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | WNOHANG)
            if r == 0 && info._sifields._sigchld.si_pid == pid { break }
            if r < 0 && errno != EINTR { break }
            if deadline.timeIntervalSinceNow <= 0 && !result.timedOut {
                result.timedOut = true
                kill(-pid, SIGKILL)
            }
            usleep(5_000)
        }
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        for f in fds where f.fd >= 0 { close(f.fd) }
        result.stderr = String(decoding: errBytes, as: UTF8.self)
        let termination = status & 0x7f
        if termination == 0 {
            result.status = (status >> 8) & 0xff
        } else if termination != 0x7f {
            result.signal = termination
        }
        return result
    }
}
