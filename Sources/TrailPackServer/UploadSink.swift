import NIOCore
import SystemPackage
import TrailPackBlocking
import TrailPackFileIO

/// Writes an upload to a temporary file, refusing more than a limit. (Its SHA-256 comes from the
/// verifier, which reads the stored bytes anyway: hashing the stream as well would do it twice.)
///
/// A request's body is handed over with ``write(_:)`` and ``finish()``: the bytes are gathered up to
/// ``batchBytes`` and written, and finally flushed to disk, on the blocking pool, never on the
/// cooperative threads. Code already on a thread that may block (the pool's: a zip being unpacked,
/// a form's parts) uses ``writeHere(_:)`` and ``finishHere()``.
public final class UploadSink: @unchecked Sendable {
    // @unchecked: a sink has one user at a time (an upload's body loop, or a job on the pool); each
    // pool job it starts is awaited before the next begins, so its fields are never touched at once.
    let path: String
    let limit: Int64
    private let descriptor: SystemPackage.FileDescriptor
    private let pool: BlockingPool
    private var pending: [ByteBuffer] = []
    private var pendingBytes = 0
    public private(set) var size: Int64 = 0
    /// The upload is flushed to disk as it is written (``finishHere()`` flushes it whole anyway):
    /// a large upload neither fills the page cache with dirty pages nor leaves all of its writing
    /// to the final flush, which the request waits for.
    private var writeBehind: WriteBehind

    /// How many bytes of a body are gathered before one write on the pool (a body arrives in pieces
    /// of a few KiB to 64 KiB; one job per piece would spend more on the hop than on the write).
    public static let batchBytes = 1 << 20

    /// Creates `path` (which must not exist) for an upload of at most `limit` bytes, written on `pool`.
    public init(path: String, limit: Int64, pool: BlockingPool) throws {
        self.path = path
        self.limit = limit
        self.pool = pool
        do {
            descriptor = try FileOperations.open(
                path, .writeOnly, options: [.create, .exclusiveCreate],
                permissions: [.ownerReadWrite, .groupRead, .otherRead],
                failure: "cannot create an upload file")
        } catch { throw ServerError(error) }
        // The pages stay in memory: the verifier reads the upload as soon as it is complete.
        writeBehind = WriteBehind(descriptor: descriptor, path: path)
    }

    deinit { try? descriptor.close() }

    /// Takes the next piece of the body; refuses the upload once it passes the limit.
    public func write(_ buffer: ByteBuffer) async throws {
        try count(buffer.readableBytes)
        pending.append(buffer)
        pendingBytes += buffer.readableBytes
        if pendingBytes >= Self.batchBytes { try await flush() }
    }

    /// Writes what is left and flushes the file to disk, on the pool.
    public func finish() async throws {
        try await flush()
        try await pool.run { [self] in try finishHere() }
    }

    /// Appends `bytes` here, on the calling thread (one that may block); refuses the upload once it
    /// passes the limit.
    public func writeHere(_ bytes: UnsafeRawBufferPointer) throws {
        try count(bytes.count)
        do {
            try descriptor.writeAll(bytes, path: path)
            try writeBehind.written(through: size)
        } catch { throw ServerError(error) }
    }

    /// Writes what ``write(_:)`` gathered (if anything) and flushes to disk here, on the calling
    /// thread (one that may block).
    public func finishHere() throws {
        let buffers = pending
        pending = []
        pendingBytes = 0
        try writeHere(buffers)
        do { try descriptor.sync(path: path) } catch { throw ServerError(error) }
    }

    private func count(_ bytes: Int) throws {
        size += Int64(bytes)
        guard size <= limit else { throw ServerError.tooLarge(limit) }
    }

    private func flush() async throws {
        guard !pending.isEmpty else { return }
        let buffers = pending
        pending = []
        pendingBytes = 0
        try await pool.run { [self] in try writeHere(buffers) }
    }

    private func writeHere(_ buffers: [ByteBuffer]) throws {
        for buffer in buffers {
            do {
                try buffer.withUnsafeReadableBytes { try descriptor.writeAll($0, path: path) }
            } catch let error as FileIOError { throw ServerError(error) }
        }
        do { try writeBehind.written(through: size) } catch { throw ServerError(error) }
    }
}
