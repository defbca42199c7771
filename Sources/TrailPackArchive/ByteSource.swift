#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Random-access bytes: a file on disk, or a buffer in memory (for tests and fuzzing).
public protocol ByteSource: Sendable {
    /// The total size in bytes.
    var size: Int64 { get }
    /// Fills `buffer` from `offset`; returns the number of bytes read (short only at the end).
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int
}

extension ByteSource {
    /// Up to `count` bytes at `offset` as an array (short at the end of the source).
    public func bytes(at offset: Int64, count: Int) throws(ArchiveError) -> [UInt8] {
        guard count > 0, offset >= 0, offset < size else { return [] }
        let n = Int(min(Int64(count), size - offset))
        var out = [UInt8](repeating: 0, count: n)
        var failure: ArchiveError?
        let got = out.withUnsafeMutableBytes { buffer -> Int in
            do { return try read(at: offset, into: buffer) } catch { failure = (error as Any) as? ArchiveError ?? ArchiveError(operation: "read", detail: "\(error)"); return 0 }
        }
        if let failure { throw failure }
        return got == n ? out : Array(out.prefix(got))
    }
}

/// A file read with `pread`, so that several threads can read it at once.
public final class FileSource: ByteSource, Sendable {
    /// The file's path.
    public let path: String
    /// The file's size when it was opened.
    public let size: Int64
    private let fd: Int32

    /// Opens `path` for reading; anything but a regular file (a FIFO, a device, a folder) is
    /// refused before it could block. The corresponding C functions are `open`, `fstat` and `fcntl`.
    public init(path: String) throws(ArchiveError) {
        // O_NONBLOCK: opening a FIFO with no writer would otherwise wait for ever.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw ArchiveError.system("open '\(path)'") }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let e = ArchiveError.system("read '\(path)'")
            close(fd)
            throw e
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw ArchiveError(operation: "read '\(path)'", detail: "it is not a regular file (a folder, pipe or device)")
        }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            let e = ArchiveError.system("read '\(path)'")
            close(fd)
            throw e
        }
        self.path = path
        self.fd = fd
        self.size = Int64(st.st_size)
        #if canImport(Glibc)
        _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
        #endif
    }

    deinit { close(fd) }

    /// Reads with `pread` from `offset`, retrying short reads; short only at the end of the file.
    /// The corresponding C function is `pread`.
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw ArchiveError.system("read '\(path)' at byte \(offset + Int64(done))")
            }
            if n == 0 { break }
            done += n
        }
        return done
    }
}

/// Bytes in memory.
public struct MemorySource: ByteSource {
    /// The bytes.
    public let data: [UInt8]
    /// A source over `data`.
    public init(_ data: [UInt8]) { self.data = data }
    /// The number of bytes.
    public var size: Int64 { Int64(data.count) }
    /// Copies the bytes from `offset` into `buffer`; returns how many (short only at the end).
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        guard offset >= 0, offset < size else { return 0 }
        let n = min(buffer.count, data.count - Int(offset))
        data.withUnsafeBytes { src in
            buffer.baseAddress!.copyMemory(from: src.baseAddress! + Int(offset), byteCount: n)
        }
        return n
    }
}
