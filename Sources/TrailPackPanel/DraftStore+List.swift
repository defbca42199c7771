import Foundation
import Synchronization
import TrailPackCore
import TrailPackFileIO

/// The tours page's list of drafts, kept between requests.
///
/// Reading the folders for every page costs two `stat`s a draft (about 30 ms at 10,000 drafts on
/// two cores), more than the rest of the page. So the list is kept, and kept true:
/// - **the panel's own writes** mark the draft they touched (``mark(_:)``: every locked change, the
///   new folder of a rename or a copy, a discarded import), and every list looks at the marked drafts
///   again (two `stat`s each) until a pass that began after the mark: a ranger who saves and goes
///   back to the list sees the save;
/// - **changes made elsewhere** (another server sharing the folder, a folder copied in by hand) are
///   found by a pass over every folder (``rescan(sites:)``), run in the background every
///   `listFreshness` (2 s) while the tours page is in use (asked within the last five minutes), so
///   they show within about that long;
/// - a kept list older than three passes (the panel idle, or the pool too busy for a pass) is not
///   trusted: the list reads the folders itself, then and there.
///
/// A pass reads again only a draft whose `tour.json` or `waypoints/` changed (device, inode, size,
/// modification and change times): two `stat`s a draft, not a JSON parse and a folder listing.
extension DraftStore {
    /// What is kept: each site's list, the marks, and whether the background pass is running.
    struct KeptLists: Sendable {
        var sites: [String: KeptSite] = [:]
        /// By site, then folder: the number of the mark (a pass forgets the marks made before it began).
        var marked: [String: [String: UInt64]] = [:]
        var marks: UInt64 = 0
        var refreshing = false
    }

    /// One site's kept list: the folder names in byte order and what was read of each.
    struct KeptSite: Sendable {
        var names: [String]
        var drafts: [String: ListedDraft]
        /// When the pass that made it began (a change during a pass may be missed by it, not by the next).
        var scanned: ContinuousClock.Instant
        /// When a list last asked for the site (the background pass leaves sites nobody looks at).
        var asked: ContinuousClock.Instant
    }

    /// How long the tours page counts as in use after its last list.
    static let listInUse: Duration = .seconds(300)

    /// Every draft of `sites`, by site then name: tour.json's name (the default language's) and version,
    /// the stop count, the last save. From the kept list when it is fresh (with the drafts the panel
    /// changed looked at again), else from the folders. Reads files: call it off the event loop.
    public func list(sites: [String]) -> [Summary] {
        let now = ContinuousClock.now
        var out: [Summary] = []
        for site in sites.sorted() {
            let (fresh, marked) = kept.withLock { state -> (KeptSite?, [String]) in
                let marked = Array((state.marked[site] ?? [:]).keys)
                guard let known = state.sites[site], now - known.scanned <= listFreshness * 3 else {
                    return (nil, marked)
                }
                state.sites[site]?.asked = now
                return (known, marked)
            }
            guard var list = fresh ?? scan(site, began: now, asking: true) else { continue }
            if fresh != nil, !marked.isEmpty {
                lookAgain(at: marked, in: site, &list)
                let updated = list
                kept.withLock { state in
                    // Unless a pass replaced the list meanwhile (it is newer than this one).
                    if state.sites[site]?.scanned == updated.scanned { state.sites[site] = updated }
                }
            }
            out.reserveCapacity(out.count + list.names.count)
            for tour in list.names {
                guard let entry = list.drafts[tour] else { continue }
                out.append(
                    Summary(
                        key: entry.key, id: entry.id, name: entry.name, version: entry.version, stops: entry.stops,
                        modified: Date(timeIntervalSince1970: TimeInterval(entry.tourStamp?.modifiedSeconds ?? 0))))
            }
        }
        startRefreshing()
        return out
    }

    /// Reads every folder of `sites` now (what the background pass does every `listFreshness`).
    public func rescan(sites: [String]) {
        for site in sites { _ = scan(site, began: ContinuousClock.now, asking: false) }
    }

    /// Marks a draft the panel changed: the next list looks at it again, whatever the kept list says.
    func mark(_ key: Key) {
        kept.withLock { state in
            state.marks &+= 1
            state.marked[key.site, default: [:]][key.tour] = state.marks
        }
    }

