internal import CLibArchive
import Dispatch
import Foundation
import SystemPackage
import TrailPackArchive
import TrailPackCrypto
import TrailPackFileIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a ZIP archive through libarchive, deterministically, to a file descriptor,
/// computing the SHA-256 of the archive bytes as they are written.
///
/// Every entry is a regular file with mode 0644, owner 0, the same modification time, and a
/// UTF-8 name. The caller chooses per entry whether it is deflated or stored.
///
/// An abandoned writer (dropped without `finish()`) calls `archive_write_fail` first, so that
/// libarchive does not close it cleanly into a well-formed ZIP with partial content.
public struct ZipWriter: ~Copyable {
    private let archive: OpaquePointer
    private let sink: Sink
    private let entry: OpaquePointer
    private let modificationTime: Int64
    /// `modificationTime` as MS-DOS date and time, stamped into every local and central header.
    private let dosTime: UInt32
    private var finished = false
    private var entryCount = 0
    /// The buffer files are read through, allocated once: a buffer per file was a `mmap` and
    /// `munmap` per file (its pages faulted in and zeroed afresh each time).
    private let readBuffer: UnsafeMutableRawBufferPointer

    /// The size of the buffers between the files, libarchive and the output.
    public static let blockSize = 1 << 20

    /// Starts an archive on `fileDescriptor` (which stays open; the caller closes it); `path`
    /// names the output in error messages.
    ///
    /// - Parameter flushingBehind: given when the output, an empty regular file that the caller
    ///   will flush to disk at the end, is to be flushed as it is written (`WriteBehind`), so that
    ///   the final flush has little left to do; says whether the pages written stay in memory.
    /// - Parameter modificationTime: the time stamped on every entry, in seconds since 1970
    ///   (UTC). DOS times are computed in UTC whatever the process's time zone, which the writer
    ///   neither reads nor changes: libarchive converts times with `localtime_r`, so the writer
    ///   stamps the DOS date and time fields of each local and central header itself (see `Sink`).
    public init(
        fileDescriptor: FileDescriptor, path: String, modificationTime: Int64,
        flushingBehind pages: WriteBehind.Pages? = nil
    ) throws(ArchiveError) {
        try self.init(
            fileDescriptor: fileDescriptor, path: path, modificationTime: modificationTime, flushingBehind: pages,
            forcingZIP64: false)
    }

    /// A writer that gives every entry ZIP64 fields (libarchive's `zip64` option), so that its data
    /// descriptors are the 24-byte kind: for the tests, which cannot write 4 GiB to get them.
    package init(
        fileDescriptor: FileDescriptor, path: String, modificationTime: Int64,
        flushingBehind pages: WriteBehind.Pages? = nil, forcingZIP64: Bool
    ) throws(ArchiveError) {
        let sink = Sink(descriptor: fileDescriptor, path: path, flushingBehind: pages)
        let (archive, entry) = try Self.makeArchive(sink: sink, forcingZIP64: forcingZIP64)
        self.archive = archive
        self.entry = entry
        self.sink = sink
        self.modificationTime = modificationTime
        self.dosTime = Self.dosDateTime(modificationTime)
        self.readBuffer = .allocate(byteCount: Self.blockSize, alignment: 64)
    }

