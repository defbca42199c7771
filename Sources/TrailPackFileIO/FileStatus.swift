import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `fstat` says of an open file that trailpack uses: its kind, size and modification time.
public struct FileStatus: Sendable, Equatable {
    /// Whether it is a regular file (not a folder, a pipe, a device or a socket).
    public var isRegularFile: Bool
    /// Its size in bytes.
    public var size: Int64
    /// Its modification time: whole seconds since 1970.
    public var modifiedSeconds: Int64
    /// Its modification time: the nanoseconds within that second.
    public var modifiedNanoseconds: Int64

    /// A status with these values.
    public init(isRegularFile: Bool, size: Int64, modifiedSeconds: Int64, modifiedNanoseconds: Int64) {
        self.isRegularFile = isRegularFile
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
    }

    init(_ st: stat) {
        isRegularFile = (st.st_mode & S_IFMT) == S_IFREG
        size = Int64(st.st_size)
        #if canImport(Darwin)
        modifiedSeconds = Int64(st.st_mtimespec.tv_sec)
        modifiedNanoseconds = Int64(st.st_mtimespec.tv_nsec)
        #else
        modifiedSeconds = Int64(st.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(st.st_mtim.tv_nsec)
        #endif
    }
}
