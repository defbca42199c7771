import Foundation
import TrailPackBuilder
import TrailPackCore
import TrailPackCrypto
import TrailPackFileIO

/// Stops removed from a draft are never deleted: ``write(_:draft:)`` moves a removed stop's folder to
/// `drafts-removed/<site>/<tour>/<seconds>-<NN>-<slug>`. Here they are listed for the tour's page and
/// brought back, to the place they had (or the end, when the tour has fewer stops now).
extension DraftStore {
    /// A removed stop that can be brought back: its folder's name aside, its name and old number,
    /// and when it was removed.
    public struct RemovedStop: Sendable, Equatable {
        public var aside: String
        public var name: String
        public var number: Int
        public var removed: Date
    }

    /// The stops removed from `key`, the latest first (at most `limit`). Reads files: call it off the
    /// event loop.
    public func removedStops(_ key: Key, limit: Int = 5) -> [RemovedStop] {
        let aside = "\(removedRoot)/\(key.site)/\(key.tour)"
        var out: [RemovedStop] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: aside)) ?? [] {
            guard let parsed = Self.removedStopName(name), Self.isStopFolder(aside + "/" + name) else { continue }
            out.append(
                RemovedStop(
                    aside: name, name: Self.stopName(aside + "/" + name) ?? parsed.slug, number: parsed.number,
                    removed: Date(timeIntervalSince1970: TimeInterval(parsed.seconds))))
        }
        return Array(out.sorted { ($0.removed, $0.aside) > ($1.removed, $1.aside) }.prefix(limit))
    }

    /// `<seconds>-<NN>-<slug>` (how ``write(_:draft:)`` names a stop folder it sets aside), else nil.
    static func removedStopName(_ name: String) -> (seconds: Int, number: Int, slug: String)? {
        let parts = name.split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let seconds = Int(parts[0]), let number = Int(parts[1]), number > 0,
            parts[0].allSatisfy(\.isASCII), parts[1].allSatisfy(\.isASCII), !parts[2].isEmpty,
            Slug.make(from: String(parts[2])) == parts[2]
        else { return nil }
        return (seconds, number, String(parts[2]))
    }

    /// A folder (not a link) holding a `waypoint.json` that is a plain file.
    private static func isStopFolder(_ path: String) -> Bool {
        var folder = stat(), file = stat()
        return lstat(path, &folder) == 0 && (folder.st_mode & S_IFMT) == S_IFDIR
            && lstat(path + "/" + TourSource.waypointFileName, &file) == 0 && (file.st_mode & S_IFMT) == S_IFREG
    }

    /// The stop's name in its `waypoint.json` (the default language's), if it has one.
    private static func stopName(_ folder: String) -> String? {
        guard let bytes = try? FileOperations.readAll(folder + "/" + TourSource.waypointFileName, limit: 1 << 20),
            case .object(let members)? = try? JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 1 << 20)).value,
            let value = members.first(where: { $0.key == "name" })?.value
        else { return nil }
        switch value {
        case .string(let s): return s
        case .object(let texts):
            return texts.lazy.compactMap { if case .string(let s) = $0.value { s } else { nil } }.first
        default: return nil
        }
    }

    /// Brings the removed stop `aside` back into the draft, as stop number `number` it had (or the
    /// last, when the tour has fewer stops now); returns the draft as saved and the stop's place.
    public func bringBackStop(
        _ key: Key, aside: String, by saver: Saver?
    ) async throws(PanelError) -> (
        snapshot: Snapshot, index: Int
    ) {
        guard let parsed = Self.removedStopName(aside) else {
            throw PanelError(status: .notFound, message: "there is no removed stop '\(TerminalText.escaped(aside))'")
        }
        return try await locked(key) { () throws(PanelError) in
            let from = "\(self.removedRoot)/\(key.site)/\(key.tour)/\(aside)"
            guard Self.isStopFolder(from) else {
                throw PanelError(
                    status: .notFound, message: "that stop is no longer among the removed ones (it was brought back)")
            }
            guard self.exists(key) else { throw .notFound }
            // In as number 0 (no stop of ours has it), then moved to its place and renumbered by `write`.
            let staged = "0-\(parsed.slug)"
            let waypoints = self.folder(key) + "/waypoints"
            do {
                try FileManager.default.createDirectory(atPath: waypoints, withIntermediateDirectories: true)
                guard !FileManager.default.fileExists(atPath: waypoints + "/" + staged) else {
                    throw PanelError(
                        status: .conflict, message: "a stop is being brought back already; reload the page")
                }
                try FileManager.default.moveItem(atPath: from, toPath: waypoints + "/" + staged)
            } catch let error as PanelError {
                throw error
            } catch {
                throw PanelError(code: .internal, message: "cannot bring the stop back: \(error.localizedDescription)")
            }
            do throws(PanelError) {
                var snapshot = try self.read(key)
                guard let at = snapshot.draft.stops.firstIndex(where: { $0.folder == staged }) else {
                    throw PanelError(code: .internal, message: "the stop brought back could not be read")
                }
                let stop = snapshot.draft.stops.remove(at: at)
                let index = min(parsed.number - 1, snapshot.draft.stops.count)
                snapshot.draft.stops.insert(stop, at: index)
                snapshot.revision = try self.write(key, draft: snapshot.draft)
                self.recordSave(key, by: saver)
                return (snapshot, index)
            } catch {
                // A stop that cannot be read (its waypoint.json changed by hand while aside) goes back
                // aside: the draft is left as it was.
                if FileManager.default.fileExists(atPath: waypoints + "/" + staged) {
                    try? FileManager.default.moveItem(atPath: waypoints + "/" + staged, toPath: from)
                }
                throw error
            }
        }
    }
}