    /// Creates and configures the libarchive handles; frees them again if any step fails.
    private static func makeArchive(
        sink: Sink, forcingZIP64: Bool
    ) throws(ArchiveError) -> (OpaquePointer, OpaquePointer) {
        guard let archive = archive_write_new() else {
            throw ArchiveError(code: .library, message: "cannot start a ZIP archive: out of memory")
        }
        guard let entry = archive_entry_new2(archive) else {
            archive_write_free(archive)
            throw ArchiveError(code: .library, message: "cannot start a ZIP archive: out of memory")
        }
        func check(_ status: Int32, _ operation: String) throws(ArchiveError) {
            if status == ARCHIVE_OK || status == ARCHIVE_WARN { return }
            let error = Self.error(archive, operation, sink: sink)
            archive_entry_free(entry)
            archive_write_fail(archive)
            archive_write_free(archive)
            throw error
        }
        try check(archive_write_set_format_zip(archive), "select the ZIP format")
        // Names are written as UTF-8 and flagged as such, whatever the locale.
        try check(archive_write_set_format_option(archive, "zip", "hdrcharset", "UTF-8"), "set UTF-8 names")
        // No blocking: each piece libarchive writes reaches the sink as one call, so the sink
        // can tell a local header from data and stamp its DOS time.
        try check(archive_write_set_bytes_per_block(archive, 0), "turn off blocking")
        try check(archive_write_set_bytes_in_last_block(archive, 1), "turn off block padding")
        // The CRC-32s are the writer's own (libdeflate, folding with carry-less multiplication:
        // several times zlib's, which libarchive calls): libarchive writes 0 where each goes and
        // the sink puts it in, checked (see `Sink`). Were the option not taken, libarchive's own
        // CRC-32s pass through, compared with the writer's.
        sink.libarchiveSkipsCRC = archive_write_set_format_option(archive, "zip", "fakecrc32", "1") == ARCHIVE_OK
        if forcingZIP64 { try check(archive_write_set_format_option(archive, "zip", "zip64", "1"), "force ZIP64") }
        let status = archive_write_open2(
            archive, Unmanaged.passUnretained(sink).toOpaque(), nil,
            { archive, clientData, buffer, length in
                let sink = Unmanaged<Sink>.fromOpaque(clientData!).takeUnretainedValue()
                guard sink.receive(UnsafeRawBufferPointer(start: buffer, count: length)) else {
                    let failure = sink.failure
                    trailpack_archive_set_error(
                        archive, failure?.systemCall?.errno.rawValue ?? EIO, failure?.message ?? "write failed")
                    return -1
                }
                return length
            },
            nil, nil)
        try check(status, "open the output")
        return (archive, entry)
    }

    deinit {
        if !finished { archive_write_fail(archive) }
        archive_entry_free(entry)
        archive_write_free(archive)
        readBuffer.deallocate()
    }

    /// Adds one file entry whose bytes `body` supplies through the `write` function it is given.
    ///
    /// The body must write exactly `size` bytes. The corresponding C functions are
    /// `archive_write_header` and `archive_write_data`.
    public mutating func addEntry(
        path: String, size: Int64, compress: Bool,
        body: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        if compress {
            try check(archive_write_zip_set_compression_deflate(archive), "select deflate for '\(path)'")
        } else {
            try check(archive_write_zip_set_compression_store(archive), "select store for '\(path)'")
        }
        archive_entry_clear(entry)
        archive_entry_set_pathname_utf8(entry, path)
        archive_entry_set_filetype(entry, 0o100000)  // AE_IFREG: a regular file
        archive_entry_set_perm(entry, 0o644)
        archive_entry_set_size(entry, size)
        archive_entry_set_mtime(entry, time_t(modificationTime), 0)
        archive_entry_set_uid(entry, 0)
        archive_entry_set_gid(entry, 0)
        sink.pendingLocalHeaderTime = dosTime
        try check(archive_write_header(archive, entry), "write the header of '\(path)'")
        entryCount += 1
        var written: Int64 = 0
        var crc = CRC32()
        let archive = self.archive
        let sink = self.sink
        try body { buffer in
            guard !buffer.isEmpty else { return }
            written += Int64(buffer.count)
            guard written <= size else {
                throw ArchiveError(
                    code: .sourceChanged, message: "cannot write '\(path)': the file grew while it was being packaged")
            }
            crc.update(buffer)
            let n = archive_write_data(archive, buffer.baseAddress, buffer.count)
            if n < 0 || n != buffer.count {
                throw Self.error(archive, "write the data of '\(path)'", sink: sink)
            }
        }
        guard written == size else {
            throw ArchiveError(
                code: .sourceChanged,
                message:
                    "cannot write '\(path)': expected \(size) bytes, got \(written); the file changed while it was being packaged"
            )
        }
        // libarchive ends the entry with its data descriptor, the last piece it writes here: the
        // sink holds each piece until the next, and puts the CRC-32 into that last one.
        sink.endingEntryCRC = crc.value
        let status = archive_write_finish_entry(archive)
        guard status == ARCHIVE_OK || status == ARCHIVE_WARN else {
            // libarchive's own failure (or the output's) is what is said, not a missing descriptor.
            sink.dropEntryEnd()
            throw Self.error(archive, "finish '\(path)'", sink: sink)
        }
        guard sink.endEntry(path: path) else { throw Self.error(archive, "finish '\(path)'", sink: sink) }
    }

