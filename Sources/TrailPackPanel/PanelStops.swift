import Foundation
import HTTPTypes
import Hummingbird
import MultipartKit
import NIOCore
import Synchronization
import SystemPackage
import TrailPackArchiveWriter
import TrailPackBlocking
import TrailPackBuilder
import TrailPackCore
import TrailPackFileIO
import TrailPackServer

/// One stop's page (name, position, text, details, files with their accessibility texts), its saves,
/// moves and file uploads; and the draft as a folder zip.
extension DraftsController {
    func stopPage(_ visitor: Visitor, _ key: DraftStore.Key, index: Int, request: Request) async throws -> Response {
        let snapshot = try await drafts.load(key), draft = snapshot.draft, revision = snapshot.revision
        guard draft.stops.indices.contains(index) else {
            throw PanelError(status: .notFound, message: "the tour has no stop \(index + 1)")
        }
        let stop = draft.stops[index]
        let kept = plans.folder(key, revision: revision)
        let all = try await findings(key, draft: draft, kept: kept).filter { $0.stop == index }
        let folder = try? drafts.openStopFolder(key, draft: draft, index: index)
        let captionFiles = stop.assets.map(\.file).filter { $0.lowercased().hasSuffix(".vtt") }
        // Which language's texts the page edits (`?lang=`; nil: the default language's, and everything else).
        let language = PanelLanguage.chosen(request.uri.queryParameters.get("lang"), in: draft)
        let base = draft.defaultLanguage
        let files: [StopPage.File] = stop.assets.enumerated().map { n, asset in
            let kind = MediaTypes.lookup(fileName: asset.file)?.kind
            // Through the stop folder's descriptor: a link is not a file here either.
            var size: Int64 = -1
            if case .file(let bytes)? = try? folder?.kind(asset.file) { size = bytes }
            let fileLanguage = draft.language(of: asset)
            // On another language's tab, a file every language shares shows its texts in that language.
            let shown = fileLanguage == nil ? language : nil
            func text(_ field: AssetTextField) -> String {
                asset.text(field, in: shown, defaultLanguage: base) ?? ""
            }
            return StopPage.File(
                n: n + 1, file: asset.file,
                url: "\(key.path)/stops/\(index + 1)/files/\(Self.pathSegment(asset.file))",
                isImage: kind == .image, isAudio: kind == .audio, isVideo: kind == .video,
                title: text(.title), alt: text(.alt), transcript: text(.transcript),
                sourceTitle: asset.title ?? "", sourceAlt: asset.alt ?? "", sourceTranscript: asset.transcript ?? "",
                size: size < 0 ? "missing" : Self.size(size),
                captionChoices: captionFiles.map {
                    StopPage.Caption(file: $0, selected: $0 == asset.text(.captions, in: shown, defaultLanguage: base))
                },
                hasCaptionChoices: !captionFiles.isEmpty,
                notes: all.filter { $0.field == "file-\(n + 1)" }.map {
                    FieldNoteView(message: $0.message, mustFix: $0.mustFix)
                },
                shared: fileLanguage == nil, inTab: language != nil && fileLanguage == language,
                elsewhere: language != nil && fileLanguage != nil && fileLanguage != language,
                fileLanguage: fileLanguage ?? "", languageName: fileLanguage.map(PanelLanguage.title) ?? "",
                inOtherLanguage: fileLanguage != nil && fileLanguage != base,
                languageFromName: draft.languageFromName(asset),
                languageChoices: PanelLanguage.choices(draft, selected: fileLanguage))
        }
        // Each detail under the name the ranger gave it ("Elevation (ft)"), the key the apps read beside it;
        // two empty rows for new details.
        let details: [(key: String, value: String, derived: String?)] =
            stop.properties.map {
                let label = stop.propertyLabels[$0.key]
                return (label ?? $0.key, PropertyValue.text($0.value), label == nil ? nil : $0.key)
            } + Array(repeating: ("", "", nil), count: 2)
        let properties = details.enumerated().map { n, row in
            StopPage.Property(key: row.key, value: row.value, derived: row.derived, n: n + 1)
        }
        let tabFiles = language == nil ? files : files.filter { $0.shared || $0.inTab }
        // Of the files in other languages, those the tab's visitors still get: the default language's, kind
        // by kind, while the stop has none of that kind in theirs.
        var fallbacks: Set<String> = []
        if let language {
            let localized = draft.manifestForCounting().localized(for: language)
            if localized.stops.indices.contains(index) {
                fallbacks = Set(
                    localized.stops[index].assets.map { String($0.asset.path.split(separator: "/").last ?? "") })
            }
        }
        let elsewhere = files.filter(\.elsewhere)
        let otherFiles = elsewhere.filter { !fallbacks.contains($0.file) }.map { "\($0.file) (\($0.languageName))" }
        let fallbackFiles = elsewhere.map(\.file).filter { fallbacks.contains($0) }
        let path = "\(key.path)/stops/\(index + 1)"
        let findings = Self.findingsSection(all, path: key.path, heading: "What to fix on this stop")
        var body = StopPage(
            draft: DraftLinkView(name: draft.name, path: key.path), revision: revision,
            stopRevision: drafts.stopRevision(key, draft: draft, index: index),
            stop: StopPage.Stop(
                number: index + 1, name: stop.name, description: stop.description,
                waiver: stop.accessibilityWaiver ?? "",
                latitude: stop.coordinate.map { Self.degrees($0.latitude) } ?? "",
                longitude: stop.coordinate.map { Self.degrees($0.longitude) } ?? "", action: path,
                tabName: stop.text(.name, in: language, defaultLanguage: base) ?? "",
                tabDescription: stop.text(.description, in: language, defaultLanguage: base) ?? ""),
            properties: properties, files: tabFiles, hasFiles: !tabFiles.isEmpty,
            otherFiles: otherFiles.joined(separator: ", "), hasOtherFiles: !otherFiles.isEmpty,
            fallbackFiles: fallbackFiles.joined(separator: ", "), hasFallbackFiles: !fallbackFiles.isEmpty,
            fields: Self.byField(all), maxUpload: Self.size(configuration.maxMediaBytes),
            notice: await notice(visitor, request), onDefaultTab: language == nil,
            tab: PanelLanguage.tab(draft, language), hasLanguages: !draft.languages.isEmpty,
            uploadLanguages: PanelLanguage.choices(draft, selected: language),
            tabs: PanelLanguage.tabs(draft, current: language) { tag in
                path + (tag.map { "?lang=\(PanelLanguage.id($0))" } ?? "") + "#stop-languages"
            },
            findingsSection: findings)
        body.stop.rangerNote = stop.rangerNote ?? ""
        let store = drafts, slug = stop.slug
        let removed = try await blocking { store.removedFiles(key, stop: slug) }
        body.removedFiles = removed.enumerated().map { n, file in
            StopPage.RemovedFile(n: n + 1, removed: file.note, file: file.file, ago: Self.ago(file.removed))
        }
        body.hasRemovedFiles = !removed.isEmpty
        return try page(body, title: "Stop \(index + 1): \(stop.name)", visitor: visitor)
    }

