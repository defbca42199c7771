import Foundation
import Synchronization
import TrailPackBlocking
import TrailPackBuilder
import TrailPackCatalogModel
import TrailPackCore
import TrailPackCrypto
import TrailPackFileIO

/// Tours being edited in the panel, stored as tour folders in exactly the layout `trailpack build`
/// reads: `<folder>/drafts/<site>/<tour>/tour.json`, `waypoints/NN-slug/waypoint.json` and the
/// stops' files. Each JSON file is replaced atomically, and a save names the revision it was made
/// from (a digest of the folder's listing: names, sizes, modification times): a save from an older
/// revision is a conflict, never a lost edit.
///
/// One draft changes at a time and different drafts at once: a change holds the draft's lock —
/// in this process (waiting without a thread), then across processes (`flock` on
/// `<site>/.<tour>.lock`, so several servers sharing the folder on a network file system with
/// locks, such as NFSv4 or CephFS, meet the same conflict) — and runs on the blocking pool. Only
/// the files that changed are written (and flushed).
///
/// A stop the ranger removes is moved to `<folder>/drafts-removed/`, never deleted.
public final class DraftStore: Sendable {
    /// The prefix of an upload's temporary file in a stop's folder (a name no ``StopFileName`` can
    /// have); start-up removes any left by a stopped server.
    static let uploadPrefix = ".upload-"

    public let root: String
    /// The list of drafts kept between requests (DraftStore+List.swift).
    let kept = Mutex(KeptLists())
    /// How old the kept list may be: a background pass reads the folders again this often while the
    /// tours page is in use, so that a change made outside the panel shows within about this long.
    let listFreshness: Duration
    public let removedRoot: String
    /// Where file work runs (it blocks: fsyncs, renames).
    let pool: BlockingPool
    private let locks = KeyedLocks<Key>()

    /// The drafts in `dataFolder/drafts` (the server's data folder, or a folder several servers share).
    public init(dataFolder: String, pool: BlockingPool, listFreshness: Duration = .seconds(2)) {
        self.listFreshness = listFreshness
        root = dataFolder + "/drafts"
        removedRoot = dataFolder + "/drafts-removed"
        self.pool = pool
    }

    /// Runs `body` holding the draft's lock (this process's, then the folder's `flock`), on the pool.
    /// `writes` false: the body only reads, and the draft is not marked for the next list.
    func locked<T: Sendable>(
        _ key: Key, writes: Bool = true, _ body: @escaping @Sendable () throws(PanelError) -> T
    ) async throws(PanelError) -> T {
        await locks.lock(key)
        defer { locks.unlock(key) }
        // Whatever the body did to the folder shows on the next list (not only after the next pass).
        defer { if writes { mark(key) } }
        let lockPath = "\(root)/\(key.site)/.\(key.tour).lock"
        do {
            return try await pool.run { () throws -> T in
                var fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
                if fd < 0 && errno == ENOENT {
                    // The site's first draft: its folder is made once, not at every lock.
                    try? FileManager.default.createDirectory(
                        atPath: "\(self.root)/\(key.site)", withIntermediateDirectories: true)
                    fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
                }
                guard fd >= 0 else {
                    throw PanelError(
                        code: .internal,
                        message: "cannot open the draft's lock file (\(String(cString: strerror(errno))))")
                }
                defer { close(fd) }
                while flock(fd, LOCK_EX) != 0 {
                    guard errno == EINTR else {
                        throw PanelError(
                            code: .internal, message: "cannot lock the draft (\(String(cString: strerror(errno))))")
                    }
                }
                defer { flock(fd, LOCK_UN) }
                return try body()
            }
        } catch let error as PanelError {
            throw error
        } catch {
            throw PanelError(
                code: .busy,
                message:
                    "The server is busy right now and could not do this; nothing was changed. Wait a few seconds and try again.",
                cause: error)
        }
    }

    public struct Key: Sendable, Hashable {
        public let site: String
        public let tour: String
        /// Nil unless both are slugs (lowercase letters, digits, hyphens): a URL never names a path.
        public init?(site: String, tour: String) {
            guard Slug.isValid(site), Slug.isValid(tour) else { return nil }
            self.site = site
            self.tour = tour
        }
        public var path: String { "/drafts/\(site)/\(tour)" }
    }

