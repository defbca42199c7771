import Foundation
import Hummingbird
import Synchronization
import TrailPackBuilder
import TrailPackCore
import TrailPackServer

/// Tours in several languages (format 1.1, issue #31), in the panel's words: the tour's languages
/// (declared by tag, the first the default), tabs that choose which language's texts a page edits,
/// a side-by-side page for translating, and how complete each language is.
enum PanelLanguage {
    /// The language's name in English (`Spanish`), or its tag when the name is not known.
    static func name(_ tag: String) -> String { LanguageTag.englishName(tag) ?? tag }

    /// `Spanish (español)`; `English`; the tag alone when the name is not known.
    static func title(_ tag: String) -> String {
        guard let english = LanguageTag.englishName(tag) else { return tag }
        guard let native = LanguageTag.nativeName(tag), native.lowercased() != english.lowercased() else {
            return english
        }
        return "\(english) (\(native))"
    }

    /// `es — Spanish (español)`, as the tour's list of languages shows them.
    static func label(_ tag: String) -> String {
        guard LanguageTag.englishName(tag) != nil else { return "\(tag) — a language without a name known here" }
        return "\(tag) — \(title(tag))"
    }

    /// The declared language a page asks for (`?lang=es`, case ignored); nil: the default language.
    static func chosen(_ asked: String?, in draft: TourDraft) -> String? {
        guard let asked, let tag = draft.languages.first(where: { $0.lowercased() == asked.lowercased() }),
            tag != draft.defaultLanguage
        else { return nil }
        return tag
    }