    /// One site's folders, read: a draft read again only where its stamps changed since the kept list.
    /// Kept unless a newer pass finished first; nil (and nothing kept) when the site has no folder.
    private func scan(_ site: String, began: ContinuousClock.Instant, asking: Bool) -> KeptSite? {
        let (previous, lastMark) = kept.withLock { ($0.sites[site], $0.marks) }
        // One open folder per site: each draft's two stamps are looked up relative to it (`fstatat`),
        // not from the root for every name.
        guard let siteFolder = try? FolderHandle.open(root, beneath: [site]), let tours = try? siteFolder.names()
        else {
            kept.withLock { state in
                if let current = state.sites[site], current.scanned < began { state.sites[site] = nil }
            }
            return nil
        }
        // By bytes: a folder name that is a draft's is ASCII (``Key``), where this is the order of
        // `String`'s `<`, without its Unicode comparison (a fifth of listing 10,000 drafts).
        let names = tours.filter { !$0.hasPrefix(".") }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let stamps = Self.stamps(of: names, in: siteFolder)
        var drafts: [String: ListedDraft] = [:]
        drafts.reserveCapacity(names.count)
        var listed: [String] = []
        listed.reserveCapacity(names.count)
        for (tour, (tourStamp, stopsStamp)) in zip(names, stamps) {
            if let known = previous?.drafts[tour], known.tourStamp == tourStamp, known.stopsStamp == stopsStamp {
                drafts[tour] = known
            } else {
                guard let key = Key(site: site, tour: tour) else { continue }
                drafts[tour] = Self.read(folder(key), key: key, stamps: (tourStamp, stopsStamp))
            }
            listed.append(tour)
        }
        var result = KeptSite(
            names: listed, drafts: drafts, scanned: began,
            asked: asking ? began : previous?.asked ?? began - Self.listInUse)
        var marked: [String] = []
        kept.withLock { state in
            if let current = state.sites[site], current.scanned > began {
                result = current  // a pass that began later finished first: its list stands
                marked = Array((state.marked[site] ?? [:]).keys)
                return
            }
            if let current = state.sites[site], !asking { result.asked = max(result.asked, current.asked) }
            state.sites[site] = result
            // The marks made before this pass began are in what it read; later ones stay for the lists.
            let left = (state.marked[site] ?? [:]).filter { $0.value > lastMark }
            state.marked[site] = left.isEmpty ? nil : left
            marked = Array(left.keys)
        }
        if !marked.isEmpty { lookAgain(at: marked, in: site, &result) }
        return result
    }

    /// Looks at each of `tours` again: gone, new, changed (read again) or as kept.
    private func lookAgain(at tours: [String], in site: String, _ list: inout KeptSite) {
        guard let siteFolder = try? FolderHandle.open(root, beneath: [site]) else {
            (list.names, list.drafts) = ([], [:])
            return
        }
        for tour in tours {
            var info = stat()
            guard fstatat(siteFolder.descriptor.rawValue, tour, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                if list.drafts.removeValue(forKey: tour) != nil { list.names.removeAll { $0 == tour } }
                continue
            }
            guard let key = Key(site: site, tour: tour) else { continue }
            let stamps = Self.stamps(of: [tour], in: siteFolder)[0]
            if let known = list.drafts[tour], known.tourStamp == stamps.0, known.stopsStamp == stamps.1 { continue }
            if list.drafts.updateValue(Self.read(folder(key), key: key, stamps: stamps), forKey: tour) == nil {
                // A new folder: into its place in byte order.
                var low = 0
                var high = list.names.count
                while low < high {
                    let middle = (low + high) / 2
                    if list.names[middle].utf8.lexicographicallyPrecedes(tour.utf8) {
                        low = middle + 1
                    } else {
                        high = middle
                    }
                }
                list.names.insert(tour, at: low)
            }
        }
    }

