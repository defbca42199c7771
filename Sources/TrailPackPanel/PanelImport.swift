import Foundation
import HTTPTypes
import Hummingbird
import TrailPackArchive
import TrailPackBlocking
import TrailPackBuilder
import TrailPackCore
import TrailPackFileIO
import TrailPackServer

/// "Start from a file": a GPX file from a GPS unit or a mapping program, a spreadsheet saved as CSV, or
/// a tour folder zipped (the panel's own "Download as a folder", or one made for the CLI) becomes a draft.
/// The file is streamed to the server's temporary folder and read with the same readers as the CLI.
extension ImportController {
    func importFile(_ visitor: Visitor, request: Request) async throws -> Response {
        let site = request.uri.queryParameters.get("site") ?? ""
        try checkImportSite(visitor, site)
        let given = request.uri.queryParameters.get("name") ?? ""
        let name = try Self.safeFileName(given)
        let temp = try dataFolder.temporaryFolder()
        let upload = temp + "/" + name.value
        defer { try? FileManager.default.removeItem(atPath: temp) }  // ours: made just above
        let sink = try UploadSink(path: upload, limit: configuration.maxMediaBytes, pool: pool)
        for try await buffer in request.body { try await sink.write(buffer) }
        try await sink.finish()
        do {
            let made = try await importUploaded(
                visitor, upload, given: given, site: site, replace: request.uri.queryParameters.get("replace") == "1",
                again: request.uri.queryParameters.get("again") == "1")
            // The page the script opens next says the same (what was changed, which files to add).
            let message = made.message(given: given)
            try? await sessions.flash(id: visitor.session.id, message)
            return Self.jsonMessage(
                .created, message, extra: [JSONMember("location", .string(made.key.path + "?saved=1"))])
        } catch let next as ChooseColumns {
            return Self.jsonMessage(.accepted, next.message, extra: [JSONMember("location", .string(next.location))])
        }
    }