    /// A tag as it may appear in an element id or a URL: it is letters, digits and hyphens already.
    static func id(_ tag: String) -> String { tag.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") } }

    /// The tabs of a page that edits texts: one link per declared language, the current one marked
    /// with `aria-current`; `link` makes a tab's address from its language (nil: the default).
    static func tabs(_ draft: TourDraft, current: String?, link: (String?) -> String) -> LanguageTabsView {
        guard draft.languages.count > 1, let base = draft.defaultLanguage else {
            return LanguageTabsView(hasTabs: false, tabs: [])
        }
        let tabs = draft.languages.map { tag in
            let isDefault = tag == base
            return LanguageTabsView.Tab(
                tag: tag, label: isDefault ? "\(title(tag)) · default" : title(tag), href: link(isDefault ? nil : tag),
                current: (current ?? base) == tag)
        }
        return LanguageTabsView(hasTabs: true, tabs: tabs)
    }

    /// The values of the language a page edits: its tag, its name and the default language's.
    static func tab(_ draft: TourDraft, _ language: String?) -> LanguageTabView {
        let base = draft.defaultLanguage ?? ""
        guard let language else {
            return LanguageTabView(
                isDefault: true, tag: base, name: name(base), defaultName: name(base), defaultTag: base)
        }
        return LanguageTabView(
            isDefault: false, tag: language, name: name(language), title: title(language), defaultName: name(base),
            defaultTag: base)
    }

    /// The tag of the language whose English or own name is `text` (`Spanish`, `español` → `es`), or nil.
    static func tag(named text: String) -> String? {
        let wanted = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard wanted.count >= 3 else { return nil }
        return Locale.LanguageCode.isoLanguageCodes.map(\.identifier).first { code in
            LanguageTag.englishName(code)?.lowercased() == wanted
                || LanguageTag.nativeName(code)?.lowercased() == wanted
        }
    }

    /// Common languages, offered as suggestions when a tag is typed (any well-formed tag is accepted).
    static let suggestions = [
        "en", "es", "es-419", "fr", "de", "it", "pt", "nl", "zh-Hans", "zh-Hant", "ja", "ko", "vi", "tl", "hi",
        "ar", "ru", "uk", "pl", "so", "hmn", "nv", "haw", "chr", "oj", "lkt",
    ]

    static func suggestionValues(_ draft: TourDraft) -> [EditorPage.Suggestion] {
        suggestions.filter { tag in !draft.languages.contains { $0.lowercased() == tag.lowercased() } }
            .map { EditorPage.Suggestion(tag: $0, title: title($0)) }
    }

    /// How complete each language but the default is, for meters: counts of texts, recordings and
    /// other files, the percentage, what a phone needs for it, and what is missing, stop by stop.
    static func meters(_ manifest: Manifest) -> [String: MeterView] {
        guard let base = manifest.defaultLanguage else { return [:] }
        var out: [String: MeterView] = [:]
        for c in manifest.completeness {
            var recordings = 0, others = 0
            for w in manifest.waypoints {
                let kinds = Set(w.assets.filter { $0.language == base }.map(\.kind))
                recordings += kinds.filter { $0 == .audio || $0 == .video }.count
                others += kinds.filter { $0 != .audio && $0 != .video }.count
            }
            let missingRecordings = c.missing.filter { $0.asset != nil && ["audio", "video"].contains($0.field) }.count
            let missingOthers = c.missing.filter { $0.asset != nil && Self.fileKinds.contains($0.field) }.count
            var parts = ["\(c.translatedTexts) of \(c.texts) texts"]
            if recordings > 0 { parts.append("\(recordings - missingRecordings) of \(recordings) recordings") }
            if others > 0 { parts.append("\(others - missingOthers) of \(others) other files") }
            out[c.language] = MeterView(
                tag: c.language, id: id(c.language), name: name(c.language), defaultName: name(base),
                summary: "\(name(c.language)): " + parts.joined(separator: ", "), percent: c.percent,
                complete: c.missing.isEmpty, bytes: PanelController.size(c.bytes), missingCount: c.missing.count,
                missing: missingLines(c.missing, manifest: manifest))
        }
        return out
    }

    static let fileKinds: Set<String> = ["text", "image", "other", "tiles"]

    /// What is missing, one line per stop (and one for the tour): `Stop 3, Mountain House: description,
    /// a recording (like narration.en.wav)`.
    static func missingLines(_ missing: [Fallback], manifest: Manifest) -> [String] {
        return Fallback.byStop(missing).map { group in
            let what = group.items.map { item -> String in
                let field = fieldWords[item.field] ?? item.field
                guard let asset = item.asset else { return field }
                let file = asset.split(separator: "/").last.map(String.init) ?? asset
                switch item.field {
                case "audio", "video": return "a recording (like \(file))"
                case "text", "image", "other", "tiles": return "a \(item.field) file (like \(file))"
                default: return "\(field) of \(file)"
                }
            }.joined(separator: ", ")
            guard let order = group.stop else { return "The tour: \(what)" }
            let name = manifest.waypoints.first { $0.order == order }?.name ?? ""
            return "Stop \(order)\(name.isEmpty ? "" : ", \(name)"): \(what)"
        }
    }

    /// The fields as a ranger calls them.
    static let fieldWords = [
        "name": "name", "park": "park or forest", "description": "description", "title": "title", "alt": "alt text",
        "transcript": "transcript", "captions": "captions",
    ]

    /// The choices of a file's language (on a stop's page and in its upload form): "All languages" and
    /// each declared language, `selected` the one given.
    static func choices(_ draft: TourDraft, selected: String?) -> [ChoiceView] {
        [ChoiceView(value: "", label: "All languages (a photo, a sound)", selected: selected == nil)]
            + draft.languages.map { ChoiceView(value: $0, label: title($0), selected: selected == $0) }
    }
}

extension DraftsController {
    func addLanguageRoutes(guarded: RouterGroup<AppRequestContext>, panel: RouterGroup<AppRequestContext>) {
        guarded.post("/drafts/:site/:tour/languages") { request, context in
            await draftRoute(request, context) { try await languageAction($0, $1, request: request) }
        }
        panel.get("/drafts/:site/:tour/translate/:language") { request, context in
            await draftRoute(request, context) {
                try await translatePage($0, $1, language: try context.parameters.require("language"), request: request)
            }
        }
        guarded.post("/drafts/:site/:tour/translate/:language") { request, context in
            await draftRoute(request, context) {
                try await saveTranslations(
                    $0, $1, language: try context.parameters.require("language"), request: request)
            }
        }
    }

    /// Add a language, remove one, make one the default, or say whether every language must be complete.
    /// A refusal (a malformed tag, a language still in use) is said beside the form, on the tour's page.
    func languageAction(_ visitor: Visitor, _ key: DraftStore.Key, request: Request) async throws -> Response {
        do {
            return try await changeLanguages(visitor, key, request: request)
        } catch let refusal as PanelError where refusal.status == .unprocessableContent {
            try? await sessions.flashProblem(id: visitor.session.id, refusal.message)
            return Self.redirect(key.path + "?refused=1#tour-languages")
        }
    }

    /// A change to the tour's languages the ranger asked for that cannot be made, and why.
    static func refusal(_ message: String) -> PanelError { PanelError(status: .unprocessableContent, message: message) }

