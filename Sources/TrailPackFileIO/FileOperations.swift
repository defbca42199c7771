import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// trailpack's one file-I/O layer, over swift-system's `FileDescriptor`: opening, reading and
/// writing whole buffers (interrupted and short calls retried), flushing, renaming. Every failure is
/// a ``FileIOError`` naming the file, the system call and its `errno`.
///
/// Nothing else in trailpack calls `read`, `write`, `pread`, `pwrite`, `fsync` or `rename` itself.
public enum FileOperations {
    /// Opens `path` (close-on-exec always). `failure` is what the error says could not be done;
    /// by default `cannot open '<path>'`. The corresponding C function is `open`.
    public static func open(
        _ path: String, _ mode: FileDescriptor.AccessMode, options: FileDescriptor.OpenOptions = [],
        permissions: FilePermissions? = nil, failure: String? = nil
    ) throws(FileIOError) -> FileDescriptor {
        do {
            return try FileDescriptor.open(
                FilePath(path), mode, options: options.union(.closeOnExec), permissions: permissions)
        } catch {
            throw FileIOError.system("open", thrown(error), failure ?? "cannot open '\(path)'", path: path)
        }
    }

    /// Opens `path` for reading, refusing anything but a regular file (a folder, a FIFO with no
    /// writer, a device) before it could block. The corresponding C functions are `open` and `fstat`.
    public static func openRegularFile(_ path: String) throws(FileIOError) -> RegularFile {
        // O_NONBLOCK: opening a FIFO with no writer would otherwise wait for ever. It stays set: on
        // a regular file it changes nothing (open(2): "this flag has no effect for regular files").
        let fd = try open(path, .readOnly, options: [.nonBlocking, FileDescriptor.OpenOptions(rawValue: O_NOCTTY)])
        do throws(FileIOError) {
            let status = try fd.status(path: path)
            guard status.isRegularFile else {
                throw FileIOError(
                    code: .notRegularFile,
                    message: "cannot read '\(path)': it is not a regular file (a folder, pipe or device)", path: path)
            }
            return RegularFile(descriptor: fd, status: status)
        } catch {
            try? fd.close()
            throw error
        }
    }

    /// The whole of the regular file at `path`, refused with ``FileIOError/Code/tooLarge`` when it
    /// holds more than `limit` bytes.
    public static func readAll(_ path: String, limit: Int) throws(FileIOError) -> [UInt8] {
        let bytes = try readPrefix(path, maxBytes: limit + 1)
        guard bytes.count <= limit else { throw tooLarge(path, limit: limit) }
        return bytes
    }

    /// The first `maxBytes` bytes of the regular file at `path` (all of it when it is shorter).
    public static func readPrefix(_ path: String, maxBytes: Int) throws(FileIOError) -> [UInt8] {
        let file = try openRegularFile(path)
        defer { try? file.descriptor.close() }
        // The size seen at open, plus one byte to notice a file that grew meanwhile; never more than asked.
        var bytes = [UInt8](repeating: 0, count: Int(min(Int64(maxBytes), max(0, file.status.size) + 1)))
        var count = try typed {
            try bytes.withUnsafeMutableBytes { try file.descriptor.readFully(into: $0, path: path) }
        }
        if count == bytes.count && count < maxBytes {
            // It grew: go on in chunks up to the most asked for.
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while count < maxBytes {
                let want = min(chunk.count, maxBytes - count)
                let n = try typed {
                    try chunk.withUnsafeMutableBytes {
                        try file.descriptor.readFully(
                            into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<want]), path: path)
                    }
                }
                bytes += chunk.prefix(n)
                count += n
                if n < want { break }
            }
        }
        return Array(bytes.prefix(count))
    }

    private static func tooLarge(_ path: String, limit: Int) -> FileIOError {
        FileIOError(code: .tooLarge, message: "'\(path)' is larger than \(limit) bytes", path: path)
    }

    /// Renames `source` to `destination`, replacing a file there. The corresponding C function is `rename`.
    public static func rename(_ source: String, to destination: String) throws(FileIOError) {
        guard systemRename(source, destination) == 0 else {
            throw FileIOError.system(
                "rename", Errno.last, "cannot move '\(source)' to '\(destination)'", path: destination)
        }
    }

    /// Flushes a folder's entries (a file created or renamed in it) to disk. The corresponding C
    /// functions are `open` and `fsync`.
    public static func syncFolder(_ path: String) throws(FileIOError) {
        let fd = try open(path, .readOnly, options: .directory, failure: "cannot flush the folder '\(path)' to disk")
        defer { try? fd.close() }
        try fd.sync(path: path)
    }

    /// The folder that holds `path`: the part before the last `/` (`.` when there is none).
    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of `path`.
    public static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `body`'s result, its error typed again: for `withUnsafeBytes` and the like, which rethrow
    /// untyped. `body` throws only `FileIOError`; anything else would be reported as `.io`.
    package static func typed<R>(_ body: () throws -> R) throws(FileIOError) -> R {
        do { return try body() } catch let error as FileIOError { throw error } catch {
            throw FileIOError(code: .io, message: "\(error)", cause: error)
        }
    }

    /// The `Errno` swift-system threw (it throws nothing else).
    static func thrown(_ error: any Error) -> Errno { error as? Errno ?? .ioError }
}

#if canImport(Glibc)
private let systemRename = Glibc.rename
#elseif canImport(Musl)
private let systemRename = Musl.rename
#elseif canImport(Darwin)
private let systemRename = Darwin.rename
#endif

/// A regular file opened for reading, with what `fstat` said of it then.
public struct RegularFile: Sendable {
    /// The open descriptor; the caller closes it.
    public var descriptor: FileDescriptor
    /// Its size and modification time when it was opened.
    public var status: FileStatus
}
