import Foundation
import SystemPackage
import TrailPackArchive
import TrailPackCore
import TrailPackFileIO

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
    /// What an extraction did.
    public struct Extraction: Sendable {
        /// The verifier's report on the package.
        public var report: VerificationReport
        /// How many files were written (the manifest and every asset).
        public var files: Int
    }

    /// Extracts the package at `path` into `destination`, which must not exist unless `replace`.
    /// Returns the verification report and the number of files written. Throws ``PackageError``:
    /// ``PackageError/Code/destinationExists``, ``PackageError/Code/invalid`` (with the report's
    /// findings), ``PackageError/Code/assetMismatch`` (the file changed since it was verified) or
    /// ``PackageError/Code/io``; nothing is left behind.
    @discardableResult
    public static func extract(
        path: String, to destination: String, replace: Bool = false, options: Verifier.Options = .init()
    ) throws -> Extraction {
        let fm = FileManager.default
        let target = URL(fileURLWithPath: destination).standardizedFileURL
        if fm.fileExists(atPath: target.path) && !replace {
            throw PackageError(
                code: .destinationExists,
                message: "'\(destination)' already exists; choose a new folder or pass --force to replace it",
                path: destination)
        }
        let report: VerificationReport
        do { report = try Verifier.verify(path: path, options: options) } catch { throw PackageError(error) }
        guard report.isValid, let manifest = report.manifest else {
            let errors = report.findings.filter { $0.severity == .error }.count
            throw PackageError(
                code: .invalid, message: "the package is not valid (\(errors) errors); nothing was extracted",
                findings: report.findings)
        }
        let reader: PackageReader
        do { reader = try PackageReader(path: path) } catch { throw nothingExtracted(error) }

        let parent = target.deletingLastPathComponent().path
        let temp = parent + "/.\(target.lastPathComponent).\(getpid()).trailpack-tmp"
        guard mkdir(temp, 0o755) == 0 else { throw systemFailure("mkdir", "cannot create '\(temp)'", temp) }
        var keepTemp = false
        defer { if !keepTemp { try? fm.removeItem(atPath: temp) } }

        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        var count = 0
        // The manifest first, exactly as stored (and checked again as it is read).
        var folders: Set<String> = [temp]
        folders.insert(
            try writeFile(temp: temp, relative: Manifest.entryName) { (fd, file) throws(PackageError) in
                let bytes: [UInt8]
                do throws(PackageError) { bytes = try reader.manifestBytes() } catch { throw nothingExtracted(error) }
                try write(fd, bytes, file)
            })
        count += 1
        for asset in manifest.allAssets {
            folders.insert(
                try writeFile(temp: temp, relative: asset.path) { (fd, file) throws(PackageError) in
                    do throws(PackageError) {
                        let stream = try reader.openAsset(asset.path)
                        while true {
                            let n = try stream.read(into: buffer)
                            if n == 0 { break }
                            try write(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<n]), file)
                        }
                    } catch { throw nothingExtracted(error) }
                })
            count += 1
        }
        // Durable before it is visible: every file was flushed as it was written; now the folders'
        // entries, deepest first, so the rename below never exposes a folder whose names a crash could lose.
        for folder in folders where folder.count > temp.count {
            // and every folder between the file's and the root (their entries are new too)
            var above = (folder as NSString).deletingLastPathComponent
            while above.count > temp.count {
                folders.insert(above); above = (above as NSString).deletingLastPathComponent
            }
        }
        for folder in folders.sorted(by: { $0.count > $1.count }) {
            try io { () throws(FileIOError) in try FileOperations.syncFolder(folder) }
        }
        if fm.fileExists(atPath: target.path) {
            let old = parent + "/.\(target.lastPathComponent).\(getpid()).trailpack-old"
            try io { () throws(FileIOError) in try FileOperations.rename(target.path, to: old) }
            do { try FileOperations.rename(temp, to: target.path) } catch {
                try? FileOperations.rename(old, to: target.path)
                throw PackageError(error)
            }
            try? fm.removeItem(atPath: old)
        } else {
            try io { () throws(FileIOError) in try FileOperations.rename(temp, to: target.path) }
        }
        try io { () throws(FileIOError) in try FileOperations.syncFolder(parent) }
        keepTemp = true
        return Extraction(report: report, files: count)
    }

    /// Writes one file under `temp` and flushes it; returns the folder it is in.
    @discardableResult
    private static func writeFile(
        temp: String, relative: String, body: (FileDescriptor, String) throws(PackageError) -> Void
    ) throws(PackageError) -> String {
        // Names were validated by the verifier; check again here, where it matters.
        guard ArchivePath.problems(relative).isEmpty else {
            throw PackageError(code: .invalid, message: "refusing unsafe path '\(relative)'", path: relative)
        }
        let components = relative.split(separator: "/").map(String.init)
        var dir = temp
        for component in components.dropLast() {
            dir += "/" + component
            if mkdir(dir, 0o755) != 0 && errno != EEXIST { throw systemFailure("mkdir", "cannot create '\(dir)'", dir) }
            var st = stat()
            guard lstat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
                throw PackageError(code: .io, message: "'\(dir)' is not a folder", path: dir)
            }
        }
        let file = dir + "/" + components.last!
        let fd = try io { () throws(FileIOError) in
            try FileOperations.open(
                file, .writeOnly, options: [.create, .exclusiveCreate, .noFollow],
                permissions: [.ownerReadWrite, .groupRead, .otherRead], failure: "cannot create '\(file)'")
        }
        defer { try? fd.close() }
        try body(fd, file)
        try io { () throws(FileIOError) in try fd.syncData(path: file) }
        return dir
    }

    private static func write(
        _ fd: FileDescriptor, _ buffer: UnsafeRawBufferPointer, _ file: String
    ) throws(PackageError) {
        try io { () throws(FileIOError) in try fd.writeAll(buffer, path: file) }
    }

    private static func write(_ fd: FileDescriptor, _ bytes: [UInt8], _ file: String) throws(PackageError) {
        try io { () throws(FileIOError) in
            try FileOperations.typed { try bytes.withUnsafeBytes { try fd.writeAll($0, path: file) } }
        }
    }

    /// `body`, its file-layer failure as a ``PackageError``.
    private static func io<Value>(_ body: () throws(FileIOError) -> Value) throws(PackageError) -> Value {
        do { return try body() } catch { throw PackageError(error) }
    }

    private static func systemFailure(_ call: String, _ message: String, _ path: String) -> PackageError {
        PackageError(FileIOError.system(call, Errno.last, message, path: path))
    }

    /// `error`, saying that nothing was extracted.
    private static func nothingExtracted(_ error: PackageError) -> PackageError {
        var error = error
        error.message += "; nothing was extracted"
        return error
    }
}
