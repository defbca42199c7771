import Foundation
import HTTPTypes
import Hummingbird
import TrailPackArchive
import TrailPackBuilder
import TrailPackCore
import TrailPackServer

/// "Start from a file": a GPX file from a GPS unit or a mapping program, a spreadsheet saved as CSV, or
/// a tour folder zipped (the panel's own "Download as a folder", or one made for the CLI) becomes a draft.
/// The file is streamed to the server's temporary folder and read with the same readers as the CLI.
extension PanelController {
    func importFile(_ visitor: Visitor, request: Request) async throws -> Response {
        let site = request.uri.queryParameters.get("site") ?? ""
        guard ManifestValidator.isSlug(site, maxLength: 64) else { throw PanelError(message: "choose the site the tour belongs to") }
        try requireSite(visitor, site)
        let given = request.uri.queryParameters.get("name") ?? ""
        let name = try Self.safeFileName(given)
        let replace = request.uri.queryParameters.get("replace") == "1"
        let temp = try server.store.temporaryFolder()
        let upload = temp + "/" + name
        defer { try? FileManager.default.removeItem(atPath: temp) }  // ours: made just above
        let sink = try UploadSink(path: upload, limit: configuration.maxMediaBytes)
        for try await buffer in request.body { try buffer.withUnsafeReadableBytes { try sink.write($0) } }
        try sink.finish()
        let siteName = visitor.sites.first { $0.id == site }?.name ?? site
        let key: DraftStore.Key
        switch (name as NSString).pathExtension.lowercased() {
        case "gpx":
            let (stops, _) = try await server.blocking { _ in
                do { return try TourInit.readGPX(path: upload) } catch let error as BuildError { throw PanelError(status: .unprocessableContent, message: error.description) }
            }
            key = try await createImported(site: site, siteName: siteName, title: (given as NSString).deletingPathExtension,
                                           stops: stops.map { ($0.name, $0.coordinate, $0.fullText ?? $0.description, $0.properties) })
        case "csv", "tsv", "txt":
            let (stops, findings) = try await server.blocking { _ in try CSVImport.read(csvPath: upload, mediaFolder: temp, ignoreMedia: true) }
            guard let stops else {
                let problems = findings.filter { $0.severity == .error }.prefix(10).map(\.message).joined(separator: "; ")
                throw PanelError(status: .unprocessableContent, message: "the spreadsheet '\(given)' could not be read: \(problems)")
            }
            key = try await createImported(site: site, siteName: siteName, title: (given as NSString).deletingPathExtension,
                                           stops: stops.map { ($0.name, $0.coordinate, $0.description, $0.properties) })
        case "zip":
            key = try await importFolderZip(upload, site: site, replace: replace)
        default:
            throw PanelError(status: .unprocessableContent,
                             message: "'\(given)' is not a file the panel can start a tour from: give a GPX file (.gpx), a spreadsheet saved as CSV (.csv), or a tour folder zipped (.zip)")
        }
        server.logger.info("panel: draft imported", metadata: ["by": "\(visitor.user.name)", "draft": "\(key.path)", "from": "\(name)"])
        return Self.jsonMessage(.created, "the tour was made from '\(given)'", extra: [JSONMember("location", .string(key.path))])
    }

    /// A new draft (named after the file, made unique) holding `stops`.
    func createImported(site: String, siteName: String, title: String, stops: [(String, Coordinate, String, [JSONMember])]) async throws -> DraftStore.Key {
        guard !stops.isEmpty else { throw PanelError(status: .unprocessableContent, message: "the file holds no stops") }
        var draft = TourDraft()
        draft.name = title.isEmpty ? "Imported tour" : title.replacingOccurrences(of: "_", with: " ")
        var slug = TourDraft.slug(draft.name)
        if slug.isEmpty { slug = "imported-tour" }
        var key = DraftStore.Key(site: site, tour: slug)!
        var n = 2
        while FileManager.default.fileExists(atPath: drafts.folder(key)) {
            key = DraftStore.Key(site: site, tour: "\(slug.prefix(58))-\(n)")!
            n += 1
        }
        draft.siteID = site
        draft.siteName = siteName
        draft.id = "\(site).\(key.tour)"
        draft.version = "1.0.0"
        draft.mapName = key.tour
        for (name, coordinate, description, properties) in stops {
            draft.stops.append(TourDraft.Stop(slug: draft.newStopSlug(for: name), name: name, coordinate: coordinate, description: description, properties: properties))
        }
        _ = try await drafts.create(key, draft: draft)
        return key
    }

