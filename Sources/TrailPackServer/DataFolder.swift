import Foundation
import TrailPackFileIO

#if canImport(Glibc)
import Glibc
#endif

/// A server's data folder: marked as trailpack's, locked by one server at a time, and never
/// emptied of anything trailpack did not make.
///
/// Layout: `trailpack-data-folder` (the marker), `trailpack.lock` (the `flock` and the holder's
/// PID), `catalog.sqlite`, `blobs/ab/<sha256>.zip`, `tmp/upload-<UUID>` (uploads in progress),
/// `quarantine/` (blobs taken out of service, never deleted by trailpack).
public final class DataFolder: Sendable {
    public static let markerName = "trailpack-data-folder"
    public static let lockName = "trailpack.lock"
    /// Written first into a backup's folder and removed last (`trailpack admin backup`): a folder
    /// holding it is a backup that did not finish, which no server starts from.
    public static let unfinishedBackupName = "trailpack-backup-unfinished"
    static let unfinishedBackupText =
        "this folder is a trailpack backup that did not finish; make the backup again ('trailpack admin backup')\n"
    static let markerText =
        "trailpack data folder, format 1\nthis folder holds a trailpack server's catalog and packages; see 'trailpack serve --help'\n"

    public enum Access: Sendable {
        /// A server, or an admin command that moves files: one at a time.
        case exclusive
        /// An admin command that only reads, or writes through the catalog's own transactions.
        case shared
    }

    public let root: String
    /// The lock's file descriptor (-1 for `.shared`, which takes no lock).
    private let lockFD: Int32

