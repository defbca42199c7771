import Foundation
import TrailPackBuilder
import TrailPackCore
import TrailPackFileIO

/// A draft's life beside its editing: renamed (its address follows its name), duplicated (a new tour
/// with its own id), deleted (moved to `drafts-removed/<site>/<tour>/`, never deleted, and brought
/// back from there for ``undoWindow``). A deletion touches no version in the catalog: what was built,
/// reviewed or released keeps its history.
extension DraftStore {
    /// How long a deleted draft is offered back on the home page (it stays aside after that too).
    public static let undoWindow: TimeInterval = 7 * 86_400

    /// The files kept beside a draft's folder, named after it: they follow it when it moves.
    private func sidecars(_ key: Key) -> [String] {
        [".\(key.tour).saved", ".\(key.tour).kept-texts.json"]
    }

    /// Moves the draft to `newKey` (same site), with its sidecar files, and names it `name`; a
    /// name another draft has is refused (the move never replaces: `renameat2` without replacing).
    public func rename(_ key: Key, to newKey: Key, name: String, by saver: Saver?) async throws(PanelError) {
        guard key.site == newKey.site else { throw PanelError(message: "a draft stays in its site") }
        if newKey != key {
            try await locked(key) { () throws(PanelError) in
                guard self.exists(key) else { throw .notFound }
                defer { self.mark(newKey) }
                try self.move(site: key.site, key.tour, as: newKey.tour, from: nil)
                for (old, new) in zip(self.sidecars(key), self.sidecars(newKey)) {
                    try? FileOperations.rename("\(self.root)/\(key.site)/\(old)", to: "\(self.root)/\(key.site)/\(new)")
                }
            }
        }
        try await update(newKey, revision: nil, by: saver) { draft throws(PanelError) in draft.name = name }
    }

    /// Copies the draft to `newKey` as a new tour: `name`, its own id (`site.tour`), version 1.0.0.
    /// The copy is made under a temporary name and moved into place whole.
    public func duplicate(_ key: Key, as newKey: Key, name: String, by saver: Saver?) async throws(PanelError) {
        try await locked(key) { () throws(PanelError) in
            guard self.exists(key) else { throw .notFound }
            defer { self.mark(newKey) }
            let temporary = ".import-\(UUID().uuidString)"
            do {
                try FileManager.default.copyItem(atPath: self.folder(key), toPath: "\(self.root)/\(temporary)")
            } catch {
                try? FileManager.default.removeItem(atPath: "\(self.root)/\(temporary)")  // ours, made just above
                throw PanelError(code: .internal, message: "cannot copy the draft: \(error.localizedDescription)")
            }
            do throws(PanelError) {
                try self.move(site: key.site, temporary, as: newKey.tour, from: self.root)
            } catch {
                try? FileManager.default.removeItem(atPath: "\(self.root)/\(temporary)")  // ours
                throw error
            }
        }
        try await update(newKey, revision: nil, by: saver) { draft throws(PanelError) in
            draft.name = name
            draft.id = "\(newKey.site).\(newKey.tour)"
            draft.version = "1.0.0"
            draft.mapName = newKey.tour
        }
    }

    /// Moves `name` (in the site's folder, or in `from`) to the site's `newName`, never replacing.
    private func move(site: String, _ name: String, as newName: String, from: String?) throws(PanelError) {
        do throws(FileIOError) {
            let target = try FolderHandle.open(root, beneath: [site])
            let source = try from.map { (path) throws(FileIOError) in try FolderHandle.open(path) } ?? target
            try source.move(name, to: target, as: newName, replacing: false)
        } catch {
            if error.code == .alreadyExists {
                throw PanelError(
                    code: .conflict, message: "the site has a draft called '\(newName)' already: choose another name")
            }
            throw PanelError(error, "cannot move the draft: \(error.message)")
        }
    }

    /// Moves the draft aside (never deleting it); returns its name under `drafts-removed/<site>/<tour>/`.
    @discardableResult
    public func delete(_ key: Key) async throws(PanelError) -> String {
        try await locked(key) { () throws(PanelError) in
            guard self.exists(key) else { throw .notFound }
            let stamp = Int(Date().timeIntervalSince1970)
            let aside = "\(self.removedRoot)/\(key.site)/\(key.tour)"
            do { try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true) } catch {
                throw PanelError(
                    code: .internal, message: "cannot make the folder for removed drafts: \(error.localizedDescription)"
                )
            }
            var name = "\(stamp)-\(key.tour)"
            var n = 2
            while FileManager.default.fileExists(atPath: aside + "/" + name) {
                name = "\(stamp)-\(n)-\(key.tour)"
                n += 1
            }
            try Self.rename(self.folder(key), aside + "/" + name)
            return name
        }
    }

    /// A deleted draft that can be brought back.
    public struct Deleted: Sendable, Equatable {
        public var key: Key
        /// Its folder's name under `drafts-removed/<site>/<tour>/`.
        public var aside: String
        public var name: String
        public var deleted: Date
    }

    /// The drafts of `sites` deleted within ``undoWindow`` (newest first): whole draft folders moved
    /// aside by ``delete(_:)``, not the stops and files kept aside from inside a draft.
    public func deleted(sites: [String], now: Date = Date()) -> [Deleted] {
        var out: [Deleted] = []
        for site in sites {
            let siteFolder = "\(removedRoot)/\(site)"
            for tour in (try? FileManager.default.contentsOfDirectory(atPath: siteFolder)) ?? [] {
                guard let key = Key(site: site, tour: tour) else { continue }
                for entry in (try? FileManager.default.contentsOfDirectory(atPath: siteFolder + "/" + tour)) ?? [] {
                    guard let at = Self.deletedStamp(entry, tour: tour),
                        now.timeIntervalSince1970 - Double(at) < Self.undoWindow,
                        let draft = try? TourDraft.read(folder: "\(siteFolder)/\(tour)/\(entry)")
                    else { continue }
                    out.append(
                        Deleted(
                            key: key, aside: entry, name: draft.name.isEmpty ? tour : draft.name,
                            deleted: Date(timeIntervalSince1970: Double(at))))
                }
            }
        }
        return out.sorted { $0.deleted > $1.deleted }
    }

    /// The time in `<stamp>-<tour>` or `<stamp>-<n>-<tour>` (a whole draft set aside), else nil.
    static func deletedStamp(_ entry: String, tour: String) -> Int? {
        guard entry.hasSuffix("-" + tour) else { return nil }
        let head = entry.dropLast(tour.count + 1).split(separator: "-")
        guard (1...2).contains(head.count), head.allSatisfy({ $0.allSatisfy(\.isASCII) && Int($0) != nil }),
            let stamp = Int(head[0])
        else { return nil }
        return stamp
    }

    /// Brings a deleted draft back to its address; refuses when another draft has taken it meanwhile.
    public func restore(_ key: Key, aside: String) async throws(PanelError) {
        guard Self.deletedStamp(aside, tour: key.tour) != nil, !aside.contains("/") else { throw .notFound }
        try await locked(key) { () throws(PanelError) in
            let from = "\(self.removedRoot)/\(key.site)/\(key.tour)/\(aside)"
            guard FileManager.default.fileExists(atPath: from + "/" + TourSource.tourFileName) else { throw .notFound }
            guard !FileManager.default.fileExists(atPath: self.folder(key)) else {
                throw PanelError(
                    code: .conflict,
                    message:
                        "a new draft called '\(key.tour)' was made since: rename that one first, then bring this one back"
                )
            }
            try Self.rename(from, self.folder(key))
        }
    }
}
