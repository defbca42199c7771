internal import CZlib
import TrailPackCore

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
    private var stream = z_stream()
    private var inflating = false
    private let input: UnsafeMutableRawBufferPointer
    /// Bytes of compressed input to read at a time.
    static let inputChunk = 256 << 10

    /// Starts reading `entry`, whose data offset the directory found.
    public init(source: any ByteSource, entry: ZipEntry) throws(ArchiveError) {
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
            guard trailpack_inflate_init_raw(&stream) == Z_OK else {
                throw Self.corrupt("zlib could not start (out of memory)")
            }
            inflating = true
        }
    }

    deinit {
        if inflating { inflateEnd(&stream) }
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
        while true {
            if stream.avail_in == 0 && inputRemaining > 0 {
                let want = Int(min(Int64(input.count), inputRemaining))
                let got: Int
                got = try source.read(at: inputOffset, into: UnsafeMutableRawBufferPointer(rebasing: input[0..<want]))
                guard got == want else { throw Self.corrupt("the file ends inside the compressed data") }
                inputOffset += Int64(got)
                inputRemaining -= Int64(got)
                stream.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_in = uInt(got)
            }
            // Never ask for more than one byte past the declared size.
            let room = Int(min(Int64(buffer.count), declared + 1 - produced))
            stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(room)
            let status = inflate(&stream, Z_NO_FLUSH)
            let got = room - Int(stream.avail_out)
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
                if stream.avail_in > 0 || inputRemaining > 0 {
                    throw Self.corrupt(
                        "\(Int64(stream.avail_in) + inputRemaining) bytes follow the end of the deflate stream inside the entry"
                    )
                }
                if produced != declared { throw Self.tooShort(declared: declared, actual: produced) }
                return got
            case Z_OK:
                if got > 0 { return got }
            case Z_BUF_ERROR:
                if stream.avail_in == 0 && inputRemaining == 0 {
                    throw Self.corrupt("the deflate stream ends before its end marker")
                }
                if got > 0 { return got }
            default:
                let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
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