    func changeLanguages(_ visitor: Visitor, _ key: DraftStore.Key, request: Request) async throws -> Response {
        let form = try await PanelForm.read(request)
        let typed = form.text("tag")
        let words: String
        // What the draft holds now (a save from another revision is refused by the update anyway).
        let before = try await drafts.load(key).draft
        switch form.text("action") {
        case "add":
            // A language's name typed for its tag ("Spanish", or "french", which is well-formed but no language).
            if let named = PanelLanguage.tag(named: typed),
                TourDraft.languageTag(typed).map({ LanguageTag.englishName($0) == nil }) ?? true
            {
                throw Self.refusal(
                    "'\(typed)' is the language's name; type its short code (its tag) instead: \(named) for "
                        + "\(PanelLanguage.title(named))")
            }
            guard let tag = TourDraft.languageTag(typed) else {
                throw Self.refusal(
                    typed.isEmpty
                        ? "type the language's short code (its tag): en for English, es for Spanish, fr for French"
                        : "'\(typed)' is not a language tag: write the language's short code, such as es for Spanish, "
                            + "fr for French, es-419 for Spanish as spoken in Latin America or zh-Hant for Chinese "
                            + "in traditional characters")
            }
            let first = before.languages.isEmpty
            // A language removed before comes back with the texts it had (where none was written since).
            let kept = first ? nil : drafts.keptTexts(key, tag: tag)
            let restoredCount = Mutex(0)
            try await drafts.update(key, revision: form.text("revision"), by: visitor.saver) {
                draft throws(PanelError) in
                if let same = draft.languages.first(where: { $0.lowercased() == tag.lowercased() }) {
                    throw Self.refusal("\(PanelLanguage.title(same)) is one of the tour's languages already")
                }
                guard draft.languages.count < 32 else {
                    throw Self.refusal("a tour has at most 32 languages; remove one first")
                }
                draft.languages.append(tag)
                if let kept { restoredCount.withLock { $0 = draft.restore(kept.texts, in: tag) } }
            }
            if let kept { try? drafts.forgetKept(tag: kept.tag, key: key) }
            let restored = restoredCount.withLock { $0 }
            words =
                first
                ? "\(PanelLanguage.label(tag)) is the tour's default language: the texts written so far are in it. "
                    + "Add the languages to translate into."
                : restored > 0
                    ? "\(PanelLanguage.label(tag)) was added again, with the \(restored) translated "
                        + "text\(restored == 1 ? "" : "s") it had. 'Translate into \(PanelLanguage.name(tag))' "
                        + "shows what is still missing."
                    : "\(PanelLanguage.label(tag)) was added. Translate the texts with 'Translate into "
                        + "\(PanelLanguage.name(tag))', and add its recordings on each stop's page."
        case "remove":
            // Refused before asking: the language is the default, or has files.
            _ = try Self.removable(typed, in: before)
            let removed = before.keptTexts(in: typed).count
            if let ask = try confirmation(
                visitor, form: form, action: key.path + "/languages",
                question: "Remove \(PanelLanguage.title(typed)) from \(before.name)?",
                detail: removed == 0
                    ? "Nothing is written in \(PanelLanguage.name(typed)) yet."
                    : "Its \(removed) translated text\(removed == 1 ? " is" : "s are") kept: add "
                        + "\(PanelLanguage.name(typed)) again and \(removed == 1 ? "it comes" : "they come") back "
                        + "(until a version without \(PanelLanguage.name(typed)) is released).",
                confirmLabel: "Remove \(PanelLanguage.name(typed))", back: key.path + "#tour-languages",
                backLabel: "Keep \(PanelLanguage.name(typed))")
            {
                return ask
            }
            let store = drafts
            try await drafts.update(key, revision: form.text("revision"), by: visitor.saver) {
                draft throws(PanelError) in
                let tag = try Self.removable(typed, in: draft)
                // Its texts are kept beside the draft first: removing a language destroys no work.
                try store.keep(draft.keptTexts(in: tag), tag: tag, key: key)
                draft.removeLanguage(tag)
            }
            words =
                "\(PanelLanguage.title(typed)) was removed"
                + (removed > 0
                    ? ". Its \(removed) translated text\(removed == 1 ? " is" : "s are") kept: add "
                        + "\(PanelLanguage.name(typed)) again and \(removed == 1 ? "it comes" : "they come") back."
                    : ".")
        case "default":
            let old = before.defaultLanguage ?? ""
            try await drafts.update(key, revision: form.text("revision"), by: visitor.saver) {
                draft throws(PanelError) in
                guard draft.languages.contains(typed) else { throw .notFound }
                draft.makeDefault(typed)
            }
            words =
                "\(PanelLanguage.title(typed)) is now the default language: its texts are the ones visitors fall "
                + "back to. The \(PanelLanguage.name(old)) texts are kept as translations; a text without a "
                + "\(PanelLanguage.name(typed)) version is now empty — the list at the top says which."
        case "require":
            let required = form["requireAll"] != nil
            try await drafts.update(key, revision: form.text("revision"), by: visitor.saver) {
                draft throws(PanelError) in
                draft.requireAllLanguages = required
            }
            words =
                required
                ? "Every language must now be complete: a missing translation stops the build."
                : "A missing translation is now only a warning: visitors get the default language's text instead."
        default:
            throw PanelError(status: .notFound, message: "there is no such change to the tour's languages")
        }
        return await redirect(visitor, to: key.path, saying: words, fragment: "#tour-languages")
    }

