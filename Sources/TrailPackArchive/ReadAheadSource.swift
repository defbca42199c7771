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
/// and takes a few dozen of 1 MiB through this. Reads of 64 KiB or more (an entry's data in the
/// entry reader's chunks) go to the underlying source directly, so they are not copied twice; and
/// after a block that was mostly skipped (entries larger than a block, whose headers alone are
/// read through it), the next refill is 64 KiB, not a whole block.
///
/// Safe to share between threads (a lock guards the block), but meant for one reader walking
/// forward; a second reader elsewhere in the file would make both miss.
public final class ReadAheadSource: ByteSource, @unchecked Sendable {
    // @unchecked: the block and its position are mutable, and every access holds `lock`.
    private let base: any ByteSource
    private let block: UnsafeMutableRawBufferPointer
    private var blockOffset: Int64 = 0
    private var blockCount = 0
    /// Bytes served from the current block: when a miss finds it mostly unused, the reads are far
    /// apart and the next refill is small.
    private var served = 0
    /// Reads this large skip the block; a refill after a mostly unused block is this large too.
    private let small: Int
    // A pthread mutex, not Synchronization's Mutex: phones link this module, and Mutex needs iOS 18 (the package supports iOS 16).
    private let lock: UnsafeMutablePointer<pthread_mutex_t>

    /// The total size in bytes (the underlying source's).
    public let size: Int64

    /// Reads `base` through a block of `blockSize` bytes.
    public init(_ base: any ByteSource, blockSize: Int = 1 << 20) {
        self.base = base
        self.size = base.size
        self.block = .allocate(byteCount: max(4096, blockSize), alignment: 64)
        self.small = min(64 << 10, max(4096, blockSize) / 2)
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
        if buffer.count >= small { return try base.read(at: offset, into: buffer) }
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        let wanted = Int(min(Int64(buffer.count), size - offset))
        if offset < blockOffset || offset + Int64(wanted) > blockOffset + Int64(blockCount) {
            let refill = blockCount > 0 && served < blockCount / 4 ? small : block.count
            blockOffset = offset
            blockCount = 0
            served = 0
            blockCount = try base.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: block[0..<refill]))
        }
        let start = Int(offset - blockOffset)
        let n = min(wanted, blockCount - start)
        guard n > 0 else { return 0 }
        buffer.baseAddress!.copyMemory(from: block.baseAddress! + start, byteCount: n)
        served += n
        return n
    }
}
