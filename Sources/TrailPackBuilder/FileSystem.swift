import Foundation
import TrailPackFileIO

#if canImport(Glibc)
import Glibc
#endif

/// Small POSIX helpers: the builder needs lstat and realpath precision that FileManager hides.
enum FileSystem {
    enum Kind { case file, directory, symlink, other, missing }

    struct Info {
        var kind: Kind
        var size: Int64
        var modified: timespec
        /// The file is ours and its mode lets its owner read it: on a local file system it can be
        /// read without asking `access` (the owner's permission bits decide alone for the owner;
        /// an access control list's owner entry is those bits). Not assumed for the superuser,
        /// whom NFS's root squash, a user namespace or a security module can refuse.
        var readableAsOwner = false

        static var missing: Info { Info(kind: .missing, size: 0, modified: timespec()) }

        init(kind: Kind, size: Int64, modified: timespec) {
            self.kind = kind
            self.size = size
            self.modified = modified
        }

        init(_ st: stat) {
            self.init(kind: FileSystem.kind(st.st_mode), size: Int64(st.st_size), modified: st.st_mtim)
            readableAsOwner = st.st_uid == FileSystem.user && st.st_mode & S_IRUSR != 0
        }
    }

    /// The real user, as `access` checks (asked once: a system call).
    static let user = getuid()

    static func lstatInfo(_ path: String) -> Info {
        var st = stat()
        guard lstat(path, &st) == 0 else { return .missing }
        return Info(st)
    }

    /// `lstat` of `name` (one component, no slash) in the open `folder`: the kernel looks up one
    /// name, not every folder of a path from the working directory again (a fifth of the folder's
    /// reading on 100,000 files in a stop folder four deep).
    static func lstatInfo(in folder: FolderHandle, _ name: String) -> Info {
        var st = stat()
        guard fstatat(folder.descriptor.rawValue, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return .missing }
        return Info(st)
    }

    static func statInfo(_ path: String) -> Info {
        var st = stat()
        guard stat(path, &st) == 0 else { return .missing }
        return Info(st)
    }

    private static func kind(_ mode: mode_t) -> Kind {
        switch mode & S_IFMT {
        case S_IFREG: .file
        case S_IFDIR: .directory
        case S_IFLNK: .symlink
        default: .other
        }
    }

    /// The canonical absolute path, with every link resolved; nil if it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The names in a folder, sorted by their UTF-8 bytes (never by file-system order).
    static func list(_ path: String) -> [String] { listTyped(path).map(\.name) }

    /// The names in a folder with the type `readdir` gives (nil when the file system does not say).
    static func listTyped(_ path: String) -> [(name: String, isDirectory: Bool?)] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [(String, Bool?)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            let type = entry.pointee.d_type
            let isDirectory: Bool? = type == UInt8(DT_DIR) ? true : (type == UInt8(DT_UNKNOWN) ? nil : false)
            if name != "." && name != ".." { names.append((name, isDirectory)) }
        }
        // By bytes, without a copy of either name per comparison.
        return names.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
    }

    /// Whether the file can be read (the test that matters, whatever the mode bits say).
    /// The corresponding C function is `access`.
    static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// Whether the file `info` describes can be read: without a system call when it is ours and
    /// its owner may read it (nearly every file a ranger packages; `access` was a seventh of the
    /// folder's reading on 20,000 small files), else as ``isReadable(_:)`` says. Where a file
    /// system decides otherwise than the mode (NFS, FUSE, a security module), the file's first
    /// read says so: the content check for media, the hashing for the rest.
    static func isReadable(_ path: String, _ info: Info) -> Bool { info.readableAsOwner || isReadable(path) }

    /// Every regular file (or link to one) under `root`, as paths relative to it, sorted.
    /// Hidden names and common desktop clutter are skipped.
    static func walk(_ root: String) -> [String] {
        var out: [String] = []
        walk(root) { out.append($0) }
        return out
    }

    /// Calls `body` with every regular file (or link to one) under `root`, as a path relative to
    /// it, in the order ``walk(_:)`` lists them, without holding the list (100,000 paths were 3.3 MB).
    static func walk(_ root: String, relative: String = "", _ body: (String) -> Void) {
        for (name, isDirectory) in listTyped(root + (relative.isEmpty ? "" : "/" + relative)) where !isIgnored(name) {
            let rel = relative.isEmpty ? name : relative + "/" + name
            switch isDirectory ?? (lstatInfo(root + "/" + rel).kind == .directory) {
            case true: walk(root, relative: rel, body)
            case false: body(rel)
            }
        }
    }

    /// Names the builder never packages: hidden files and desktop clutter.
    static func isIgnored(_ name: String) -> Bool {
        name.hasPrefix(".") || name == "Thumbs.db" || name == "desktop.ini" || name.hasPrefix("~$")
    }

    /// The whole regular file at `path`, refused when it holds more than `limit` bytes.
    static func readFile(_ path: String, limit: Int) throws(BuildError) -> [UInt8] {
        do { return try FileOperations.readAll(path, limit: limit) } catch { throw BuildError(error) }
    }
}
