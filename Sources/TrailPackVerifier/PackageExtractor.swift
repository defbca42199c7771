import Foundation
import TrailPackArchive
import TrailPackCore
#if canImport(Glibc)
import Glibc
#endif

/// Unpacks a package safely and atomically: verify first, then write every entry into a fresh
/// temporary folder beside the target (checking each asset again as it streams, in case the file
/// changed since), and rename that folder into place at the end.
///
/// Entry names were checked component by component (no `..`, no absolute path, no backslash, no
/// link), files are created with `O_EXCL | O_NOFOLLOW`, so nothing is written outside the target.
public enum PackageExtractor {
    /// Why nothing was extracted.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case invalid(VerificationReport)
        case exists(String)
        case package(PackageError)
        case io(String)

        /// What went wrong and what to do, for people.
        public var description: String {
            switch self {
            case .invalid(let r): "the package is not valid (\(r.findings.filter { $0.severity == .error }.count) errors); nothing was extracted"
            case .exists(let d): "'\(d)' already exists; choose a new folder or pass --force to replace it"
            case .package(let e): "\(e); nothing was extracted"
            case .io(let m): m
            }
        }
    }

    /// What an extraction did.
    public struct Extraction: Sendable {
        /// The verifier's report on the package.
        public var report: VerificationReport
        /// How many files were written (the manifest and every asset).
        public var files: Int
    }

    /// Extracts the package at `path` into `destination`, which must not exist unless `replace`.
    /// Returns the verification report and the number of files written.
    @discardableResult
    public static func extract(path: String, to destination: String, replace: Bool = false, options: Verifier.Options = .init()) throws -> Extraction {
        let fm = FileManager.default
        let target = URL(fileURLWithPath: destination).standardizedFileURL
        if fm.fileExists(atPath: target.path) && !replace { throw Failure.exists(destination) }
        let report = try Verifier.verify(path: path, options: options)
        guard report.isValid, let manifest = report.manifest else { throw Failure.invalid(report) }
        let reader: PackageReader
        do { reader = try PackageReader(path: path) } catch { throw Failure.package(error) }

        let parent = target.deletingLastPathComponent().path
        let temp = parent + "/.\(target.lastPathComponent).\(getpid()).trailpack-tmp"
        guard mkdir(temp, 0o755) == 0 else { throw Failure.io("cannot create '\(temp)': \(String(cString: strerror(errno)))") }
        var keepTemp = false
        defer { if !keepTemp { try? fm.removeItem(atPath: temp) } }

        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        var count = 0
        // The manifest first, exactly as stored (and checked again as it is read).
        var folders: Set<String> = [temp]
        folders.insert(try writeFile(temp: temp, relative: Manifest.entryName) { fd in
            try reader.manifestBytes().withUnsafeBytes { try writeAll(fd, $0) }
        })
        count += 1
        for asset in manifest.allAssets {
            folders.insert(try writeFile(temp: temp, relative: asset.path) { fd in
                let stream = try reader.openAsset(asset.path)
                while true {
                    let n = try stream.read(into: buffer)
                    if n == 0 { break }
                    try writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                }
            })
            count += 1
        }
        // Durable before it is visible: every file was flushed as it was written; now the folders'
        // entries, deepest first, so the rename below never exposes a folder whose names a crash could lose.
        for folder in folders where folder.count > temp.count {
            // and every folder between the file's and the root (their entries are new too)
            var above = (folder as NSString).deletingLastPathComponent
            while above.count > temp.count { folders.insert(above); above = (above as NSString).deletingLastPathComponent }
        }
        for folder in folders.sorted(by: { $0.count > $1.count }) { try syncFolder(folder) }
        if fm.fileExists(atPath: target.path) {
            let old = parent + "/.\(target.lastPathComponent).\(getpid()).trailpack-old"
            guard rename(target.path, old) == 0 else { throw Failure.io("cannot move the old '\(destination)' aside: \(String(cString: strerror(errno)))") }
            guard rename(temp, target.path) == 0 else {
                _ = rename(old, target.path)
                throw Failure.io("cannot move the extracted folder into place: \(String(cString: strerror(errno)))")
            }
            try? fm.removeItem(atPath: old)
        } else {
            guard rename(temp, target.path) == 0 else { throw Failure.io("cannot move the extracted folder into place: \(String(cString: strerror(errno)))") }
        }
        try syncFolder(parent)
        keepTemp = true
        return Extraction(report: report, files: count)
    }

    /// Writes one file under `temp` and flushes it; returns the folder it is in.
    @discardableResult
    private static func writeFile(temp: String, relative: String, body: (Int32) throws -> Void) throws -> String {
        // Names were validated by the verifier; check again here, where it matters.
        guard ArchivePath.problems(relative).isEmpty else { throw Failure.io("refusing unsafe path '\(relative)'") }
        let components = relative.split(separator: "/").map(String.init)
        var dir = temp
        for component in components.dropLast() {
            dir += "/" + component
            if mkdir(dir, 0o755) != 0 && errno != EEXIST { throw Failure.io("cannot create '\(dir)': \(String(cString: strerror(errno)))") }
            var st = stat()
            guard lstat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { throw Failure.io("'\(dir)' is not a folder") }
        }
        let file = dir + "/" + components.last!
        let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure.io("cannot create '\(file)': \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        do { try body(fd) } catch let e as PackageError { throw Failure.package(e) } catch let e as EntryDataError { throw Failure.io(e.message) }
        guard fdatasync(fd) == 0 else { throw Failure.io("cannot flush '\(file)' to disk: \(String(cString: strerror(errno)))") }
        return dir
    }

    private static func syncFolder(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure.io("cannot open the folder '\(path)' to flush it: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure.io("cannot flush the folder '\(path)' to disk: \(String(cString: strerror(errno)))") }
    }

    private static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure.io("cannot write: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }
}