    /// A change to stop `index`: held to the stop's own revision when the page sent one (other
    /// stops and the tour's details may have changed meanwhile), else to the whole draft's.
    @discardableResult
    func changeStop(
        _ key: DraftStore.Key, _ visitor: Visitor, index: Int, form: PanelForm,
        _ change: @escaping @Sendable (inout TourDraft) throws(PanelError) -> Void
    ) async throws -> (snapshot: DraftStore.Snapshot, stopRevision: String?) {
        let stopRevision = form.text("stopRevision")
        if !stopRevision.isEmpty {
            let saved = try await drafts.updateStop(
                key, index: index, stopRevision: stopRevision, by: visitor.saver, change)
            return (saved.snapshot, saved.stopRevision)
        }
        return (try await drafts.update(key, revision: form.text("revision"), by: visitor.saver, change), nil)
    }

    /// The answer to an autosave: saved, and the revisions the page's next save must name.
    static func savedAnswer(_ saved: (snapshot: DraftStore.Snapshot, stopRevision: String?)) -> Response {
        var extra = [JSONMember("revision", .string(saved.snapshot.revision))]
        if let stopRevision = saved.stopRevision { extra.append(JSONMember("stopRevision", .string(stopRevision))) }
        return jsonMessage(.ok, "Saved", extra: extra)
    }

    func saveStop(_ visitor: Visitor, _ key: DraftStore.Key, index: Int, request: Request) async throws -> Response {
        try await saveStop(
            visitor, key, index: index, form: try await PanelForm.read(request), json: Self.wantsJSON(request))
    }

    /// Saves the stop's form (its page's, or the one sent with files without JavaScript).
    func saveStop(
        _ visitor: Visitor, _ key: DraftStore.Key, index: Int, form: PanelForm, json: Bool
    ) async throws
        -> Response
    {
        // Another language's tab: only its texts are in the form.
        if let language = PanelLanguage.chosen(form["language"], in: try await drafts.load(key).draft) {
            let saved = try await changeStop(key, visitor, index: index, form: form) { draft throws(PanelError) in
                guard draft.stops.indices.contains(index) else { throw .notFound }
                try Self.takeTexts(form, in: language, of: &draft, stop: index)
            }
            if json { return Self.savedAnswer(saved) }
            return await redirect(
                visitor, to: "\(key.path)/stops/\(index + 1)?lang=\(PanelLanguage.id(language))",
                saying: "The \(PanelLanguage.name(language)) texts were saved.")
        }
        let coordinate = try Self.coordinate(form)
        let keys = form.all("propertyKey"), values = form.all("propertyValue")
        var properties: [JSONMember] = []
        var labels: [String: String] = [:]
        for (k, v) in zip(keys, values) {
            let k = k.trimmingCharacters(in: .whitespaces), v = v.trimmingCharacters(in: .whitespaces)
            guard !k.isEmpty else {
                if !v.isEmpty {
                    throw PanelError(
                        message:
                            "The detail '\(v)' has no name: write one beside it (such as Elevation (ft)), or clear the value."
                    )
                }
                continue
            }
            // A name as the ranger writes it ("Elevation (ft)") becomes a key the apps read ("elevationFt"),
            // the same way a spreadsheet's column header does.
            let key = ManifestValidator.isPropertyName(k) ? k : CSVImport.propertyName(k)
            guard ManifestValidator.isPropertyName(key) else {
                throw PanelError(
                    message:
                        "The detail '\(k)' needs a name with at least one letter or digit, such as Elevation (ft).")
            }
            if properties.contains(where: { $0.key == key }) {
                throw PanelError(message: "The detail '\(k)' is given twice; keep one row for it.")
            }
            properties.append(JSONMember(key, PropertyValue.json(v)))
            if key != k { labels[key] = k }
        }
        let details = properties, detailLabels = labels
        let saved = try await changeStop(key, visitor, index: index, form: form) { draft throws(PanelError) in
            guard draft.stops.indices.contains(index) else { throw .notFound }
            var stop = draft.stops[index]
            stop.name = form.text("name")
            stop.description = form.text("description")
            stop.coordinate = coordinate
            stop.properties = details
            stop.propertyLabels = detailLabels
            let waiver = form.text("waiver")
            stop.accessibilityWaiver = waiver.isEmpty ? nil : waiver
            // Only a form that shows the note changes it (an older page's form leaves it).
            if form["rangerNote"] != nil {
                let note = form.text("rangerNote")
                stop.rangerNote = note.isEmpty ? nil : String(note.prefix(10_000))
            }
            for n in stop.assets.indices {
                func field(_ name: String) -> String? {
                    let v = form.text("\(name)-\(n + 1)"); return v.isEmpty ? nil : v
                }
                stop.assets[n].title = field("title")
                stop.assets[n].alt = field("alt")
                stop.assets[n].transcript = field("transcript")
                // Only one of the stop's own files (the page offers its .vtt files).
                let captions = field("captions")
                if let captions, !stop.assets.contains(where: { $0.file == captions }) {
                    throw Self.notCaptions(captions, stop: index)
                }
                stop.assets[n].captions = captions
                if let choice = form["language-\(n + 1)"] {
                    try Self.setLanguage(choice, of: &stop.assets[n], in: draft)
                }
            }
            draft.stops[index] = stop
        }
        if json { return Self.savedAnswer(saved) }
        return Self.redirect("\(key.path)/stops/\(index + 1)?saved=1")
    }

