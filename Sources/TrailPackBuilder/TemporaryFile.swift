import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file written under a temporary name beside its destination and renamed into place at the end.
///
/// While it exists, its path is registered with `InterruptCleanup`, so Ctrl-C or SIGTERM removes it.
/// A SIGKILL cannot be caught: it leaves the hidden temporary file, never a partial file at the
/// destination; `trailpack build` removes such leftovers of earlier builds of the same output.
final class TemporaryFile: @unchecked Sendable {
    let path: String
    private(set) var fd: Int32 = -1
    private var renamed = false

    init(directory: String, baseName: String) {
        path = "\(directory)/.\(baseName).\(getpid()).trailpack-tmp"
        Self.removeStale(directory: directory, baseName: baseName)
    }

    func create() throws {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BuildError.io("cannot create '\(path)': \(String(cString: strerror(errno)))") }
        InterruptCleanup.register(path)
    }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw BuildError.io("cannot write '\(path)': \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    func sync() throws {
        guard fsync(fd) == 0 else { throw BuildError.io("cannot flush '\(path)' to disk: \(String(cString: strerror(errno)))") }
    }

    func rename(to destination: String) throws {
        guard Glibc.rename(path, destination) == 0 else {
            throw BuildError.io("cannot move the finished file to '\(destination)': \(String(cString: strerror(errno)))")
        }
        renamed = true
        InterruptCleanup.unregister(path)
    }

    func remove() {
        if fd >= 0 { close(fd); fd = -1 }
        if !renamed { unlink(path) }
        InterruptCleanup.unregister(path)
    }

    /// Removes temporary files that builds of the same output left when they were killed.
    private static func removeStale(directory: String, baseName: String) {
        let prefix = ".\(baseName)."
        for name in FileSystem.list(directory) where name.hasPrefix(prefix) && name.hasSuffix(".trailpack-tmp") {
            let pidText = name.dropFirst(prefix.count).dropLast(".trailpack-tmp".count)
            guard let pid = Int32(pidText), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(directory + "/" + name) }
        }
    }
}

/// Removes registered temporary files when the process is interrupted (SIGINT, SIGTERM, SIGHUP).
public enum InterruptCleanup {
    // The handler may only use async-signal-safe calls: it walks a fixed table of C strings.
    private static let slots = 8
    nonisolated(unsafe) private static var paths = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slots)
    private static let lock = NSLock()
    nonisolated(unsafe) private static var installed = false

    static func register(_ path: String) {
        lock.lock(); defer { lock.unlock() }
        installIfNeeded()
        for i in 0..<slots where paths[i] == nil {
            paths[i] = strdup(path)
            return
        }
    }

    static func unregister(_ path: String) {
        lock.lock(); defer { lock.unlock() }
        for i in 0..<slots {
            if let p = paths[i], String(cString: p) == path {
                paths[i] = nil
                free(p)
            }
        }
    }

    private static func installIfNeeded() {
        guard !installed else { return }
        installed = true
        for i in 0..<slots { paths[i] = nil }
        // A parent may have started us with these signals blocked (test runners and some
        // supervisors do): unblock them, or an interrupt would be held until the build ends.
        var set = sigset_t()
        sigemptyset(&set)
        for sig in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, sig) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { sig in
                for i in 0..<InterruptCleanup.slots {
                    if let p = InterruptCleanup.paths[i] { unlink(p) }
                }
                _exit(128 + sig)
            }
        }
    }
}