    /// The same without JavaScript: the home page's form, posted as multipart/form-data (site, replace, file).
    func importForm(_ visitor: Visitor, request: Request) async throws -> Response {
        guard let boundary = Self.multipartBoundary(request.headers[.contentType]) else {
            throw PanelError(
                status: .unsupportedMediaType,
                message:
                    "the form must be sent as multipart/form-data with a boundary; reload the page and choose the file again"
            )
        }
        let temp = try dataFolder.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: temp) }  // ours: made just above
        let receiver = MultipartFiles(folder: temp, limit: configuration.maxMediaBytes, pool: pool)
        try await Self.receive(request, boundary: boundary, into: receiver)
        guard let file = receiver.files.first else {
            throw PanelError(message: "no file was chosen: choose a .gpx, .csv or .zip file, then press the button")
        }
        let site = receiver.texts["site"] ?? ""
        try checkImportSite(visitor, site)
        do {
            let made = try await importUploaded(
                visitor, file.temp, given: file.name.value, site: site, replace: receiver.texts["replace"] == "1",
                again: receiver.texts["again"] == "1")
            return await redirect(visitor, to: made.key.path, saying: made.message(given: file.name.value))
        } catch let next as ChooseColumns {
            return Self.redirect(next.location)
        }
    }

    func checkImportSite(_ visitor: Visitor, _ site: String) throws {
        guard Slug.isValid(site) else { throw PanelError(message: "choose the site the tour belongs to") }
        try requireSite(visitor, site)
    }

    /// A draft made from a file, and what the ranger should know about how it was read.
    struct Imported {
        var key: DraftStore.Key
        /// Changes made to fit a tour (names made unique, long text cut) and files named but not given.
        var notes: [String] = []

        /// What the ranger is told once the draft is made.
        func message(given: String) -> String {
            (["The tour was made from '\(TerminalText.escaped(given))'."] + notes).joined(separator: " ")
        }
    }

    /// Makes a draft of a received file, by its kind (the name's extension; the content is read by the readers).
    /// No message names a folder of the server: the upload is named as the ranger gave it, the
    /// places in a zip as they are in the zip.
    func importUploaded(
        _ visitor: Visitor, _ upload: String, given: String, site: String, replace: Bool, again: Bool = false
    ) async throws -> Imported {
        do {
            return try await importUploadedFile(
                visitor, upload, given: given, site: site, replace: replace, again: again)
        } catch let error as PanelError {
            var scrubbed = error
            scrubbed.message = Self.withoutServerPaths(
                error.message, upload: upload, given: given, roots: [drafts.root, dataFolder.root])
            throw scrubbed
        }
    }

    private func importUploadedFile(
        _ visitor: Visitor, _ upload: String, given: String, site: String, replace: Bool, again: Bool
    ) async throws -> Imported {
        let name = PathText.lastComponent(upload)
        let siteName = visitor.sites.first { $0.id == site }?.name ?? site
        let made: Imported
        switch PathText.fileExtension(given).lowercased() {
        case "gpx":
            let gpx = try await blocking {
                do { return try TourInit.readGPX(path: upload) } catch let error as BuildError {
                    // A recorded track alone: in the panel, the route is added on the tour's page.
                    let message = error.description.replacingOccurrences(
                        of: TourInit.trackOnlyRouteAdvice,
                        with:
                            "or start the tour from nothing (Start a new tour) or from a spreadsheet, then add this file on the tour's page under Route: it becomes the tour's route"
                    )
                    throw PanelError(status: .unprocessableContent, message: message)
                }
            }
            let key = try await createImported(
                // The name the GPS file gives itself (<metadata><name>), else the file's name.
                site: site, siteName: siteName,
                title: gpx.name ?? PathText.droppingExtension(PathText.lastComponent(given)), again: again,
                // The GPS unit's own comment ("PARK HERE") is the ranger's note, not a detail visitors see.
                stops: gpx.stops.map { stop in
                    let comment = stop.properties.first { $0.key == "comment" }.flatMap {
                        if case .string(let text) = $0.value { text } else { nil }
                    }
                    return ImportedStop(
                        name: stop.name, coordinate: stop.coordinate, description: stop.fullText ?? stop.description,
                        properties: stop.properties.filter { $0.key != "comment" }, note: comment)
                })
            // The notes name "the point at line 12 of 'FILE'": the file as the ranger gave it.
            made = Imported(key: key, notes: gpx.notes.prefix(10).map { Self.sentence($0) })
        case "csv", "tsv", "txt":
            made = try await importSheet(
                upload, given: given, mediaFolder: nil, site: site, siteName: siteName, again: again)
        case "zip":
            made = try await importFolderZip(upload, given: given, site: site, siteName: siteName, replace: replace)
        default:
            throw PanelError(
                status: .unprocessableContent,
                message:
                    "'\(given)' is not a file the panel can start a tour from: give a GPX file (.gpx), a spreadsheet saved as CSV (.csv), or a tour folder zipped (.zip)"
            )
        }
        logger.info(
            "panel: draft imported",
            metadata: ["by": "\(visitor.user.name)", "draft": "\(made.key.path)", "from": "\(name)"])
        return made
    }

    /// `note` as a sentence: a capital first letter and a full stop.
    static func sentence(_ note: String) -> String {
        guard let first = note.first else { return note }
        let text = first.uppercased() + note.dropFirst()
        return text.hasSuffix(".") || text.hasSuffix("?") ? text : text + "."
    }

    /// A stop read from a GPX file or a spreadsheet row, with the files its row named.
    struct ImportedStop {
        var name: String
        var coordinate: Coordinate
        var description: String
        var properties: [JSONMember]
        var media: [CSVImport.MediaFile] = []
        /// The name and description in the sheet's other languages (`name_es`, `Description (es)`).
        var translations = Translations<StopTextField>()
        /// A note for rangers only (a GPS unit's `<cmt>`), never packaged.
        var note: String? = nil
    }

    /// A spreadsheet saved as CSV: one stop per row. With `mediaFolder` (a zip holding the sheet and its
    /// photos and recordings) the photo, audio and video columns name files found there, copied into the stops.
    func importSheet(
        _ path: String, given: String, mediaFolder: String?, site: String, siteName: String, again: Bool = true
    ) async throws -> Imported {
        let sheet = try await blocking {
            try CSVImport.read(
                csvPath: path, mediaFolder: mediaFolder ?? (path as NSString).deletingLastPathComponent,
                ignoreMedia: mediaFolder == nil, confined: true)
        }
        let findings = sheet.findings
        guard let stops = sheet.stops else {
            if mediaFolder == nil, CSVImport.needsColumnChoice(findings) {
                // The sheet is fine but its headers are not ones we know: keep it and ask which column is which.
                throw try keepSheet(path, given: given, site: site)
            }
            let problems = findings.filter { $0.severity == .error }.prefix(10).map { finding in
                // Where (row and column), then what: a ranger finds the cell.
                (finding.path.map { "\($0): " } ?? "") + finding.message
            }.joined(separator: "; ")
            throw PanelError(
                status: .unprocessableContent, message: "the spreadsheet '\(given)' could not be read: \(problems)")
        }
        let key = try await createImported(
            site: site, siteName: siteName, title: PathText.droppingExtension(PathText.lastComponent(given)),
            again: again,
            stops: stops.map { stop in
                var translations = Translations<StopTextField>()
                for (tag, texts) in stop.translations {
                    translations[tag, .name] = texts.name
                    translations[tag, .description] = texts.description
                }
                return ImportedStop(
                    name: stop.name, coordinate: stop.coordinate, description: stop.description,
                    properties: stop.properties, media: stop.media, translations: translations)
            }, languages: sheet.languages)
        return Imported(
            key: key, notes: sheet.notes.map { Self.sentence($0) } + Self.notUploaded(sheet.filesNotLookedFor))
    }

    /// What a sheet that came alone names in its photo, audio and video columns, by row: none of
    /// those files came with it.
    static func notUploaded(_ files: [CSVImport.NamedFile]) -> [String] {
        guard !files.isEmpty else { return [] }
        let shown = files.prefix(12).map { "\($0.place): '\(TerminalText.escaped($0.name))'" }
        let more = files.count > shown.count ? "; and \(files.count - shown.count) more" : ""
        return [
            "The sheet names \(files.count == 1 ? "a file" : "\(files.count) files") that did not come with it (\(shown.joined(separator: "; "))\(more)). Add \(files.count == 1 ? "it" : "them") on each stop's page, or zip the sheet together with its photos and recordings and start from the zip."
        ]
    }

    /// A new draft (named after the file, made unique) holding `stops`, with their files copied in.
    /// A draft of `site` this import would repeat: the one its name makes (the same file imported
    /// before), or one with exactly these stops' positions (to about a metre), checking at most 50
    /// drafts with as many stops.
    func sameDraft(
        site: String, title: String, stops: [ImportedStop]
    ) async throws
        -> (key: DraftStore.Key, name: String, reason: String)?
    {
        let store = drafts
        @Sendable func positions(_ coordinates: [Coordinate?]) -> [String] {
            coordinates.map { c in c.map { String(format: "%.5f,%.5f", $0.latitude, $0.longitude) } ?? "-" }.sorted()
        }
        let wanted = positions(stops.map(\.coordinate))
        let named = DraftStore.Key(site: site, tour: TourDraft.slug(title.replacingOccurrences(of: "_", with: " ")))
        return try await blocking { () -> (key: DraftStore.Key, name: String, reason: String)? in
            if let named, store.exists(named), let draft = try? TourDraft.read(folder: store.folder(named)) {
                return (named, draft.name, "made from a file of this name")
            }
            let candidates = store.list(sites: [site]).filter { $0.stops == stops.count }.prefix(50)
            for candidate in candidates {
                guard let draft = try? TourDraft.read(folder: store.folder(candidate.key)) else { continue }
                if positions(draft.stops.map(\.coordinate)) == wanted {
                    return (candidate.key, draft.name, "with the same stops")
                }
            }
            return nil
        }
    }

    func createImported(
        site: String, siteName: String, title: String, again: Bool = true, stops: [ImportedStop],
        languages: [String] = []
    ) async throws -> DraftStore.Key {
        guard !stops.isEmpty else {
            throw PanelError(status: .unprocessableContent, message: "the file holds no stops")
        }
        // The same file (or the same stops) imported again: asked, not a silent second draft.
        if !again, let same = try await sameDraft(site: site, title: title, stops: stops) {
            throw PanelError(
                status: .conflict,
                message: "the site has a draft \(same.reason) already: '\(same.name)' (\(same.key.path)). Open it from "
                    + "the list of tours, or tick 'Make a second draft' and import the file again")
        }
        var draft = TourDraft()
        draft.name = title.isEmpty ? "Imported tour" : title.replacingOccurrences(of: "_", with: " ")
        var slug = TourDraft.slug(draft.name)
        if slug.isEmpty { slug = "imported-tour" }
        guard var key = DraftStore.Key(site: site, tour: slug) else {
            throw PanelError(status: .unprocessableContent, message: "the file's name gives no usable tour name")
        }
        var n = 2
        while FileManager.default.fileExists(atPath: drafts.folder(key)) {
            // A prefix that ends in a hyphen would make "--2": not a slug.
            var stem = String(slug.prefix(58))
            while stem.hasSuffix("-") { stem.removeLast() }
            guard let next = DraftStore.Key(site: site, tour: "\(stem.isEmpty ? "tour" : stem)-\(n)"), n < 10_000 else {
                throw PanelError(
                    status: .conflict,
                    message: "the site has too many drafts of this name; rename the file and try again")
            }
            key = next
            n += 1
        }
        draft.siteID = site
        draft.siteName = siteName
        draft.id = "\(site).\(key.tour)"
        draft.version = "1.0.0"
        draft.mapName = key.tour
        draft.languages = languages
        for stop in stops {
            draft.stops.append(
                TourDraft.Stop(
                    slug: draft.newStopSlug(for: stop.name), name: stop.name, coordinate: stop.coordinate,
                    description: stop.description,
                    properties: stop.properties,
                    assets: stop.media.map { TourDraft.AssetReference(file: $0.fileName, language: $0.language) },
                    translations: stop.translations)
            )
            draft.stops[draft.stops.count - 1].rangerNote = stop.note
        }
        _ = try await drafts.create(key, draft: draft)
        let made = drafts.folderInode(key)
        do {
            try await copyMedia(stops, into: key)
        } catch {
            // Ours, made above: a half-copied import is not kept (unless another import replaced it meanwhile).
            drafts.discardNew(key, made: made)
            throw error
        }
        return key
    }

    /// Copies each imported stop's files into the new draft's stop folders.
    private func copyMedia(_ stops: [ImportedStop], into key: DraftStore.Key) async throws {
        let created = try await drafts.load(key).draft
        for (index, stop) in stops.enumerated() where !stop.media.isEmpty {
            let folder = drafts.stopFolder(key, draft: created, index: index)
            for file in stop.media {
                guard let name = StopFileName.checked(file.fileName) else {
                    throw PanelError(
                        status: .unprocessableContent,
                        message: "'\(TerminalText.escaped(file.fileName))' of stop \(index + 1) is not a file name")
                }
                do {
                    try FileManager.default.copyItem(atPath: file.sourcePath, toPath: folder + "/" + name.value)
                } catch {
                    throw PanelError(
                        status: .internalServerError,
                        message: "cannot copy '\(file.fileName)' into stop \(index + 1): \(error.localizedDescription)")
                }
            }
        }
    }

    /// A zipped tour folder: every entry checked (safe relative names, regular files, CRC and sizes),
    /// extracted under a hidden folder beside the drafts, read as a draft, then renamed into place. An
    /// existing draft of the same name is replaced only when asked, and then moved aside, not deleted.
    func importFolderZip(
        _ path: String, given: String, site: String, siteName: String, replace: Bool
    ) async throws -> Imported {
        let staging = drafts.root + "/.import-\(UUID().uuidString)"
        let limit = configuration.maxMediaBytes
        do {
            let room = try await quotaRoom(site: site)
            try await blocking {
                try Self.extractFolderZip(path, into: staging, limit: limit, room: room, site: site, pool: pool)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: staging)  // ours: made by the extraction
            throw error
        }
        // Ours: whatever is left of the staging folder once the tour folder was moved out of it.
        defer { try? FileManager.default.removeItem(atPath: staging) }
        // The tour folder: the zip's top (tour.json at its root) or its one top folder.
        var root = staging
        if !FileManager.default.fileExists(atPath: root + "/" + TourSource.tourFileName) {
            let tops = ((try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []).filter {
                !$0.hasPrefix(".") && $0 != "__MACOSX"
            }
            if tops.count == 1,
                FileManager.default.fileExists(atPath: staging + "/" + tops[0] + "/" + TourSource.tourFileName)
            {
                root = staging + "/" + tops[0]
            } else {
                // A spreadsheet with its photos and recordings beside it (at the top or in one folder).
                let folder =
                    tops.count == 1 && Self.isFolder(staging + "/" + tops[0]) ? staging + "/" + tops[0] : staging
                let sheets = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
                    ["csv", "tsv"].contains(PathText.fileExtension($0).lowercased())
                }
                guard sheets.count == 1 else {
                    throw PanelError(
                        status: .unprocessableContent,
                        message: sheets.isEmpty
                            ? "the zip holds no tour.json and no spreadsheet: zip the tour folder itself (the one holding tour.json and waypoints/), or a .csv sheet with its photos and recordings"
                            : "the zip holds \(sheets.count) spreadsheets (\(sheets.sorted().joined(separator: ", "))): zip one sheet with its files"
                    )
                }
                return try await importSheet(
                    folder + "/" + sheets[0], given: sheets[0], mediaFolder: folder, site: site, siteName: siteName)
            }
        }
        let draft: TourDraft
        do { draft = try TourDraft.read(folder: root) } catch {
            throw PanelError(
                status: .unprocessableContent, message: "the zip's \(error.file ?? "folder") \(error.message)")
        }
        // Every name every waypoint.json gives is checked before the folder becomes a draft.
        if let bad = draft.badFileNames.first {
            let more = draft.badFileNames.count > 1 ? " (and \(draft.badFileNames.count - 1) more)" : ""
            throw PanelError(
                status: .unprocessableContent,
                message:
                    "the zip's \(bad.place) lists '\(bad.name)'\(more): \(bad.problem). Name each of a stop's files by its own name in the stop's folder (such as view.jpg), then zip the folder again"
            )
        }
        var slug = TourDraft.slug(draft.name)
        if slug.isEmpty { slug = TourDraft.slug(PathText.lastComponent(root)) }
        guard let key = DraftStore.Key(site: site, tour: slug.isEmpty ? "imported-tour" : slug) else {
            throw PanelError(status: .unprocessableContent, message: "the tour's name gives no usable folder name")
        }
        if draft.siteID != site, !draft.siteID.isEmpty {
            throw PanelError(
                status: .unprocessableContent,
                message:
                    "the zipped tour belongs to site '\(draft.siteID)' (tour.json), not '\(site)': choose that site, or change the site in tour.json"
            )
        }
        let target = drafts.folder(key)
        if FileManager.default.fileExists(atPath: target) {
            guard replace else {
                throw PanelError(
                    status: .conflict,
                    message:
                        "the site already has a draft called '\(draft.name)': tick 'Replace the draft of the same name' to replace it (the old one is kept aside on the server), or rename the tour in tour.json"
                )
            }
            try await drafts.setAside(key, path: target)
        }
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        do throws(FileIOError) { try FileOperations.rename(root, to: target) } catch {
            throw PanelError(
                error,
                "cannot move the imported tour into place: \(error.systemCall?.errno.description ?? error.message)")
        }
        return Imported(key: key)
    }

    static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Nothing is written unless the entries' unpacked sizes together fit `limit` and `room` (what
    /// the site's drafts may still take); each entry is then held to its declared size as it is written.
    static func extractFolderZip(
        _ path: String, into folder: String, limit: Int64, room: Int64 = .max, site: String = "",
        pool: BlockingPool
    ) throws {
        let source: FileSource
        do { source = try FileSource(path: path) } catch {
            throw PanelError(status: .unprocessableContent, message: "the zip cannot be read: \(error)")
        }
        let directory: ZipDirectory
        do { directory = try ZipDirectory.read(source) } catch {
            throw PanelError(status: .unprocessableContent, message: "the file is not a readable zip: \(error)")
        }
        guard directory.isReadable else {
            throw PanelError(
                status: .unprocessableContent,
                message:
                    "the file is not a readable zip: \(directory.findings.first?.message ?? "its directory is damaged")"
            )
        }
        // The reader's findings that would make the unpacking go wrong — the same name twice, a file
        // and a folder of one name, sizes past 2^63, entries overlapping — refuse the zip. (Others, such
        // as a Windows zip's "version needed", do not matter for a folder the builder reads again.)
        let fatal: Set<FindingCode> = [.zipNameDuplicate, .zipTooLarge, .zipOverlap]
        if let problem = directory.findings.first(where: { $0.severity == .error && fatal.contains($0.code) }) {
            throw PanelError(status: .unprocessableContent, message: "the zip cannot be used: \(problem.message)")
        }
        var unpacked: Int64 = 0
        for entry in directory.entries where !entry.isDirectory {
            let (sum, overflow) = unpacked.addingReportingOverflow(max(0, entry.uncompressedSize))
            unpacked = overflow ? .max : sum
        }
        if unpacked > limit {
            throw PanelError(
                status: .contentTooLarge,
                message: "the zip unpacks to more than \(size(limit)), the most the panel takes")
        }
        if unpacked > room {
            throw Self.overQuota("the zip", unpacked: unpacked, room: room, site: site)
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for entry in directory.entries {
            let name = entry.name
            // Safety first: a '..' component starts with a dot too and must be refused, not skipped.
            let problems = ArchivePath.problems(name, allowDirectory: true)
            guard problems.isEmpty else {
                throw PanelError(
                    status: .unprocessableContent,
                    message:
                        "the zip holds an unsafe name '\(TerminalText.escaped(name))': \(problems.joined(separator: "; "))"
                )
            }
            // What Finder and other tools add beside the files (__MACOSX/, .DS_Store) is left out.
            if name.hasPrefix("__MACOSX/") || name.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
                continue
            }
            if entry.isDirectory { continue }
            if let mode = entry.unixMode, mode & UInt32(S_IFMT) != 0, mode & UInt32(S_IFMT) != UInt32(S_IFREG) {
                throw PanelError(
                    status: .unprocessableContent,
                    message: "'\(name)' in the zip is a link or a special file: zip the files themselves")
            }
            guard !entry.isEncrypted else {
                throw PanelError(
                    status: .unprocessableContent,
                    message: "'\(name)' in the zip is encrypted: zip it without a password")
            }
            // (The sizes were added up, and held to the limit and the room, before anything was written.)
            let out = folder + "/" + name
            try FileManager.default.createDirectory(
                atPath: (out as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let sink = try UploadSink(path: out, limit: entry.uncompressedSize, pool: pool)
            do {
                let reader = try EntryReader(source: source, entry: entry)
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let n = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
                    if n == 0 { break }
                    try buffer[0..<n].withUnsafeBytes { try sink.writeHere($0) }
                }
                try sink.finishHere()
            } catch let error as ArchiveError where error.code.findingCode != nil {
                throw PanelError(
                    status: .unprocessableContent, message: "'\(name)' in the zip is damaged: \(error.message)")
            }
        }
    }
}

