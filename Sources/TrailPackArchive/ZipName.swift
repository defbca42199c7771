/// An entry's name: its bytes exactly as stored, held with every other name of the directory in one
/// buffer (``ZipNames``).
///
/// An array of its own for each name cost 32 bytes of header and about 16 of the allocator's beside
/// the name's own 25–30, and one allocation an entry: at 100,000 entries 6.4 MB of heap (8 MB
/// resident), where the names side by side take 3. Compare these bytes, never a decoded `String`.
public struct ZipName: RandomAccessCollection, Hashable, Sendable, CustomStringConvertible {
    /// The buffer that holds the bytes (shared by every name of a directory).
    private let names: ZipNames
    /// Where the bytes start in it.
    private let start: UInt32
    /// How many there are (a ZIP name's length is a 16-bit field).
    private let length: UInt16

    /// A name of its own, for an entry read by itself (and for tests); longer names are cut at 65,535 bytes.
    public init(_ bytes: some Collection<UInt8>) {
        let names = ZipNames(capacity: Swift.min(bytes.count, Int(UInt16.max)))
        self = names.append(bytes.prefix(Int(UInt16.max)))!
    }

    fileprivate init(names: ZipNames, start: UInt32, length: UInt16) {
        self.names = names
        self.start = start
        self.length = length
    }

    /// The first byte's position: 0.
    public var startIndex: Int { 0 }
    /// The position past the last byte: the name's length.
    public var endIndex: Int { Int(length) }

    /// The byte at `position` (from 0).
    public subscript(position: Int) -> UInt8 {
        precondition(position >= 0 && position < Int(length), "ZipName index out of range")
        return names.base[Int(start) + position]
    }

    /// Calls `body` with the bytes in place.
    public func withUnsafeBufferPointer<R, E: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R
    ) throws(E) -> R {
        try withExtendedLifetime(names) { () throws(E) -> R in
            try body(UnsafeBufferPointer(start: names.base + Int(start), count: Int(length)))
        }
    }

    /// The bytes, decoded as UTF-8 with invalid bytes replaced: for messages.
    public var description: String { withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) } }

    /// Whether two names have the same bytes.
    public static func == (a: ZipName, b: ZipName) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.elementsEqual(y) } }
    }

    /// Whether the name is exactly these bytes.
    public static func == (a: ZipName, b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.elementsEqual(y) } }
    }

    /// Hashes the bytes, in one pass.
    public func hash(into hasher: inout Hasher) {
        withUnsafeBufferPointer { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// The bytes of a directory's names, side by side in one allocation that is sized once and never
/// moves: names refer to it by position and length.
///
/// Filled only by whoever made it, before any name in it is handed to another thread (the central
/// directory's reader, then never again); what is in it is never changed.
public final class ZipNames: @unchecked Sendable {
    /// The bytes (fixed for the buffer's life).
    fileprivate let base: UnsafeMutablePointer<UInt8>
    /// How many bytes it can hold.
    private let capacity: Int
    /// How many it holds.
    private var count = 0

    /// A buffer for names of `capacity` bytes in all.
    init(capacity: Int) {
        self.capacity = max(0, capacity)
        self.base = .allocate(capacity: max(1, capacity))
    }

    deinit { base.deallocate() }

    /// Adds `bytes` as the next name; nil when they do not fit (in the buffer, or in a name's 16-bit length).
    func append(_ bytes: some Collection<UInt8>) -> ZipName? {
        let n = bytes.count
        guard n <= Int(UInt16.max), n <= capacity - count, count + n <= Int(UInt32.max) else { return nil }
        let start = count
        _ = UnsafeMutableBufferPointer(start: base + start, count: n).initialize(from: bytes)
        count += n
        return ZipName(names: self, start: UInt32(start), length: UInt16(n))
    }
}