/// A file removed from a stop is set aside in `drafts-removed/<site>/<tour>/` beside a note of ours
/// (`.<digest>.removed.json`: the file's name aside, its name, its stop's slug, its entry in
/// `waypoint.json` with its texts, and when): the stop's page lists it, and "Bring back" puts the file
/// and its texts back in the stop.
extension DraftStore {
    /// A removed file that can be brought back.
    public struct RemovedFile: Sendable, Equatable {
        /// The note's name (what the form sends back).
        public var note: String
        public var file: String
        public var removed: Date
    }

    private func asideFolder(_ key: Key) -> String { "\(removedRoot)/\(key.site)/\(key.tour)" }

    private static func noteName(_ aside: String) -> String {
        "." + SHA256.hash(Array(aside.utf8)).hex.prefix(24) + ".removed.json"
    }

    /// Sets the file `name` of the stop (slug `stop`) in `folder` aside, with its entry `asset`
    /// (`waypoint.json`'s form), so that it can be brought back with its texts.
    public func setAsideFile(
        _ key: Key, from folder: FolderHandle, name: StopFileName, stop: String, asset: JSONValue?
    ) async throws(PanelError) {
        try await locked(key) { () throws(PanelError) in
            let aside = try self.moveAside(key, from: folder, name: name)
            let note = JSONValue.object(
                [
                    JSONMember("aside", .string(aside)), JSONMember("file", .string(name.value)),
                    JSONMember("stop", .string(stop)),
                    JSONMember("removed", .number(JSONNumber(Int64(Date().timeIntervalSince1970)))),
                ] + (asset.map { [JSONMember("asset", $0)] } ?? []))
            // Without the note the file is still kept aside; only "Bring back" will not offer it.
            try? AtomicFile.write(
                JSONWriter.bytes(note), to: self.asideFolder(key) + "/" + Self.noteName(aside),
                permissions: [.ownerReadWrite])
        }
    }

    private struct Note {
        var name: String
        var aside: String
        var file: String
        var stop: String
        var removed: Date
        var asset: JSONValue?
    }

