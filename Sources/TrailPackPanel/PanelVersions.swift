import Foundation
import Hummingbird
import TrailPackBuilder
import TrailPackCatalogModel
import TrailPackCore

/// Where a tour's versions are in review, said where the ranger works (the tours list, the editor),
/// and the next version number: above every stored version, whatever its state.
extension DraftsController {
    /// A tour's newest stored version and where it is in review, in plain words.
    struct ReviewState {
        var version: String
        var words: String
        /// The reviewer's reason, when the version was denied.
        var reason: String?
        var deniedBy: String?
        /// The version's page.
        var link: String
        var denied: Bool { reason != nil }

        /// As the tours list and the editor show it (the reason only with who gave it).
        var view: ReviewStateView {
            let both = reason != nil && deniedBy != nil
            return ReviewStateView(
                version: version, words: words, link: link, denied: denied, reason: both ? reason : nil,
                deniedBy: both ? deniedBy : nil)
        }
    }

    /// The stored versions of the package `id` (every state), or none for an id that is not one.
    func storedVersions(_ id: String) async throws -> [Catalog.VersionRecord] {
        guard Slug.isValid(id.replacingOccurrences(of: ".", with: "-"), maxLength: 128) else { return [] }
        return try await catalog.history(package: id)
    }

    /// The newest of `stored` when it is a draft, else one above it, else the draft's own version (or 1.0.0).
    static func nextVersion(after stored: [Catalog.VersionRecord], draft: TourDraft) -> String {
        let numbered = stored.compactMap { record in PackageVersion(record.summary.version).map { ($0, record) } }
        guard let (newest, record) = numbered.max(by: { $0.0 < $1.0 }) else {
            return PackageVersion(draft.version) == nil ? "1.0.0" : draft.version
        }
        if record.summary.status == .draft { return record.summary.version }
        var parts = newest.components
        while parts.count < 3 { parts.append(0) }
        parts[parts.count - 1] += 1
        return parts.map(String.init).joined(separator: ".")
    }

}

extension DraftsController {
    /// The corners of the released tours in other sites (the first 50 sites, 20 tours each) whose park
    /// is `park` (the same words, ignoring case and spaces at the ends), and of those sites' home frames.
    /// A park is known to the panel only through what its tours say: there is no place-name lookup.
    private func parkCorners(_ park: String, besides site: String) async throws -> [Coordinate] {
        let wanted = Self.parkKey(park)
        guard !wanted.isEmpty else { return [] }
        var corners: [Coordinate] = []
        for other in try await catalog.sites().prefix(50) where other.id != site && other.packages > 0 {
            let page = try await catalog.packages(site: other.id, limit: 20, after: nil)
            let same = page.packages.filter { Self.parkKey($0.park) == wanted }
            guard !same.isEmpty else { continue }
            if let home = try await catalog.siteFrame(id: other.id) {
                corners += [home.southwest, home.northeast]
            }
            corners += try await frameCorners(of: same)
        }
        return corners
    }

    /// The corners of the released packages' map frames (from their stored manifests).
    private func frameCorners(of packages: [Catalog.PackageSummary]) async throws -> [Coordinate] {
        var corners: [Coordinate] = []
        for package in packages {
            guard
                let stored = try await catalog.version(
                    package: package.id, version: package.version, releasedOnly: true),
                let manifest = ManifestReader.read(Array(stored.manifest.utf8)).manifest
            else { continue }
            corners += [manifest.bounds.southwest, manifest.bounds.northeast]
        }
        return corners
    }

    static func parkKey(_ park: String) -> String {
        park.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
}

/// What needs a publisher, for the badge on every page and the notifications page: read from the
/// catalog when asked.
struct PanelNotices: Sendable {
    let catalog: any CatalogStore

    /// Something of a publisher's that needs them: a version sent back (with the reviewer's words) or
    /// approved and waiting to be released. Worked out from the catalog when asked, so it is never stale
    /// and needs nothing stored: it goes away once the publisher acts on it.
    struct Notice {
        var words: String
        var reason: String?
        var link: String
    }