    static func notCaptions(_ captions: String, stop index: Int) -> PanelError {
        PanelError(
            status: .unprocessableContent,
            message:
                "the captions '\(TerminalText.escaped(captions))' are not a file of stop \(index + 1): upload the .vtt "
                + "file to the stop first, then choose it")
    }

    /// The texts of another language's tab: the stop's name and description in `language`, the texts
    /// of the files every language shares in `language`, and the own texts of the files in `language`.
    static func takeTexts(
        _ form: PanelForm, in language: String, of draft: inout TourDraft, stop index: Int
    ) throws(PanelError) {
        let base = draft.defaultLanguage
        var stop = draft.stops[index]
        for (field, name) in [(StopTextField.name, "name"), (.description, "description")] where form[name] != nil {
            stop.setText(field, in: language, defaultLanguage: base, to: form.text(name))
        }
        for n in stop.assets.indices {
            let fileLanguage = draft.language(of: stop.assets[n])
            guard fileLanguage == nil || fileLanguage == language else { continue }
            // A file in `language` has its own texts, in it: its plain fields.
            let shown = fileLanguage == nil ? language : nil
            for field in [AssetTextField.title, .alt, .transcript, .captions] {
                guard form["\(field.rawValue)-\(n + 1)"] != nil else { continue }
                let value = form.text("\(field.rawValue)-\(n + 1)")
                if field == .captions, !value.isEmpty, !stop.assets.contains(where: { $0.file == value }) {
                    throw notCaptions(value, stop: index)
                }
                stop.assets[n].setText(field, in: shown, defaultLanguage: base, to: value)
            }
        }
        draft.stops[index] = stop
    }

    /// A file's language as chosen on the page ("": every language). A file every language shared that
    /// becomes one language's keeps that language's texts as its own.
    static func setLanguage(
        _ choice: String, of asset: inout TourDraft.AssetReference, in draft: TourDraft
    ) throws(PanelError) {
        let chosen = draft.languages.first { $0.lowercased() == choice.lowercased() }
        guard choice.isEmpty || chosen != nil else {
            throw PanelError(
                status: .unprocessableContent,
                message:
                    "'\(TerminalText.escaped(choice))' is not one of the tour's languages; "
                    + "add it on the tour's page first"
            )
        }
        guard chosen != asset.language else { return }
        if let chosen, draft.language(of: asset) == nil {
            for field in AssetTextField.allCases {
                if let text = asset.translations[chosen, field] { asset.setPlainText(field, text) }
            }
            asset.translations = Translations()
        }
        asset.language = chosen
    }