    /// Adds an entry holding `bytes`.
    public mutating func addEntry(path: String, bytes: [UInt8], compress: Bool) throws {
        try addEntry(path: path, size: Int64(bytes.count), compress: compress) { write in
            try bytes.withUnsafeBytes { try write($0) }
        }
    }

    /// Adds an entry with the contents of the file at `sourcePath`, streamed in blocks through
    /// one buffer the writer keeps for its lifetime. `progress` is told of each block's byte count.
    /// The file must hold `size` bytes, then and at the end: a file that shrank or grew while it
    /// was packaged is an error. Returns what `fstat` said of the open file after it was read, for a
    /// caller that checks more (the builder: the modification time it hashed) without looking the
    /// path up again.
    @discardableResult
    public mutating func addEntry(
        path: String, contentsOf sourcePath: String, size: Int64, compress: Bool, progress: ((Int) -> Void)? = nil
    ) throws -> FileStatus {
        let file: RegularFile
        do { file = try FileOperations.openRegularFile(sourcePath) } catch { throw ArchiveError(error) }
        let descriptor = file.descriptor
        defer { try? descriptor.close() }
        if size > Int64(Self.blockSize) { descriptor.adviseSequential() }
        let buffer = readBuffer
        try addEntry(path: path, size: size, compress: compress) { write in
            var left = size
            // Read exactly the declared size (a small file is one `read`); a file that grew is
            // caught by the size check below, one that shrank by the short read.
            while left > 0 {
                let want = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(Int64(buffer.count), left))])
                let n: Int
                do throws(FileIOError) { n = try descriptor.readFully(into: want, path: sourcePath) } catch {
                    throw ArchiveError(error)
                }
                try write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                left -= Int64(n)
                progress?(n)
                if n < want.count { break }
            }
        }
        // Only the declared size was read: a file that has grown since is an error, as before.
        let after: FileStatus
        do { after = try descriptor.status(path: sourcePath) } catch { throw ArchiveError(error) }
        guard after.size == size else {
            throw ArchiveError(
                code: .sourceChanged,
                message:
                    "cannot write '\(path)': expected \(size) bytes, the file now has \(after.size); the file changed while it was being packaged"
            )
        }
        return after
    }

    /// Adds an entry with a file that a ``FileReadAhead`` read, held to the same rules as
    /// ``addEntry(path:contentsOf:size:compress:progress:)``: it must hold `size` bytes when read
    /// and after. Returns what `fstat` said of the open file after it was read.
    @discardableResult
    package mutating func addEntry(
        path: String, readAhead file: FileReadAhead.File, size: Int64, compress: Bool
    ) throws -> FileStatus {
        // Fewer bytes than declared: the file shrank (the size check in addEntry says so).
        try addEntry(path: path, size: size, compress: compress) { write in
            try file.bytes.withUnsafeBytes { try write($0) }
        }
        guard file.status.size == size else {
            throw ArchiveError(
                code: .sourceChanged,
                message:
                    "cannot write '\(path)': expected \(size) bytes, the file now has \(file.status.size); the file changed while it was being packaged"
            )
        }
        return file.status
    }

    /// The result of a finished archive.
    public struct Summary: Sendable {
        /// The SHA-256 of every byte written.
        public var sha256: SHA256Digest
        /// The archive's size in bytes.
        public var size: Int64
    }

    /// Writes the central directory and ends the archive. The corresponding C function is `archive_write_close`.
    public consuming func finish() throws -> Summary {
        // The central headers are stamped as libarchive writes them and go straight on to the
        // file: the directory is never gathered (it was 25 MB at the peak of 100,000 entries).
        sink.centralStamper = CentralHeaderStamper(dosDateTime: dosTime, crcs: sink.crcs)
        try check(archive_write_close(archive), "write the central directory")
        let stamped = sink.centralStamper?.stamped ?? 0
        let whole = sink.centralStamper?.isBetweenHeaders ?? false
        sink.centralStamper = nil
        guard stamped == entryCount, whole else {
            throw ArchiveError(
                code: .library,
                message:
                    "cannot write the central directory: libarchive wrote \(stamped) central headers for \(entryCount) entries, so their times could not be stamped; report this with the libarchive version"
            )
        }
        guard sink.failure == nil, sink.flush() else {
            throw sink.failure ?? ArchiveError(code: .io, message: "cannot write the central directory")
        }
        finished = true
        return Summary(sha256: sink.finalize(), size: sink.count)
    }

    /// The thread that hashes this writer's output (for the tests that check it is joined).
    package var hashingThread: OwnedThread<Void>? { sink.hasher.thread }

    /// Whether libarchive took the `fakecrc32` option, leaving the CRC-32s to this writer (for the
    /// test that holds the speed of large builds to it: were it refused, libarchive's own pass
    /// through zlib would come back unseen, the bytes being the same).
    package var libarchiveSkipsCRC: Bool { sink.libarchiveSkipsCRC }

    // MARK: DOS times

    /// The MS-DOS date (high 16 bits) and time (low 16 bits) of `time`, from its UTC fields,
    /// clamped to 1980-01-01 00:00:00 … 2107-12-31 23:59:58 as libarchive does. Pure
    /// arithmetic (days to civil date), so no time zone is consulted.
    package static func dosDateTime(_ time: Int64) -> UInt32 {
        let days = time >= 0 ? time / 86_400 : (time - 86_399) / 86_400
        let seconds = time - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        if year < 1980 { return 0x0021_0000 }
        if year > 2107 { return 0xff9f_bf7d }
        let dosTime = (seconds % 60) / 2 | ((seconds / 60) % 60) << 5 | (seconds / 3600) << 11
        let dosDate = day | month << 5 | (year - 1980) << 9
        return UInt32(dosDate) << 16 | UInt32(dosTime)
    }

    // MARK: status checks

    private func check(_ status: Int32, _ operation: @autoclosure () -> String) throws(ArchiveError) {
        if status == ARCHIVE_OK || status == ARCHIVE_WARN { return }
        throw Self.error(archive, operation(), sink: sink)
    }

    /// The output's own failure when writing it failed (with its system call), else libarchive's.
    private static func error(_ archive: OpaquePointer, _ operation: String, sink: Sink) -> ArchiveError {
        if let failure = sink.failure { return failure }
        let detail = archive_error_string(archive).map { String(cString: $0) } ?? "unknown libarchive error"
        return ArchiveError(code: .library, message: "cannot \(operation): \(detail)")
    }
}