    /// Starts the background pass unless it runs. It ends when no site was asked for within
    /// ``listInUse``, or when the store is gone.
    private func startRefreshing() {
        let start = kept.withLock { state -> Bool in
            if state.refreshing { return false }
            state.refreshing = true
            return true
        }
        guard start else { return }
        let period = listFreshness
        Task.detached { [weak self] in
            while true {
                do { try await Task.sleep(for: period) } catch {
                    self?.kept.withLock { $0.refreshing = false }
                    return
                }
                guard let self else { return }
                let now = ContinuousClock.now
                let sites = self.kept.withLock { state -> [String] in
                    let used = state.sites.filter { now - $0.value.asked <= Self.listInUse }.map(\.key)
                    if used.isEmpty { state.refreshing = false }
                    return used
                }
                guard !sites.isEmpty else { return }
                // A pool too busy for a pass skips it: the lists then read the folders themselves.
                _ = try? await self.pool.run { () throws -> Void in self.rescan(sites: sites) }
            }
        }
    }

    /// Each draft's two stamps (`tour.json`, `waypoints/`), in the order of `tours`. Two `fstatat`s a
    /// draft are most of listing a site of 10,000 (about 1.7 µs each here): a large site's are taken
    /// on every core, in as many runs of the names.
    static func stamps(of tours: [String], in folder: FolderHandle) -> [(FileStamp?, FileStamp?)] {
        @Sendable func stamp(_ tour: String) -> (FileStamp?, FileStamp?) {
            (FileStamp(in: folder, tour + "/tour.json"), FileStamp(in: folder, tour + "/waypoints"))
        }
        let runs = tours.count >= 1_000 ? min(ProcessInfo.processInfo.activeProcessorCount, 8) : 1
        guard runs > 1 else { return tours.map(stamp) }
        var out = [(FileStamp?, FileStamp?)](repeating: (nil, nil), count: tours.count)
        out.withUnsafeMutableBufferPointer { buffer in
            // Each run writes its own slots only, and `concurrentPerform` returns after every run.
            nonisolated(unsafe) let slots = buffer
            DispatchQueue.concurrentPerform(iterations: runs) { run in
                var i = run * tours.count / runs
                let end = (run + 1) * tours.count / runs
                while i < end {
                    slots[i] = stamp(tours[i])
                    i += 1
                }
            }
        }
        return out
    }

    /// What ``list(sites:)`` read of one draft's folder, and the stamps it was read under.
    struct ListedDraft: Sendable {
        var key: Key
        var tourStamp: FileStamp?
        var stopsStamp: FileStamp?
        var id = ""
        var name: String
        var version: String
        var stops: Int
    }

    /// A file's identity and last change, as `stat` gives them; nil for a file that is not there.
    struct FileStamp: Sendable, Equatable {
        var device: UInt64, inode: UInt64, size: Int64
        var modifiedSeconds: Int, modifiedNanoseconds: Int, changedSeconds: Int, changedNanoseconds: Int

        /// The stamp of `name` (a relative path) inside `folder`.
        init?(in folder: FolderHandle, _ name: String) {
            var info = stat()
            guard fstatat(folder.descriptor.rawValue, name, &info, 0) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modifiedSeconds = info.st_mtim.tv_sec
            modifiedNanoseconds = info.st_mtim.tv_nsec
            changedSeconds = info.st_ctim.tv_sec
            changedNanoseconds = info.st_ctim.tv_nsec
        }
    }

    /// Reads a draft's name, version and stop count from its folder, whose stamps were `stamps`
    /// when the reading began (so a change during it is seen by the next look).
    private static func read(_ path: String, key: Key, stamps: (FileStamp?, FileStamp?)) -> ListedDraft {
        var name = key.tour, version = "", id = ""
        if let data = FileManager.default.contents(atPath: path + "/tour.json"),
            let doc = try? JSONParser.parse(Array(data))
        {
            // One text, or texts by language (the default language's, the first declared).
            var given = doc.value["name"]
            if case .object(let byLanguage)? = given {
                var first: String?
                if case .array(let tags)? = doc.value["languages"], case .string(let t)? = tags.first {
                    first = t
                }
                given = byLanguage.first { $0.key.lowercased() == first?.lowercased() }?.value
            }
            if case .string(let s)? = given, !s.isEmpty { name = s }
            if case .string(let s)? = doc.value["version"] { version = s }
            if case .string(let s)? = doc.value["id"] { id = s }
        }
        return ListedDraft(
            key: key, tourStamp: stamps.0, stopsStamp: stamps.1, id: id, name: name, version: version,
            stops: Self.names(in: path + "/waypoints").count)
    }
}