    /// Up, down, remove, move (a dragged marker), remove-file, bring-back-file, rename-file.
    func stopAction(
        _ visitor: Visitor, _ key: DraftStore.Key, index: Int, action: String, request: Request
    ) async throws -> Response {
        let form = try await PanelForm.read(request)
        let revision = form.text("revision")
        switch action {
        case "up", "down":
            let draft = try await drafts.update(key, revision: revision, by: visitor.saver) {
                draft throws(PanelError) in
                let other = action == "up" ? index - 1 : index + 1
                guard draft.stops.indices.contains(index), draft.stops.indices.contains(other) else { return }
                draft.stops.swapAt(index, other)
            }.draft
            let moved = min(max(action == "up" ? index : index + 2, 1), draft.stops.count)
            // Back to the list with the moved stop's button focused (keyboard users keep their place).
            // No #fragment: scrolling to one would take the focus away again; focusing the button scrolls to it.
            return Self.redirect("\(key.path)?saved=1&focus=\(action)-\(moved)")
        case "remove":
            let before = try await drafts.load(key).draft
            guard before.stops.indices.contains(index) else { throw PanelError.notFound }
            let named = before.stops[index].name.isEmpty ? "" : ", \(before.stops[index].name)"
            if let ask = try confirmation(
                visitor, form: form, action: "\(key.path)/stops/\(index + 1)/remove",
                question: "Remove stop \(index + 1)\(named)?",
                detail: "The stop, its texts and its files leave the tour. Its folder is kept aside on the "
                    + "server, never deleted: \"Bring back\" under \"Removed stops\" on the tour's page puts it back.",
                confirmLabel: "Remove stop \(index + 1)", back: "\(key.path)/stops/\(index + 1)",
                backLabel: "Keep the stop")
            {
                return ask
            }
            try await drafts.update(key, revision: revision, by: visitor.saver) { draft throws(PanelError) in
                guard draft.stops.indices.contains(index) else { throw .notFound }
                draft.stops.remove(at: index)
            }
            return await redirect(
                visitor, to: key.path,
                saying: "Stop \(index + 1)\(named) removed. It is listed under \"Removed stops\": "
                    + "\"Bring back\" puts it back where it was.", fragment: "#removed-stops")
        case "move":
            let coordinate = try Self.coordinate(form)
            try await changeStop(key, visitor, index: index, form: form) { draft throws(PanelError) in
                guard draft.stops.indices.contains(index) else { throw .notFound }
                draft.stops[index].coordinate = coordinate
            }
            return Self.redirect("\(key.path)?saved=1")
        case "remove-file":
            let name = try Self.fileName(form.text("file"), stop: index)
            let draft = try await draftListing(key, index: index, file: name)
            if let ask = try confirmation(
                visitor, form: form, action: "\(key.path)/stops/\(index + 1)/remove-file",
                question: "Remove \(name.value) from stop \(index + 1)?",
                detail: "The file and its texts leave the stop. They are kept aside on the server, never "
                    + "deleted: \"Bring back\" under \"Removed files\" on the stop's page puts them back.",
                confirmLabel: "Remove \(name.value)", back: "\(key.path)/stops/\(index + 1)#stop-files",
                backLabel: "Keep the file")
            {
                return ask
            }
            let folder = try drafts.openStopFolder(key, draft: draft, index: index)
            // Its entry (with its texts) goes aside with it, for "Bring back".
            let entry = draft.stops[index].assets.first { $0.file == name.value }.map(draft.assetJSON)
            let slug = draft.stops[index].slug
            try await changeStop(key, visitor, index: index, form: form) { draft throws(PanelError) in
                guard draft.stops.indices.contains(index) else { throw .notFound }
                draft.stops[index].assets.removeAll { $0.file == name.value }
                for n in draft.stops[index].assets.indices where draft.stops[index].assets[n].captions == name.value {
                    draft.stops[index].assets[n].captions = nil
                }
            }
            // Only the stop folder's own entry moves (a link planted there moves as a link).
            if try Self.kind(folder, name) != nil {
                try await drafts.setAsideFile(key, from: folder, name: name, stop: slug, asset: entry)
            }
            return await redirect(
                visitor, to: "\(key.path)/stops/\(index + 1)",
                saying: "\(name.value) removed. It is listed under \"Removed files\": \"Bring back\" puts it back "
                    + "with its texts.", fragment: "#removed-files")
        case "bring-back-file":
            let file = try await drafts.bringBackFile(
                key, index: index, note: form.text("removed"), by: visitor.saver)
            return await redirect(
                visitor, to: "\(key.path)/stops/\(index + 1)", saying: "\(file) is back in stop \(index + 1).",
                fragment: "#stop-files")
        case "rename-file":
            let name = try Self.fileName(form.text("file"), stop: index)
            let draft = try await draftListing(key, index: index, file: name)
            let newName = try Self.safeFileName(form.text("newName"))
            if newName == name { return Self.redirect("\(key.path)/stops/\(index + 1)?saved=1") }
            // The content decided the type: the extension stays what it was.
            guard newName.fileExtension == name.fileExtension else {
                throw PanelError(
                    message: "'\(newName)' would change the file's type: keep the ending .\(name.fileExtension)")
            }
            let folder = try drafts.openStopFolder(key, draft: draft, index: index)
            guard case .file? = try Self.kind(folder, name) else {
                throw PanelError(
                    status: .unprocessableContent,
                    message:
                        "'\(name)' in stop \(index + 1) is missing or is not a plain file; remove it from the stop and upload the file again"
                )
            }
            guard !draft.stops[index].assets.contains(where: { $0.file == newName.value }),
                try Self.kind(folder, newName) == nil
            else {
                throw PanelError(
                    status: .conflict,
                    message:
                        "stop \(index + 1) already has a file '\(newName)': choose another name, or remove that file first"
                )
            }
            try await drafts.update(key, revision: revision, by: visitor.saver) { draft throws(PanelError) in
                guard draft.stops.indices.contains(index) else { throw .notFound }
                for n in draft.stops[index].assets.indices {
                    if draft.stops[index].assets[n].file == name.value {
                        draft.stops[index].assets[n].file = newName.value
                    }
                    if draft.stops[index].assets[n].captions == name.value {
                        draft.stops[index].assets[n].captions = newName.value
                    }
                }
                // Moved inside the save, so the listing and the file never disagree for long; by the
                // folder's descriptor, never replacing a file already there.
                do throws(FileIOError) {
                    try folder.move(name.value, to: folder, as: newName.value, replacing: false)
                } catch {
                    throw PanelError(
                        error, "cannot rename '\(name)': \(error.systemCall?.errno.description ?? error.message)")
                }
            }
            return await redirect(
                visitor, to: "\(key.path)/stops/\(index + 1)", saying: "'\(name)' is now '\(newName)'.")
        default:
            throw PanelError(status: .notFound, message: "there is no action '\(action)' on a stop")
        }
    }