    private func notes(_ key: Key) -> [Note] {
        let folder = asideFolder(key)
        var out: [Note] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        where name.hasPrefix(".") && name.hasSuffix(".removed.json") {
            guard let bytes = try? FileOperations.readAll(folder + "/" + name, limit: 1 << 20),
                case .object(let members)? = try? JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 1 << 20)).value
            else { continue }
            func text(_ key: String) -> String? {
                if case .string(let s)? = members.first(where: { $0.key == key })?.value { return s }
                return nil
            }
            guard let aside = text("aside"), let file = text("file"), let stop = text("stop"),
                Self.noteName(aside) == name, StopFileName.checked(aside) != nil,
                case .number(let number)? = members.first(where: { $0.key == "removed" })?.value,
                let seconds = number.double
            else { continue }
            out.append(
                Note(
                    name: name, aside: aside, file: file, stop: stop, removed: Date(timeIntervalSince1970: seconds),
                    asset: members.first(where: { $0.key == "asset" })?.value))
        }
        return out
    }

    /// The files removed from the stop with slug `stop` that are still aside, the latest first.
    /// Reads files: call it off the event loop.
    public func removedFiles(_ key: Key, stop: String, limit: Int = 10) -> [RemovedFile] {
        var plain = stat()
        let folder = asideFolder(key)
        let found = notes(key).filter {
            $0.stop == stop && lstat(folder + "/" + $0.aside, &plain) == 0 && (plain.st_mode & S_IFMT) == S_IFREG
        }
        return Array(
            found.sorted { ($0.removed, $0.name) > ($1.removed, $1.name) }.prefix(limit).map {
                RemovedFile(note: $0.name, file: $0.file, removed: $0.removed)
            })
    }

    /// Brings the removed file of note `note` back into stop `index` (the stop it came from), with
    /// its texts; refuses when the stop has a file of that name now. Returns the file's name.
    public func bringBackFile(
        _ key: Key, index: Int, note: String, by saver: Saver?
    ) async throws(PanelError)
        -> String
    {
        try await locked(key) { () throws(PanelError) in
            var snapshot = try self.read(key)
            guard snapshot.draft.stops.indices.contains(index),
                let found = self.notes(key).first(where: { $0.name == note }),
                found.stop == snapshot.draft.stops[index].slug, let name = StopFileName.checked(found.file)
            else {
                throw PanelError(
                    status: .notFound, message: "that file is no longer among this stop's removed ones")
            }
            guard !snapshot.draft.stops[index].assets.contains(where: { $0.file == name.value }) else {
                throw PanelError(
                    status: .conflict,
                    message:
                        "stop \(index + 1) has a file '\(name)' now: rename or remove it first, then bring this one back"
                )
            }
            let stopFolder = try self.openStopFolder(key, draft: snapshot.draft, index: index)
            do {
                let aside = try FolderHandle.open(self.removedRoot, beneath: [key.site, key.tour])
                guard try stopFolder.kind(name.value) == nil else {
                    throw PanelError(
                        status: .conflict,
                        message:
                            "stop \(index + 1) has a file '\(name)' now: rename or remove it first, then bring this one back"
                    )
                }
                try aside.move(found.aside, to: stopFolder, as: name.value, replacing: false)
            } catch let error as PanelError {
                throw error
            } catch {
                throw PanelError(code: .internal, message: "cannot bring '\(name)' back: \(error)")
            }
            var asset =
                found.asset.flatMap { TourDraft.assetReference(json: $0, languages: snapshot.draft.languages) }
                ?? TourDraft.AssetReference(file: name.value)
            asset.file = name.value
            snapshot.draft.stops[index].assets.append(asset)
            _ = try self.write(key, draft: snapshot.draft)
            self.recordSave(key, by: saver)
            unlink(self.asideFolder(key) + "/" + note)  // ours: the note of a file now back
            return name.value
        }
    }
}
