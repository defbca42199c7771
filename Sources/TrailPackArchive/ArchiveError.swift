#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The calling thread's `errno`, read where no property named `errno` hides it.
@inline(__always) package func currentErrno() -> Int32 { errno }

/// An I/O or library failure while writing or reading an archive.
public struct ArchiveError: Error, Sendable, CustomStringConvertible {
    /// What was being done: `write header for 'waypoints/fish-lake/intro.mp4'`.
    public var operation: String
    /// The library's or the system's explanation.
    public var detail: String
    /// The `errno` behind the failure, when there is one.
    public var errno: Int32

    /// An error while doing `operation`, explained by `detail`.
    public init(operation: String, detail: String, errno: Int32 = 0) {
        self.operation = operation
        self.detail = detail
        self.errno = errno
    }

    /// An error from a failed system call, with `strerror`'s text.
    /// - Parameters:
    ///   - operation: what was being done, as in ``operation``.
    ///   - errno: the error number; the calling thread's `errno` when it is `nil`.
    public static func system(_ operation: String, errno: Int32? = nil) -> ArchiveError {
        let code = errno ?? currentErrno()
        return ArchiveError(operation: operation, detail: String(cString: strerror(code)), errno: code)
    }

    /// `cannot <operation>: <detail>`.
    public var description: String { "cannot \(operation): \(detail)" }
}