    /// The draft, when its stop `index` lists `file`; otherwise 404 naming the stop and the file.
    func draftListing(_ key: DraftStore.Key, index: Int, file: StopFileName) async throws -> TourDraft {
        let draft = try await drafts.load(key).draft
        guard draft.stops.indices.contains(index), draft.stops[index].assets.contains(where: { $0.file == file.value })
        else {
            throw PanelError(status: .notFound, message: "stop \(index + 1) has no file '\(file)'")
        }
        return draft
    }

    /// A name a form field, a URL or an upload gave for a file of stop `index`, checked: one path
    /// component and nothing else (``StopFileName``), or 422 with the rule it breaks.
    static func fileName(_ raw: String, stop index: Int) throws(PanelError) -> StopFileName {
        do throws(StopFileName.Problem) { return try StopFileName(raw) } catch {
            throw PanelError(
                status: .unprocessableContent,
                message: "'\(TerminalText.escaped(raw))' is not a file name of stop \(index + 1): \(error)")
        }
    }

    /// What is at `name` in the stop's folder (links not followed).
    static func kind(_ folder: FolderHandle, _ name: StopFileName) throws(PanelError) -> FolderHandle.Kind? {
        do { return try folder.kind(name.value) } catch { throw PanelError(error) }
    }

    /// One file, its bytes streamed to disk as they arrive (never held in memory), checked by its content,
    /// then put in the stop's folder and listed in its waypoint.json. The page's script sends each file
    /// this way (`PUT …/files?name=`), with a progress bar.
    func upload(_ visitor: Visitor, _ key: DraftStore.Key, index: Int, request: Request) async throws -> Response {
        let name = try Self.safeFileName(request.uri.queryParameters.get("name") ?? "")
        let room = try await quotaRoom(site: key.site)
        let limit = min(configuration.maxMediaBytes, room)
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > limit {
            if length > room { throw Self.overQuota("'\(name)'", unpacked: length, room: room, site: key.site) }
            throw Self.tooLarge(name.value, size: length, limit: limit)
        }
        let replace = request.uri.queryParameters.get("replace") == "1"
        // A file of the same name is not replaced unasked: said before a byte is sent.
        if !replace { try await refuseSameName(name, key, index: index) }
        let folder = try await stopFolder(key, index: index)
        let temp = folder + "/" + DraftStore.uploadPrefix + UUID().uuidString
        defer { unlink(temp) }  // gone already when it was kept
        do {
            let sink = try UploadSink(path: temp, limit: limit, pool: pool)
            for try await buffer in request.body { try await sink.write(buffer) }
            try await sink.finish()
        } catch let error as ServerError where error.status == .contentTooLarge {
            if limit == room { throw Self.overQuota("'\(name)'", unpacked: nil, room: room, site: key.site) }
            throw Self.tooLarge(name.value, size: nil, limit: limit)
        }
        let advice = try await keep(
            temp, as: name, visitor, key, index: index, language: request.uri.queryParameters.get("language"),
            replace: replace)
        return Self.jsonMessage(
            .created, advice ?? "'\(name)' was added to stop \(index + 1)",
            extra: [JSONMember("file", .string(name.value))]
                + (advice.map { [JSONMember("advice", .string($0))] } ?? []))
    }

    /// The same without JavaScript: the stop page's form posts `multipart/form-data` (its CSRF token in
    /// the action's query, since the body is never read whole); multipart-kit's parser hands over each
    /// part's bytes as they arrive and they go straight to a temporary file. Each file is then kept or
    /// refused on its own, and the stop page says which.
    func uploadForm(_ visitor: Visitor, _ key: DraftStore.Key, index: Int, request: Request) async throws -> Response {
        guard let boundary = Self.multipartBoundary(request.headers[.contentType]) else {
            throw PanelError(
                status: .unsupportedMediaType,
                message:
                    "the upload form must be sent as multipart/form-data with a boundary; reload the page and choose the files again"
            )
        }
        let folder = try await stopFolder(key, index: index)
        // Each file is held to the smaller of the size limit and the site's room left. Without
        // JavaScript the stop's form sends its texts with the files (nothing typed is lost): room for them.
        let receiver = MultipartFiles(
            folder: folder, limit: configuration.maxMediaBytes, pool: pool, room: try await quotaRoom(site: key.site),
            maxParts: 1024, maxTextBytes: 256 << 10, maxTextTotal: PanelCSRFMiddleware<AppRequestContext>.maxFormBytes)
        defer { receiver.removeLeftovers() }  // ours: the temporary files of parts not kept
        try await Self.receive(request, boundary: boundary, into: receiver)
        var said: [String] = []
        if receiver.texts["stopRevision"] != nil {
            // The stop's own form: what was typed is saved first, as "Save the stop" would.
            let saved = try await saveStop(
                visitor, key, index: index, form: PanelForm(fields: receiver.fields), json: false)
            guard saved.status == .seeOther else { return saved }
            said.append("The stop was saved.")
        }
        guard !receiver.files.isEmpty else {
            if !said.isEmpty {
                return await redirect(
                    visitor, to: "\(key.path)/stops/\(index + 1)", saying: said.joined(separator: " "))
            }
            throw PanelError(message: "no file was chosen: choose one or more files, then press Upload")
        }
        for file in receiver.files {
            do {
                let advice = try await keep(
                    file.temp, as: file.name, visitor, key, index: index,
                    language: receiver.texts["uploadLanguage"] ?? receiver.texts["language"],
                    replace: (receiver.texts["uploadReplace"] ?? receiver.texts["replace"]) == "1")
                said.append(advice ?? "'\(file.name)' was added.")
            } catch let error as PanelError where error.status != .notFound {
                said.append("Not added: \(error.message)")
            }
        }
        return await redirect(visitor, to: "\(key.path)/stops/\(index + 1)", saying: said.joined(separator: " "))
    }

