internal import CLibArchive
import Dispatch
import Foundation
import TrailPackCrypto
#if canImport(Glibc)
import Glibc
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
    private var finished = false

    /// The size of the buffers between the files, libarchive and the output.
    public static let blockSize = 1 << 20

    /// Starts an archive on `fileDescriptor` (which stays open; the caller closes it).
    ///
    /// - Parameter modificationTime: the time stamped on every entry, in seconds since 1970
    ///   (UTC). DOS times are computed in UTC whatever the machine's time zone.
    public init(fileDescriptor: Int32, modificationTime: Int64) throws(ArchiveError) {
        // libarchive converts times to DOS format with localtime_r: pin the zone so the bytes
        // do not depend on the machine's TZ. trailpack itself never prints local times.
        setenv("TZ", "UTC", 1)
        tzset()

        let sink = Sink(fd: fileDescriptor)
        let (archive, entry) = try Self.makeArchive(sink: sink)
        self.archive = archive
        self.entry = entry
        self.sink = sink
        self.modificationTime = modificationTime
    }

    /// Creates and configures the libarchive handles; frees them again if any step fails.
    private static func makeArchive(sink: Sink) throws(ArchiveError) -> (OpaquePointer, OpaquePointer) {
        guard let archive = archive_write_new() else { throw ArchiveError(operation: "start a ZIP archive", detail: "out of memory") }
        guard let entry = archive_entry_new2(archive) else {
            archive_write_free(archive)
            throw ArchiveError(operation: "start a ZIP archive", detail: "out of memory")
        }
        func check(_ status: Int32, _ operation: String) throws(ArchiveError) {
            if status == ARCHIVE_OK || status == ARCHIVE_WARN { return }
            let error = Self.error(archive, operation)
            archive_entry_free(entry)
            archive_write_fail(archive)
            archive_write_free(archive)
            throw error
        }
        try check(archive_write_set_format_zip(archive), "select the ZIP format")
        // Names are written as UTF-8 and flagged as such, whatever the locale.
        try check(archive_write_set_format_option(archive, "zip", "hdrcharset", "UTF-8"), "set UTF-8 names")
        try check(archive_write_set_bytes_per_block(archive, Int32(Self.blockSize)), "set the block size")
        try check(archive_write_set_bytes_in_last_block(archive, 1), "turn off block padding")
        let status = archive_write_open2(
            archive, Unmanaged.passUnretained(sink).toOpaque(), nil,
            { archive, clientData, buffer, length in
                let sink = Unmanaged<Sink>.fromOpaque(clientData!).takeUnretainedValue()
                guard sink.write(UnsafeRawBufferPointer(start: buffer, count: length)) else {
                    trailpack_archive_set_error(archive, sink.errno, "write to the output failed")
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
        archive_entry_set_filetype(entry, UInt32(Glibc.S_IFREG))
        archive_entry_set_perm(entry, 0o644)
        archive_entry_set_size(entry, size)
        archive_entry_set_mtime(entry, time_t(modificationTime), 0)
        archive_entry_set_uid(entry, 0)
        archive_entry_set_gid(entry, 0)
        try check(archive_write_header(archive, entry), "write the header of '\(path)'")
        var written: Int64 = 0
        let archive = self.archive
        try body { buffer in
            guard !buffer.isEmpty else { return }
            written += Int64(buffer.count)
            guard written <= size else {
                throw ArchiveError(operation: "write '\(path)'", detail: "the file grew while it was being packaged")
            }
            let n = archive_write_data(archive, buffer.baseAddress, buffer.count)
            if n < 0 || n != buffer.count {
                throw Self.error(archive, "write the data of '\(path)'")
            }
        }
        guard written == size else {
            throw ArchiveError(operation: "write '\(path)'", detail: "expected \(size) bytes, got \(written); the file changed while it was being packaged")
        }
        try check(archive_write_finish_entry(archive), "finish '\(path)'")
    }

    /// Adds an entry holding `bytes`.
    public mutating func addEntry(path: String, bytes: [UInt8], compress: Bool) throws {
        try addEntry(path: path, size: Int64(bytes.count), compress: compress) { write in
            try bytes.withUnsafeBytes { try write($0) }
        }
    }

    /// Adds an entry with the contents of the file at `sourcePath`, streamed in blocks.
    /// `progress` is told of each block's byte count.
    public mutating func addEntry(path: String, contentsOf sourcePath: String, size: Int64, compress: Bool, progress: ((Int) -> Void)? = nil) throws {
        let fd = open(sourcePath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ArchiveError.system("open '\(sourcePath)'") }
        defer { close(fd) }
        #if canImport(Glibc)
        if size > Int64(Self.blockSize) { _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL)) }
        #endif
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.blockSize, alignment: 64)
        defer { buffer.deallocate() }
        try addEntry(path: path, size: size, compress: compress) { write in
            while true {
                let n = read(fd, buffer.baseAddress, Self.blockSize)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ArchiveError.system("read '\(sourcePath)'")
                }
                if n == 0 { break }
                try write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                progress?(n)
            }
        }
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
        try check(archive_write_close(archive), "write the central directory")
        finished = true
        return Summary(sha256: sink.finalize(), size: sink.count)
    }

    // MARK: status checks

    private func check(_ status: Int32, _ operation: @autoclosure () -> String) throws(ArchiveError) {
        if status == ARCHIVE_OK || status == ARCHIVE_WARN { return }
        throw Self.error(archive, operation())
    }

    private static func error(_ archive: OpaquePointer, _ operation: String) -> ArchiveError {
        let detail = archive_error_string(archive).map { String(cString: $0) } ?? "unknown libarchive error"
        return ArchiveError(operation: operation, detail: detail, errno: archive_errno(archive))
    }
}

