import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open folder, and the files in it named one component at a time: every call is `openat`,
/// `fstatat`, `renameat`, `mkdirat` on the folder's descriptor with links never followed, so a name
/// can neither climb out (`..`, `/`) nor be led out by a symbolic link planted in the folder (or in
/// place of one of the folders on the way to it: ``open(_:beneath:)`` opens each with `O_NOFOLLOW`).
///
/// This is how the control panel touches a draft's files: a stop's folder is opened from the drafts
/// root, and what a ranger names is looked up inside it and nowhere else.
public final class FolderHandle: Sendable {
    /// The open folder (close-on-exec); closed when the handle goes.
    public let descriptor: FileDescriptor
    /// Its path, for messages only (never opened again by it).
    public let path: String

    private init(descriptor: FileDescriptor, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { try? descriptor.close() }

    /// What `fstatat` (without following a link) found at a name.
    public enum Kind: Sendable, Equatable {
        case file(size: Int64)
        case folder
        /// A symbolic link, a pipe, a device or a socket: never opened.
        case other
    }

    /// The folder `root` (a path the program made: the data folder's drafts), then each of
    /// `components` inside the previous one, none of them followed if it is a link.
    public static func open(_ root: String, beneath components: [String] = []) throws(FileIOError) -> FolderHandle {
        let fd = try FileOperations.open(root, .readOnly, options: [.directory])
        var handle = FolderHandle(descriptor: fd, path: root)
        for component in components { handle = try handle.folder(component) }
        return handle
    }

    /// The folder `name` inside this one (a link there is refused: `ELOOP`/`ENOTDIR`).
    public func folder(_ name: String) throws(FileIOError) -> FolderHandle {
        try Self.checkComponent(name, in: path)
        let fd = openat(descriptor.rawValue, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            throw FileIOError.system(
                "openat", Errno.last, "cannot open the folder '\(path)/\(name)'", path: path + "/" + name)
        }
        return FolderHandle(descriptor: FileDescriptor(rawValue: fd), path: path + "/" + name)
    }

    /// The folder `name` inside this one, made first when it is not there.
    public func makeFolder(_ name: String) throws(FileIOError) -> FolderHandle {
        try Self.checkComponent(name, in: path)
        if mkdirat(descriptor.rawValue, name, 0o755) != 0, Errno.last != .fileExists {
            throw FileIOError.system(
                "mkdirat", Errno.last, "cannot make the folder '\(path)/\(name)'", path: path + "/" + name)
        }
        return try folder(name)
    }

    /// What is at `name`, not following a link; nil when nothing is.
    public func kind(_ name: String) throws(FileIOError) -> Kind? {
        try Self.checkComponent(name, in: path)
        var info = stat()
        guard fstatat(descriptor.rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            let errno = Errno.last
            if errno == .noSuchFileOrDirectory { return nil }
            throw FileIOError.system("fstatat", errno, "cannot look at '\(path)/\(name)'", path: path + "/" + name)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file(size: Int64(info.st_size))
        case S_IFDIR: return .folder
        default: return .other
        }
    }

    /// The regular file `name`, opened for reading; a link, a folder, a pipe or a device is refused
    /// (`O_NOFOLLOW | O_NONBLOCK`, then `fstat`).
    public func openFile(_ name: String) throws(FileIOError) -> RegularFile {
        try Self.checkComponent(name, in: path)
        let full = path + "/" + name
        let fd = openat(descriptor.rawValue, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw FileIOError.system("openat", Errno.last, "cannot open '\(full)'", path: full) }
        let descriptor = FileDescriptor(rawValue: fd)
        do throws(FileIOError) {
            let status = try descriptor.status(path: full)
            guard status.isRegularFile else {
                throw FileIOError(
                    code: .notRegularFile, message: "cannot read '\(full)': it is not a regular file", path: full)
            }
            return RegularFile(descriptor: descriptor, status: status)
        } catch {
            try? descriptor.close()
            throw error
        }
    }

    /// Moves `name` to `newName` in `folder` (which may be this one). With `replacing: false` a
    /// file already at `newName` is an ``FileIOError/Code/alreadyExists`` error, not replaced — in one
    /// step for anything but a folder (`linkat`, which never replaces, then `unlinkat`), so two
    /// requests racing for one name cannot both win.
    public func move(_ name: String, to folder: FolderHandle, as newName: String, replacing: Bool) throws(FileIOError) {
        try Self.checkComponent(name, in: path)
        try Self.checkComponent(newName, in: folder.path)
        if !replacing, try kind(name) != .folder {
            guard linkat(descriptor.rawValue, name, folder.descriptor.rawValue, newName, 0) == 0 else {
                throw FileIOError.system(
                    "linkat", Errno.last, "cannot move '\(path)/\(name)' to '\(folder.path)/\(newName)'",
                    path: folder.path + "/" + newName)
            }
            guard unlinkat(descriptor.rawValue, name, 0) == 0 else {
                throw FileIOError.system(
                    "unlinkat", Errno.last, "cannot remove '\(path)/\(name)'", path: path + "/" + name)
            }
            return
        }
        if !replacing, try folder.kind(newName) != nil {
            throw FileIOError(
                code: .alreadyExists, message: "'\(folder.path)/\(newName)' is already there",
                path: folder.path + "/" + newName)
        }
        guard renameat(descriptor.rawValue, name, folder.descriptor.rawValue, newName) == 0 else {
            throw FileIOError.system(
                "renameat", Errno.last, "cannot move '\(path)/\(name)' to '\(folder.path)/\(newName)'",
                path: folder.path + "/" + newName)
        }
    }

    /// Removes the file `name` (never a folder). For the program's own files only.
    public func removeFile(_ name: String) throws(FileIOError) {
        try Self.checkComponent(name, in: path)
        guard unlinkat(descriptor.rawValue, name, 0) == 0 else {
            throw FileIOError.system("unlinkat", Errno.last, "cannot remove '\(path)/\(name)'", path: path + "/" + name)
        }
    }

    /// The names in this folder (without `.` and `..`), read through the descriptor.
    public func names() throws(FileIOError) -> [String] {
        let copy = dup(descriptor.rawValue)
        guard copy >= 0, let dir = fdopendir(copy) else {
            if copy >= 0 { _ = close(copy) }
            throw FileIOError.system("fdopendir", Errno.last, "cannot list '\(path)'", path: path)
        }
        defer { closedir(dir) }
        rewinddir(dir)
        var out: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { out.append(name) }
        }
        return out
    }

    /// Flushes the folder's entries to disk.
    public func sync() throws(FileIOError) { try descriptor.sync(path: path) }

    /// One component: not empty, no `/`, not `.` or `..`, no NUL. The callers pass names that a
    /// checked type made; this is the last line, not the first.
    private static func checkComponent(_ name: String, in folder: String) throws(FileIOError) {
        guard !name.isEmpty, name != ".", name != "..", !name.utf8.contains(0x2F), !name.utf8.contains(0) else {
            throw FileIOError(
                code: .notFound, message: "'\(name)' is not a name in the folder '\(folder)'", path: folder)
        }
    }
}
