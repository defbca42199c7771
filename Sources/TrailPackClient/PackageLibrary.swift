import Foundation
import SystemPackage
import TrailPackCore
import TrailPackFileIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A package that passed every check and is installed in a ``PackageLibrary``.
public struct InstalledPackage: Sendable, Equatable, Codable {
    /// The package's id.
    public var id: String
    /// The installed version.
    public var version: String
    /// The installed file's SHA-256, as 64 lowercase hex digits: check the file against it before opening it again.
    public var sha256: String
    /// The installed file's length in bytes.
    public var size: Int64
    /// The package file, relative to the library folder: `<id>/<version>.zip`.
    public var file: String
    /// Seconds since 1970 (UTC) when it was installed.
    public var installedAt: Int64
    /// The key ids of the trusted keys whose signatures were valid (empty when none were asked for).
    public var signers: [String]
    /// The newest version of this id ever installed here: anything older is a rollback.
    public var highestVersion: String
}

/// The folder where a client keeps its packages: one folder per package id holding the
/// installed version's file and its state, and `.partial/` for downloads under way.
///
///     LIBRARY/.partial/<id>-<version>.zip        a download (and .state: which file it is)
///     LIBRARY/<id>/<version>.zip                 the installed package
///     LIBRARY/<id>/installed.json                what is installed, and the newest version seen
///
/// Installing is atomic: the new file is renamed into place and the state file replaced (each
/// written, flushed and renamed); the previous version's file is removed only after that.
public struct PackageLibrary: Sendable {
    /// The library's folder: `<id>/<version>.zip` files, installed-state files and `.partial/`.
    public let folder: String

    /// A library kept in `folder`.
    public init(folder: String) { self.folder = folder }

    var partialFolder: String { folder + "/.partial" }

    func partialPath(id: String, version: String) -> String { partialFolder + "/\(id)-\(version).zip" }

    /// The installed version of `id`, if any.
    public func installed(_ id: String) throws(ClientError) -> InstalledPackage? {
        let path = folder + "/" + id + "/installed.json"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), data.count < 1 << 20,
            let state = try? JSONDecoder().decode(InstalledPackage.self, from: data)
        else {
            throw ClientError(.io, "'\(path)' is damaged; remove the folder '\(folder)/\(id)' and fetch \(id) again")
        }
        return state
    }

    /// Every installed package.
    public func all() throws(ClientError) -> [InstalledPackage] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var out: [InstalledPackage] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            if let p = try installed(name) { out.append(p) }
        }
        return out
    }

    /// The path of an installed package's file.
    public func path(of package: InstalledPackage) -> String { folder + "/" + package.file }

    func prepare() throws(ClientError) {
        for dir in [folder, partialFolder] where !FileManager.default.fileExists(atPath: dir) {
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw ClientError(.io, "cannot create '\(dir)': \(error.localizedDescription)")
            }
        }
    }

    /// Moves a checked download into place and records it; then removes the previous version's file.
    func install(
        partial: String, entry: CatalogEntry, signers: [String], previous: InstalledPackage?
    ) throws(ClientError) -> InstalledPackage {
        let dir = folder + "/" + entry.id
        if !FileManager.default.fileExists(atPath: dir) {
            guard mkdir(dir, 0o755) == 0 || errno == EEXIST else {
                throw ClientError(FileIOError.system("mkdir", .last, "cannot create '\(dir)'", path: dir))
            }
        }
        let file = entry.id + "/" + entry.version + ".zip"
        do {
            try FileOperations.rename(partial, to: folder + "/" + file)
            try FileOperations.syncFolder(dir)
        } catch { throw ClientError(error) }
        var highest = entry.version
        if let previous, let a = PackageVersion(previous.highestVersion), let b = PackageVersion(entry.version), b < a {
            highest = previous.highestVersion
        }
        let state = InstalledPackage(
            id: entry.id, version: entry.version, sha256: entry.sha256, size: entry.size, file: file,
            installedAt: Int64(Date().timeIntervalSince1970), signers: signers, highestVersion: highest)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(state) else { throw ClientError(.io, "cannot encode the installed state") }
        do { try AtomicFile.write(Array(data), to: dir + "/installed.json") } catch { throw ClientError(error) }
        try? FileManager.default.removeItem(atPath: partial + ".state")
        if let previous, previous.file != file {
            try? FileManager.default.removeItem(atPath: folder + "/" + previous.file)
        }
        return state
    }

    /// Removes a download and its state (both ours).
    func discard(partial: String) {
        try? FileManager.default.removeItem(atPath: partial)
        try? FileManager.default.removeItem(atPath: partial + ".state")
    }

}