/// Receives libarchive's output: gathers it into 1 MiB blocks, writes each full block to the file
/// with one `write`, and hands the same block to a second thread that hashes it — so the
/// archive's SHA-256 costs the writer nothing but the copy into the block (measured: about a
/// third of the write pass on a 1 GB tour when hashed inline), and a small entry's pieces (local
/// header, data, data descriptor) cost no system call and no thread hand-off of their own.
/// (Before, every piece was a `write` and two semaphore operations: on 20,000 files of 1 KB a
/// fifth of the build went to waking the hashing thread.)
///
/// It puts in the CRC-32s, which the writer computes (libarchive is told to write 0 for each:
/// `fakecrc32`): in each entry's data descriptor, the last piece libarchive writes while it ends
/// the entry (so the pieces written then are each held until the next one comes), and in each
/// central header. A field that holds neither 0 nor the writer's value stops the archive.
///
/// It also stamps the DOS times: libarchive computes them with `localtime_r`, in the process's
/// time zone, which a library must neither depend on nor change. The first piece after
/// `archive_write_header` is the 30-byte local header (blocking is off, so it arrives whole);
/// the central directory is held while `archive_write_close` runs and stamped before it is
/// written. Anything else in those places stops the archive with an error rather than
/// writing bytes that would depend on the time zone.
// used by the writer's thread only; the hashing thread sees the blocks through `PipelinedHasher`
final class Sink: @unchecked Sendable {
    let descriptor: FileDescriptor
    /// The output's name, for error messages.
    let path: String
    /// Bytes written to the file so far (`flush()` writes the last, partial block).
    var count: Int64 = 0
    /// Why the output cannot be written; once set, nothing more is written.
    var failure: ArchiveError?
    /// The DOS date and time for the local header that libarchive writes next.
    var pendingLocalHeaderTime: UInt32?
    /// While libarchive writes the central directory, its headers are stamped on the way through.
    var centralStamper: CentralHeaderStamper?
    /// The CRC-32 of the entry libarchive is ending (`archive_write_finish_entry`), while it does.
    var endingEntryCRC: UInt32?
    /// The last piece libarchive wrote while ending the entry, held until the next one comes
    /// (empty: none yet; an empty piece writes nothing and is not held).
    private var held: [UInt8] = []
    /// Every entry's CRC-32, in order, for the central headers.
    private(set) var crcs: [UInt32] = []
    /// Whether libarchive took `fakecrc32` (and so computes no CRC-32 of its own).
    var libarchiveSkipsCRC = false
    let hasher = PipelinedHasher()
    /// Flushes the output behind the writer, when the writer was asked to.
    var writeBehind: WriteBehind?

