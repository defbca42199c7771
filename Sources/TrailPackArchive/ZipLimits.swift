/// Limits that bound what a package may make a reader do (documented in `docs/FORMAT.md`).
public struct ZipLimits: Sendable, Equatable {
    /// The most entries an archive may have.
    public var maxEntries: Int
    /// The largest uncompressed entry.
    public var maxEntrySize: Int64
    /// The largest sum of uncompressed entry sizes.
    public var maxTotalSize: Int64
    /// The largest central directory, in bytes (it is read into memory).
    public var maxCentralDirectoryBytes: Int64

    /// Limits; the defaults are those `docs/FORMAT.md` gives.
    public init(
        maxEntries: Int = 100_000, maxEntrySize: Int64 = 64 << 30, maxTotalSize: Int64 = 256 << 30,
        maxCentralDirectoryBytes: Int64 = 64 << 20
    ) {
        self.maxEntries = maxEntries
        self.maxEntrySize = maxEntrySize
        self.maxTotalSize = maxTotalSize
        self.maxCentralDirectoryBytes = maxCentralDirectoryBytes
    }

    /// The limits `docs/FORMAT.md` gives.
    public static let `default` = ZipLimits()
}
