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
/// it is written: each chunk's writeback starts as soon as it is written, and the chunk before it
/// is waited for (and, if asked, let go of the page cache).
///
/// A large write followed by one `fsync` fills the page cache with dirty pages first and writes
/// them all at the end: the disk idles while the writer works, then the writer idles while the
/// disk works. Flushed as it goes, the disk works beside the writer, and the final `fsync` finds
/// no more unwritten than the last chunk or two, which is all that is ever dirty.
///
/// A failure to write back is an error here: the wait reports it, and Linux reports a writeback
/// error to one flush of the open file only, so the `fsync` after would not see it again. Where
/// the system has no such call (`sync_file_range` is Linux's; ENOSYS, EINVAL, ESPIPE), it stops
/// trying and the final flush does it all.
///
/// Not copyable: two copies would each keep their own idea of what was flushed.
public struct WriteBehind: ~Copyable {
    /// The size of the chunks flushed.
    public static let chunkSize: Int64 = 8 << 20

    private let descriptor: FileDescriptor
    /// The file's name, for errors.
    private let path: String
    /// What becomes of the pages written back.
    private let pages: Pages
    /// Writeback has been started for the bytes before `started`…
    private var started: Int64
    /// …and is finished for those before `settled`.
    private var settled: Int64
    /// Set when the system cannot do it: nothing more is tried.
    private var unsupported = false

    /// What becomes of a chunk's pages once they are written back.
    public enum Pages: Sendable {
        /// They stay in the page cache, for a file that is read again soon (an upload, verified next).
        case kept
        /// They are let go (the bytes stay on disk): the file never takes more memory than two
        /// chunks, and the pages it writes are the few it just let go, not fresh ones; whoever reads
        /// it next reads it from the disk.
        case letGo
    }

    /// Starts following `descriptor`, an empty file about to be written in order.
    public init(descriptor: FileDescriptor, path: String, pages: Pages = .kept) {
        self.descriptor = descriptor
        self.path = path
        self.pages = pages
        (started, settled) = (0, 0)
    }

    /// Tells it that the file now holds `count` bytes written from the start; flushes what is due.
    /// Throws when the disk failed to take the bytes (the file must then be given up).
    public mutating func written(through count: Int64) throws(FileIOError) {
        guard !unsupported, count - started >= Self.chunkSize else { return }
        let fd = descriptor.rawValue
        // The chunk before: wait for its writeback (started a chunk ago, so mostly done).
        if started > settled {
            let wait = UInt32(
                TRAILPACK_SYNC_FILE_RANGE_WAIT_BEFORE | TRAILPACK_SYNC_FILE_RANGE_WRITE
                    | TRAILPACK_SYNC_FILE_RANGE_WAIT_AFTER)
            guard try call(trailpack_sync_file_range(fd, settled, started - settled, wait)) else { return }
            #if os(Linux)
            // Only clean pages are dropped, and these were just written back without an error.
            if pages == .letGo {
                _ = posix_fadvise(fd, off_t(settled), off_t(started - settled), Int32(POSIX_FADV_DONTNEED))
            }
            #endif
            settled = started
        }
        // This chunk: start its writeback, without waiting.
        let write = UInt32(TRAILPACK_SYNC_FILE_RANGE_WRITE)
        guard try call(trailpack_sync_file_range(fd, started, count - started, write)) else { return }
        started = count
    }

    /// Whether the call did its work; false (and nothing more tried) when the system cannot do it.
    private mutating func call(_ result: Int32) throws(FileIOError) -> Bool {
        if result == 0 { return true }
        let e = Errno.last
        if e == .noFunction || e == .invalidArgument || e == .illegalSeek || e == .notSupported {
            unsupported = true
            return false
        }
        throw FileIOError.system("sync_file_range", e, "cannot flush '\(path)' to disk", path: path)
    }
}