    init(descriptor: FileDescriptor, path: String, flushingBehind pages: WriteBehind.Pages? = nil) {
        self.descriptor = descriptor
        self.path = path
        writeBehind = pages.map { WriteBehind(descriptor: descriptor, path: path, pages: $0) }
    }

    // The hashing thread holds its hasher while it runs, so the hasher's own deinit cannot be
    // what ends it: the sink (which only the writer holds) ends and joins it, also when the
    // writer is abandoned. (Before, every abandoned writer left a thread waiting forever.)
    deinit { _ = hasher.finish() }

    /// Takes one piece of libarchive's output.
    func receive(_ buffer: UnsafeRawBufferPointer) -> Bool {
        if let time = pendingLocalHeaderTime {
            pendingLocalHeaderTime = nil
            guard buffer.count >= 30, buffer[0] == 0x50, buffer[1] == 0x4b, buffer[2] == 3, buffer[3] == 4 else {
                failure = ArchiveError(
                    code: .library,
                    message:
                        "libarchive did not write a whole local header first, so its time could not be stamped; report this with the libarchive version"
                )
                return false
            }
            var header = Array(buffer)
            Self.put(time, into: &header, at: 10)
            return header.withUnsafeBytes { write($0) }
        }
        if endingEntryCRC != nil {
            guard !buffer.isEmpty else { return true }
            if !held.isEmpty, !held.withUnsafeBytes({ write($0) }) { return false }
            held.removeAll(keepingCapacity: true)
            held.append(contentsOf: buffer)
            return true
        }
        if centralStamper != nil {
            guard centralStamper!.pass(buffer, emit: { write($0) }) else {
                if let problem = centralStamper?.problem { failure = ArchiveError(code: .library, message: problem) }
                return false
            }
            return true
        }
        return write(buffer)
    }

    /// Forgets the end of an entry that libarchive failed to end (nothing held is written).
    func dropEntryEnd() {
        endingEntryCRC = nil
        held.removeAll(keepingCapacity: true)
    }

    /// Ends the entry whose end libarchive has just written: the piece held is its data
    /// descriptor (16 bytes, or 24 with ZIP64 sizes), which gets `endingEntryCRC` and is written.
    /// False, with `failure` set, when it is anything else or holds another CRC-32 than 0 or the
    /// writer's (a libarchive that wrote its own, different one).
    func endEntry(path: String) -> Bool {
        guard let crc = endingEntryCRC else { return true }
        defer { dropEntryEnd() }
        if failure != nil { return false }
        if let problem = DataDescriptor.putCRC(crc, into: &held, entry: path) {
            failure = ArchiveError(code: .library, message: problem)
            return false
        }
        crcs.append(crc)
        return held.withUnsafeBytes { write($0) }
    }

    static func put(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }

    /// Appends `buffer` to the output; each block that fills is written and hashed.
    func write(_ buffer: UnsafeRawBufferPointer) -> Bool {
        if failure != nil { return false }
        var offset = 0
        while offset < buffer.count {
            let block = hasher.currentBlock()
            let n = min(block.room, buffer.count - offset)
            block.base.advanced(by: block.used).copyMemory(from: buffer.baseAddress! + offset, byteCount: n)
            hasher.filled(n)
            offset += n
            if block.room == n, !flush() { return false }
        }
        return true
    }

    /// Writes the block being filled (if it holds anything) to the file and hands it to the
    /// hashing thread. Returns false, with `failure` set, when the write fails.
    func flush() -> Bool {
        if failure != nil { return false }
        guard let block = hasher.pendingBlock() else { return true }
        do { try descriptor.writeAll(UnsafeRawBufferPointer(block), path: path) } catch {
            failure = ArchiveError(error)
            return false
        }
        count += Int64(block.count)
        hasher.submitBlock()
        do { try writeBehind?.written(through: count) } catch {
            failure = ArchiveError(error)
            return false
        }
        return true
    }

    func finalize() -> SHA256Digest { hasher.finish() }
}