    /// The declared language `typed`, when it may be removed: not the default of a tour with others,
    /// and without files of its own.
    static func removable(_ typed: String, in draft: TourDraft) throws(PanelError) -> String {
        guard let tag = draft.languages.first(where: { $0 == typed }) else { throw .notFound }
        if tag == draft.defaultLanguage, draft.languages.count > 1 {
            throw Self.refusal(
                "\(PanelLanguage.name(tag)) is the default language: make another language the default "
                    + "first, then remove \(PanelLanguage.name(tag))")
        }
        let files = draft.files(in: tag)
        if !files.isEmpty {
            let list = files.prefix(6).map { "\($0.file) (stop \($0.stop + 1))" }.joined(separator: ", ")
            throw Self.refusal(
                "\(PanelLanguage.name(tag)) still has files: \(list)\(files.count > 6 ? ", …" : ""). "
                    + "Remove them, or give them another language on their stop's page, first")
        }
        return tag
    }

    // MARK: the side-by-side page

    func translateLanguage(_ draft: TourDraft, _ asked: String) throws -> String {
        guard let tag = PanelLanguage.chosen(asked, in: draft) else {
            throw PanelError(
                status: .notFound,
                message: draft.languages.count < 2
                    ? "the tour has no language to translate into yet: add one under 'Languages' on the tour's page"
                    : "'\(asked)' is not one of the tour's languages to translate into")
        }
        return tag
    }

    /// The default language on the left (read-only), `language` on the right: the tour's texts and
    /// each stop's, with the files of each language.
    func translatePage(
        _ visitor: Visitor, _ key: DraftStore.Key, language asked: String, request: Request
    ) async throws -> Response {
        let snapshot = try await drafts.load(key), draft = snapshot.draft
        let tag = try translateLanguage(draft, asked)
        let base = draft.defaultLanguage ?? ""
        func row<T: DraftTexts>(_ holder: T, _ field: T.Field, id: String, label: String) -> TranslatePage.Row? {
            let source = holder.text(field, in: base, defaultLanguage: base)
            let target = holder.text(field, in: tag, defaultLanguage: base)
            guard source != nil || target != nil else { return nil }
            let long = ["description", "transcript"].contains(field.rawValue)
            return TranslatePage.Row(
                id: id, label: label, source: source ?? "", hasSource: source != nil, value: target ?? "", long: long,
                rows: field.rawValue == "description" ? 6 : 4, missing: source != nil && target == nil)
        }
        let manifest = try await countingManifest(key, draft)
        let meter = PanelLanguage.meters(manifest)[tag]
        let missing = manifest.completeness.first { $0.language == tag }?.missing ?? []
        let tour = [
            row(draft, .name, id: "tour-name", label: "Tour name"),
            row(draft, .park, id: "tour-park", label: "Park or forest"),
            row(draft, .description, id: "tour-description", label: "Description"),
        ].compactMap { $0 }
        let stops: [TranslatePage.Stop] = draft.stops.enumerated().map { index, stop in
            let n = index + 1
            var rows = [
                row(stop, .name, id: "stop-\(n)-name", label: "Name"),
                row(stop, .description, id: "stop-\(n)-description", label: "Description"),
            ].compactMap { $0 }
            var inLanguage: [String] = []
            for (m, asset) in stop.assets.enumerated() {
                guard let language = draft.language(of: asset) else {
                    for field in [AssetTextField.title, .alt, .transcript] {
                        let words = PanelLanguage.fieldWords[field.rawValue] ?? field.rawValue
                        let label = words.prefix(1).uppercased() + words.dropFirst() + " of \(asset.file)"
                        if let r = row(asset, field, id: "stop-\(n)-file-\(m + 1)-\(field.rawValue)", label: label) {
                            rows.append(r)
                        }
                    }
                    continue
                }
                if language == tag { inLanguage.append(asset.file) }
            }
            let gaps = missing.filter {
                $0.stop == n && $0.asset != nil
                    && !["title", "alt", "transcript", "captions"]
                        .contains($0.field)
            }
            .map { item -> String in
                let file = item.asset.map { String($0.split(separator: "/").last ?? "") } ?? ""
                let what = ["audio", "video"].contains(item.field) ? "recording" : "\(item.field) file"
                return "No \(what) in \(PanelLanguage.name(tag)) yet (\(PanelLanguage.name(base)) has \(file)): "
                    + "upload one on the stop's page and choose \(PanelLanguage.name(tag)) as its language."
            }
            return TranslatePage.Stop(
                number: n, name: stop.name.isEmpty ? "(no name)" : stop.name, rows: rows,
                files: inLanguage.joined(separator: ", "), hasFiles: !inLanguage.isEmpty, gaps: gaps,
                link: "\(key.path)/stops/\(n)?lang=\(PanelLanguage.id(tag))")
        }
        let others = draft.languages.dropFirst().filter { $0 != tag }.map {
            TranslatePage.Other(
                title: PanelLanguage.title($0), link: "\(key.path)/translate/\(PanelLanguage.id($0))")
        }
        let body = TranslatePage(
            draft: DraftLinkView(name: draft.name, path: key.path), revision: snapshot.revision,
            tab: PanelLanguage.tab(draft, tag), tour: tour, stops: stops,
            action: "\(key.path)/translate/\(PanelLanguage.id(tag))", others: others, hasOthers: !others.isEmpty,
            meter: meter, notice: await notice(visitor, request))
        return try page(
            body, title: "Translate \(draft.name.isEmpty ? "the tour" : draft.name) into \(PanelLanguage.name(tag))",
            visitor: visitor)
    }