extension ImportController {
}

/// A spreadsheet whose columns must be chosen on a form before it becomes a draft.
struct ChooseColumns: Error {
    var location: String
    var message: String
}

extension ImportController {
    /// Where sheets wait for their columns to be chosen: `<data>/drafts/.sheets/<uuid>/` (hidden from the list).
    var sheetsRoot: String { drafts.root + "/.sheets" }

    /// Keeps an uploaded sheet for the column form; sheets older than a day (abandoned forms) are removed.
    func keepSheet(_ path: String, given: String, site: String) throws -> ChooseColumns {
        let fm = FileManager.default
        let cutoff = Date().addingTimeInterval(-86_400)
        for old in (try? fm.contentsOfDirectory(atPath: sheetsRoot)) ?? [] where UUID(uuidString: old) != nil {
            // Ours: every folder here is a sheet this panel kept.
            if let made = (try? fm.attributesOfItem(atPath: sheetsRoot + "/" + old))?[.modificationDate] as? Date,
                made < cutoff
            {
                try? fm.removeItem(atPath: sheetsRoot + "/" + old)
            }
        }
        let id = UUID().uuidString
        try fm.createDirectory(atPath: sheetsRoot + "/" + id, withIntermediateDirectories: true)
        do throws(FileIOError) {
            try FileOperations.rename(path, to: sheetsRoot + "/" + id + "/" + Self.sheetFileName)
        } catch {
            throw PanelError(
                error, "cannot keep the spreadsheet: \(error.systemCall?.errno.description ?? error.message)")
        }
        var components = URLComponents()
        components.path = "/drafts/columns/" + id
        components.queryItems = [URLQueryItem(name: "site", value: site), URLQueryItem(name: "name", value: given)]
        return ChooseColumns(location: components.string ?? "/", message: "say which column of '\(given)' holds what")
    }

