import Foundation
import TrailPackBuilder
import TrailPackCore
import TrailPackFileIO

/// A removed language's texts, kept beside the draft (`.<tour>.kept-texts.json` in the site's folder,
/// which the builder never reads) until the language is added again, or until a version of the tour
/// without it is released (then the removal is final: the texts are set aside in `drafts-removed/`,
/// still never deleted). Removing a language never destroys what was translated.
extension DraftStore {
    private func keptTextsPath(_ key: Key) -> String { "\(root)/\(key.site)/.\(key.tour).kept-texts.json" }

    /// The kept texts, by language tag as it was written; empty when there are none (or the file is
    /// unreadable: it is ours, and only ever a convenience).
    public func keptTexts(_ key: Key) -> [String: TourDraft.KeptTexts] {
        guard let bytes = try? FileOperations.readAll(keptTextsPath(key), limit: 64 << 20),
            case .object(let members)? = try? JSONParser.parse(bytes, limits: JSONLimits(maxBytes: 64 << 20)).value
        else { return [:] }
        var out: [String: TourDraft.KeptTexts] = [:]
        for member in members { out[member.key] = TourDraft.KeptTexts(json: member.value) }
        return out
    }

    /// The kept texts of `tag` (its case ignored), if any.
    public func keptTexts(_ key: Key, tag: String) -> (tag: String, texts: TourDraft.KeptTexts)? {
        keptTexts(key).first { $0.key.lowercased() == tag.lowercased() }.map { ($0.key, $0.value) }
    }

    /// Keeps `texts` for `tag` (merged over what was kept before: the newer text wins). Called with the
    /// draft's lock held (inside ``update(_:revision:by:_:)``), before the draft itself is written.
    func keep(_ texts: TourDraft.KeptTexts, tag: String, key: Key) throws(PanelError) {
        guard texts.count > 0 else { return }
        var all = keptTexts(key)
        var merged = all[tag] ?? TourDraft.KeptTexts()
        merged.tour.merge(texts.tour) { $1 }
        merged.stops.merge(texts.stops) { old, new in old.merging(new) { $1 } }
        merged.files.merge(texts.files) { old, new in old.merging(new) { $0.merging($1) { $1 } } }
        all[tag] = merged
        try write(all, key: key)
    }

    /// Forgets the kept texts of `tag` (they came back into the draft).
    func forgetKept(tag: String, key: Key) throws(PanelError) {
        var all = keptTexts(key)
        guard all.removeValue(forKey: tag) != nil else { return }
        if all.isEmpty {
            unlink(keptTextsPath(key))
        } else {
            try write(all, key: key)
        }
    }

    private func write(_ all: [String: TourDraft.KeptTexts], key: Key) throws(PanelError) {
        let json = JSONValue.object(all.sorted { $0.key < $1.key }.map { JSONMember($0.key, $0.value.jsonValue) })
        do {
            try AtomicFile.write(JSONWriter.bytes(json), to: keptTextsPath(key), permissions: [.ownerReadWrite])
        } catch {
            throw PanelError(error, "cannot keep the removed language's texts: \(error.message)")
        }
    }

    /// After a version of the tour with `released` languages went to visitors: the kept texts of
    /// every other language are let go — the whole file is set aside in `drafts-removed/<site>/<tour>/`
    /// (never deleted) and what is still kept (a language the version has) is written back. Returns
    /// the languages let go.
    @discardableResult
    public func settleKeptTexts(_ key: Key, released: [String]) async throws(PanelError) -> [String] {
        try await locked(key) { () throws(PanelError) -> [String] in
            let all = self.keptTexts(key)
            let have = Set(released.map { $0.lowercased() })
            let gone = all.keys.filter { !have.contains($0.lowercased()) }.sorted()
            guard !gone.isEmpty else { return [] }
            let path = self.keptTextsPath(key)
            let aside = "\(self.removedRoot)/\(key.site)/\(key.tour)"
            do {
                try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
                try FileManager.default.moveItem(
                    atPath: path,
                    toPath: aside + "/" + Self.asideName("\(Int(Date().timeIntervalSince1970))-", "kept-texts.json"))
            } catch {
                throw PanelError(
                    code: .internal,
                    message: "cannot set the released tour's kept texts aside: \(error.localizedDescription)")
            }
            let left = all.filter { have.contains($0.key.lowercased()) }
            if !left.isEmpty { try self.write(left, key: key) }
            return gone
        }
    }
}
