import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import TrailPackCatalogModel
import TrailPackCore
import TrailPackDiff
import TrailPackFileIO
import TrailPackServer
import TrailPackVerifier

/// Part 2 of the panel: reviewers see the versions waiting for them, review the uploaded package
/// itself (never the draft: they approve bytes) with what changed since the last release, and
/// approve (optionally signed) or deny with a reason; the publisher releases; an admin withdraws.
/// Every decision goes through the catalog's one transition function, as the API's do.
extension ReviewController {
    func addReviewRoutes(panel: RouterGroup<AppRequestContext>, guarded: RouterGroup<AppRequestContext>) {
        panel.get("/reviews") { request, context in await signedIn(request, context) { try await reviewQueue($0) } }
        panel.get("/packages/:id") { request, context in
            await signedIn(request, context) { try await history($0, id: try context.parameters.require("id")) }
        }
        panel.get("/packages/:id/versions/:version") { request, context in
            await signedIn(request, context) {
                try await reviewPage(
                    $0, id: try context.parameters.require("id"), version: try context.parameters.require("version"),
                    request: request)
            }
        }
        panel.get("/packages/:id/versions/:version/asset") { request, context in
            await signedIn(request, context) {
                try await packageAsset(
                    $0, id: try context.parameters.require("id"), version: try context.parameters.require("version"),
                    request: request)
            }
        }
        panel.get("/packages/:id/versions/:version/package.zip") { request, context in
            await signedIn(request, context) {
                try await packageFile(
                    $0, id: try context.parameters.require("id"), version: try context.parameters.require("version"),
                    context: context)
            }
        }
        guarded.post("/packages/:id/versions/:version/:action") { request, context in
            await signedIn(request, context) {
                try await decide(
                    $0, id: try context.parameters.require("id"), version: try context.parameters.require("version"),
                    action: try context.parameters.require("action"), request: request)
            }
        }
    }

    // MARK: the queue

    func reviewQueue(_ visitor: Visitor) async throws -> Response {
        let statuses: [Catalog.PublishStatus] =
            visitor.user.role == .publisher ? [.draft, .pending, .ready] : [.pending]
        let records = try await catalog.reviewQueue(statuses: statuses).filter {
            mayView(visitor, site: $0.summary.site)
        }
        let required = approvals
        let rows = records.map { r in
            ReviewsPage.Row(
                name: r.summary.name, site: r.summary.site, version: r.summary.version, publisher: r.uploadedBy,
                since: Self.shortTime(r.createdAt), approvals: r.approvals.count, required: required,
                scan: Self.scanWords(r.scanStatus, r.scanDetail), status: Self.statusWords(r.summary.status),
                link: Self.versionPath(r.summary.id, r.summary.version),
                mine: r.approvals.contains { $0.reviewer == visitor.user.name })
        }
        let body = ReviewsPage(rows: rows, hasRows: !rows.isEmpty, isPublisher: visitor.user.role == .publisher)
        return try page(
            body, title: visitor.user.role == .publisher ? "Your versions in review" : "Waiting for review",
            visitor: visitor)
    }

    // MARK: one version

