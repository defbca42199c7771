internal import CWriteBehind
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Flushes a file that is written from start to end, and will be flushed whole at the end, while
/// it is written: each chunk's writeback starts as soon as it is written, the chunk before it is
/// waited for, and its pages are then let go from the page cache.
///
/// A large write followed by one `fsync` fills the page cache with dirty pages first and writes
/// them all at the end: the disk idles while the writer works, then the writer idles while the
/// disk works, and the pages written are fresh ones every time (in a virtual machine whose host
/// takes back free memory, each fresh page can cost the host a fault). Flushed as it goes, the
/// disk works beside the writer, the final `fsync` finds at most two chunks still dirty, and the
/// same few megabytes of pages are used over and over.
///
/// Advisory only: a failure to start or wait for writeback is not reported here; the `fsync` that
/// must follow reports any error of the data's writeback. Linux only (`sync_file_range`); elsewhere
/// it does nothing, and the final flush does it all.
public struct WriteBehind: Sendable {
    /// The size of the chunks flushed: at most two of them are dirty at any time.
    public static let chunkSize: Int64 = 8 << 20

    private let descriptor: FileDescriptor
    /// The offset where the file's writing began (bytes before it are the caller's).
    /// Writeback has been started for the bytes before `started`…
    private var started: Int64
    /// …and finished, the pages let go, for those before `settled`.
    private var settled: Int64

    /// Starts following `descriptor`, whose bytes from `offset` on are about to be written.
    public init(descriptor: FileDescriptor, from offset: Int64 = 0) {
        self.descriptor = descriptor
        (started, settled) = (offset, offset)
    }

    /// Tells it that the file now holds `count` bytes written from the start.
    public mutating func written(through count: Int64) {
        guard count - started >= Self.chunkSize else { return }
        #if os(Linux)
        let fd = descriptor.rawValue
        // The chunk before: wait for its writeback (started a chunk ago, so mostly done), then let
        // its pages go. Only clean pages are dropped, so nothing is lost if the wait was cut short.
        if started > settled {
            _ = trailpack_sync_file_range(
                fd, settled, started - settled,
                UInt32(
                    TRAILPACK_SYNC_FILE_RANGE_WAIT_BEFORE | TRAILPACK_SYNC_FILE_RANGE_WRITE
                        | TRAILPACK_SYNC_FILE_RANGE_WAIT_AFTER))
            _ = posix_fadvise(fd, off_t(settled), off_t(started - settled), Int32(POSIX_FADV_DONTNEED))
            settled = started
        }
        // This chunk: start its writeback, without waiting.
        _ = trailpack_sync_file_range(fd, started, count - started, UInt32(TRAILPACK_SYNC_FILE_RANGE_WRITE))
        #endif
        started = count
    }
}
