import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes an upload to a temporary file, refusing more than a limit. (Its SHA-256 comes from the
/// verifier, which reads the stored bytes anyway: hashing the stream as well would do it twice.)
public final class UploadSink {
    let path: String
    let limit: Int64
    private let fd: Int32
    public private(set) var size: Int64 = 0

    public init(path: String, limit: Int64) throws {
        self.path = path
        self.limit = limit
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ServerError.internal("cannot create an upload file: \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        size += Int64(bytes.count)
        guard size <= limit else { throw ServerError.tooLarge(limit) }
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw ServerError.internal("cannot write the upload: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    /// Flushes to disk.
    public func finish() throws {
        guard fsync(fd) == 0 else { throw ServerError.internal("cannot flush the upload: \(String(cString: strerror(errno)))") }
    }
}