    func reviewPage(_ visitor: Visitor, id: String, version: String, request: Request) async throws -> Response {
        let record = try await record(visitor, id: id, version: version)
        let summary = record.summary
        let path = try await blobs.localFile(for: BlobNames.digest(summary.sha256))
        // The package itself: its manifest as checked by the reader, and the verifier's report.
        // The verifier reads every byte: once per stored package (its bytes never change), not per view.
        let sha = summary.sha256, reports = self.reports
        let (reader, report, route) = try await blocking {
            () -> (PackageReader?, VerificationReport?, Route?) in
            let reader = try? PackageReader(path: path)
            return (
                reader, reports.report(sha256: sha) { try? Verifier.verify(path: path) },
                // A route that breaks a rule is not drawn: the verifier's report says what is wrong.
                reader.flatMap { try? $0.route() }
            )
        }
        guard let reader else {
            throw PanelError(
                status: .unprocessableContent,
                message:
                    "the stored package of version \(version) cannot be read: its file is damaged. Tell an administrator: they can check and repair the stored files"
            )
        }
        let manifest = reader.manifest
        // What changed since the newest released version (other than this one).
        var older: Catalog.RegisteredVersion?
        if let newest = try await catalog.versions(package: id).first(where: { $0.version != summary.version }) {
            older = try await catalog.version(package: id, version: newest.version, releasedOnly: true)
        }
        let oldManifest = older.flatMap { ManifestReader.read(Array($0.manifest.utf8)).manifest }
        let diff = PackageDiff(
            old: oldManifest, new: manifest, oldPackage: older.map { ($0.summary.sha256, $0.summary.size) },
            newPackage: (summary.sha256, summary.size))
        let audit = try await catalog.auditLog(package: id).filter { $0.version == version }
        let denial = audit.last { $0.action.hasPrefix("deny") && !$0.action.contains("refused") }
        let required = approvals
        let isUploader = visitor.user.name == record.uploadedBy
        let status = summary.status
        let canJudge =
            (visitor.user.role == .reviewer || visitor.user.role == .admin) && !isUploader
            && (status == .pending || status == .ready)
        let alreadyApproved = record.approvals.contains { $0.reviewer == visitor.user.name }
        let assetBase = Self.versionPath(id, version) + "/asset?path="
        var body = ReviewPage(
            id: id, version: version, name: summary.name, site: summary.site, status: Self.statusWords(status),
            statusCode: status.rawValue, publisher: record.uploadedBy, uploaded: Self.shortTime(record.createdAt),
            sha256: summary.sha256, size: Self.size(summary.size), bytes: summary.size,
            scan: Self.scanWords(record.scanStatus, record.scanDetail), scanHeld: record.scanStatus == .held,
            approvalCount: record.approvals.count, required: required,
            approvals: record.approvals.map {
                ApprovalView(reviewer: $0.reviewer, at: Self.shortTime($0.at), signed: $0.signed)
            },
            action: Self.versionPath(id, version), history: "/packages/\(Self.pathSegment(id))",
            visitorPreview: "/visit/#/preview/\(Self.pathSegment(id))/\(Self.pathSegment(version))",
            canJudge: canJudge, canAddSignature: canJudge && alreadyApproved, canApprove: canJudge && !alreadyApproved,
            canRelease: isUploader && status == .ready && record.scanStatus.releasable,
            canRequest: (isUploader || visitor.user.role == .admin) && status == .draft,
            canWithdraw: visitor.user.role == .admin && status == .released,
            fileName: "\(id)-\(summary.version).zip",
            findings: (report?.findings ?? []).map {
                ReviewPage.Finding(
                    severity: $0.severity.rawValue, code: $0.code.rawValue, message: $0.message,
                    file: $0.file?.isEmpty == false ? $0.file : nil)
            },
            verified: report.map { !$0.findings.hasErrors } ?? false, hasReport: !(report?.findings ?? []).isEmpty,
            denial: denial.map {
                ReviewPage.Denial(by: $0.actor, at: Self.shortTime($0.at), reason: Self.denialReason($0.detail))
            },
            notice: await notice(visitor, request), diff: Self.diffValues(diff), frame: FrameView(manifest.bounds))
        // For the reviewer of a fix: what changed since the version that was sent back — the bytes
        // this very version held before it was built again under its number, else an older version.
        if let replaced = try await catalog.replacedBytes(package: id, version: summary.version).last,
            let replacedManifest = ManifestReader.read(Array(replaced.manifest.utf8)).manifest
        {
            var since = Self.diffValues(
                PackageDiff(
                    old: replacedManifest, new: manifest, oldPackage: (replaced.sha256, replaced.size),
                    newPackage: (summary.sha256, summary.size)))
            since.sameNumber = true
            body.sinceDenied = since
        } else if let denied = try await deniedBefore(id, version: summary.version),
            let stored = try await catalog.version(package: id, version: denied, releasedOnly: false),
            let deniedManifest = ManifestReader.read(Array(stored.manifest.utf8)).manifest
        {
            body.sinceDenied = Self.diffValues(
                PackageDiff(
                    old: deniedManifest, new: manifest, oldPackage: (stored.summary.sha256, stored.summary.size),
                    newPackage: (summary.sha256, summary.size)))
        }
        Self.addLanguages(manifest, to: &body)
        let onRoute = Dictionary(
            (route?.summary.stops ?? []).map { ($0.slug, $0) }, uniquingKeysWith: { first, _ in first })
        if let route {
            body.route = Self.routeView(
                route, importedFrom: nil,
                stopNames: Dictionary(
                    manifest.waypoints.map { ($0.slug, $0.name) }, uniquingKeysWith: { first, _ in first }))
        }
        let others = Array(manifest.languages.dropFirst())
        body.stops = manifest.waypoints.enumerated().map { n, waypoint in
            let change = diff.stops.first { $0.slug == waypoint.slug && $0.kind != .removed }
            let translated = others.map { tag in
                ReviewPage.Translated(
                    tag: tag, title: PanelLanguage.title(tag),
                    name: waypoint.translations[tag, .name] ?? "(not translated)",
                    description: waypoint.translations[tag, .description] ?? "(not translated)")
            }
            return ReviewPage.Stop(
                translated: translated, hasTranslated: !translated.isEmpty, number: n + 1, name: waypoint.name,
                description: waypoint.description,
                latitude: PanelController.degrees(waypoint.coordinate.latitude),
                longitude: PanelController.degrees(waypoint.coordinate.longitude),
                waiver: waypoint.accessibilityWaiver, hasWaiver: waypoint.accessibilityWaiver != nil,
                changed: change != nil, added: change?.kind == .added, along: Self.alongWords(onRoute[waypoint.slug]),
                assets: waypoint.assets.map { asset in
                    let url =
                        assetBase + (asset.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                    let captions = asset.captions.map {
                        assetBase + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                    }
                    let texts: [ReviewPage.AssetTexts] = others.compactMap { tag in
                        let lines = [AssetTextField.title, .alt, .transcript].compactMap { field in
                            asset.translations[tag, field].map {
                                "\(PanelLanguage.fieldWords[field.rawValue] ?? field.rawValue): \($0)"
                            }
                        }
                        return lines.isEmpty
                            ? nil : ReviewPage.AssetTexts(tag: tag, name: PanelLanguage.name(tag), lines: lines)
                    }
                    return ReviewPage.Asset(
                        language: asset.language.map(PanelLanguage.title), translatedTexts: texts,
                        srclang: asset.language ?? manifest.defaultLanguage ?? "en", path: asset.path, url: url,
                        title: TextOrFalse(asset.title), size: Self.size(asset.size), isImage: asset.kind == .image,
                        isAudio: asset.kind == .audio, isVideo: asset.kind == .video,
                        isOther: ![.image, .audio, .video].contains(asset.kind), alt: asset.alt,
                        transcript: asset.transcript, captions: captions,
                        missingText: (asset.kind == .image && asset.alt == nil)
                            || (asset.kind == .audio && asset.transcript == nil)
                            || (asset.kind == .video && asset.captions == nil))
                })
        }
        // The map: every stop now, and where the moved ones were.
        let points: [JSONValue] = manifest.waypoints.enumerated().map { n, waypoint in
            var members = [
                JSONMember("n", .number(JSONNumber(Int64(n + 1)))), JSONMember("name", .string(waypoint.name)),
                JSONMember("lat", .number(JSONNumber(waypoint.coordinate.latitude))),
                JSONMember("lon", .number(JSONNumber(waypoint.coordinate.longitude))),
            ]
            if let moved = diff.stops.first(where: { $0.slug == waypoint.slug && $0.movedMetres != nil }),
                let old = moved.oldCoordinate
            {
                members += [
                    JSONMember("oldLat", .number(JSONNumber(old.latitude))),
                    JSONMember("oldLon", .number(JSONNumber(old.longitude))),
                ]
            }
            return .object(members)
        }
        body.mapStops = JSONWriter.string(.array(points), pretty: false)
        if let coverage = await (try? blocking { Self.coverage(blob: path, manifest: manifest) }) ?? nil {
            body.hasCoverage = true
            body.coverage = Self.coverageRows(coverage.zooms)
            body.mapPath = Self.baseMap(manifest)?.path ?? ""
            body.mapType = coverage.header?.tileType?.name ?? "?"
            body.mapMinZoom = coverage.header?.minZoom ?? 0
            body.mapMaxZoom = coverage.header?.maxZoom ?? 0
            if configuration.tileURL == nil {
                body.ownMap = Self.ownMapValues(
                    tileURL: Self.versionPath(id, version) + "/tiles", header: coverage.header)
            }
        }
        // No offline map in the package: the site's region map, as the editor shows it, not a bare grid.
        if configuration.tileURL == nil, body.ownMap == nil {
            let siteMap = drafts.siteMapPath(manifest.site.id)
            if var region = Self.ownMapValues(
                tileURL: "/sites/\(manifest.site.id)/tiles",
                header: try await blocking { Self.siteMapHeader(siteMap) })
            {
                region.isRegion = true
                body.ownMap = region
            }
        }
        return try page(body, title: "\(summary.name) \(summary.version)", visitor: visitor, map: true)
    }

    /// The version's languages and how complete each one is (the default language first).
    static func addLanguages(_ manifest: Manifest, to page: inout ReviewPage) {
        guard let base = manifest.defaultLanguage else { return }
        let meters = PanelLanguage.meters(manifest)
        let names = manifest.languages.map {
            $0 == base ? "\(PanelLanguage.title($0)) (the default)" : PanelLanguage.title($0)
        }
        page.hasLanguages = true
        page.languageNames = names.joined(separator: ", ")
        page.requireAll = manifest.requireAllLanguages
        page.baseSize = size(manifest.bytes(for: base))
        page.baseName = PanelLanguage.name(base)
        page.meters = manifest.languages.dropFirst().compactMap { meters[$0] }
    }

    /// The diff as the review page shows it: one entry per change, in words, with word-level text changes.
    static func diffValues(_ diff: PackageDiff) -> DiffView {
        func words(_ w: WordDiff?) -> [DiffView.Words] {
            (w?.runs ?? []).map {
                DiffView.Words(
                    text: $0.text, same: $0.kind == .same, added: $0.kind == .added, removed: $0.kind == .removed)
            }
        }
        func assetLine(_ a: PackageDiff.AssetChange) -> String {
            let file = a.file + (a.language.map { " (in \(PanelLanguage.name($0)))" } ?? "")
            switch a.kind {
            case .added: return "file \(file) added (\(size(a.newSize ?? 0)))"
            case .removed: return "file \(file) removed"
            case .changed:
                return a.oldSize == a.newSize
                    ? "file \(file) replaced by another of the same size (\(size(a.newSize ?? 0)))"
                    : "file \(file) replaced (\(size(a.oldSize ?? 0)) → \(size(a.newSize ?? 0)))"
            case .retitled: return "file \(file) retitled: '\(a.oldTitle ?? "")' → '\(a.newTitle ?? "")'"
            }
        }
        var stops: [DiffView.Stop] = []
        for change in diff.stops {
            var lines: [String] = []
            if let old = change.oldName, old != change.name { lines.append("renamed from '\(old)'") }
            if let metres = change.movedMetres {
                lines.append(
                    "moved \(metres < 1000 ? String(format: "%.0f m", metres) : String(format: "%.2f km", metres / 1000))"
                )
            }
            // Positions count from 1 already.
            if change.kind == .changed, let from = change.oldPosition, let to = change.newPosition, from != to {
                lines.append("now stop \(to) (was \(from))")
            }
            for p in change.properties {
                lines.append("detail '\(Self.detailName(p.key))': \(p.old ?? "(none)") → \(p.new ?? "(none)")")
            }
            lines += change.assets.map(assetLine)
            let title: String
            switch change.kind {
            case .added: title = "Added: \(change.name)" + (change.newPosition.map { " (stop \($0))" } ?? "")
            case .removed:
                title = "Removed: \(change.name)" + (change.oldPosition.map { " (was stop \($0))" } ?? "")
            case .changed: title = "Changed: " + (change.newPosition.map { "stop \($0), " } ?? "") + change.name
            }
            stops.append(
                DiffView.Stop(
                    title: title, lines: lines, hasLines: !lines.isEmpty, words: words(change.description),
                    hasWords: change.description != nil, kind: change.kind.rawValue))
        }
        let tour = diff.tour.map {
            DiffView.Tour(field: $0.field, old: $0.old, new: $0.new, words: words($0.words), hasWords: $0.words != nil)
        }
        var other: [String] = diff.maps.map(assetLine)
        // A reorder, in the ranger's numbering: which stop is now where.
        if let moves = diff.moves, !moves.isEmpty {
            other.insert(
                "The order of the stops changed: "
                    + moves.map { "'\($0.name)' is now stop \($0.newPosition) (was \($0.oldPosition))" }
                    .joined(separator: "; "), at: 0)
        } else if let order = diff.newOrder {
            other.insert("The order of the stops changed: now " + order.joined(separator: ", "), at: 0)
        }
        if let route = diff.route { other.insert(Self.routeWords(route), at: 0) }
        if diff.oldFrame != nil, diff.oldFrame != diff.newFrame { other.append("the map frame changed") }
        if let change = diff.sizeChange, abs(change) >= 1024 {
            other.append("the package is \(size(abs(change))) \(change > 0 ? "larger" : "smaller")")
        }
        if let change = diff.languages {
            func list(_ tags: [String]) -> String {
                tags.isEmpty ? "one unnamed language" : tags.map(PanelLanguage.name).joined(separator: ", ")
            }
            var line = "Languages: \(list(change.old)) → \(list(change.new))"
            let added = change.new.filter { !change.old.contains($0) },
                gone = change.old.filter { !change.new.contains($0) }
            if !added.isEmpty { line += "; added \(list(added))" }
            if !gone.isEmpty { line += "; removed \(list(gone))" }
            if change.old.first != change.new.first, let first = change.new.first {
                line += "; the default language is now \(PanelLanguage.name(first))"
            }
            other.insert(line, at: 0)
        }
        var byLanguage: [DiffView.Language] = []
        for change in diff.translations {
            let field = PanelLanguage.fieldWords[change.field] ?? change.field
            var place = change.stop.map { "Stop \(change.position.map(String.init) ?? "?"), \($0)" } ?? "The tour"
            place += " — " + (change.file.map { "\(field) of \($0)" } ?? field)
            let row = DiffView.Translation(
                place: place, old: change.old ?? "", new: change.new ?? "", words: words(change.words),
                hasWords: change.words != nil, added: change.old == nil, removed: change.new == nil,
                changed: change.old != nil && change.new != nil && change.words == nil)
            if let last = byLanguage.indices.last, byLanguage[last].tag == change.language {
                byLanguage[last].changes.append(row)
                byLanguage[last].count += 1
            } else {
                byLanguage.append(
                    DiffView.Language(
                        tag: change.language, id: PanelLanguage.id(change.language),
                        title: PanelLanguage.title(change.language), changes: [row], count: 1))
            }
        }
        return DiffView(
            firstRelease: diff.firstRelease, against: diff.old?.version ?? "", hasChanges: diff.hasChanges,
            stops: stops, tour: tour, other: other, hasOther: !other.isEmpty, byLanguage: byLanguage,
            hasByLanguage: !byLanguage.isEmpty, count: stops.count + tour.count + other.count + diff.translations.count)
    }

    /// The approval form as sent with a file (multipart, its token in the address): the pasted text,
    /// or the chosen `.minisig` file's text when one was chosen (at most 64 KiB).
    func signatureForm(_ request: Request) async throws -> PanelForm {
        let boundary = Self.multipartBoundary(request.headers[.contentType]) ?? ""
        let temp = try dataFolder.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: temp) }  // ours: made just above
        let receiver = MultipartFiles(folder: temp, limit: 64 << 10, pool: pool)
        do { try await Self.receive(request, boundary: boundary, into: receiver) } catch let error as PanelError
            where error.code == .tooLarge
        {
            throw PanelError(
                code: .tooLarge, message: "that file is not a signature (a .minisig file is a few hundred bytes)")
        }
        var fields = receiver.texts.map { (name: $0.key, value: $0.value) }
        if let file = receiver.files.first,
            let bytes = try? FileOperations.readAll(file.temp, limit: 64 << 10), !bytes.isEmpty
        {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw PanelError(
                    status: .unprocessableContent,
                    message:
                        "'\(file.name.value)' is not a .minisig file (it is not text): choose the file 'trailpack sign' or minisign made"
                )
            }
            fields.removeAll { $0.name == "signature" }
            fields.append((name: "signature", value: text))
        }
        return PanelForm(fields: fields)
    }

    /// A minisign signature whose trusted comment (`timestamp:N\tfile:NAME\thashed\tid:…`, tab-separated
    /// fields) lost its tabs to spaces, with the tabs put back; nil when it has tabs or no such line.
    static func tabsRestored(_ text: String) -> String? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let at = lines.firstIndex(where: { $0.hasPrefix("trusted comment: ") }), !lines[at].contains("\t")
        else { return nil }
        let comment = String(lines[at].dropFirst("trusted comment: ".count))
        guard comment.hasPrefix("timestamp:") else { return nil }
        // Each field starts with its `key:` (or is `hashed`): the spaces before one were a tab.
        let restored = comment.replacing(/[ ]+(?=[a-z][a-z0-9]*:|hashed(?:[ ]|$))/, with: "\t")
        guard restored != comment else { return nil }
        lines[at] = "trusted comment: " + restored.trimmingCharacters(in: .whitespaces)
        return lines.joined(separator: "\n")
    }

    /// The route's change in words: added or removed with its length, or changed by how much and where.
    static func routeWords(_ change: PackageDiff.RouteChange) -> String {
        func km(_ metres: Double?) -> String { String(format: "%.1f km", (metres ?? 0) / 1000) }
        func climb(_ metres: Double?) -> String { metres.map { String(format: ", %.0f m of climb", $0) } ?? "" }
        switch change.kind {
        case .added: return "Route added: \(km(change.newLengthMetres))\(climb(change.newAscentMetres))"
        case .removed: return "Route removed (it was \(km(change.oldLengthMetres)))"
        case .changed:
            var parts: [String] = []
            if let old = change.oldLengthMetres, let new = change.newLengthMetres, abs(old - new) >= 10 {
                parts.append("\(km(old)) → \(km(new))")
            }
            if let moved = change.movedMetres {
                parts.append(
                    String(format: "the line moved up to %.0f m", moved)
                        + (change.movedAtMetres.map { " (near \(km($0)) along it)" } ?? ""))
            }
            if let old = change.oldStages, let new = change.newStages {
                parts.append("stages: \(old.joined(separator: ", ")) → \(new.joined(separator: ", "))")
            }
            return "Route changed" + (parts.isEmpty ? "" : ": " + parts.joined(separator: "; "))
        }
    }

    // MARK: the package's files, streamed out of it

    /// One asset of the stored package, read through `PackageReader.openAsset` (checked against the
    /// manifest as it streams) with HTTP Range, so a video can be sought in the browser.
    func packageAsset(_ visitor: Visitor, id: String, version: String, request: Request) async throws -> Response {
        let record = try await record(visitor, id: id, version: version)
        let assetPath = request.uri.queryParameters.get("path") ?? ""
        let blob = try await blobs.localFile(for: BlobNames.digest(record.summary.sha256))
        let reader: PackageReader
        do { reader = try PackageReader(path: blob) } catch {
            throw PanelError(status: .unprocessableContent, message: "the stored package cannot be read: \(error)")
        }
        let asset: Asset
        do { asset = try reader.asset(assetPath) } catch { throw PanelError(status: .notFound, message: "\(error)") }
        let total = asset.size
        var start: Int64 = 0, end = total - 1
        var status: HTTPResponse.Status = .ok
        // The type is read from the file's first bytes, never taken from the manifest (which may call
        // an HTML page image/png); only media and plain text are inline, and nothing runs in our origin.
        let head: [UInt8]
        do { head = try Self.head(reader.openAsset(assetPath)) } catch {
            throw PanelError(status: .unprocessableContent, message: "\(error)")
        }
        let served = ContentSniff.served(head)
        var headers: HTTPFields = [
            .contentType: served.contentType, .acceptRanges: "bytes", .cacheControl: "private, no-store",
            .eTag: "\"\(asset.sha256)\"",
        ]
        headers[.contentSecurityPolicy] = ContentSniff.Served.contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        if !served.inline { headers[.contentDisposition] = ContentSniff.Served.attachment }
        if let range = request.headers[.range], total > 0 {
            guard let (a, b) = Self.byteRange(range, size: total) else {
                return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(total)"])
            }
            (start, end, status) = (a, b, .partialContent)
            headers[.contentRange] = "bytes \(a)-\(b)/\(total)"
        }
        headers[.contentLength] = String(max(0, end - start + 1))
        let wanted = end - start + 1, first = start, whole = start == 0 && end == total - 1
        let body = ResponseBody { writer in
            let stream = try reader.openAsset(assetPath)
            let start = first
            var skipped: Int64 = 0, sent: Int64 = 0
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
            defer { buffer.deallocate() }
            while sent < wanted {
                let n = try stream.read(into: buffer)
                if n == 0 { break }
                var chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
                if skipped < start {
                    let skip = Int(min(Int64(n), start - skipped))
                    skipped += Int64(skip)
                    chunk = UnsafeRawBufferPointer(rebasing: chunk[skip...])
                }
                if chunk.isEmpty { continue }
                let take = Int(min(Int64(chunk.count), wanted - sent))
                try await writer.write(ByteBuffer(bytes: chunk[0..<take]))
                sent += Int64(take)
            }
            // The whole asset was asked for: read to the end so its size, CRC-32 and SHA-256 are checked.
            if whole { while try stream.read(into: buffer) > 0 {} }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// The first `ContentSniff.prefixLength` bytes of an asset (all of a shorter one, then checked to its end).
    static func head(_ stream: AssetStream) throws(PackageError) -> [UInt8] {
        var head: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ContentSniff.prefixLength, alignment: 16)
        defer { buffer.deallocate() }
        while head.count < ContentSniff.prefixLength {
            let n = try stream.read(
                into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(ContentSniff.prefixLength - head.count)]))
            if n == 0 { break }
            head += buffer[0..<n]
        }
        return head
    }

    /// The stored package itself, for a reviewer to sign offline (any version they may see, released or not).
    func packageFile(
        _ visitor: Visitor, id: String, version: String, context: AppRequestContext
    ) async throws -> Response {
        let record = try await record(visitor, id: id, version: version)
        let path = try await blobs.localFile(for: BlobNames.digest(record.summary.sha256))
        let body = try await fileIO.loadFile(path: path, context: context)
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/zip",
                .contentDisposition: "attachment; filename=\"\(id)-\(record.summary.version).zip\"",
                .cacheControl: "private, no-store", .eTag: "\"\(record.summary.sha256)\"",
            ], body: body)
    }

    /// A single `bytes=a-b`, `bytes=a-` or `bytes=-n` range within `size`, or nil.
    static func byteRange(_ header: String, size: Int64) -> (Int64, Int64)? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard spec.count == 2 else { return nil }
        if spec[0].isEmpty {
            guard let n = Int64(spec[1]), n > 0 else { return nil }
            return (max(0, size - n), size - 1)
        }
        guard let a = Int64(spec[0]), a >= 0, a < size else { return nil }
        if spec[1].isEmpty { return (a, size - 1) }
        guard let b = Int64(spec[1]), b >= a else { return nil }
        return (a, min(b, size - 1))
    }

    // MARK: decisions

    func decide(
        _ visitor: Visitor, id: String, version: String, action: String, request: Request
    ) async throws -> Response {
        let record = try await record(visitor, id: id, version: version)
        // The approval form is multipart (a .minisig file may be chosen); the others are urlencoded.
        let form =
            try await Self.multipartBoundary(request.headers[.contentType]) == nil
            ? PanelForm.read(request) : signatureForm(request)
        let page = Self.versionPath(id, version)
        var signature: String?
        var reason: String?
        let transition: Catalog.Transition
        switch action {
        case "approve":
            transition = .approve
            // A browser sends a textarea's line breaks as CRLF; a .minisig file has LF.
            let text = form.text("signature").replacingOccurrences(of: "\r\n", with: "\n").trimmingCharacters(
                in: .whitespacesAndNewlines)
            if !text.isEmpty {
                let user = visitor.user
                let publishing = signatures
                do {
                    try await publishing.check(text + "\n", package: id, version: version, user: user)
                    signature = text + "\n"
                } catch let error as ServerError {
                    // Pasted through an editor or a mail, the trusted comment's tabs often become spaces:
                    // the signed line put back as minisign wrote it is checked; it is accepted only if it verifies.
                    if let repaired = Self.tabsRestored(text),
                        (try? await publishing.check(
                            repaired + "\n", package: id, version: version, user: user)) != nil
                    {
                        signature = repaired + "\n"
                    } else {
                        let damaged = Self.tabsRestored(text) != nil
                        throw PanelError(
                            status: .unprocessableContent,
                            message: "the signature was not accepted: \(error.message). "
                                + (damaged
                                    ? "Its 'trusted comment' line has spaces where minisign writes tab characters "
                                        + "(copying through an editor or a mail changes them): choose the .minisig "
                                        + "file itself under 'or choose the .minisig file' instead of pasting it. "
                                    : "")
                                + "Sign exactly this package's file (\(record.summary.sha256.prefix(12))…, the "
                                + "file you downloaded from this page) with your own key, then give the whole .minisig file"
                        )
                    }
                }
            }
        case "deny":
            transition = .deny
            reason = form.text("reason").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !(reason ?? "").isEmpty else {
                throw PanelError(message: "say why the version is denied: the publisher reads the reason to fix it")
            }
        case "release": transition = .push
        case "request": transition = .start
        case "withdraw":
            transition = .withdraw
            reason = form.text("reason").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !(reason ?? "").isEmpty else {
                throw PanelError(message: "say why the version is withdrawn (it is kept in the audit log)")
            }
        default:
            throw PanelError(
                status: .notFound,
                message: "there is no action '\(action)'; the actions are approve, deny, release, request and withdraw")
        }
        let outcome = try await catalog.apply(
            transition, package: id, version: version, by: visitor.user, required: approvals,
            signature: signature, reason: reason)
        switch outcome {
        case .notFound: throw PanelError(status: .notFound, message: "there is no version \(version) of '\(id)'")
        case .forbidden(let why): throw PanelError(status: .forbidden, message: why)
        case .illegal(_, let why): throw PanelError(status: .conflict, message: "not done: \(why)")
        case .moved(_, let to, let approvals):
            mail?.after(
                transition, outcome: outcome, package: id, version: version, by: visitor.user, reason: reason)
            logger.info(
                "panel: version \(action)",
                metadata: ["by": "\(visitor.user.name)", "package": "\(id)", "version": "\(version)", "now": "\(to)"])
            let words: String =
                switch transition {
                case .approve:
                    signature == nil
                        ? "Approved (\(approvals) of \(approvals)); the version is now \(Self.statusWords(to))."
                        : "Approved with your signature (\(approvals) of \(approvals)); the version is now \(Self.statusWords(to))."
                case .deny: "Sent back; the publisher sees your reason on the tour's page."
                case .push: "Released: the phones' list now offers version \(version)."
                case .start: "Review requested; the version is now \(Self.statusWords(to))."
                case .withdraw: "Withdrawn: the phones' list no longer offers version \(version)."
                }
            if transition == .push { await settleKeptTexts(record) }
            return await redirect(visitor, to: page, saying: words)
        }
    }

    /// A version released: the drafts of its tour let go of the kept texts of languages it does not
    /// have (a language removed and released without is gone for good). A failure only leaves them kept.
    func settleKeptTexts(_ record: Catalog.VersionRecord) async {
        let site = record.summary.site, id = record.summary.id
        guard
            let stored = try? await catalog.version(package: id, version: record.summary.version, releasedOnly: true),
            let manifest = ManifestReader.read(Array(stored.manifest.utf8)).manifest
        else { return }
        let drafts = drafts
        let keys = (try? await blocking { drafts.list(sites: [site]).filter { $0.id == id }.map(\.key) }) ?? []
        for key in keys {
            do throws(PanelError) {
                let gone = try await drafts.settleKeptTexts(key, released: manifest.languages)
                if !gone.isEmpty {
                    logger.info(
                        "panel: kept texts let go after a release",
                        metadata: ["draft": "\(key.path)", "languages": "\(gone.joined(separator: ","))"])
                }
            } catch {
                logger.warning(
                    "panel: kept texts not settled after a release",
                    metadata: ["draft": "\(key.path)", "error": "\(error.message)"])
            }
        }
    }

    // MARK: a tour's history

    func history(_ visitor: Visitor, id: String) async throws -> Response {
        let records = try await catalog.history(package: id)
        guard let first = records.first, mayView(visitor, site: first.summary.site) else {
            throw PanelError(status: .notFound, message: "there is no package '\(id)' you may see")
        }
        let audit = try await catalog.auditLog(package: id)
        let rows = records.map { r in
            HistoryPage.Row(
                version: r.summary.version, status: Self.statusWords(r.summary.status),
                uploaded: Self.shortTime(r.createdAt), publisher: r.uploadedBy, sha256: r.summary.sha256,
                size: Self.size(r.summary.size), link: Self.versionPath(id, r.summary.version),
                approvals: r.approvals.map {
                    ApprovalView(reviewer: $0.reviewer, at: Self.shortTime($0.at), signed: $0.signed)
                },
                released: r.summary.status == .released, download: "/v1/blobs/\(r.summary.sha256).zip",
                signatures:
                    "/v1/packages/\(Self.pathSegment(id))/versions/\(Self.pathSegment(r.summary.version))/signatures")
        }
        let timeline = audit.reversed().map { entry in
            let detail = Self.detailWords(entry.action, entry.detail)
            return HistoryPage.Event(
                at: Self.shortTime(entry.at), actor: entry.actor, action: Self.actionWords(entry.action),
                version: entry.version?.isEmpty == false ? entry.version : nil, detail: detail.isEmpty ? nil : detail)
        }
        return try page(
            HistoryPage(id: id, rows: rows, timeline: timeline), title: "\(first.summary.name): versions",
            visitor: visitor)
    }
}