/// SHA-256 on its own thread, over a small ring of blocks (bounded memory: `slots` × `slotSize`)
/// that the writer fills in place: `currentBlock()` lends the block being filled, `filled(_:)`
/// records what was copied in, `submitBlock()` passes it to the hashing thread.
///
/// The ring is raw memory allocated once: the semaphores order every access between the two
/// threads. (A Swift array here would be shared mutable state: its copy-on-write check races, and
/// an earlier version copied the array on every block — 180 MiB of heap on a 1 GB build.)
final class PipelinedHasher: @unchecked Sendable {  // the semaphores order every access to the ring (see above)
    static let slots = 3
    /// A quarter of the read buffer's `blockSize`: every slot is touched once the package is a few
    /// megabytes, so 3 × 1 MiB were resident in every build; the output's writes of 256 KiB are as
    /// fast (a 1.1 GB build to tmpfs measured the same within its noise).
    static let slotSize = 256 << 10

    private let storage: UnsafeMutableRawPointer
    private let lengths: UnsafeMutablePointer<Int>
    private let free = DispatchSemaphore(value: PipelinedHasher.slots)
    private let full = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var producer = 0
    /// Whether the producer holds the slot `producer` (taken from `free`), and how full it is.
    private var holding = false
    private var used = 0
    private var digest: SHA256Digest?
    private var finished = false
    /// The hashing thread: owned, and joined by `finish()` (which `deinit` calls for an
    /// abandoned writer), so no thread outlives the writer.
    private(set) var thread: OwnedThread<Void>?

    init() {
        storage = .allocate(byteCount: Self.slots * Self.slotSize, alignment: 64)
        lengths = .allocate(capacity: Self.slots)
        lengths.initialize(repeating: 0, count: Self.slots)
        thread = OwnedThread { [unowned self] in self.run() }
    }

    deinit {
        if !finished { _ = finish() }
        storage.deallocate()
        lengths.deallocate()
    }

    private func slot(_ i: Int) -> UnsafeMutableRawPointer { storage + (i % Self.slots) * Self.slotSize }

    /// The block being filled: where it starts, how much it holds, how much room is left. Waits
    /// only when the hashing thread is `slots` blocks behind.
    func currentBlock() -> (base: UnsafeMutableRawPointer, used: Int, room: Int) {
        if !holding {
            free.wait()
            holding = true
            used = 0
        }
        return (slot(producer), used, Self.slotSize - used)
    }

    /// Records that `count` more bytes were copied into the current block.
    func filled(_ count: Int) { used += count }

    /// The bytes of the block being filled, or nil when there is none or it is empty.
    func pendingBlock() -> UnsafeRawBufferPointer? {
        holding && used > 0 ? UnsafeRawBufferPointer(start: slot(producer), count: used) : nil
    }

    /// Passes the block being filled to the hashing thread.
    func submitBlock() {
        guard holding else { return }
        lengths[producer % Self.slots] = used
        producer += 1
        holding = false
        full.signal()
    }

    /// Hashes what was submitted, waits for the hashing thread and returns the digest. A block
    /// still being filled is not hashed: the writer flushes (writes and submits) it first.
    func finish() -> SHA256Digest {
        if finished { return digest! }
        finished = true
        if !holding { free.wait() }
        holding = false
        lengths[producer % Self.slots] = -1  // the end marker
        producer += 1
        full.signal()
        done.wait()
        thread?.join()
        return digest!
    }

    private func run() {
        var sha = SHA256()
        var consumer = 0
        while true {
            full.wait()
            let n = lengths[consumer % Self.slots]
            if n < 0 { break }
            sha.update(UnsafeRawBufferPointer(start: slot(consumer), count: n))
            consumer += 1
            free.signal()
        }
        digest = sha.finalize()
        free.signal()
        done.signal()
    }
}

