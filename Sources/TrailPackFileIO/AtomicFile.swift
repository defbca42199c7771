import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written under a temporary name beside its destination, then flushed, renamed over the
/// destination and the folder flushed: the destination holds the old content or the new, never a
/// mix — even after a power cut. The one way trailpack replaces a file.
///
/// The temporary file is `.<name>.<pid>.trailpack-tmp` in the destination's folder. While it
/// exists its path is registered with ``InterruptCleanup``, so the program's Ctrl-C or SIGTERM
/// handler can remove it; a file that is dropped without ``commit()`` is removed. A SIGKILL
/// cannot be caught: it leaves the hidden temporary file, never a partial destination, and the
/// next `AtomicFile` for the same destination removes it (only a file of this exact name whose
/// process is gone: nothing the program did not make).
public final class AtomicFile {
    /// Where the file goes when it is committed.
    public let destination: String
    /// Where it is written meanwhile.
    public let temporaryPath: String
    /// The temporary file, open for writing.
    public let descriptor: FileDescriptor
    private var state = State.writing

    private enum State { case writing, moved, discarded }

    /// Creates the temporary file beside `destination` with `permissions` from the start (a secret
    /// key is never readable by others, not even for a moment), exactly, whatever the umask.
    /// The corresponding C functions are `open` and `fchmod`.
    public init(
        destination: String, permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
    )
        throws(FileIOError)
    {
        let folder = FileOperations.folder(of: destination)
        let name = FileOperations.fileName(of: destination)
        Self.removeStale(folder: folder, name: name)
        let temporaryPath = "\(folder)/.\(name).\(getpid()).trailpack-tmp"
        let fd = try FileOperations.open(
            temporaryPath, .writeOnly, options: [.create, .truncate], permissions: permissions,
            failure: "cannot create '\(temporaryPath)'")
        InterruptCleanup.register(temporaryPath)
        guard fchmod(fd.rawValue, permissions.rawValue) == 0 else {
            let e = Errno.last
            InterruptCleanup.unregister(temporaryPath)
            try? fd.close()
            unlink(temporaryPath)
            throw FileIOError.system(
                "fchmod", e, "cannot set the permissions of '\(temporaryPath)'", path: temporaryPath)
        }
        self.destination = destination
        self.temporaryPath = temporaryPath
        self.descriptor = fd
    }

    deinit { discard() }

    /// Appends `bytes`. The corresponding C function is `write`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FileIOError) {
        try descriptor.writeAll(bytes, path: temporaryPath)
    }

    /// Appends `bytes`.
    public func write(_ bytes: [UInt8]) throws(FileIOError) {
        try FileOperations.typed { try bytes.withUnsafeBytes { try write($0) } }
    }

    /// Flushes the file's bytes to disk (before ``moveIntoPlace()``: a rename that reaches the disk
    /// before the data would leave an empty file after a power cut).
    public func flush() throws(FileIOError) {
        try descriptor.sync(path: temporaryPath)
    }

    /// Renames the file over ``destination``. The folder is not flushed: a caller moving several
    /// files flushes it once (``FileIO/syncFolder(_:)``); ``commit()`` does all three steps.
    public func moveIntoPlace() throws(FileIOError) {
        precondition(state == .writing, "AtomicFile moved twice or after discard")
        try FileOperations.rename(temporaryPath, to: destination)
        state = .moved
        InterruptCleanup.unregister(temporaryPath)
        try? descriptor.close()
    }

    /// Flushes the file, renames it over ``destination`` and flushes the folder.
    public func commit() throws(FileIOError) {
        try flush()
        try moveIntoPlace()
        try FileOperations.syncFolder(FileOperations.folder(of: destination))
    }

    /// Closes and removes the temporary file unless it was moved into place. Called when the
    /// object goes away; call it sooner to give the space back at once.
    public func discard() {
        guard state == .writing else { return }
        state = .discarded
        try? descriptor.close()
        unlink(temporaryPath)
        InterruptCleanup.unregister(temporaryPath)
    }

    /// Writes `bytes` to `path` whole or not at all (``commit()``), with `permissions`.
    public static func write(
        _ bytes: [UInt8], to path: String, permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
    ) throws(FileIOError) {
        let file = try AtomicFile(destination: path, permissions: permissions)
        try file.write(bytes)
        try file.commit()
    }

    /// Removes temporary files that earlier processes writing the same destination left when they
    /// were killed: only names this type makes, only when their process is gone.
    private static func removeStale(folder: String, name: String) {
        let prefix = ".\(name)."
        let suffix = ".trailpack-tmp"
        guard let dir = opendir(folder) else { return }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard entryName.hasPrefix(prefix), entryName.hasSuffix(suffix) else { continue }
            let pidText = entryName.dropFirst(prefix.count).dropLast(suffix.count)
            guard let pid = Int32(pidText), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(folder + "/" + entryName) }
        }
    }
}