    static let sheetFileName = "sheet.csv"

    func sheetPath(_ context: AppRequestContext) throws -> String {
        guard let id = UUID(uuidString: try context.parameters.require("sheet")) else {
            throw PanelError(status: .notFound, message: "there is no such spreadsheet")
        }
        let path = sheetsRoot + "/" + id.uuidString + "/" + Self.sheetFileName
        guard FileManager.default.fileExists(atPath: path) else {
            throw PanelError(
                status: .notFound,
                message: "the spreadsheet is no longer here (sheets wait a day): start from the file again")
        }
        return path
    }

    /// The form: one choice per thing a stop needs, among the sheet's own column names.
    func columnsPage(
        _ visitor: Visitor, request: Request, context: AppRequestContext, problems: [String] = [],
        chosen: [String: String] = [:]
    ) async throws -> Response {
        let path = try sheetPath(context)
        let site = request.uri.queryParameters.get("site") ?? ""
        try checkImportSite(visitor, site)
        let name = request.uri.queryParameters.get("name") ?? "the spreadsheet"
        guard let preview = CSVImport.preview(csvPath: path) else {
            throw PanelError(status: .unprocessableContent, message: "'\(name)' can no longer be read as CSV")
        }
        let headers = preview.headers, sample = preview.rows
        // What the headers already say is chosen for the ranger (they can change it).
        var chosen = chosen
        if chosen.isEmpty {
            for header in headers {
                if let role = CSVImport.guessRole(header: header), chosen[role] == nil { chosen[role] = header }
            }
        }
        let explain = [
            "name": "The stop's name (required)", "latitude": "Latitude", "longitude": "Longitude",
            "coordinates": "Latitude and longitude in one column (instead of the two above)",
            "description": "What visitors read at the stop",
            "order": "The stop's number (optional: otherwise the rows' order)",
        ]
        let roles: [ColumnsPage.Role] = ["name", "latitude", "longitude", "coordinates", "description", "order"].map {
            role in
            ColumnsPage.Role(
                role: role, label: explain[role] ?? role,
                options: headers.enumerated().filter { !$0.element.isEmpty }.map {
                    ColumnsPage.Option(header: $0.element, selected: chosen[role] == $0.element)
                })
        }
        let body = ColumnsPage(
            roles: roles, fileName: name, site: site, action: request.uri.path + "?" + (request.uri.query ?? ""),
            headers: headers.filter { !$0.isEmpty }.joined(separator: ", "), problems: problems,
            hasProblems: !problems.isEmpty, sampleHeaders: headers,
            sample: sample.map { ColumnsPage.SampleRow(cells: $0) })
        var response = try page(body, title: "Which column is which?", visitor: visitor)
        if !problems.isEmpty { response.status = .unprocessableContent }
        return response
    }

