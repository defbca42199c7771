#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A source read through one block: a small read that falls inside the block last read costs
/// no system call, and a small read outside it reads the block that starts there.
///
/// For walking an archive's small records in file order — the local headers, then the data of
/// small entries: checking 20,000 entries of 1 KB took 60,000 `pread`s of 30 to 1,000 bytes,
/// and takes a few dozen of 1 MiB through this. Reads of half a block or more go to the
/// underlying source directly, so large entries are not copied twice.
///
/// Safe to share between threads (a lock guards the block), but meant for one reader walking
/// forward; a second reader elsewhere in the file would make both miss.
public final class ReadAheadSource: ByteSource, @unchecked Sendable {
    // @unchecked: the block and its position are mutable, and every access holds `lock`.
    private let base: any ByteSource
    private let block: UnsafeMutableRawBufferPointer
    private var blockOffset: Int64 = 0
    private var blockCount = 0
    // A pthread mutex, not Synchronization's Mutex: phones link this module, and Mutex needs iOS 18 (the package supports iOS 16).
    private let lock: UnsafeMutablePointer<pthread_mutex_t>

    /// The total size in bytes (the underlying source's).
    public let size: Int64

    /// Reads `base` through a block of `blockSize` bytes.
    public init(_ base: any ByteSource, blockSize: Int = 1 << 20) {
        self.base = base
        self.size = base.size
        self.block = .allocate(byteCount: max(4096, blockSize), alignment: 64)
        self.lock = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
        block.deallocate()
    }

    /// Fills `buffer` from `offset`: from the block when it holds the range (refilled from
    /// `offset` when a small read misses), else from the underlying source.
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        guard offset >= 0, offset < size, !buffer.isEmpty else { return 0 }
        if buffer.count >= block.count / 2 { return try base.read(at: offset, into: buffer) }
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        let wanted = Int(min(Int64(buffer.count), size - offset))
        if offset < blockOffset || offset + Int64(wanted) > blockOffset + Int64(blockCount) {
            blockOffset = offset
            blockCount = 0
            blockCount = try base.read(at: offset, into: block)
        }
        let start = Int(offset - blockOffset)
        let n = min(wanted, blockCount - start)
        guard n > 0 else { return 0 }
        buffer.baseAddress!.copyMemory(from: block.baseAddress! + start, byteCount: n)
        return n
    }
}
