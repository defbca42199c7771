import Foundation
import Synchronization
import TrailPackBuilder
import TrailPackCore

/// The builder's view of a draft that its pages show — the findings of `TourBuilder.plan` and the
/// route as the package will have it — kept by the draft folder's revision, so that a page
/// shown again without a change in between does not plan the folder again.
///
/// With the Santiam route (a GPX track of 4,000 points, read by the plan twice and by the route
/// once), planning took 90–100 ms of every editor and stop page (`perf`, `bench/panel.py`: the
/// editor 105–180 ms, a stop's page 80–94 ms, where they were 13 ms before the route came).
///
/// The revision (`TourDraft.revision(folder:)`) is what the draft's pages are saved
/// against: every file and folder in the draft's folder — `tour.json`, the route beside it, each
/// stop's files, the map's, anything else — by path, size, inode and modification time. A change
/// by the panel, by another server sharing the folder or by hand changes it. A plan made while the
/// folder changed is kept under the revision taken before it, which the folder no longer has: the
/// next page plans again.
final class PanelPlans: Sendable {
    struct Kept: Sendable {
        var revision: String
        var findings: [Finding]?
        var route: RouteView??
    }
    typealias RouteView = (route: Route, importedFrom: String?)

    /// The kept plans, and the drafts in the order last kept (the oldest first).
    private let kept = Mutex<(plans: [DraftStore.Key: Kept], order: [DraftStore.Key])>(([:], []))
    /// Drafts kept at most (the ones shown most recently are kept when there are more).
    static let limit = 64

    /// The draft's folder at `revision`: what a page that loaded the draft (and its revision, taken
    /// with it) asks for its plans, without walking the folder again.
    func folder(_ key: DraftStore.Key, revision: String) -> Folder {
        Folder(plans: self, key: key, revision: revision)
    }

    /// The draft's folder as it is now (its revision taken here): call on a blocking thread.
    func folder(_ key: DraftStore.Key, at folder: String) -> Folder {
        self.folder(key, revision: TourDraft.revision(folder: folder))
    }

    /// A draft's folder at one revision, and what is kept for it.
    struct Folder: Sendable {
        let plans: PanelPlans
        let key: DraftStore.Key
        let revision: String

        /// The plan's findings, made by `plan` unless kept at this revision.
        func findings(plan: () throws -> [Finding]) rethrows -> [Finding] {
            try plans.value(\.findings, key, revision, make: plan)
        }

        /// The draft's route, made by `make` unless kept at this revision.
        func route(make: () -> RouteView?) -> RouteView? {
            plans.value(\.route, key, revision, make: make)
        }
    }

    /// The value kept in `field` for `key` at `revision`, or the one `make` makes, then kept.
    private func value<Value: Sendable>(
        _ field: WritableKeyPath<Kept, Value?>, _ key: DraftStore.Key, _ revision: String, make: () throws -> Value
    ) rethrows -> Value {
        if let entry = kept.withLock({ $0.plans[key] }), entry.revision == revision, let found = entry[keyPath: field] {
            return found
        }
        let made = try make()
        kept.withLock { kept in
            var entry = kept.plans[key].flatMap { $0.revision == revision ? $0 : nil } ?? Kept(revision: revision)
            entry[keyPath: field] = made
            kept.plans[key] = entry
            kept.order.removeAll { $0 == key }
            kept.order.append(key)
            if kept.order.count > Self.limit { kept.plans[kept.order.removeFirst()] = nil }
        }
        return made
    }
}
