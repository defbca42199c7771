#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An I/O or library failure while writing or reading an archive.
public struct ArchiveError: Error, Sendable, CustomStringConvertible {
    /// What was being done: `write header for 'waypoints/fish-lake/intro.mp4'`.
    public var operation: String
    /// The library's or the system's explanation.
    public var detail: String
    /// The `errno` behind the failure, when there is one.
    public var errno: Int32

    public init(operation: String, detail: String, errno: Int32 = 0) {
        self.operation = operation
        self.detail = detail
        self.errno = errno
    }

    /// An error from a failed system call, with `strerror`'s text.
    public static func system(_ operation: String, errno: Int32 = Glibc.errno) -> ArchiveError {
        ArchiveError(operation: operation, detail: String(cString: strerror(errno)), errno: errno)
    }

    public var description: String { "cannot \(operation): \(detail)" }
}
