import SystemPackage
import TrailPackCore
import TrailPackFileIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random-access bytes holding one PMTiles archive: a file, a stored entry inside a package,
/// or a buffer. The reader asks only for ranges it has already checked against `size`.
public protocol MapSource: Sendable {
    /// The archive's size in bytes.
    var size: Int64 { get }
    /// Fills `buffer` from `offset`; returns the number of bytes read (short only at the end).
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(MapError) -> Int
}

extension MapSource {
    /// Exactly `count` bytes at `offset`, or a `map.header`/`map.directory` error naming `what`
    /// when the range is not inside the source.
    func bytes(at offset: UInt64, count: UInt64, what: String, code: FindingCode) throws(MapError) -> [UInt8] {
        guard offset <= UInt64(size), count <= UInt64(size) - offset, count <= UInt64(Int.max) else {
            throw MapError(
                code, "\(what) (\(count) bytes at byte \(offset)) lies beyond the end of the file (\(size) bytes)")
        }
        var out = [UInt8](repeating: 0, count: Int(count))
        if count == 0 { return out }
        var failure: MapError?
        let got = out.withUnsafeMutableBytes { b -> Int in
            do throws(MapError) { return try read(at: Int64(offset), into: b) } catch { failure = error; return 0 }
        }
        if let failure { throw failure }
        guard got == Int(count) else {
            throw MapError(code, "\(what) is cut short: the file ends at byte \(offset + UInt64(got))")
        }
        return out
    }
}

/// A PMTiles file on disk, read with `pread` (safe from several threads: the descriptor is
/// immutable and `pread` keeps no position).
public final class MapFile: MapSource, Sendable {
    /// The file's path.
    public let path: String
    /// The file's size when it was opened.
    public let size: Int64
    private let descriptor: FileDescriptor

    /// Opens `path`, refusing anything but a regular file (``FileOperations/openRegularFile(_:)``).
    public init(path: String) throws(MapError) {
        let file: RegularFile
        do { file = try FileOperations.openRegularFile(path) } catch { throw MapError(error) }
        self.path = path
        self.descriptor = file.descriptor
        self.size = file.status.size
    }

    deinit { try? descriptor.close() }

    /// Reads from `offset` until `buffer` is full or the file ends. The corresponding C function is `pread`.
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(MapError) -> Int {
        do { return try descriptor.readFully(fromAbsoluteOffset: offset, into: buffer, path: path) } catch {
            throw MapError(error)
        }
    }
}

/// A PMTiles archive in memory (tests, fuzzing, small maps).
public struct MapBytes: MapSource {
    public let data: [UInt8]
    public init(_ data: [UInt8]) { self.data = data }
    public var size: Int64 { Int64(data.count) }
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(MapError) -> Int {
        guard offset >= 0, offset < size else { return 0 }
        let n = min(buffer.count, data.count - Int(offset))
        data.withUnsafeBytes { src in buffer.baseAddress!.copyMemory(from: src.baseAddress! + Int(offset), byteCount: n)
        }
        return n
    }
}