    public struct Summary: Sendable {
        public var key: Key
        /// The tour's id (`tour.json`'s `id`): its package in the catalog.
        public var id: String
        public var name: String
        public var version: String
        public var stops: Int
        public var modified: Date
    }

    public func folder(_ key: Key) -> String { "\(root)/\(key.site)/\(key.tour)" }

    /// Where the region map an operator gave a site is kept (`trailpack admin site map`): beside the
    /// drafts, so servers sharing the drafts share it; nil for a site id that is not a slug.
    public func siteMapPath(_ site: String) -> String? {
        guard Slug.isValid(site) else { return nil }
        return Self.siteMapPath(dataFolder: (root as NSString).deletingLastPathComponent, site: site)
    }

    /// The region map's place for a drafts folder's parent (the data folder or `--drafts DIR`).
    public static func siteMapPath(dataFolder: String, site: String) -> String {
        dataFolder + "/site-maps/" + site + ".pmtiles"
    }

    /// The bytes the drafts of `site` hold on disk (every regular file under `drafts/<site>/`, links
    /// not followed), for the quota. A file with several hard links there (an operator's `cp -al` of
    /// a draft, a file set aside beside the one kept) takes its space once and is counted once.
    /// Reads the folders: call it off the event loop.
    public func usage(site: String) -> Int64 {
        guard Slug.isValid(site) else { return 0 }
        var total: Int64 = 0
        /// A file by its device and inode: what its links share.
        struct FileID: Hashable {
            var device: UInt64
            var inode: UInt64
        }
        /// The files with more than one link counted so far.
        var linked = Set<FileID>()
        func walk(_ path: String, depth: Int) {
            guard depth < 16, let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
            for name in names {
                var info = stat()
                guard lstat(path + "/" + name, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFREG:
                    let id = FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
                    if info.st_nlink > 1 && !linked.insert(id).inserted { continue }
                    total += Int64(info.st_size)
                case S_IFDIR: walk(path + "/" + name, depth: depth + 1)
                default: continue
                }
            }
        }
        walk(root + "/" + site, depth: 0)
        // What was set aside stays on the disk too: counted, or replacing a file again and again would
        // fill the disk past the quota.
        walk(removedRoot + "/" + site, depth: 0)
        return total
    }

    /// Removes what an interrupted panel left in the drafts — only the panel's own temporary
    /// names: `.upload-<UUID>` files in stop folders and `.import-<UUID>` folders beside the drafts.
    /// Run at start-up, before any request. Returns what was removed. With `olderThan` (drafts
    /// another server shares, whose uploads may be under way now), only what has not changed for
    /// that long.
    public func removeInterrupted(olderThan age: TimeInterval? = nil) -> [String] {
        var removed: [String] = []
        let fm = FileManager.default
        let limit = Date().timeIntervalSince1970 - (age ?? 0)
        func isOurs(_ name: String, prefix: String) -> Bool {
            name.hasPrefix(prefix) && UUID(uuidString: String(name.dropFirst(prefix.count))) != nil
        }
        func isOld(_ path: String) -> Bool {
            guard age != nil else { return true }
            var info = stat()
            return lstat(path, &info) == 0 && Double(info.st_mtim.tv_sec) < limit
        }
        for name in (try? fm.contentsOfDirectory(atPath: root)) ?? []
        where isOurs(name, prefix: ".import-") && isOld(root + "/" + name) {
            if (try? fm.removeItem(atPath: root + "/" + name)) != nil { removed.append(root + "/" + name) }
        }
        for site in Self.names(in: root) where Slug.isValid(site) {
            for tour in Self.names(in: root + "/" + site) where Slug.isValid(tour) {
                let waypoints = "\(root)/\(site)/\(tour)/waypoints"
                for stop in Self.names(in: waypoints) {
                    guard let folder = try? FolderHandle.open(root, beneath: [site, tour, "waypoints", stop]),
                        let names = try? folder.names()
                    else { continue }
                    for name in names where isOurs(name, prefix: Self.uploadPrefix) && isOld(folder.path + "/" + name) {
                        guard case .file? = try? folder.kind(name) else { continue }
                        if (try? folder.removeFile(name)) != nil { removed.append(folder.path + "/" + name) }
                    }
                }
            }
        }
        return removed
    }