    func saveTranslations(
        _ visitor: Visitor, _ key: DraftStore.Key, language asked: String, request: Request
    ) async throws -> Response {
        let form = try await PanelForm.read(request)
        let tag = try translateLanguage(try await drafts.load(key).draft, asked)
        try await drafts.update(key, revision: form.text("revision"), by: visitor.saver) { draft throws(PanelError) in
            let base = draft.defaultLanguage
            func take<T: DraftTexts>(_ holder: inout T, _ field: T.Field, _ name: String) {
                guard form[name] != nil else { return }
                holder.setText(field, in: tag, defaultLanguage: base, to: form.text(name))
            }
            take(&draft, .name, "tour-name")
            take(&draft, .park, "tour-park")
            take(&draft, .description, "tour-description")
            for s in draft.stops.indices {
                take(&draft.stops[s], .name, "stop-\(s + 1)-name")
                take(&draft.stops[s], .description, "stop-\(s + 1)-description")
                for a in draft.stops[s].assets.indices where draft.language(of: draft.stops[s].assets[a]) == nil {
                    for field in [AssetTextField.title, .alt, .transcript] {
                        take(&draft.stops[s].assets[a], field, "stop-\(s + 1)-file-\(a + 1)-\(field.rawValue)")
                    }
                }
            }
        }
        return await redirect(
            visitor, to: "\(key.path)/translate/\(PanelLanguage.id(tag))",
            saying: "The \(PanelLanguage.name(tag)) texts were saved.")
    }

    /// The manifest the draft would make, for counting what each language has (sizes read from the
    /// stops' folders, links not followed).
    func countingManifest(_ key: DraftStore.Key, _ draft: TourDraft) async throws -> Manifest {
        guard !draft.languages.isEmpty else { return draft.manifestForCounting() }
        let store = drafts
        return try await blocking {
            func size(_ path: String) -> Int64 {
                var info = stat()
                return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? Int64(info.st_size) : 0
            }
            var manifest = draft.manifestForCounting { index, asset in
                size(store.stopFolder(key, draft: draft, index: index) + "/" + asset.file)
            }
            // The offline map is every language's: it counts in what a phone needs for each.
            let map = store.folder(key) + "/map"
            let names = (FileManager.default.enumerator(atPath: map)?.allObjects as? [String] ?? []).sorted()
            manifest.mapAssets = names.filter { !$0.split(separator: "/").contains { $0.hasPrefix(".") } }.map {
                Asset(
                    path: "map/" + $0, kind: .tiles, mediaType: "application/octet-stream", size: size(map + "/" + $0),
                    sha256: String(repeating: "0", count: 64))
            }
            return manifest
        }
    }
}