extension ReviewController {
    /// The newest version of `id` older than `version` that a reviewer sent back (and that was not
    /// sent for review again since), or nil.
    func deniedBefore(_ id: String, version: String) async throws -> String? {
        guard let current = PackageVersion(version) else { return nil }
        let audit = try await catalog.auditLog(package: id)
        var denied: [PackageVersion: String] = [:]
        for entry in audit {
            guard let v = entry.version, let number = PackageVersion(v), number < current else { continue }
            if entry.action == Catalog.AuditAction.deny.rawValue { denied[number] = v }
            if entry.action == Catalog.AuditAction.start.rawValue { denied[number] = nil }
        }
        return denied.max { $0.key < $1.key }?.value
    }

    /// What an audit entry's action was, in the words of the review pages.
    static func actionWords(_ action: String) -> String {
        let words: [String: String] = [
            "upload": "built and stored", "upload-refused": "refused when stored",
            "scan-held": "held by the malware scan",
            "scan-skipped": "not scanned for malware", "rescan": "scanned again", "damaged": "found damaged",
            "restored": "repaired", "start": "sent for review", "approve": "approved", "deny": "sent back",
            "push": "released", "withdraw": "withdrawn", "start-refused": "could not be sent for review",
            "approve-refused": "approval refused", "deny-refused": "sending back refused",
            "push-refused": "release refused", "withdraw-refused": "withdrawal refused",
        ]
        return words[action] ?? action.replacingOccurrences(of: "-", with: " ")
    }

