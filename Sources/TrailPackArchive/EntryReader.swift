internal import CZlib
import TrailPackCore

/// One zlib inflate stream (raw deflate, as ZIP stores it), started once and reset for each
/// entry after: a reader that checks many entries one after another passes the same one to each
/// ``EntryReader``. Starting zlib afresh for every entry allocated its 7 KB state and its 32 KB
/// window and freed them again: at 100,000 small entries, a tenth of a verify's main thread.
/// Confined to one thread; an inflater already in use by a reader is not shared (the second
/// reader starts its own).
package final class Inflater {
    /// zlib keeps this address in its state: the stream never moves.
    fileprivate let stream: UnsafeMutablePointer<z_stream>
    /// Whether a reader is using the stream now.
    fileprivate var inUse = false
    /// Whether zlib was started on the stream (and must be ended).
    private var started = false

    package init() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if started { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Makes the stream ready for a new entry's data: zlib is started, or reset (its window kept).
    fileprivate func begin() -> Bool {
        // zlib's reset leaves where the input and output were: a reader stopped by corrupt data
        // left its unread input there, in a buffer freed with it, which the next entry then
        // inflated instead of its own (a different error every run; found by the structured fuzzer).
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
        stream.pointee.next_out = nil
        stream.pointee.avail_out = 0
        if started { return inflateReset(stream) == Z_OK }
        started = trailpack_inflate_init_raw(stream) == Z_OK
        return started
    }
}

/// Streams one entry's uncompressed bytes, never producing more than the declared size plus one
/// byte, and checking that the compressed data ends exactly where the entry says it does.
public final class EntryReader {
    /// The entry being read.
    public let entry: ZipEntry
    private let source: any ByteSource
    private var inputOffset: Int64
    private var inputRemaining: Int64
    private var produced: Int64 = 0
    private var finished = false
    /// The inflater of a deflated entry (nil when stored), held for as long as the reader.
    private let inflater: Inflater?
    private let input: UnsafeMutableRawBufferPointer
    /// Bytes of compressed input to read at a time.
    static let inputChunk = 256 << 10

    /// Starts reading `entry`, whose data offset the directory found.
    public convenience init(source: any ByteSource, entry: ZipEntry) throws(ArchiveError) {
        try self.init(source: source, entry: entry, inflater: nil)
    }

    /// Starts reading `entry` with `inflater` when it is free (another is started otherwise).
    package init(source: any ByteSource, entry: ZipEntry, inflater shared: Inflater?) throws(ArchiveError) {
        guard let dataOffset = entry.dataOffset else {
            throw ArchiveError(
                code: .missingLocalHeader, message: "cannot read '\(entry.name)': its local header is missing")
        }
        guard entry.method == 0 || entry.method == 8 else {
            throw ArchiveError(code: .unsupportedMethod, message: "compression method \(entry.method) cannot be read")
        }
        // The directory sets a data offset only for sizes it could check; hold to that here too.
        guard entry.sizesKnown, entry.compressedSize >= 0, entry.uncompressedSize >= 0,
            entry.uncompressedSize < Int64.max, dataOffset >= 0, entry.compressedSize <= Int64.max - dataOffset
        else { throw Self.corrupt("the entry's sizes or offset are out of range") }
        self.entry = entry
        self.source = source
        self.inputOffset = dataOffset
        self.inputRemaining = entry.compressedSize
        // No larger than the compressed data: a small entry's buffer comes from the heap, not from
        // a `mmap` and `munmap` of its own (256 KiB per entry was a tenth of checking small entries).
        self.input = .allocate(
            byteCount: entry.method == 8 ? Int(min(Int64(Self.inputChunk), max(1, entry.compressedSize))) : 0,
            alignment: 16)
        if entry.method == 8 {
            let inflater = shared.flatMap { $0.inUse ? nil : $0 } ?? Inflater()
            guard inflater.begin() else {
                input.deallocate()
                throw Self.corrupt("zlib could not start (out of memory)")
            }
            inflater.inUse = true
            self.inflater = inflater
        } else {
            self.inflater = nil
        }
    }

    deinit {
        inflater?.inUse = false
        input.deallocate()
    }

    /// Fills `buffer` with the next bytes; returns 0 at the end. At the end the size has been
    /// checked against the declared size, and the compressed data was used up exactly.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        if finished || buffer.isEmpty { return 0 }
        return entry.method == 0 ? try readStored(into: buffer) : try readDeflated(into: buffer)
    }

    private func readStored(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        let want = Int(min(Int64(buffer.count), inputRemaining))
        if want == 0 {
            finished = true
            return 0
        }
        let got: Int
        got = try source.read(at: inputOffset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
        guard got == want else { throw Self.tooShort(declared: entry.uncompressedSize, actual: produced + Int64(got)) }
        inputOffset += Int64(got)
        inputRemaining -= Int64(got)
        produced += Int64(got)
        return got
    }

    private func readDeflated(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        let declared = entry.uncompressedSize
        let stream = inflater!.stream
        while true {
            if stream.pointee.avail_in == 0 && inputRemaining > 0 {
                let want = Int(min(Int64(input.count), inputRemaining))
                let got: Int
                got = try source.read(at: inputOffset, into: UnsafeMutableRawBufferPointer(rebasing: input[0..<want]))
                guard got == want else { throw Self.corrupt("the file ends inside the compressed data") }
                inputOffset += Int64(got)
                inputRemaining -= Int64(got)
                stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_in = uInt(got)
            }
            // Never ask for more than one byte past the declared size.
            let room = Int(min(Int64(buffer.count), declared + 1 - produced))
            stream.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(room)
            let status = inflate(stream, Z_NO_FLUSH)
            let got = room - Int(stream.pointee.avail_out)
            produced += Int64(got)
            if produced > declared {
                throw ArchiveError(
                    code: .dataTooLong,
                    message: "the data decompresses to more than the declared \(declared) bytes (reading stopped there)"
                )
            }
            switch status {
            case Z_STREAM_END:
                finished = true
                if stream.pointee.avail_in > 0 || inputRemaining > 0 {
                    throw Self.corrupt(
                        "\(Int64(stream.pointee.avail_in) + inputRemaining) bytes follow the end of the deflate stream inside the entry"
                    )
                }
                if produced != declared { throw Self.tooShort(declared: declared, actual: produced) }
                return got
            case Z_OK:
                if got > 0 { return got }
            case Z_BUF_ERROR:
                if stream.pointee.avail_in == 0 && inputRemaining == 0 {
                    throw Self.corrupt("the deflate stream ends before its end marker")
                }
                if got > 0 { return got }
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                throw Self.corrupt(message)
            }
        }
    }

    private static func tooShort(declared: Int64, actual: Int64) -> ArchiveError {
        ArchiveError(
            code: .dataTooShort, message: "the data decompresses to \(actual) bytes, not the declared \(declared)")
    }

    private static func corrupt(_ detail: String) -> ArchiveError {
        ArchiveError(code: .corruptData, message: "the compressed data is corrupt: \(detail)")
    }
}