/// Receives libarchive's output: writes it to the file, and hands a copy to a second thread that
/// hashes it, so the archive's SHA-256 costs the writer only a copy (measured: about a third of
/// the write pass on a 1 GB tour when hashed inline).
private final class Sink: @unchecked Sendable {
    let fd: Int32
    var count: Int64 = 0
    var errno: Int32 = 0
    private let hasher = PipelinedHasher()

    init(fd: Int32) { self.fd = fd }

    func write(_ buffer: UnsafeRawBufferPointer) -> Bool {
        hasher.submit(buffer)
        var offset = 0
        while offset < buffer.count {
            let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if Glibc.errno == EINTR { continue }
                errno = Glibc.errno
                return false
            }
            offset += n
        }
        count += Int64(buffer.count)
        return true
    }

    func finalize() -> SHA256Digest { hasher.finish() }
}

/// SHA-256 on its own thread, fed through a small ring of buffers (bounded memory: `slots` × `slotSize`).
///
/// The ring is raw memory allocated once: the semaphores order every access between the two
/// threads. (A Swift array here would be shared mutable state: its copy-on-write check races, and
/// an earlier version copied the array on every block — 180 MiB of heap on a 1 GB build.)
final class PipelinedHasher: @unchecked Sendable {
    static let slots = 3
    static let slotSize = ZipWriter.blockSize

    private let storage: UnsafeMutableRawPointer
    private let lengths: UnsafeMutablePointer<Int>
    private let free = DispatchSemaphore(value: PipelinedHasher.slots)
    private let full = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var producer = 0
    private var digest: SHA256Digest?
    private var finished = false

    init() {
        storage = .allocate(byteCount: Self.slots * Self.slotSize, alignment: 64)
        lengths = .allocate(capacity: Self.slots)
        lengths.initialize(repeating: 0, count: Self.slots)
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "trailpack-archive-sha256"
        thread.start()
    }

    deinit {
        if !finished { _ = finish() }
        storage.deallocate()
        lengths.deallocate()
    }

    private func slot(_ i: Int) -> UnsafeMutableRawPointer { storage + (i % Self.slots) * Self.slotSize }

    /// Copies `bytes` into the ring (splitting what is larger than a slot); blocks only when the
    /// hashing thread is `slots` buffers behind.
    func submit(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let n = min(Self.slotSize, bytes.count - offset)
            free.wait()
            slot(producer).copyMemory(from: bytes.baseAddress! + offset, byteCount: n)
            lengths[producer % Self.slots] = n
            producer += 1
            full.signal()
            offset += n
        }
    }

    /// Waits for the hashing thread to catch up and returns the digest.
    func finish() -> SHA256Digest {
        if finished { return digest! }
        finished = true
        free.wait()
        lengths[producer % Self.slots] = -1  // the end marker
        producer += 1
        full.signal()
        done.wait()
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