    static func names(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }
    }

    public func exists(_ key: Key) -> Bool {
        FileManager.default.fileExists(atPath: folder(key) + "/" + TourSource.tourFileName)
    }

    /// A draft as read, and the revision of the folder it was read from.
    public struct Snapshot: Sendable {
        public var draft: TourDraft
        /// What a save must name to be accepted (see ``save(_:draft:revision:)``).
        public var revision: String
    }

    /// The draft and its revision. A draft whose `waypoint.json` names a file that is not a
    /// ``StopFileName`` (`../catalog.sqlite`) is refused whole, naming the stop and the name: no
    /// page or action of the panel ever holds such a name.
    public func load(_ key: Key) async throws(PanelError) -> Snapshot {
        try await locked(key, writes: false) { () throws(PanelError) in try self.read(key) }
    }

    func read(_ key: Key) throws(PanelError) -> Snapshot {
        guard exists(key) else { throw .notFound }
        let snapshot: Snapshot
        do {
            snapshot = Snapshot(
                draft: try TourDraft.read(folder: folder(key)), revision: TourDraft.revision(folder: folder(key)))
        } catch {
            throw PanelError(code: .unprocessable, message: "the draft's \(error.file ?? "folder") \(error.message)")
        }
        if let bad = snapshot.draft.badFileNames.first {
            throw PanelError(
                code: .unprocessable,
                message:
                    "the draft's \(bad.place) lists '\(bad.name)', which is not a file name: \(bad.problem); fix the name in that file on the server, or remove the draft and import it again"
            )
        }
        return snapshot
    }

    public func revision(_ key: Key) -> String { TourDraft.revision(folder: folder(key)) }

    /// Creates a draft named by `tour` in `site`; refuses a name in use.
    public func create(_ key: Key, draft: TourDraft) async throws(PanelError) -> String {
        try await locked(key) { () throws(PanelError) in try self.make(key, draft: draft) }
    }

    private func make(_ key: Key, draft: TourDraft) throws(PanelError) -> String {
        guard !FileManager.default.fileExists(atPath: folder(key)) else {
            throw PanelError(
                code: .conflict,
                message:
                    "the site already has a draft called '\(key.tour)'; open it from the list, or give the new tour another name"
            )
        }
        do {
            try FileManager.default.createDirectory(
                atPath: folder(key) + "/waypoints", withIntermediateDirectories: true)
        } catch {
            throw PanelError(
                code: .internal, message: "cannot create the draft's folder: \(error.localizedDescription)")
        }
        do { return try write(key, draft: draft) } catch {
            // Ours, made just above and never shown: a draft that could not be written whole is not kept
            // (a disk that filled up would otherwise leave a folder listed that cannot be opened).
            discardNew(key)
            throw error
        }
    }

    /// Removes the folder of a draft this store has just made and not yet handed out (a failed
    /// import or creation). Only for those: every other removal moves aside.
    public func discardNew(_ key: Key, made: ino_t? = nil) {
        if let made {
            // Only the very folder this store made (another import may have replaced it meanwhile).
            var info = stat()
            guard lstat(folder(key), &info) == 0, info.st_ino == made else { return }
        }
        try? FileManager.default.removeItem(atPath: folder(key))
        mark(key)
    }

    /// The inode of a draft's folder (to tell it from another made at the same path later).
    public func folderInode(_ key: Key) -> ino_t? {
        var info = stat()
        return lstat(folder(key), &info) == 0 ? info.st_ino : nil
    }

    /// Saves `draft` if the folder is still at `revision`; returns the new revision.
    public func save(_ key: Key, draft: TourDraft, revision: String) async throws(PanelError) -> String {
        try await locked(key) { () throws(PanelError) in
            guard self.exists(key) else { throw .notFound }
            guard TourDraft.revision(folder: self.folder(key)) == revision else { throw .conflict }
            return try self.write(key, draft: draft)
        }
    }

    /// Runs `change` on the current draft and saves it, if the folder is still at `revision`.
    @discardableResult
    public func update(
        _ key: Key, revision: String?, by saver: Saver? = nil,
        _ change: @escaping @Sendable (inout TourDraft) throws(PanelError) -> Void
    ) async throws(PanelError) -> Snapshot {
        try await locked(key) { () throws(PanelError) in
            var snapshot = try self.read(key)
            if let revision { guard snapshot.revision == revision else { throw .conflict } }
            try change(&snapshot.draft)
            snapshot.revision = try self.write(key, draft: snapshot.draft)
            self.recordSave(key, by: saver)
            return snapshot
        }
    }

    /// Who made a change: the user and the session (a browser), so a conflict can say whether it
    /// was someone else, the same person on another computer, or the same person's other tab.
    public struct Saver: Sendable, Equatable {
        public var user: String
        /// A digest of the session, never the session's id itself.
        public var session: String

        public init(user: String, session: String) {
            self.user = user
            self.session = session
        }
    }

    /// The last change saved to a draft: by whom, and when.
    public struct LastSave: Sendable, Equatable {
        public var saver: Saver
        public var at: Date
    }

    private func lastSavePath(_ key: Key) -> String { "\(root)/\(key.site)/.\(key.tour).saved" }

    /// Records who saved `key` just now (beside the lock file; a record that cannot be written only
    /// makes a later conflict's wording plainer).
    func recordSave(_ key: Key, by saver: Saver?) {
        guard let saver else { return }
        let line = "\(saver.user)\t\(saver.session)\t\(Int(Date().timeIntervalSince1970))\n"
        try? Data(line.utf8).write(to: URL(fileURLWithPath: lastSavePath(key)), options: .atomic)
    }

    /// Who saved `key` last, when known.
    public func lastSave(_ key: Key) -> LastSave? {
        guard let bytes = try? FileOperations.readAll(lastSavePath(key), limit: 4096) else { return nil }
        let parts = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .newlines).split(
            separator: "\t", omittingEmptySubsequences: false)
        guard parts.count == 3, let seconds = Double(parts[2]) else { return nil }
        return LastSave(
            saver: Saver(user: String(parts[0]), session: String(parts[1])),
            at: Date(timeIntervalSince1970: seconds))
    }

    /// What a save of stop `index` must name to be accepted whatever happened to the rest of the
    /// draft: a digest of the stop's `waypoint.json` as it would be written and of its folder's
    /// files (names, sizes, modification times). Two tabs editing different stops never conflict.
    public func stopRevision(_ key: Key, draft: TourDraft, index: Int) -> String {
        guard draft.stops.indices.contains(index) else { return "" }
        let stop = draft.stops[index]
        var text = JSONWriter.string(draft.waypointJSON(stop), pretty: false)
        if let labels = TourDraft.detailNamesJSON(stop.propertyLabels, properties: stop.properties) {
            text += JSONWriter.string(labels, pretty: false)
        }
        if let note = stop.rangerNote { text += "\u{0}" + note }
        if let stopFolder = draft.stops[index].folder {
            let path = folder(key) + "/waypoints/" + stopFolder
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            for name in names.sorted() where !name.hasPrefix(".") {
                var info = stat()
                guard lstat(path + "/" + name, &info) == 0 else { continue }
                text += "\n\(name)\t\(info.st_size)\t\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
            }
        }
        return String(SHA256.hash(Array(text.utf8)).hex.prefix(16))
    }

    /// Runs `change` on the current draft and saves it, if stop `index` is still at `stopRevision`
    /// (other stops and the tour's details may have changed meanwhile); returns the new snapshot and
    /// the stop's new revision.
    @discardableResult
    public func updateStop(
        _ key: Key, index: Int, stopRevision: String, by saver: Saver? = nil,
        _ change: @escaping @Sendable (inout TourDraft) throws(PanelError) -> Void
    ) async throws(PanelError) -> (snapshot: Snapshot, stopRevision: String) {
        try await locked(key) { () throws(PanelError) in
            var snapshot = try self.read(key)
            guard snapshot.draft.stops.indices.contains(index) else { throw .notFound }
            guard self.stopRevision(key, draft: snapshot.draft, index: index) == stopRevision else {
                throw .conflict
            }
            try change(&snapshot.draft)
            snapshot.revision = try self.write(key, draft: snapshot.draft)
            self.recordSave(key, by: saver)
            // The stop as now on disk (its folder may have been renamed: read again).
            let saved = (try? self.read(key)) ?? snapshot
            return (saved, self.stopRevision(key, draft: saved.draft, index: index))
        }
    }

    /// Writes every stop folder (renamed to its number and slug), each `waypoint.json` and `tour.json`.
    func write(_ key: Key, draft: TourDraft) throws(PanelError) -> String {
        let base = folder(key)
        let waypoints = base + "/waypoints"
        let fm = FileManager.default
        do {
            // Stops no longer in the draft: moved aside, kept.
            let kept = Set(draft.stops.compactMap(\.folder))
            var movedAside = false
            for name in Self.names(in: waypoints) where !kept.contains(name) {
                movedAside = true
                let aside = "\(removedRoot)/\(key.site)/\(key.tour)"
                try fm.createDirectory(atPath: aside, withIntermediateDirectories: true)
                try Self.rename(
                    waypoints + "/" + name, aside + "/" + Self.asideName("\(Int(Date().timeIntervalSince1970))-", name))
            }
            // Renames in two steps (a stop moving from 02 to 03 while another moves from 03 to 02).
            var staged: [Int: String] = [:]
            for (index, stop) in draft.stops.enumerated() {
                let target = draft.folderName(at: index)
                guard let current = stop.folder, current != target else { continue }
                let temporary = ".moving-\(index)-\(UUID().uuidString.prefix(8))"
                try Self.rename(waypoints + "/" + current, waypoints + "/" + temporary)
                staged[index] = temporary
            }
            for (index, stop) in draft.stops.enumerated() {
                let target = draft.folderName(at: index)
                if let temporary = staged[index] {
                    try Self.rename(waypoints + "/" + temporary, waypoints + "/" + target)
                } else if stop.folder == nil {
                    try fm.createDirectory(atPath: waypoints + "/" + target, withIntermediateDirectories: true)
                }
                try Self.writeIfChanged(
                    JSONWriter.bytes(draft.waypointJSON(stop)),
                    to: "\(waypoints)/\(target)/\(TourSource.waypointFileName)")
                let names = "\(waypoints)/\(target)/\(TourDraft.detailNamesFileName)"
                if let labels = TourDraft.detailNamesJSON(stop.propertyLabels, properties: stop.properties) {
                    try Self.writeIfChanged(JSONWriter.bytes(labels), to: names)
                } else {
                    var info = stat()
                    if lstat(names, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
                        unlink(names)  // ours: the labels of details the stop no longer has
                    }
                }
                let note = "\(waypoints)/\(target)/\(TourDraft.rangerNoteFileName)"
                if let text = stop.rangerNote, !text.isEmpty {
                    try Self.writeIfChanged(Array((text + "\n").utf8), to: note)
                } else {
                    var info = stat()
                    if lstat(note, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
                        unlink(note)  // ours: the note the ranger cleared
                    }
                }
            }
            // Only a renamed, added or removed stop changes the stops' folder itself.
            if !staged.isEmpty || draft.stops.contains(where: { $0.folder == nil }) || movedAside {
                try FileOperations.syncFolder(waypoints)
            }
            try Self.writeIfChanged(JSONWriter.bytes(draft.tourJSON), to: base + "/" + TourSource.tourFileName)
        } catch let failure as PanelError {
            throw failure
        } catch {
            throw PanelError(
                code: .internal,
                message: "the draft could not be saved completely (\(error)); reload the page and check it")
        }
        return TourDraft.revision(folder: base)
    }

    /// Replaces `path` atomically (written, flushed, renamed) unless it holds exactly `bytes`: an
    /// unchanged stop is neither written nor flushed again, so a save costs what it changed.
    private static func writeIfChanged(_ bytes: [UInt8], to path: String) throws {
        if let current = try? FileOperations.readAll(path, limit: bytes.count + 1), current == bytes { return }
        try AtomicFile.write(bytes, to: path)
    }

    static func rename(_ from: String, _ to: String) throws(PanelError) {
        do { try FileOperations.rename(from, to: to) } catch { throw PanelError(error) }
    }

    /// The folder of stop `index` (after a load), for its files.
    public func stopFolder(_ key: Key, draft: TourDraft, index: Int) -> String {
        folder(key) + "/waypoints/" + (draft.stops[index].folder ?? draft.folderName(at: index))
    }

    /// The folder of stop `index` (after a load), opened from the drafts root one folder at a time
    /// without following links: the stop's files are named inside it and nowhere else.
    public func openStopFolder(_ key: Key, draft: TourDraft, index: Int) throws(PanelError) -> FolderHandle {
        let stop = draft.stops[index].folder ?? draft.folderName(at: index)
        do { return try FolderHandle.open(root, beneath: [key.site, key.tour, "waypoints", stop]) } catch {
            throw PanelError(error, "cannot open the folder of stop \(index + 1): \(error.message)")
        }
    }

    /// Moves the stop's file `name` in `folder` aside (to `drafts-removed/<site>/<tour>/`), never
    /// deleting it; the move is made by descriptors (`renameat`), so only that folder's own entry moves.
    public func setAside(_ key: Key, from folder: FolderHandle, name: StopFileName) async throws(PanelError) {
        _ = try await locked(key) { () throws(PanelError) in try self.moveAside(key, from: folder, name: name) }
    }

    /// Moves `name` aside (see ``setAside(_:from:name:)``), the caller holding the draft's lock; returns
    /// its name under `drafts-removed/<site>/<tour>/`.
    @discardableResult
    func moveAside(_ key: Key, from folder: FolderHandle, name: StopFileName) throws(PanelError) -> String {
        do {
            try FileManager.default.createDirectory(atPath: removedRoot, withIntermediateDirectories: true)
        } catch {
            throw PanelError(
                code: .internal, message: "cannot make the folder for removed files: \(error.localizedDescription)")
        }
        do {
            let aside = try FolderHandle.open(removedRoot).makeFolder(key.site).makeFolder(key.tour)
            let stamp = Int(Date().timeIntervalSince1970)
            var target = Self.asideName("\(stamp)-", name.value)
            var n = 2
            while try aside.kind(target) != nil {
                target = Self.asideName("\(stamp)-\(n)-", name.value)
                n += 1
            }
            try folder.move(name.value, to: aside, as: target, replacing: false)
            return target
        } catch {
            throw PanelError(error, "cannot set '\(name)' aside: \(error.message)")
        }
    }

    /// `prefix` + `name`, the name shortened from its start (at a character's boundary) so that the
    /// whole stays within the 255 bytes a file name may have.
    static func asideName(_ prefix: String, _ name: String) -> String {
        var kept = Substring(name)
        while prefix.utf8.count + kept.utf8.count > 255, !kept.isEmpty { kept = kept.dropFirst() }
        return prefix + kept
    }

    /// Moves a whole draft folder aside (to `drafts-removed/`), never deleting it.
    public func setAside(_ key: Key, path: String) async throws(PanelError) {
        try await locked(key) { () throws(PanelError) in try self.moveAside(key, path: path) }
    }

    func moveAside(_ key: Key, path: String) throws(PanelError) {
        let aside = "\(removedRoot)/\(key.site)/\(key.tour)"
        do { try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true) } catch {
            throw PanelError(
                code: .internal, message: "cannot make the folder for removed files: \(error.localizedDescription)")
        }
        try Self.rename(
            path, aside + "/" + Self.asideName("\(Int(Date().timeIntervalSince1970))-", PathText.lastComponent(path)))
    }
}
