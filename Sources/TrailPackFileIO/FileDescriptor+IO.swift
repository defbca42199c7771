import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// swift-system retries interrupted calls; these add the loops over short reads and writes that every
// caller needs, and errors that name the file. `path` is only for the message.
extension FileDescriptor {
    /// Reads from the current position until `buffer` is full or the file ends.
    /// - Returns: the number of bytes read: fewer than `buffer.count` only at the end of the file.
    /// The corresponding C function is `read`.
    public func readFully(into buffer: UnsafeMutableRawBufferPointer, path: String) throws(FileIOError) -> Int {
        var done = 0
        while done < buffer.count {
            let n: Int
            do {
                n = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            } catch {
                throw FileIOError.system("read", FileOperations.thrown(error), "cannot read '\(path)'", path: path)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Reads from `offset` (the descriptor's position is neither used nor moved, so threads may
    /// share it) until `buffer` is full or the file ends.
    /// - Returns: the number of bytes read: fewer than `buffer.count` only at the end of the file.
    /// The corresponding C function is `pread`.
    public func readFully(
        fromAbsoluteOffset offset: Int64, into buffer: UnsafeMutableRawBufferPointer, path: String
    ) throws(FileIOError) -> Int {
        var done = 0
        while done < buffer.count {
            let n: Int
            do {
                n = try read(
                    fromAbsoluteOffset: offset + Int64(done),
                    into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            } catch {
                throw FileIOError.system(
                    "pread", FileOperations.thrown(error), "cannot read '\(path)' at byte \(offset + Int64(done))",
                    path: path)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Writes all of `bytes` at the current position. The corresponding C function is `write`.
    public func writeAll(_ bytes: UnsafeRawBufferPointer, path: String) throws(FileIOError) {
        do {
            _ = try writeAll(bytes)
        } catch {
            throw FileIOError.system("write", FileOperations.thrown(error), "cannot write '\(path)'", path: path)
        }
    }

    /// Writes all of `bytes` at `offset`, leaving the descriptor's position alone. The
    /// corresponding C function is `pwrite`.
    public func writeAll(
        toAbsoluteOffset offset: Int64, _ bytes: UnsafeRawBufferPointer, path: String
    ) throws(FileIOError) {
        do {
            _ = try writeAll(toAbsoluteOffset: offset, bytes)
        } catch {
            throw FileIOError.system(
                "pwrite", FileOperations.thrown(error), "cannot write '\(path)' at byte \(offset)", path: path)
        }
    }

    /// Flushes what was written to the file (or, for a folder, its entries) to disk. The
    /// corresponding C function is `fsync`.
    public func sync(path: String) throws(FileIOError) {
        while fsync(rawValue) != 0 {
            let e = Errno.last
            if e == .interrupted { continue }
            throw FileIOError.system("fsync", e, "cannot flush '\(path)' to disk", path: path)
        }
    }

    /// Flushes the file's data, and of its metadata what is needed to read the data back (its
    /// size), to disk: enough for a new file whose folder is flushed after. The corresponding C
    /// function is `fdatasync` (`fsync` where there is none).
    public func syncData(path: String) throws(FileIOError) {
        #if canImport(Glibc) || canImport(Musl)
        while fdatasync(rawValue) != 0 {
            let e = Errno.last
            if e == .interrupted { continue }
            throw FileIOError.system("fdatasync", e, "cannot flush '\(path)' to disk", path: path)
        }
        #else
        try sync(path: path)
        #endif
    }

    /// Cuts (or extends) the file to `size` bytes. The corresponding C function is `ftruncate`.
    public func resize(to size: Int64, path: String) throws(FileIOError) {
        do { try resize(to: size) } catch {
            throw FileIOError.system("ftruncate", FileOperations.thrown(error), "cannot resize '\(path)'", path: path)
        }
    }

    /// What `fstat` says of the open file. The corresponding C function is `fstat`.
    public func status(path: String) throws(FileIOError) -> FileStatus {
        guard let status = fileStatus(rawValue) else {
            throw FileIOError.system("fstat", Errno.last, "cannot read '\(path)'", path: path)
        }
        return status
    }

    /// Tells the kernel the file will be read from start to end (Linux; elsewhere nothing).
    public func adviseSequential() {
        #if canImport(Glibc)
        _ = posix_fadvise(rawValue, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
        #endif
    }
}

/// `fstat` of `fd`, or nil with `errno` set.
private func fileStatus(_ fd: CInt) -> FileStatus? {
    var st = stat()
    guard fstat(fd, &st) == 0 else { return nil }
    return FileStatus(st)
}