    /// The folder of stop `index` (404 if the draft has no such stop).
    func stopFolder(_ key: DraftStore.Key, index: Int) async throws -> String {
        let draft = try await drafts.load(key).draft
        guard draft.stops.indices.contains(index) else {
            throw PanelError(status: .notFound, message: "the tour has no stop \(index + 1)")
        }
        return drafts.stopFolder(key, draft: draft, index: index)
    }

    /// Checks a received file by its content and, if it may stay, moves it into the stop's folder
    /// (a file of the same name is set aside) and lists it; returns the advice to show, if any.
    /// `temp` is one of the upload's own files (``DraftStore/uploadPrefix``) in the stop's folder.
    ///
    /// `language` is the form's "Language of this file": a declared language, or empty (or nil) for a
    /// file every language shares; a file replaced keeps its language unless one is chosen.
    func keep(
        _ temp: String, as name: StopFileName, _ visitor: Visitor, _ key: DraftStore.Key, index: Int,
        language choice: String? = nil, replace: Bool = false
    ) async throws -> String? {
        if !replace { try await refuseSameName(name, key, index: index) }
        var advice: String?
        switch MediaCheck.verdict(path: temp, fileName: name.value) {
        case .refused(let why): throw PanelError(status: .unprocessableContent, message: why)
        case .acceptedWithAdvice(_, let text): advice = text
        case .accepted: break
        }
        let draft = try await drafts.load(key).draft
        guard draft.stops.indices.contains(index) else {
            throw PanelError(status: .notFound, message: "the tour has no stop \(index + 1)")
        }
        let choice = (choice ?? "").trimmingCharacters(in: .whitespaces)
        let language = draft.languages.first { $0.lowercased() == choice.lowercased() }
        guard choice.isEmpty || language != nil else {
            throw PanelError(
                status: .unprocessableContent,
                message:
                    "'\(name)' was not added: '\(TerminalText.escaped(choice))' is not one of the tour's languages; "
                    + "add the language on the tour's page first")
        }
        let folder = try drafts.openStopFolder(key, draft: draft, index: index)
        if try Self.kind(folder, name) != nil { try await drafts.setAside(key, from: folder, name: name) }
        do { try folder.move(FileOperations.fileName(of: temp), to: folder, as: name.value, replacing: false) } catch {
            throw PanelError(error, "cannot keep '\(name)': \(error.systemCall?.errno.description ?? error.message)")
        }
        try await drafts.update(key, revision: nil, by: visitor.saver) { draft throws(PanelError) in
            guard draft.stops.indices.contains(index) else { throw .notFound }
            if let n = draft.stops[index].assets.firstIndex(where: { $0.file == name.value }) {
                // A new file under the old name: the texts that described the old one go with it.
                draft.stops[index].assets[n].title = nil
                draft.stops[index].assets[n].alt = nil
                draft.stops[index].assets[n].transcript = nil
                draft.stops[index].assets[n].translations = .init()
                if let language, language != draft.stops[index].assets[n].language {
                    try Self.setLanguage(language, of: &draft.stops[index].assets[n], in: draft)
                }
            } else {
                draft.stops[index].assets.append(TourDraft.AssetReference(file: name.value, language: language))
            }
        }
        logger.info(
            "panel: file uploaded", metadata: ["by": "\(visitor.user.name)", "draft": "\(key.path)", "file": "\(name)"])
        return advice
    }

    /// Refuses a file whose name a file of the stop has, until the ranger says to replace it.
    func refuseSameName(_ name: StopFileName, _ key: DraftStore.Key, index: Int) async throws {
        let draft = try await drafts.load(key).draft
        guard draft.stops.indices.contains(index),
            draft.stops[index].assets.contains(where: { $0.file.lowercased() == name.value.lowercased() })
        else { return }
        throw PanelError(
            status: .conflict,
            message:
                "Stop \(index + 1) has a file called '\(name)' already. Replace it? Its title, alt text and transcript are cleared, since they describe the old file (the old file is kept aside on the server)."
        )
    }

