import SystemPackage
import TrailPackFileIO

/// Writes an upload to a temporary file, refusing more than a limit. (Its SHA-256 comes from the
/// verifier, which reads the stored bytes anyway: hashing the stream as well would do it twice.)
public final class UploadSink {
    let path: String
    let limit: Int64
    private let descriptor: FileDescriptor
    public private(set) var size: Int64 = 0

    /// Creates `path` (which must not exist) for an upload of at most `limit` bytes.
    public init(path: String, limit: Int64) throws {
        self.path = path
        self.limit = limit
        do {
            descriptor = try FileOperations.open(
                path, .writeOnly, options: [.create, .exclusiveCreate],
                permissions: [.ownerReadWrite, .groupRead, .otherRead],
                failure: "cannot create an upload file")
        } catch { throw ServerError(error) }
    }

    deinit { try? descriptor.close() }

    /// Appends `bytes`; refuses the upload once it passes the limit.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        size += Int64(bytes.count)
        guard size <= limit else { throw ServerError.tooLarge(limit) }
        do { try descriptor.writeAll(bytes, path: path) } catch { throw ServerError(error) }
    }

    /// Flushes to disk.
    public func finish() throws {
        do { try descriptor.sync(path: path) } catch { throw ServerError(error) }
    }
}
