import SystemPackage
import TrailPackFileIO

/// Random-access bytes: a file on disk, or a buffer in memory (for tests and fuzzing).
public protocol ByteSource: Sendable {
    /// The total size in bytes.
    var size: Int64 { get }
    /// Fills `buffer` from `offset`; returns the number of bytes read (short only at the end).
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int
}

extension ByteSource {
    /// Up to `count` bytes at `offset` as an array (short at the end of the source).
    public func bytes(at offset: Int64, count: Int) throws(ArchiveError) -> [UInt8] {
        guard count > 0, offset >= 0, offset < size else { return [] }
        let n = Int(min(Int64(count), size - offset))
        var out = [UInt8](repeating: 0, count: n)
        var failure: ArchiveError?
        let got = out.withUnsafeMutableBytes { buffer -> Int in
            do throws(ArchiveError) { return try read(at: offset, into: buffer) } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        return got == n ? out : Array(out.prefix(got))
    }
}

/// A file read with `pread`, so that several threads can read it at once.
public final class FileSource: ByteSource, Sendable {
    /// The file's path.
    public let path: String
    /// The file's size when it was opened.
    public let size: Int64
    private let descriptor: FileDescriptor

    /// Opens `path` for reading; anything but a regular file (a FIFO, a device, a folder) is
    /// refused before it could block (``FileOperations/openRegularFile(_:)``).
    public init(path: String) throws(ArchiveError) {
        let file: RegularFile
        do { file = try FileOperations.openRegularFile(path) } catch { throw ArchiveError(error) }
        self.path = path
        self.descriptor = file.descriptor
        self.size = file.status.size
        file.descriptor.adviseSequential()
    }

    deinit { try? descriptor.close() }

    /// Reads from `offset`, retrying short reads; short only at the end of the file.
    /// The corresponding C function is `pread`.
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        do { return try descriptor.readFully(fromAbsoluteOffset: offset, into: buffer, path: path) } catch {
            throw ArchiveError(error)
        }
    }
}

/// Bytes in memory.
public struct MemorySource: ByteSource {
    /// The bytes.
    public let data: [UInt8]
    /// A source over `data`.
    public init(_ data: [UInt8]) { self.data = data }
    /// The number of bytes.
    public var size: Int64 { Int64(data.count) }
    /// Copies the bytes from `offset` into `buffer`; returns how many (short only at the end).
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        guard offset >= 0, offset < size else { return 0 }
        let n = min(buffer.count, data.count - Int(offset))
        data.withUnsafeBytes { src in
            buffer.baseAddress!.copyMemory(from: src.baseAddress! + Int(offset), byteCount: n)
        }
        return n
    }
}