    /// Opens (and with `create`, makes and marks) the data folder.
    ///
    /// - `create`: a missing folder is made, and an empty folder is marked. Without it, a missing
    ///   or unmarked folder is refused (a mistyped `--data` must not start a new empty catalog).
    /// - `.exclusive` takes the folder's `flock`; a second holder is refused naming the first one's PID.
    public init(path: String, create: Bool, access: Access) throws {
        root = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if !fm.fileExists(atPath: root, isDirectory: &isDirectory) {
            guard create else {
                throw ServerError.dataFolder(
                    "the data folder '\(root)' does not exist; check the path, or add --create to make a new one")
            }
            do { try fm.createDirectory(atPath: root, withIntermediateDirectories: true) } catch {
                throw ServerError.dataFolder("cannot make the data folder '\(root)': \(error.localizedDescription)")
            }
        } else if !isDirectory.boolValue {
            throw ServerError.dataFolder("'\(root)' is not a folder; --data names the server's data folder")
        }
        if fm.fileExists(atPath: root + "/" + Self.unfinishedBackupName) {
            throw ServerError.dataFolder(
                "'\(root)' is a backup that did not finish (the backup was stopped, or a package was missing); nothing was changed. Make the backup again into a new folder, or start from an earlier, finished backup"
            )
        }
        let marker = root + "/" + Self.markerName
        if !fm.fileExists(atPath: marker) {
            let contents = (try? fm.contentsOfDirectory(atPath: root)) ?? []
            // A folder made by a trailpack before the marker existed holds catalog.sqlite: adopt it.
            let legacy = contents.contains("catalog.sqlite")
            if !contents.isEmpty && !legacy {
                throw ServerError.dataFolder(
                    "'\(root)' is not empty and is not a trailpack data folder (it has no \(Self.markerName) file); point --data at an empty or new folder, or at an existing trailpack data folder"
                )
            }
            guard create || legacy else {
                throw ServerError.dataFolder(
                    "'\(root)' is not a trailpack data folder (it has no \(Self.markerName) file); check the path, or add --create to make one here"
                )
            }
            guard fm.createFile(atPath: marker, contents: Data(Self.markerText.utf8)) else {
                throw ServerError.dataFolder("cannot write '\(marker)': check the folder's permissions")
            }
        }
        if access == .exclusive {
            let lockPath = root + "/" + Self.lockName
            let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw ServerError.dataFolder("cannot open '\(lockPath)': \(String(cString: strerror(errno)))")
            }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let why = errno
                var buffer = [UInt8](repeating: 0, count: 32)
                let n = pread(fd, &buffer, buffer.count, 0)
                close(fd)
                let pid =
                    n > 0
                    ? String(decoding: buffer[..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                    : "unknown"
                if why == EWOULDBLOCK {
                    throw ServerError.dataFolder(
                        "the data folder '\(root)' is in use by PID \(pid) (a trailpack server or admin command); stop it first, or use another --data folder"
                    )
                }
                throw ServerError.dataFolder("cannot lock '\(lockPath)': \(String(cString: strerror(why)))")
            }
            let pid = Array("\(getpid())\n".utf8)
            _ = ftruncate(fd, 0)
            _ = pwrite(fd, pid, pid.count, 0)
            lockFD = fd
        } else {
            lockFD = -1
        }
        for dir in ["blobs", "tmp", "quarantine"] {
            try? fm.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true)
        }
    }

    deinit { if lockFD >= 0 { close(lockFD) } }

    public var catalogPath: String { root + "/catalog.sqlite" }

    /// Starts a backup in the new or empty folder `path`: the folder is made and marked unfinished
    /// before anything else is written into it.
    public static func beginBackup(at path: String) throws {
        let fm = FileManager.default
        if fm.fileExists(atPath: path) {
            guard ((try? fm.contentsOfDirectory(atPath: path)) ?? ["?"]).isEmpty else {
                throw ServerError.dataFolder("'\(path)' exists and is not empty; name a new folder for the backup")
            }
        } else {
            do { try fm.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
                throw ServerError.dataFolder("cannot make the backup folder '\(path)': \(error.localizedDescription)")
            }
        }
        do {
            try AtomicFile.write(Array(unfinishedBackupText.utf8), to: path + "/" + unfinishedBackupName)
            for dir in ["blobs", "tmp", "quarantine"] {
                try fm.createDirectory(atPath: path + "/" + dir, withIntermediateDirectories: true)
            }
        } catch { throw ServerError.dataFolder("cannot write the backup folder '\(path)': \(error)") }
    }

    /// Finishes a backup whose catalog and packages are all written: everything is flushed to disk,
    /// then the data folder's marker is written and the unfinished mark removed — in that order, so
    /// a backup stopped at any point is never taken for a finished one.
    public static func finishBackup(at path: String, files: [String]) throws {
        do {
            for file in files {
                let fd = try FileOperations.open(file, .readOnly, failure: "cannot open a backed-up file to flush it")
                defer { try? fd.close() }
                try fd.sync(path: file)
            }
            for folder in Set(files.map { FileOperations.folder(of: $0) }) { try FileOperations.syncFolder(folder) }
            try AtomicFile.write(Array(markerText.utf8), to: path + "/" + markerName)
            guard unlink(path + "/" + unfinishedBackupName) == 0 else {
                throw FileIOError.system("unlink", .last, "cannot remove the backup's unfinished mark", path: path)
            }
            try FileOperations.syncFolder(path)
        } catch { throw ServerError.dataFolder("cannot finish the backup in '\(path)': \(error)") }
    }
    public var catalogExists: Bool { FileManager.default.fileExists(atPath: catalogPath) }

    /// Whether `name` (in `tmp/`) is what `BlobStore.temporaryPath` makes: `upload-<UUID>` with an optional `.part`.
    public static func isOwnTemporaryName(_ name: String) -> Bool {
        guard name.hasPrefix("upload-") else { return false }
        var rest = name.dropFirst("upload-".count)
        if rest.hasSuffix(".part") { rest = rest.dropLast(5) }
        return rest.count == 36 && UUID(uuidString: String(rest)) != nil
    }

    /// Removes what interrupted uploads left in `tmp/` — only names of trailpack's own pattern;
    /// anything else there is left alone. Returns the paths removed.
    public func removeOwnTemporaryFiles() -> [String] {
        var removed: [String] = []
        let tmp = root + "/tmp"
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).sorted()
        where Self.isOwnTemporaryName(name) {
            let path = tmp + "/" + name
            if (try? FileManager.default.removeItem(atPath: path)) != nil { removed.append(path) }
        }
        return removed
    }

    /// The SHA-256 of every blob file under `blobs/` (named `<sha256>.zip` in its two-digit folder).
    public func blobsOnDisk() -> [String] {
        var out: [String] = []
        let blobs = root + "/blobs"
        for prefix in ((try? FileManager.default.contentsOfDirectory(atPath: blobs)) ?? []).sorted() {
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: blobs + "/" + prefix)) ?? []).sorted()
            where name.hasSuffix(".zip") {
                out.append(String(name.dropLast(4)))
            }
        }
        return out
    }

    /// A new temporary folder for one upload, `tmp/upload-<UUID>` (the contained verifier's working folder).
    public func temporaryFolder() throws -> String {
        let path = "\(root)/tmp/upload-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: root + "/tmp", withIntermediateDirectories: true)
        guard mkdir(path, 0o700) == 0 else {
            throw ServerError(
                FileIOError.system("mkdir", .last, "cannot make an upload folder in '\(root)/tmp'", path: path))
        }
        return path
    }

    /// Moves a blob out of service into `quarantine/` (never deleting it). Returns the new path.
    @discardableResult
    public func quarantine(sha256: String, reason: String) throws -> String {
        try quarantine(file: "\(root)/blobs/\(sha256.prefix(2))/\(sha256).zip", sha256: sha256, reason: reason)
    }

    /// Moves `source` (a blob's bytes: the stored file, or a copy fetched from an object store) into
    /// `quarantine/` with a note of why. Returns the new path.
    @discardableResult
    public func quarantine(file source: String, sha256: String, reason: String) throws -> String {
        try? FileManager.default.createDirectory(atPath: root + "/quarantine", withIntermediateDirectories: true)
        var destination = "\(root)/quarantine/\(sha256).zip"
        var n = 1
        while FileManager.default.fileExists(atPath: destination) {
            n += 1
            destination = "\(root)/quarantine/\(sha256)-\(n).zip"
        }
        do throws(FileIOError) { try FileOperations.rename(source, to: destination) } catch {
            throw ServerError(
                FileIOError(
                    code: error.code, message: "cannot move '\(source)' to quarantine", path: source,
                    systemCall: error.systemCall))
        }
        try? Data("\(reason)\n".utf8).write(to: URL(fileURLWithPath: destination + ".why.txt"))
        return destination
    }
}