    /// A stop's file, for the page's preview, opened through the stop folder's descriptor (a link is
    /// refused). Its type is read from its bytes, as for a package's assets: images, audio, video,
    /// WebVTT and plain text inline; anything else (HTML, SVG, unknown) as an attachment; every
    /// answer sandboxed by its Content-Security-Policy.
    func stopFile(
        _ visitor: Visitor, _ key: DraftStore.Key, index: Int, name raw: String, context: AppRequestContext
    ) async throws -> Response {
        let draft = try await drafts.load(key).draft
        guard draft.stops.indices.contains(index), let name = StopFileName.checked(raw),
            draft.stops[index].assets.contains(where: { $0.file == name.value })
        else {
            throw PanelError(status: .notFound, message: "stop \(index + 1) has no file '\(TerminalText.escaped(raw))'")
        }
        let drafts = drafts
        // Opened, and its first bytes read to tell its type, on the pool (a slow disk waits there).
        let (handle, size, path, head) = try await blocking {
            () throws -> (FileDescriptorBox, Int64, String, [UInt8]) in
            let folder = try drafts.openStopFolder(key, draft: draft, index: index)
            let file: RegularFile
            do throws(FileIOError) { file = try folder.openFile(name.value) } catch {
                if error.code == .notFound {
                    throw PanelError(
                        status: .notFound,
                        message: "stop \(index + 1) lists '\(name)' but the file is missing; upload it again")
                }
                throw PanelError(error, "cannot open '\(name)' of stop \(index + 1): \(error.message)")
            }
            let handle = FileDescriptorBox(file.descriptor.rawValue)
            let path = folder.path + "/" + name.value
            var head = [UInt8](repeating: 0, count: 4096)
            let got = try FileOperations.typed {
                try head.withUnsafeMutableBytes {
                    try file.descriptor.readFully(fromAbsoluteOffset: 0, into: $0, path: path)
                }
            }
            return (handle, file.status.size, path, Array(head.prefix(got)))
        }
        let served = ContentSniff.served(head)
        var headers: HTTPFields = [
            .contentType: served.contentType,
            .contentSecurityPolicy: ContentSniff.Served.contentSecurityPolicy,
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        ]
        if !served.inline {
            headers[.contentDisposition] =
                "\(ContentSniff.Served.attachment); filename=\"\(name.value.filter(\.isASCII))\""
        }
        let body = Self.streamed(handle, size: size, path: path, pool: pool)
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The bytes of the open file `handle` (from its start), in 256 KiB pieces each read on `pool`;
    /// closes it when done.
    static func streamed(_ handle: FileDescriptorBox, size: Int64, path: String, pool: BlockingPool) -> ResponseBody {
        ResponseBody(contentLength: Int(size)) { writer in
            defer { handle.close() }
            var offset: Int64 = 0
            while offset < size {
                let want = Int(min(Int64(256 << 10), size - offset))
                let at = offset
                let piece = try await pool.run { () throws -> ByteBuffer in
                    var buffer = ByteBufferAllocator().buffer(capacity: want)
                    let n = try FileOperations.typed {
                        try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) {
                            try FileDescriptor(rawValue: handle.fd).readFully(
                                fromAbsoluteOffset: at, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<want]),
                                path: path)
                        }
                    }
                    guard n > 0 else {
                        throw PanelError(code: .internal, message: "'\(path)' became shorter while it was sent")
                    }
                    return buffer
                }
                offset += Int64(piece.readableBytes)
                try await writer.write(piece)
            }
            try await writer.finish(nil)
        }
    }

    /// The draft as a zip of its tour folder (`<tour>/tour.json`, `<tour>/waypoints/...`), for the CLI:
    /// `unzip`, then `trailpack build <tour>`. Written to a temporary file and streamed from it.
    func folderZip(_ visitor: Visitor, _ key: DraftStore.Key) async throws -> Response {
        let root = drafts.folder(key)
        let temp = try dataFolder.temporaryFolder()
        let path = temp + "/folder.zip"
        let fd: Int32 = try await blocking {
            var files: [String] = [TourSource.tourFileName]
            for top in ["waypoints", "map"] {
                for folder in (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + top))?.sorted() ?? []
                where !folder.hasPrefix(".") {
                    let sub = "\(top)/\(folder)"
                    // lstat: a link in place of a stop's folder is not followed (nor zipped).
                    var info = stat()
                    guard lstat(root + "/" + sub, &info) == 0 else { continue }
                    if info.st_mode & S_IFMT != S_IFDIR { files.append(sub); continue }
                    for name in (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + sub))?.sorted() ?? []
                    where !name.hasPrefix(".") { files.append("\(sub)/\(name)") }
                }
            }
            let out = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard out >= 0 else {
                let error = FileIOError.system("open", .last, "cannot make the zip", path: path)
                throw PanelError(error, "cannot make the zip: \(Errno.last)")
            }
            do {
                var writer = try ZipWriter(
                    fileDescriptor: FileDescriptor(rawValue: out), path: path,
                    modificationTime: TourBuilder.defaultTimestamp)
                for file in files {
                    var info = stat()
                    // lstat: a link planted in the draft is left out, never followed.
                    guard lstat(root + "/" + file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                    try writer.addEntry(
                        path: "\(key.tour)/\(file)", contentsOf: root + "/" + file, size: Int64(info.st_size),
                        compress: MediaTypes.lookup(fileName: file)?.compress ?? true)
                }
                _ = try writer.finish()
            } catch {
                close(out)
                unlink(path)
                rmdir(temp)
                throw error
            }
            // Ours alone: unlinked now, read through the open descriptor.
            unlink(path)
            rmdir(temp)
            return out
        }
        let size = lseek(fd, 0, SEEK_END)
        let body = Self.streamed(FileDescriptorBox(fd), size: Int64(size), path: path, pool: pool)
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/zip", .contentDisposition: "attachment; filename=\"\(key.tour)-folder.zip\"",
            ], body: body)
    }
}