    /// The notices of `user`, newest first, from their 50 most recently stored versions.
    func notices(for user: Catalog.User) async throws -> [Notice] {
        let mine = try await catalog.reviewQueue(statuses: [.ready, .draft], limit: 50)
            .filter { $0.uploadedBy == user.name }
        var out: [Notice] = []
        var audits: [String: [Catalog.AuditEntry]] = [:]
        for record in mine {
            let id = record.summary.id, version = record.summary.version
            let name = record.summary.name.isEmpty ? id : record.summary.name
            let link = PanelController.versionPath(id, version)
            switch record.summary.status {
            case .ready:
                out.append(Notice(words: "Version \(version) of \(name) is approved: release it", link: link))
            case .draft:
                if audits[id] == nil { audits[id] = try await catalog.auditLog(package: id) }
                guard let denial = PanelController.sentBack(audits[id] ?? [], version: version) else { continue }
                // A newer version of the tour was stored since: that is the fix, nothing to do here.
                let number = PackageVersion(version)
                let newer = (audits[id] ?? []).contains { entry in
                    entry.action == Catalog.AuditAction.upload.rawValue
                        && (entry.version.flatMap(PackageVersion.init)).map { n in number.map { n > $0 } ?? false }
                            ?? false
                }
                if newer { continue }
                out.append(
                    Notice(
                        words: "Version \(version) of \(name) was sent back by \(denial.actor)",
                        reason: PanelController.denialReason(denial.detail), link: link))
            default: continue
            }
        }
        return out
    }
}

extension ReviewController {
    func notificationsPage(_ visitor: Visitor, request: Request) async throws -> Response {
        let notices = visitor.canEdit ? try await PanelNotices(catalog: catalog).notices(for: visitor.user) : []
        let body = NotificationsPage(
            notices: notices.map { NotificationsPage.Notice(words: $0.words, link: $0.link, reason: $0.reason) },
            hasNotices: !notices.isEmpty, reviewCount: visitor.reviewCount, hasReviews: visitor.reviewCount > 0)
        return try page(body, title: "What needs you", visitor: visitor)
    }
}

extension DraftsController {
    /// Where the newest stored version of `id` is, or nil when none was built yet.
    func reviewState(_ id: String) async throws -> ReviewState? {
        let stored = try await storedVersions(id)
        func number(_ record: Catalog.VersionRecord) -> PackageVersion? { PackageVersion(record.summary.version) }
        guard
            let newest = stored.max(by: { a, b in
                switch (number(a), number(b)) {
                case (let x?, let y?): x < y
                case (nil, _?): true
                default: false
                }
            })
        else { return nil }
        let version = newest.summary.version
        var state = ReviewState(
            version: version, words: "", link: Self.versionPath(id, version))
        let required = approvals
        switch newest.summary.status {
        case .draft:
            if let denial = Self.sentBack(try await catalog.auditLog(package: id), version: version) {
                state.reason = Self.denialReason(denial.detail)
                state.deniedBy = denial.actor
                state.words = "Version \(version) was sent back by \(denial.actor)"
            } else {
                state.words = "Version \(version) is built, not yet sent for review"
            }
        case .pending:
            state.words =
                "Version \(version) is waiting for review (\(newest.approvals.count) of \(required) approvals)"
        case .ready: state.words = "Version \(version) is approved: release it from its page"
        case .released: state.words = "Version \(version) is released: visitors get it"
        case .withdrawn: state.words = "Version \(version) was withdrawn by an administrator"
        case .damaged: state.words = "Version \(version) is out of service: its stored file was found damaged"
        }
        return state
    }

