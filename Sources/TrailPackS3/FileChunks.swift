import Crypto
import NIOCore
import NIOPosix
import SystemPackage
import TrailPackBlocking
import TrailPackFileIO

/// A file open for reading, shared by the request that sends it and the caller that opened it:
/// closed when the last of them lets go (a request body can outlive the call that started it, when
/// the store answers before reading all of it). The corresponding C function is `close`.
final class OpenFile: Sendable {
    let descriptor: SystemPackage.FileDescriptor
    let path: String
    /// The size `fstat` saw when the file was opened.
    let size: Int64
    /// Where its reads run.
    let pool: BlockingPool

    /// Opens the regular file at `path` (a folder, a pipe, a device are refused); its reads run on `pool`.
    init(path: String, pool: BlockingPool) throws(S3Error) {
        self.pool = pool
        do {
            let file = try FileOperations.openRegularFile(path)
            self.descriptor = file.descriptor
            self.size = file.status.size
        } catch {
            throw S3Error(code: .io, message: error.description, cause: error)
        }
        self.path = path
    }

    deinit { try? descriptor.close() }

    /// Reads up to `count` bytes at `offset` on the blocking pool (never on the cooperative pool).
    /// The corresponding C function is `pread`.
    func read(at offset: Int64, count: Int) async throws -> ByteBuffer {
        try await pool.run { [self] in
            var buffer = ByteBufferAllocator().buffer(capacity: count)
            do {
                try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
                    try descriptor.readFully(
                        fromAbsoluteOffset: offset, into: UnsafeMutableRawBufferPointer(rebasing: raw[..<count]),
                        path: path)
                }
            } catch let error as FileIOError {
                throw S3Error(code: .io, message: error.description, cause: error)
            }
            return buffer
        }
    }
}

/// A range of a file as a sequence of `ByteBuffer`s, read on the blocking pool, hashed as it goes:
/// the body of a `PUT` or of an `UploadPart`.
///
/// With an `expectedSHA256`, the last chunk is held back until the hash of the whole range is
/// known: if it differs, or if the file is shorter than the range, the sequence throws instead, so
/// the store never receives all the bytes and stores nothing (whatever it checks itself).
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let file: OpenFile
    let range: Range<Int64>
    let chunkSize: Int
    let expectedSHA256: [UInt8]?

    struct AsyncIterator: AsyncIteratorProtocol {
        let sequence: FileChunks
        var offset: Int64
        var hasher = SHA256()

        mutating func next() async throws -> ByteBuffer? {
            let range = sequence.range
            guard offset < range.upperBound else { return nil }
            let count = Int(Swift.min(Int64(sequence.chunkSize), range.upperBound - offset))
            let buffer = try await sequence.file.read(at: offset, count: count)
            guard buffer.readableBytes == count else {
                throw S3Error(
                    code: .io,
                    message: "'\(sequence.file.path)' ended at byte \(offset + Int64(buffer.readableBytes)) while "
                        + "\(range.upperBound) bytes were to be sent; was it changed while it was being sent?")
            }
            buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
            offset += Int64(count)
            if offset == range.upperBound, let expected = sequence.expectedSHA256 {
                let actual = Array(hasher.finalize())
                guard actual == expected else {
                    throw S3Error(
                        code: .badDigest,
                        message:
                            "'\(sequence.file.path)' bytes \(range.lowerBound)-\(range.upperBound - 1) have SHA-256 "
                            + "\(SignatureV4.hex(actual)), not the \(SignatureV4.hex(expected)) declared; "
                            + "the upload was stopped before its last byte")
                }
            }
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(sequence: self, offset: range.lowerBound) }
}

/// The SHA-256 of bytes `range` of `file`, read in `chunkSize` chunks on NIO's thread pool; also fed
/// to `whole` (the running hash of the whole file) when given.
func sha256(
    of file: OpenFile, range: Range<Int64>, chunkSize: Int, feeding whole: inout SHA256?
) async throws
    -> [UInt8]
{
    var hasher = SHA256()
    var offset = range.lowerBound
    while offset < range.upperBound {
        let count = Int(min(Int64(chunkSize), range.upperBound - offset))
        let buffer = try await file.read(at: offset, count: count)
        guard buffer.readableBytes == count else {
            throw S3Error(
                code: .io,
                message: "'\(file.path)' ended at byte \(offset + Int64(buffer.readableBytes)), before the "
                    + "\(range.upperBound) bytes declared; was it changed while it was being sent?")
        }
        buffer.withUnsafeReadableBytes { bytes in
            hasher.update(bufferPointer: bytes)
            whole?.update(bufferPointer: bytes)
        }
        offset += Int64(count)
    }
    return Array(hasher.finalize())
}

/// The 32 bytes written as 64 hex digits (either case) in `text`, or nil.
func sha256Bytes(hex text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count == 64 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(32)
    var index = 0
    while index < 64 {
        guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
        bytes.append(high << 4 | low)
        index += 2
    }
    return bytes
}

/// Base64 (RFC 4648, with padding): how `x-amz-checksum-sha256` carries a digest.
func base64(_ bytes: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    var index = 0
    while index < bytes.count {
        let b0 = bytes[index]
        let b1 = index + 1 < bytes.count ? bytes[index + 1] : 0
        let b2 = index + 2 < bytes.count ? bytes[index + 2] : 0
        out.append(alphabet[Int(b0 >> 2)])
        out.append(alphabet[Int((b0 & 0x3) << 4 | b1 >> 4)])
        out.append(index + 1 < bytes.count ? alphabet[Int((b1 & 0xF) << 2 | b2 >> 6)] : UInt8(ascii: "="))
        out.append(index + 2 < bytes.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
        index += 3
    }
    return String(decoding: out, as: UTF8.self)
}
