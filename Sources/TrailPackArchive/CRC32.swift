internal import CZlib
import TrailPackCore

/// CRC-32 as ZIP uses it. The corresponding C function is zlib's `crc32`.
public struct CRC32: Sendable {
    /// The CRC-32 of everything passed to ``update(_:)`` so far.
    public private(set) var value: UInt32 = 0
    /// A CRC-32 of nothing yet.
    public init() {}
    /// Adds `buffer` to the checksum (zlib's `crc32`).
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        value = UInt32(crc32(uLong(value), base.assumingMemoryBound(to: Bytef.self), uInt(buffer.count)))
    }
}