    /// Where a new tour's map opens when it has no stops and no frame yet: the site's home frame (set
    /// by an admin), else around the site's released tours (their map frames), else around the stops
    /// of the site's other drafts, else the park: around the released tours of other sites that name
    /// the same park as this tour (and those sites' home frames). Nil when there is none of them (the
    /// editor then opens on the site's region map if it has one, else on the whole world, and says so).
    func siteView(_ site: String, park: String, excluding key: DraftStore.Key) async throws -> Bounds? {
        // The home frame an admin set comes first: it is where the site's trails are.
        if let home = try await catalog.siteFrame(id: site) { return home }
        var corners: [Coordinate] = []
        if let page = try? await catalog.packages(site: site, limit: 20, after: nil) {
            corners = try await frameCorners(of: page.packages)
        }
        if corners.isEmpty {
            let store = drafts
            corners = try await blocking {
                var found: [Coordinate] = []
                for other in store.list(sites: [site]).prefix(20) where other.key != key {
                    guard let draft = try? TourDraft.read(folder: store.folder(other.key)) else { continue }
                    found += draft.stops.compactMap(\.coordinate)
                }
                return found
            }
        }
        if corners.isEmpty { corners = try await parkCorners(park, besides: site) }
        return Bounds.enclosing(corners, margin: 0.02)
    }

    /// Refuses, before anything is built, a version number the catalog holds already, saying what
    /// state it is in and which number to use instead; a draft version (never sent for review, or
    /// sent back) may be built again under its own number, written as it was.
    func refuseStoredVersion(_ draft: TourDraft, version: String) async throws {
        let stored = try await storedVersions(draft.id)
        guard let asked = PackageVersion(version),
            let same = stored.first(where: { PackageVersion($0.summary.version) == asked })
        else { return }
        if same.summary.status == .draft {
            guard same.summary.version != version else { return }
            throw PanelError(
                status: .conflict,
                message:
                    "Version \(same.summary.version) of this tour is stored as \(same.summary.version): write it the same way to build it again in its place."
            )
        }
        let next = Self.nextVersion(after: stored, draft: draft)
        let state: String =
            switch same.summary.status {
            case .pending: "is waiting for review"
            case .ready: "is approved and waiting to be released"
            case .released: "is released"
            case .draft: "was built already"
            case .withdrawn: "was withdrawn"
            case .damaged: "is out of service"
            }
        throw PanelError(
            status: .conflict,
            message:
                "Version \(same.summary.version) of this tour \(state); a version, once built, never changes. Build it as version \(next) instead."
        )
    }

    /// The version to build next: the newest stored version's own number when it was never sent
    /// for review or was sent back (building again replaces it: no reviewer holds those bytes), else
    /// one above every stored version of the tour (waiting, released or withdrawn alike: the bytes of
    /// a version a reviewer may be reading never change), else the draft's own.
    func proposedVersion(_ draft: TourDraft) async throws -> String {
        Self.nextVersion(after: try await storedVersions(draft.id), draft: draft)
    }
}

extension PanelRoom {
    /// The denial that sent `version` back, from its package's audit log, unless the version was
    /// sent for review again since; nil when it is not sent back.
    static func sentBack(_ audit: [Catalog.AuditEntry], version: String) -> Catalog.AuditEntry? {
        let entries = audit.filter { $0.version == version }
        guard let denial = entries.last(where: { $0.action == Catalog.AuditAction.deny.rawValue }),
            !entries.contains(where: { $0.id > denial.id && $0.action == Catalog.AuditAction.start.rawValue })
        else { return nil }
        return denial
    }

    /// The reviewer's own words out of a denial's audit detail ("pending → draft; approvals cleared;
    /// REASON"), or the whole detail when it is not in that shape.
    static func denialReason(_ detail: String) -> String {
        if let range = detail.range(of: "approvals cleared; ") {
            let reason = detail[range.upperBound...]
            return String(reason.hasPrefix("reason: ") ? reason.dropFirst("reason: ".count) : reason)
        }
        if detail.hasSuffix("approvals cleared") { return "no reason was given" }
        return detail
    }
}
