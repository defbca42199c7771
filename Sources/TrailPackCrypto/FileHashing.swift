#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Streaming SHA-256 of whole files, in fixed-size chunks: memory stays flat whatever the size.
public enum FileHashing {
    /// The chunk size used to read files.
    public static let chunkSize = 1 << 20

    /// A file's SHA-256, and its size as read.
    public struct FileDigest: Sendable {
        public var digest: SHA256Digest
        /// The bytes read (what the digest is of).
        public var size: Int64
    }

    /// An error opening or reading a file.
    public struct IOError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var operation: String
        public var errno: Int32
        public var description: String { "cannot \(operation) '\(path)': \(String(cString: strerror(errno)))" }
    }

    /// The SHA-256 and size of the file at `path`. `progress` is told of each chunk's byte count.
    public static func sha256(path: String, progress: ((Int) -> Void)? = nil) throws(IOError) -> FileDigest {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 64)
        defer { buffer.deallocate() }
        return try sha256(path: path, buffer: buffer, progress: progress)
    }

    /// The SHA-256 and size of the file at `path`, read through the caller's `buffer` — for a
    /// caller that hashes many files, so that each costs no buffer of its own (a 1 MiB buffer is
    /// a `mmap` and a `munmap`, its pages faulted in and zeroed each time).
    public static func sha256(path: String, buffer: UnsafeMutableRawBufferPointer, progress: ((Int) -> Void)? = nil) throws(IOError) -> FileDigest {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw IOError(path: path, operation: "open", errno: errno) }
        defer { close(fd) }
        return try sha256(fileDescriptor: fd, name: path, buffer: buffer, progress: progress)
    }

    /// The SHA-256 and size of what can be read from `fd` (a file, a pipe, standard input) until its
    /// end; `name` is for the error message. The descriptor stays open.
    public static func sha256(fileDescriptor fd: Int32, name: String, progress: ((Int) -> Void)? = nil) throws(IOError) -> FileDigest {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 64)
        defer { buffer.deallocate() }
        return try sha256(fileDescriptor: fd, name: name, buffer: buffer, progress: progress)
    }

    private static func sha256(fileDescriptor fd: Int32, name: String, buffer: UnsafeMutableRawBufferPointer, progress: ((Int) -> Void)?) throws(IOError) -> FileDigest {
        let path = name
        #if canImport(Glibc)
        var st = stat()
        if fstat(fd, &st) == 0, st.st_size > buffer.count { _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL)) }
        #endif
        var hasher = SHA256()
        var total: Int64 = 0
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw IOError(path: path, operation: "read", errno: errno)
            }
            if n == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            total += Int64(n)
            progress?(n)
        }
        return FileDigest(digest: hasher.finalize(), size: total)
    }
}
