import Foundation
#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
private let systemRename = Glibc.rename
#elseif canImport(Musl)
import Musl
private let systemWrite = Musl.write
private let systemRename = Musl.rename
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
private let systemRename = Darwin.rename
#endif

/// A file written under a temporary name beside its destination and renamed into place at the end.
///
/// While it exists, its path is registered with `InterruptCleanup`, so the program's Ctrl-C or
/// SIGTERM handler (the `trailpack` command installs one) can remove it.
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

    /// Creates the file with `mode` from the start (a secret key is never readable by others, not
    /// even for a moment); the mode is set exactly, whatever the umask.
    func create(mode: mode_t = 0o644) throws {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw BuildError.io("cannot create '\(path)': \(String(cString: strerror(errno)))") }
        InterruptCleanup.register(path)
        guard fchmod(fd, mode) == 0 else { throw BuildError.io("cannot set the permissions of '\(path)': \(String(cString: strerror(errno)))") }
    }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
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
        guard systemRename(path, destination) == 0 else {
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

/// Small files replaced whole: written under a temporary name beside the destination, flushed, renamed
/// over it, and the folder flushed, so the path holds the old content or the new, never a mix — even
/// after a power cut.
public enum AtomicFile {
    /// Writes `bytes` to `path` whole or not at all: a temporary file beside it, written, flushed,
    /// renamed over it, and the folder flushed. `mode` is the new file's permissions.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let temp = TemporaryFile(directory: directory, baseName: url.lastPathComponent)
        try temp.create(mode: mode)
        defer { temp.remove() }
        try temp.write(bytes)
        try temp.sync()
        try temp.rename(to: path)
        syncFolder(directory)
    }

    /// Flushes a folder's entries (a rename in it) to disk; best effort.
    public static func syncFolder(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