    /// The chosen columns: the sheet is read again with them; a draft, or the form again with what is wrong.
    func chooseColumns(_ visitor: Visitor, request: Request, context: AppRequestContext) async throws -> Response {
        let path = try sheetPath(context)
        let site = request.uri.queryParameters.get("site") ?? ""
        try checkImportSite(visitor, site)
        let given = request.uri.queryParameters.get("name") ?? "sheet.csv"
        let form = try await PanelForm.read(request)
        var chosen: [String: String] = [:]
        for role in CSVImport.choosableRoles where !form.text("column-" + role).isEmpty {
            chosen[role] = form.text("column-" + role)
        }
        let columns = chosen
        let sheet = try await blocking {
            try CSVImport.read(csvPath: path, mediaFolder: nil, ignoreMedia: true, columns: columns)
        }
        guard let stops = sheet.stops else {
            let problems = sheet.findings.filter { $0.severity == .error }.prefix(10).map {
                ($0.path.map { "\($0): " } ?? "") + $0.message
            }
            return try await columnsPage(
                visitor, request: request, context: context, problems: problems, chosen: chosen)
        }
        let siteName = visitor.sites.first { $0.id == site }?.name ?? site
        let key = try await createImported(
            site: site, siteName: siteName, title: PathText.droppingExtension(PathText.lastComponent(given)),
            stops: stops.map {
                ImportedStop(
                    name: $0.name, coordinate: $0.coordinate, description: $0.description, properties: $0.properties)
            })
        // ours: the kept sheet, now used
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
        let notes = sheet.notes.map { Self.sentence($0) } + Self.notUploaded(sheet.filesNotLookedFor)
        return await redirect(
            visitor, to: key.path,
            saying: (["The tour was made from '\(given)' (\(stops.count) stops)."] + notes).joined(separator: " "))
    }
}