/// An open file descriptor handed to a response body, closed once.
final class FileDescriptorBox: Sendable {
    let fd: Int32
    private let closed = Mutex(false)
    init(_ fd: Int32) { self.fd = fd }
    func close() {
        guard
            closed.withLock({ closed in
                defer { closed = true }; return !closed
            })
        else { return }
        _ = Foundation.close(fd)
    }
    deinit { close() }
}

extension PanelRoom {
    /// A size for people, exact enough to tell two sizes apart: "1.2 MB", "512 KB", "2.0 GB".
    static func size(_ bytes: Int64) -> String {
        let units: [(Double, String)] = [(1_073_741_824, "GB"), (1_048_576, "MB"), (1024, "KB")]
        for (unit, name) in units where Double(bytes) >= unit {
            return String(format: "%.1f %@", Double(bytes) / unit, name)
        }
        return "\(bytes) bytes"
    }

    static func pathSegment(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? name
    }

    /// The boundary of a `multipart/form-data` content type (1 to 70 characters, as RFC 2046 allows), or nil.
    static func multipartBoundary(_ contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            var value = pair[1]
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            guard (1...70).contains(value.utf8.count), value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
                return nil
            }
            return value
        }
        return nil
    }

    /// Feeds the request body to multipart-kit's parser, each part's bytes to `receiver` as they arrive.
    static func receive(_ request: Request, boundary: String, into receiver: MultipartFiles) async throws {
        let parser = MultipartParsing(receiver: receiver, boundary: boundary)
        do {
            // The body is parsed (and its files written) on the pool, in batches of up to 1 MiB.
            var batch: [ByteBuffer] = []
            var batchBytes = 0
            for try await buffer in request.body {
                batch.append(buffer)
                batchBytes += buffer.readableBytes
                if batchBytes >= UploadSink.batchBytes {
                    try await parser.execute(batch)
                    (batch, batchBytes) = ([], 0)
                }
            }
            try await parser.execute(batch)
        } catch let error as PanelError {
            throw error
        } catch let error as BlockingPool.Busy {
            throw error  // the server's doing: 503 with Retry-After, not a garbled upload
        } catch let error as ServerError where error.status == .contentTooLarge {
            throw tooLarge(receiver.currentName ?? "the file", size: nil, limit: receiver.limit)
        } catch {
            throw PanelError(
                status: .badRequest,
                message: "the upload was cut off or garbled (\(error)); choose the files again and send them again")
        }
        guard receiver.ended else {
            throw PanelError(
                status: .badRequest,
                message:
                    "the upload ended before its last file was complete; choose the files again and send them again")
        }
    }

    /// A file name a ranger's computer gave, made safe for every phone and folder: its last path
    /// component, letters, digits, '.', '-' and '_' (others become '-'), a known extension.
    /// What is left must still be a ``StopFileName`` (`con.jpg` is not).
    static func safeFileName(_ given: String) throws(PanelError) -> StopFileName {
        let last = given.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var out = ""
        for ch in last.precomposedStringWithCanonicalMapping {
            if ch.isLetter || ch.isNumber || ch == "." || ch == "_" || ch == "-" {
                out.append(ch)
            } else if !out.hasSuffix("-") {
                out.append("-")
            }
        }
        while out.hasPrefix(".") || out.hasPrefix("-") { out.removeFirst() }
        let ext = PathText.fileExtension(out)
        out = String(PathText.droppingExtension(out).prefix(80)) + (ext.isEmpty ? "" : "." + ext.lowercased())
        guard !out.isEmpty, !ext.isEmpty, let name = StopFileName.checked(out) else {
            throw PanelError(
                message:
                    "the file name '\(TerminalText.escaped(given))' has no usable name or extension; rename it (such as view.jpg) and upload it again"
            )
        }
        return name
    }
}

extension PanelRoom {
    static func tooLarge(_ name: String, size: Int64?, limit: Int64) -> PanelError {
        let what = size.map { "is \(Self.size($0))" } ?? "is larger than \(Self.size(limit))"
        return PanelError(
            status: .contentTooLarge,
            message:
                "'\(name)' \(what); a file may be at most \(Self.size(limit)): make it smaller (a shorter or lower-resolution video, a photo exported for the web) and upload it again"
        )
    }
}

extension DraftsController {
    /// "Bring back" of a removed stop: its folder comes back from `drafts-removed/`, as the stop
    /// number it had.
    func bringBackStop(_ visitor: Visitor, _ key: DraftStore.Key, request: Request) async throws -> Response {
        let form = try await PanelForm.read(request)
        let (snapshot, index) = try await drafts.bringBackStop(key, aside: form.text("aside"), by: visitor.saver)
        let name = snapshot.draft.stops[index].name
        return await redirect(
            visitor, to: key.path, saying: "\(name.isEmpty ? "The stop" : name) is back, as stop \(index + 1).",
            fragment: "#stop-\(index + 1)")
    }
}
