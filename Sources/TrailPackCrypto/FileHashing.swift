import SystemPackage
import TrailPackFileIO

/// Streaming hashes of whole files, in fixed-size chunks through one buffer: memory stays flat
/// whatever the size. The one file-into-hash loop (SHA-256 for packages, BLAKE2b-512 for
/// minisign's prehash).
public enum FileHashing {
    /// The chunk size used to read files.
    public static let chunkSize = 1 << 20

    /// A file's SHA-256 and the number of bytes hashed.
    public struct FileDigest: Sendable {
        /// The SHA-256 of the bytes read.
        public var digest: SHA256Digest
        /// How many bytes were read.
        public var size: Int64
    }

    /// The SHA-256 and size of the file at `path`. `progress` is told of each chunk's byte count.
    public static func sha256(path: String, progress: ((Int) -> Void)? = nil) throws(FileIOError) -> FileDigest {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 64)
        defer { buffer.deallocate() }
        return try sha256(path: path, buffer: buffer, progress: progress)
    }

    /// The SHA-256 and size of the file at `path`, read through the caller's `buffer` — for a
    /// caller that hashes many files, so that each costs no buffer of its own (a 1 MiB buffer is
    /// a `mmap` and a `munmap`, its pages faulted in and zeroed each time).
    public static func sha256(
        path: String, buffer: UnsafeMutableRawBufferPointer, progress: ((Int) -> Void)? = nil
    ) throws(FileIOError) -> FileDigest {
        var hasher = SHA256()
        let size = try forEachChunk(ofFileAt: path, buffer: buffer) { chunk in
            hasher.update(chunk)
            progress?(chunk.count)
        }
        return FileDigest(digest: hasher.finalize(), size: size)
    }

    /// The SHA-256 and size of what can be read from `descriptor` (a file, a pipe, standard input)
    /// until its end; `name` is for the error message. The descriptor stays open.
    public static func sha256(
        fileDescriptor descriptor: FileDescriptor, name: String, progress: ((Int) -> Void)? = nil
    ) throws(FileIOError) -> FileDigest {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 64)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        let size = try forEachChunk(of: descriptor, name: name, buffer: buffer) { chunk in
            hasher.update(chunk)
            progress?(chunk.count)
        }
        return FileDigest(digest: hasher.finalize(), size: size)
    }

    /// BLAKE2b-512 of the file at `path`: what minisign's prehashed signatures sign.
    public static func blake2b512(path: String) throws(FileIOError) -> [UInt8] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 64)
        defer { buffer.deallocate() }
        var hasher = BLAKE2b512()
        _ = try forEachChunk(ofFileAt: path, buffer: buffer) { hasher.update($0) }
        return hasher.finalize()
    }

    /// Opens the file at `path` and hands `body` each chunk read into `buffer`, to the end.
    /// - Returns: the number of bytes read.
    static func forEachChunk(
        ofFileAt path: String, buffer: UnsafeMutableRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void
    ) throws(FileIOError) -> Int64 {
        let file = try FileOperations.openRegularFile(path)
        defer { try? file.descriptor.close() }
        if file.status.size > Int64(buffer.count) { file.descriptor.adviseSequential() }
        return try forEachChunk(of: file.descriptor, name: path, buffer: buffer, body)
    }

    static func forEachChunk(
        of descriptor: FileDescriptor, name: String, buffer: UnsafeMutableRawBufferPointer,
        _ body: (UnsafeRawBufferPointer) -> Void
    ) throws(FileIOError) -> Int64 {
        var total: Int64 = 0
        while true {
            let n = try descriptor.readFully(into: buffer, path: name)
            if n > 0 { body(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) }
            total += Int64(n)
            if n < buffer.count { return total }
        }
    }
}
