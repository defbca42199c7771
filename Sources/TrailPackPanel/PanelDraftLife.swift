import Foundation
import Hummingbird
import TrailPackBuilder
import TrailPackCore
import TrailPackServer

/// A draft renamed, duplicated, deleted (asked first; kept aside and offered back on the home page for
/// a week) and brought back. None of these touches the catalog: built versions keep their history.
extension DraftsController {
    func addDraftLifeRoutes(guarded: RouterGroup<AppRequestContext>) {
        for action in ["rename", "duplicate", "delete", "bring-back"] {
            guarded.post("/drafts/:site/:tour/\(action)") { request, context in
                await draftRoute(request, context) { visitor, key in
                    try requireEditor(visitor)
                    let form = try await PanelForm.read(request)
                    switch action {
                    case "rename": return try await renameDraft(visitor, key, form: form)
                    case "duplicate": return try await duplicateDraft(visitor, key)
                    case "delete": return try await deleteDraft(visitor, key, form: form)
                    default: return try await bringBack(visitor, key, form: form)
                    }
                }
            }
        }
    }

    private func requireEditor(_ visitor: Visitor) throws {
        guard visitor.canEdit else { throw PanelError(status: .forbidden, message: "reviewers do not edit tours") }
    }

    /// A free address for a tour called `name` in `site`: `slug`, else `slug-2`, ….
    private func freeKey(site: String, name: String, suffix: String = "") throws -> DraftStore.Key {
        var stem = TourDraft.slug(name + suffix)
        if stem.isEmpty { stem = "tour" }
        stem = String(stem.prefix(58))
        while stem.hasSuffix("-") { stem.removeLast() }
        for n in 1..<1000 {
            guard let candidate = DraftStore.Key(site: site, tour: n == 1 ? stem : "\(stem)-\(n)") else { break }
            if !FileManager.default.fileExists(atPath: drafts.folder(candidate)) { return candidate }
        }
        throw PanelError(status: .conflict, message: "the site has too many drafts of this name: choose another name")
    }

    func renameDraft(_ visitor: Visitor, _ key: DraftStore.Key, form: PanelForm) async throws -> Response {
        let name = form.text("name")
        guard !name.isEmpty, !name.contains("\n"), name.count <= 200 else {
            throw PanelError(message: "type the tour's new name (one line, at most 200 characters)")
        }
        let before = try await drafts.load(key).draft
        // The address follows the name; a name whose address another draft has is refused, not numbered.
        guard let newKey = DraftStore.Key(site: key.site, tour: String(TourDraft.slug(name).prefix(64))) else {
            throw PanelError(message: "'\(name)' gives no address: use letters or digits in the name")
        }
        try await drafts.rename(key, to: newKey, name: name, by: visitor.saver)
        return await redirect(
            visitor, to: newKey.path,
            saying: "The tour is now called '\(name)'"
                + (newKey == key ? "." : ", at a new address (the old one leads nowhere now).")
                + " Its id (\(before.id)), which phones and the catalog know it by, stays the same.")
    }

    func duplicateDraft(_ visitor: Visitor, _ key: DraftStore.Key) async throws -> Response {
        let before = try await drafts.load(key).draft
        let name = "\(before.name.isEmpty ? key.tour : before.name) (copy)"
        let newKey = try freeKey(site: key.site, name: before.name.isEmpty ? key.tour : before.name, suffix: " copy")
        try await drafts.duplicate(key, as: newKey, name: name, by: visitor.saver)
        logger.info(
            "panel: draft duplicated",
            metadata: ["by": "\(visitor.user.name)", "from": "\(key.path)", "to": "\(newKey.path)"])
        return await redirect(
            visitor, to: newKey.path,
            saying: "This is a copy of '\(before.name)', a new tour of its own (id \(newKey.site).\(newKey.tour), "
                + "version 1.0.0): change what differs, then build it.")
    }

    func deleteDraft(_ visitor: Visitor, _ key: DraftStore.Key, form: PanelForm) async throws -> Response {
        let before = try await drafts.load(key).draft
        let name = before.name.isEmpty ? key.tour : before.name
        if let ask = try confirmation(
            visitor, form: form, action: key.path + "/delete", question: "Delete the draft '\(name)'?",
            detail: "It leaves the list of tours you are editing. It is kept aside on the server, and the home "
                + "page offers it back for 7 days. Versions already built, in review or released are not touched: "
                + "their history stays.",
            confirmLabel: "Delete the draft", back: key.path, backLabel: "Keep it")
        {
            return ask
        }
        try await drafts.delete(key)
        logger.info("panel: draft deleted", metadata: ["by": "\(visitor.user.name)", "draft": "\(key.path)"])
        return await redirect(
            visitor, to: "/",
            saying: "'\(name)' was deleted. 'Bring back' under 'Deleted drafts' below restores it for 7 days.",
            fragment: "#deleted-heading")
    }

    func bringBack(_ visitor: Visitor, _ key: DraftStore.Key, form: PanelForm) async throws -> Response {
        try await drafts.restore(key, aside: form.text("aside"))
        logger.info(
            "panel: draft brought back", metadata: ["by": "\(visitor.user.name)", "draft": "\(key.path)"])
        return await redirect(visitor, to: key.path, saying: "The draft is back, as it was when it was deleted.")
    }

    /// The home page's "Deleted drafts": what ``DraftStore/deleted(sites:now:)`` offers back.
    func deletedRows(sites: [String]) async throws -> [HomePage.DeletedRow] {
        let store = drafts
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
        return try await blocking { store.deleted(sites: sites) }.prefix(50).map {
            HomePage.DeletedRow(
                name: $0.name, site: $0.key.site, action: $0.key.path + "/bring-back", aside: $0.aside,
                deleted: formatter.string(from: $0.deleted).replacingOccurrences(of: "T", with: " "))
        }
    }
}