extension PanelRoom {
    /// The refusal of `what` (unpacking to `unpacked` bytes, or nil when not known) for want of room.
    static func overQuota(_ what: String, unpacked: Int64?, room: Int64, site: String) -> PanelError {
        let needs = unpacked.map { " needs \(size($0))," } ?? ""
        return PanelError(
            status: .contentTooLarge,
            message:
                "\(what)\(needs) but the drafts of site '\(site)' have only \(size(room)) of room left on the server: remove drafts or files no longer needed, or ask the administrator for a larger quota"
        )
    }

    /// `message` with no folder of the server in it: the uploaded file as `given`, a place under
    /// one of `roots` (an unpacked zip, a temporary folder) as its place in the upload.
    static func withoutServerPaths(_ message: String, upload: String, given: String, roots: [String]) -> String {
        var text = message.replacingOccurrences(of: upload, with: given)
        for root in roots where !root.isEmpty {
            // `ROOT/.import-UUID/` (an unpacked zip) or `ROOT/tmp/upload-UUID/` (the received file).
            let pattern = NSRegularExpression.escapedPattern(for: root) + #"/(tmp/upload-|\.import-)[^/'\s]*/"#
            if let expression = try? NSRegularExpression(pattern: pattern) {
                text = expression.stringByReplacingMatches(
                    in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "")
            }
            text = text.replacingOccurrences(of: root + "/", with: "").replacingOccurrences(of: root, with: "")
        }
        return text
    }
}

extension PanelDraftRoom {
    /// What the drafts of `site` may still take on disk (`--draft-quota-mb` less what they hold).
    func quotaRoom(site: String) async throws -> Int64 {
        let drafts = self.drafts
        let used = try await blocking { drafts.usage(site: site) }
        return max(0, configuration.draftQuotaBytes - used)
    }
}