    /// An audit entry's detail without the workflow's state names: a reason stays; "pending → draft;
    /// approvals cleared" and the like say nothing the action does not.
    static func detailWords(_ action: String, _ detail: String) -> String {
        if action == "deny" { return "“\(denialReason(detail))”" }
        let states = Catalog.PublishStatus.allCases.map(\.rawValue)
        var parts = detail.components(separatedBy: "; ").filter { part in
            !states.contains { part.hasPrefix($0 + " → ") } && part != "approvals cleared"
        }
        parts = parts.map { $0.hasPrefix("sha256 ") || $0.count == 64 ? "" : $0 }.filter { !$0.isEmpty }
        return parts.joined(separator: "; ")
    }
}

/// The verifier's reports of stored packages, by SHA-256: a blob's bytes never change, so its report
/// does not either. Bounded: the oldest entries go past `limit`.
final class PanelReports: Sendable {
    /// The reports, and their keys oldest first.
    private struct Cache {
        var reports: [String: VerificationReport] = [:]
        var order: [String] = []
    }

    private let cache = Mutex(Cache())
    let limit: Int

    init(limit: Int = 64) { self.limit = limit }

    func report(sha256: String, make: () -> VerificationReport?) -> VerificationReport? {
        if let known = cache.withLock({ $0.reports[sha256] }) { return known }
        guard let made = make() else { return nil }
        cache.withLock { c in
            if c.reports[sha256] == nil {
                c.reports[sha256] = made
                c.order.append(sha256)
                while c.order.count > limit { c.reports[c.order.removeFirst()] = nil }
            }
        }
        return made
    }
}

