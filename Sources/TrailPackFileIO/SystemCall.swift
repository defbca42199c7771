import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A system call that failed: its name and the `errno` it returned.
///
/// Every error type of trailpack's modules carries one when a system call is behind it, so that a
/// program can tell "the disk is full" (`ENOSPC`) from "the file is not there" (`ENOENT`) without
/// parsing a message.
public struct SystemCall: Sendable, Hashable, CustomStringConvertible {
    /// The C function's name: `open`, `pread`, `fsync`, `rename`.
    public var name: String
    /// What it returned in `errno`.
    public var errno: Errno

    /// A failed call to `name` with `errno`.
    public init(_ name: String, _ errno: Errno) {
        self.name = name
        self.errno = errno
    }

    /// `open: No such file or directory`.
    public var description: String { "\(name): \(errno)" }
}

extension Errno {
    /// The calling thread's `errno`, right after a C call failed.
    public static var last: Errno { Errno(rawValue: errno) }
}