    /// A zipped tour folder: every entry checked (safe relative names, regular files, CRC and sizes),
    /// extracted under a hidden folder beside the drafts, read as a draft, then renamed into place. An
    /// existing draft of the same name is replaced only when asked, and then moved aside, not deleted.
    func importFolderZip(_ path: String, site: String, replace: Bool) async throws -> DraftStore.Key {
        let staging = drafts.root + "/.import-\(UUID().uuidString)"
        let limit = configuration.maxMediaBytes
        do {
            try await server.blocking { _ in try Self.extractFolderZip(path, into: staging, limit: limit) }
        } catch {
            try? FileManager.default.removeItem(atPath: staging)  // ours: made by the extraction
            throw error
        }
        // Ours: whatever is left of the staging folder once the tour folder was moved out of it.
        defer { try? FileManager.default.removeItem(atPath: staging) }
        // The tour folder: the zip's top (tour.json at its root) or its one top folder.
        var root = staging
        if !FileManager.default.fileExists(atPath: root + "/" + TourSource.tourFileName) {
            let tops = ((try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []).filter { !$0.hasPrefix(".") && $0 != "__MACOSX" }
            guard tops.count == 1, FileManager.default.fileExists(atPath: staging + "/" + tops[0] + "/" + TourSource.tourFileName) else {
                throw PanelError(status: .unprocessableContent, message: "the zip holds no tour.json at its top or in its one top folder: zip the tour folder itself (the one holding tour.json and waypoints/)")
            }
            root = staging + "/" + tops[0]
        }
        let draft: TourDraft
        do { draft = try TourDraft.read(folder: root) } catch {
            throw PanelError(status: .unprocessableContent, message: "the zip's \(error.file) \(error.message)")
        }
        var slug = TourDraft.slug(draft.name)
        if slug.isEmpty { slug = TourDraft.slug((root as NSString).lastPathComponent) }
        guard let key = DraftStore.Key(site: site, tour: slug.isEmpty ? "imported-tour" : slug) else {
            throw PanelError(status: .unprocessableContent, message: "the tour's name gives no usable folder name")
        }
        if draft.siteID != site, !draft.siteID.isEmpty {
            throw PanelError(status: .unprocessableContent, message: "the zipped tour belongs to site '\(draft.siteID)' (tour.json), not '\(site)': choose that site, or change the site in tour.json")
        }
        let target = drafts.folder(key)
        if FileManager.default.fileExists(atPath: target) {
            guard replace else {
                throw PanelError(status: .conflict, message: "the site already has a draft called '\(draft.name)': tick 'Replace the draft of the same name' to replace it (the old one is kept aside on the server), or rename the tour in tour.json")
            }
            try await drafts.setAside(key, path: target)
        }
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard rename(root, target) == 0 else { throw PanelError(status: .internalServerError, message: "cannot move the imported tour into place: \(String(cString: strerror(errno)))") }
        return key
    }

    static func extractFolderZip(_ path: String, into folder: String, limit: Int64) throws {
        let source: FileSource
        do { source = try FileSource(path: path) } catch { throw PanelError(status: .unprocessableContent, message: "the zip cannot be read: \(error)") }
        let directory: ZipDirectory
        do { directory = try ZipDirectory.read(source) } catch { throw PanelError(status: .unprocessableContent, message: "the file is not a readable zip: \(error)") }
        guard directory.isReadable else {
            throw PanelError(status: .unprocessableContent, message: "the file is not a readable zip: \(directory.findings.first?.message ?? "its directory is damaged")")
        }
        var total: Int64 = 0
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for entry in directory.entries {
            let name = entry.name
            // Safety first: a '..' component starts with a dot too and must be refused, not skipped.
            let problems = ArchivePath.problems(name, allowDirectory: true)
            guard problems.isEmpty else {
                throw PanelError(status: .unprocessableContent, message: "the zip holds an unsafe name '\(TerminalText.escaped(name))': \(problems.joined(separator: "; "))")
            }
            // What Finder and other tools add beside the files (__MACOSX/, .DS_Store) is left out.
            if name.hasPrefix("__MACOSX/") || name.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
            if entry.isDirectory { continue }
            if let mode = entry.unixMode, mode & UInt32(S_IFMT) != 0, mode & UInt32(S_IFMT) != UInt32(S_IFREG) {
                throw PanelError(status: .unprocessableContent, message: "'\(name)' in the zip is a link or a special file: zip the files themselves")
            }
            guard !entry.isEncrypted else { throw PanelError(status: .unprocessableContent, message: "'\(name)' in the zip is encrypted: zip it without a password") }
            total += entry.uncompressedSize
            guard total <= limit else { throw PanelError(status: .contentTooLarge, message: "the zip unpacks to more than \(size(limit)), the most the panel takes") }
            let out = folder + "/" + name
            try FileManager.default.createDirectory(atPath: (out as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let sink = try UploadSink(path: out, limit: entry.uncompressedSize)
            do {
                let reader = try EntryReader(source: source, entry: entry)
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let n = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
                    if n == 0 { break }
                    try buffer[0..<n].withUnsafeBytes { try sink.write($0) }
                }
                try sink.finish()
            } catch let error as EntryDataError {
                throw PanelError(status: .unprocessableContent, message: "'\(name)' in the zip is damaged: \(error.message)")
            }
        }
    }
}