/// An entry's data descriptor as libarchive writes it after the entry's data (the entry's flag 3
/// says its CRC-32 and sizes follow the data): `PK\u{7}\u{8}`, the CRC-32, then the compressed
/// and uncompressed sizes in 4 bytes each, or 8 with ZIP64 (16 or 24 bytes).
package enum DataDescriptor {
    /// Puts `crc` into `bytes`, the piece libarchive wrote last while ending `entry`; nil when
    /// done, else why it cannot be: the piece is no data descriptor, or holds a CRC-32 other than
    /// 0 (what libarchive writes when told `fakecrc32`) or `crc` (a libarchive that computed its own).
    package static func putCRC(_ crc: UInt32, into bytes: inout [UInt8], entry: String) -> String? {
        var reader = LittleEndianReader(bytes)
        guard bytes.count == 16 || bytes.count == 24, reader.u32() == ZipSignature.descriptor else {
            return missing(entry)
        }
        let written = reader.u32()
        guard written == 0 || written == crc else {
            return
                "libarchive wrote the CRC-32 \(String(written, radix: 16)) for '\(entry)', whose bytes have \(String(crc, radix: 16)); report this with the libarchive version"
        }
        Sink.put(crc, into: &bytes, at: 4)
        return nil
    }

    /// Why an entry whose end is not a data descriptor cannot be finished.
    package static func missing(_ entry: String) -> String {
        "libarchive did not end '\(entry)' with a data descriptor, so its CRC-32 could not be written; report this with the libarchive version"
    }
}

/// Writes one DOS date and time, and each entry's CRC-32, into every central file header of a
/// central directory that passes through in pieces of any size (libarchive writes a header's fixed
/// part, its name and its extra fields separately): the 46 fixed bytes of each header are held
/// until complete, stamped at offsets 12 and 16 and passed on; the name, extra field and comment pass as they come; the first record
/// that is not a central header (the end records) and everything after it pass unchanged.
package struct CentralHeaderStamper {
    /// The DOS date (high 16 bits) and time written into every header.
    package let dosDateTime: UInt32
    /// The CRC-32 written into each header, in order.
    package let crcs: [UInt32]
    /// How many central headers were stamped.
    package private(set) var stamped = 0
    /// Why the directory was stopped: a header beyond the CRC-32s given, or one whose CRC-32
    /// field held neither 0 nor the one given.
    package private(set) var problem: String?
    /// The fixed part of the header being gathered (fewer than 46 bytes).
    private var fixed: [UInt8] = []
    /// Bytes of the current header's name, extra field and comment still to pass.
    private var variable = 0
    /// Past the last central header.
    private var pastHeaders = false

    /// A stamper writing `dosDateTime` into every header and `crcs[i]` into the i-th.
    package init(dosDateTime: UInt32, crcs: [UInt32]) {
        self.dosDateTime = dosDateTime
        self.crcs = crcs
        fixed.reserveCapacity(46)
    }

    /// Whether no header was left half passed (a directory cut short would leave one).
    package var isBetweenHeaders: Bool { fixed.isEmpty && variable == 0 }

    /// Passes `buffer` to `emit`, stamping what it holds of central headers; false when `emit` failed.
    package mutating func pass(_ buffer: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        var at = 0
        while at < buffer.count {
            let rest = UnsafeRawBufferPointer(rebasing: buffer[at...])
            if pastHeaders { return emit(rest) }
            if variable > 0 {
                let n = min(variable, rest.count)
                guard emit(UnsafeRawBufferPointer(rebasing: rest[..<n])) else { return false }
                variable -= n
                at += n
                continue
            }
            let n = min(46 - fixed.count, rest.count)
            fixed.append(contentsOf: rest[..<n])
            at += n
            if fixed.count >= 4 && !(fixed[0] == 0x50 && fixed[1] == 0x4b && fixed[2] == 1 && fixed[3] == 2) {
                pastHeaders = true
            } else if fixed.count < 46 {
                continue
            } else {
                Sink.put(dosDateTime, into: &fixed, at: 12)
                var reader = LittleEndianReader(fixed, at: 16)
                let written = reader.u32()
                guard stamped < crcs.count, written == 0 || written == crcs[stamped] else {
                    problem =
                        stamped < crcs.count
                        ? "libarchive wrote the CRC-32 \(String(written, radix: 16)) into central header \(stamped + 1), whose entry's bytes have \(String(crcs[stamped], radix: 16)); report this with the libarchive version"
                        : "libarchive wrote more central headers than entries (\(crcs.count)); report this with the libarchive version"
                    return false
                }
                Sink.put(crcs[stamped], into: &fixed, at: 16)
                func u16(_ i: Int) -> Int { Int(fixed[i]) | Int(fixed[i + 1]) << 8 }
                variable = u16(28) + u16(30) + u16(32)
                stamped += 1
            }
            guard fixed.withUnsafeBytes({ emit($0) }) else { return false }
            fixed.removeAll(keepingCapacity: true)
        }
        return true
    }
}