extension PanelRoom {
    /// Where a version is in the workflow, in the pages' words (the catalog's names stay in
    /// `data-status` for scripts).
    static func statusWords(_ status: Catalog.PublishStatus) -> String {
        switch status {
        case .draft: "built, not sent for review"
        case .pending: "waiting for review"
        case .ready: "approved, ready to release"
        case .released: "released: visitors get it"
        case .withdrawn: "withdrawn"
        case .damaged: "out of service (its stored file was found damaged)"
        }
    }

    static func shortTime(_ iso: String) -> String {
        // "2026-11-24T14:20:09Z" → "2026-11-24 14:20 UTC"
        guard iso.count >= 16 else { return iso }
        return iso.prefix(10) + " " + iso.dropFirst(11).prefix(5) + " UTC"
    }

    /// The malware scan's verdict in plain words (the scanner's own detail, when it says more).
    static func scanWords(_ status: Catalog.ScanStatus, _ detail: String) -> String {
        switch status {
        case .clean: "No malware found" + (detail.isEmpty || detail == "clean" ? "" : " (\(detail))")
        case .notScanned: "Not scanned: this server is set not to scan uploads for malware"
        case .held:
            "Held: the scan could not vouch for these files"
                + (detail.isEmpty ? "" : " (\(detail))") + ". An administrator can scan it again"
        case .infected: "Malware found" + (detail.isEmpty ? "" : ": \(detail)") + ". It can never be released"
        }
    }
}

extension PanelRoom {
    static func versionPath(_ id: String, _ version: String) -> String {
        "/packages/\(pathSegment(id))/versions/\(pathSegment(version))"
    }
}

extension PanelVersionRoom {
    /// The versions a visitor may see: reviewers and admins every one; a publisher those of their sites.
    func mayView(_ visitor: Visitor, site: String) -> Bool {
        visitor.user.role != .publisher || visitor.sites.contains { $0.id == site }
    }

    func record(_ visitor: Visitor, id: String, version: String) async throws -> Catalog.VersionRecord {
        guard let record = try await catalog.record(package: id, version: version),
            mayView(visitor, site: record.summary.site)
        else {
            throw PanelError(status: .notFound, message: "there is no version \(version) of '\(id)' you may see")
        }
        return record
    }
}

extension PanelRoom {
    /// A stop detail's key as a ranger reads it, for pages that see only the package (which keeps the
    /// key, not the label the ranger gave): "elevationMeters" → "Elevation (m)", "trail_surface" →
    /// "Trail surface". A key that is no identifier is shown as it is.
    static func detailName(_ key: String) -> String {
        guard key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }),
            key.contains(where: \.isLetter)
        else { return key }
        var words: [String] = []
        var current = ""
        for c in key {
            if c == "_" || c == "-" {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else if c.isUppercase, let last = current.last, last.isLowercase || last.isNumber {
                words.append(current)
                current = String(c)
            } else {
                current.append(c)
            }
        }
        if !current.isEmpty { words.append(current) }
        let units = [
            "meters": "(m)", "metres": "(m)", "feet": "(ft)", "miles": "(mi)", "km": "(km)", "kilometers": "(km)",
            "kilometres": "(km)", "minutes": "(min)", "percent": "(%)",
        ]
        var out: [String] = []
        for (n, word) in words.enumerated() {
            let lower = word.lowercased()
            if n > 0, n == words.count - 1, let unit = units[lower] {
                out.append(unit)
            } else if word.count > 1, word == word.uppercased(), word.contains(where: \.isLetter) {
                out.append(word)  // an acronym: ADA, GPS
            } else {
                out.append(lower)
            }
        }
        guard var first = out.first else { return key }
        first = first.prefix(1).uppercased() + first.dropFirst()
        out[0] = first
        return out.joined(separator: " ")
    }
}
