import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TrailPackBuilder
import TrailPackCatalogModel
import TrailPackCore
import TrailPackServer

/// The tours being edited: the list, a new tour, the editor (map, stops, findings) and its saves.
extension DraftsController {
    /// Whether the page's script asked for a JSON answer (an autosave) rather than a page.
    static func wantsJSON(_ request: Request) -> Bool {
        request.headers[.accept]?.contains("application/json") == true
    }

    func stopIndex(_ context: AppRequestContext) throws -> Int {
        // At most the format's 10,000 stops: arithmetic on the number can never overflow.
        guard let n = Int(try context.parameters.require("stop")), (1...10_000).contains(n) else {
            throw PanelError(status: .notFound, message: "there is no such stop")
        }
        return n - 1
    }

    // MARK: the list and a new tour

    /// Tours on one page of the list; the rest are reached by the page links or the search box.
    static let draftsPerPage = 50

    func home(_ visitor: Visitor, request: Request) async throws -> Response {
        let siteIDs =
            visitor.user.role == .admin
            ? Self.names(in: drafts.root).union(visitor.sites.map(\.id)).sorted() : visitor.sites.map(\.id)
        let store = drafts
        var list = visitor.canEdit ? try await blocking { store.list(sites: siteIDs) } : []
        // The most recently saved first; a search matches the tour's name or folder, any case and accent.
        let query = (request.uri.queryParameters.get("q") ?? "").trimmingCharacters(in: .whitespaces)
        let total = list.count
        if !query.isEmpty {
            list = list.filter {
                $0.name.range(of: query, options: [.caseInsensitive, .diacriticInsensitive]) != nil
                    || $0.key.tour.range(of: query, options: [.caseInsensitive, .diacriticInsensitive]) != nil
            }
        }
        // Newest first; the same time (to the second: drafts copied or imported together) by site and
        // folder, compared as bytes (both are ASCII: `Key`), without making the paths.
        list.sort { a, b in
            if a.modified != b.modified { return a.modified > b.modified }
            if a.key.site != b.key.site { return a.key.site.utf8.lexicographicallyPrecedes(b.key.site.utf8) }
            return a.key.tour.utf8.lexicographicallyPrecedes(b.key.tour.utf8)
        }
        let pages = max(1, (list.count + Self.draftsPerPage - 1) / Self.draftsPerPage)
        let pageNumber = min(max(Int(request.uri.queryParameters.get("page") ?? "") ?? 1, 1), pages)
        let shown = list.dropFirst((pageNumber - 1) * Self.draftsPerPage).prefix(Self.draftsPerPage)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        var rows: [HomePage.Row] = []
        for draft in shown {
            // Where its newest built version is in review (one catalog read a row: a page holds at most 50).
            let review = draft.id.isEmpty ? nil : try await reviewState(draft.id)
            rows.append(
                HomePage.Row(
                    name: draft.name, site: draft.key.site, link: draft.key.path, stops: draft.stops,
                    modified: formatter.string(from: draft.modified), review: review?.view))
        }
        func pageLink(_ n: Int) -> String {
            var items = [URLQueryItem(name: "page", value: String(n))]
            if !query.isEmpty { items.insert(URLQueryItem(name: "q", value: query), at: 0) }
            var components = URLComponents()
            components.path = "/"
            components.queryItems = items
            return components.string ?? "/"
        }
        let pager = HomePage.Pager(
            number: pageNumber, count: pages, previous: pageNumber > 1 ? pageLink(pageNumber - 1) : nil,
            next: pageNumber < pages ? pageLink(pageNumber + 1) : nil)
        let sites = visitor.sites.map { HomePage.Site(id: $0.id, name: $0.name) }
        var body = HomePage(
            drafts: rows, hasDrafts: !rows.isEmpty, sites: sites,
            hasSites: !sites.isEmpty || visitor.user.role == .admin, canEdit: visitor.canEdit,
            isAdmin: visitor.user.role == .admin, draftCount: total, query: query, matching: list.count,
            searched: !query.isEmpty, pager: pages > 1 ? pager : nil, searchable: total > 10)
        if visitor.canEdit {
            body.deleted = try await deletedRows(sites: siteIDs)
            body.hasDeleted = !body.deleted.isEmpty
        }
        body.notice = await notice(visitor, request)
        return try page(body, title: "Tours", visitor: visitor)
    }

    static func names(in folder: String) -> Set<String> {
        Set(((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") })
    }

    func createDraft(_ visitor: Visitor, request: Request) async throws -> Response {
        let form = try await PanelForm.read(request)
        let site = form.text("site")
        guard Slug.isValid(site) else {
            throw PanelError(
                message:
                    "choose the site the tour belongs to (a site id is lowercase letters, digits and hyphens, such as mckenzie-river-district)"
            )
        }
        try requireSite(visitor, site)
        let name = form.text("name")
        guard !name.isEmpty else {
            throw PanelError(message: "give the tour a name: it is what visitors see in the app's list")
        }
        let slug = TourDraft.slug(name)
        guard let key = DraftStore.Key(site: site, tour: slug.isEmpty ? "tour" : slug) else {
            throw PanelError(message: "the name '\(name)' gives no usable folder name; use some letters or digits")
        }
        var draft = TourDraft()
        draft.name = name
        draft.park = form.text("park")
        draft.siteID = site
        draft.siteName = visitor.sites.first(where: { $0.id == site })?.name ?? site
        if !form.text("siteName").isEmpty { draft.siteName = form.text("siteName") }
        draft.id = "\(site).\(key.tour)"
        draft.version = "1.0.0"
        draft.mapName = key.tour
        draft.description = form.text("description")
        _ = try await drafts.create(key, draft: draft)
        logger.info("panel: draft created", metadata: ["by": "\(visitor.user.name)", "draft": "\(key.path)"])
        return Self.redirect(key.path)
    }

    // MARK: the editor

    /// The draft's findings: the builder's own checks on the folder (nothing hashed), placed on fields.
    /// `kept` is the draft's folder at the revision the draft was loaded at: the plan is kept under it.
    func findings(_ key: DraftStore.Key, draft: TourDraft, kept: PanelPlans.Folder) async throws -> [PanelFinding] {
        let folder = drafts.folder(key)
        let budget = configuration.budget
        let found = try await blocking {
            try kept.findings {
                try TourBuilder.plan(folder, budget: budget, hashAssets: false).findings
            }
        }
        return PanelFinding.place(found, draft: draft)
    }

    /// The values of the page's findings list (the `findings` partial): each finding with its link, the counts, the heading.
    static func findingsSection(_ list: [PanelFinding], path: String, heading: String) -> FindingsSection {
        FindingsSection(
            findings: list.map {
                FindingView(
                    severity: $0.severity, mustFix: $0.mustFix, label: $0.label, message: $0.message,
                    link: $0.link(draftPath: path), code: $0.code)
            }, heading: heading)
    }

    /// Messages by field id, for the `{{#fields.tour_name}}` blocks beside each field.
    static func byField(_ list: [PanelFinding]) -> [String: [FieldNoteView]] {
        var out: [String: [FieldNoteView]] = [:]
        for f in list {
            out[f.field.replacingOccurrences(of: "-", with: "_"), default: []].append(
                FieldNoteView(message: f.message, mustFix: f.mustFix))
        }
        return out
    }

    func editor(_ visitor: Visitor, _ key: DraftStore.Key, request: Request) async throws -> Response {
        let snapshot = try await drafts.load(key), draft = snapshot.draft, revision = snapshot.revision
        // The folder's plan and route, each kept under the revision the draft was loaded at.
        let folder = drafts.folder(key)
        let kept = plans.folder(key, revision: revision)
        let all = try await findings(key, draft: draft, kept: kept)
        let tourFindings = all.filter { $0.stop == nil }
        // The route as the package will have it, and each stop's place on it.
        let routed = try await blocking { kept.route { Self.draftRoute(folder: folder, draft: draft) } }
        let onRoute = Dictionary(
            (routed?.route.summary.stops ?? []).map { ($0.slug, $0) }, uniquingKeysWith: { first, _ in first })
        // Which language's texts the details form edits (`?lang=`), and how complete each one is.
        let language = PanelLanguage.chosen(request.uri.queryParameters.get("lang"), in: draft)
        let counted = try await countingManifest(key, draft)
        let meters = PanelLanguage.meters(counted)
        var untranslated: [Int: Int] = [:]
        for item in counted.completeness.flatMap(\.missing) {
            if let n = item.stop { untranslated[n, default: 0] += 1 }
        }
        let stops: [EditorPage.Stop] = draft.stops.enumerated().map { index, stop in
            let ofStop = all.filter { $0.stop == index }
            let toFix = ofStop.filter(\.mustFix).count
            let gaps = untranslated[index + 1] ?? 0
            return EditorPage.Stop(
                number: index + 1, name: stop.name.isEmpty ? "(no name)" : stop.name,
                link: "\(key.path)/stops/\(index + 1)",
                latitude: stop.coordinate.map { Self.degrees($0.latitude) } ?? "",
                longitude: stop.coordinate.map { Self.degrees($0.longitude) } ?? "",
                notFirst: index > 0, notLast: index < draft.stops.count - 1,
                files: Self.filesWords(stop.assets.count),
                toFix: toFix, hasToFix: toFix > 0, toCheck: ofStop.count - toFix, hasToCheck: ofStop.count > toFix,
                action: "\(key.path)/stops/\(index + 1)",
                untranslated: gaps, hasUntranslated: gaps > 0, along: Self.alongWords(onRoute[stop.slug]))
        }
        let mapStops = JSONWriter.string(
            .array(
                draft.stops.enumerated().compactMap { index, stop in
                    stop.coordinate.map { c in
                        .object([
                            JSONMember("n", .number(JSONNumber(Int64(index + 1)))),
                            JSONMember("name", .string(stop.name)),
                            JSONMember("lat", .number(JSONNumber(c.latitude))),
                            JSONMember("lon", .number(JSONNumber(c.longitude))),
                            JSONMember("action", .string("\(key.path)/stops/\(index + 1)/move")),
                            JSONMember("rev", .string(drafts.stopRevision(key, draft: draft, index: index))),
                        ])
                    }
                }), pretty: false)
        let routeCoordinates = (routed?.route.lines ?? []).flatMap { $0.map(\.coordinate) }
        let frame = draft.bounds ?? Bounds.enclosing(draft.stops.compactMap(\.coordinate) + routeCoordinates)
        let languages = Self.languageValues(
            draft, key: key, language: language, meters: meters, kept: drafts.keptTexts(key))
        let findings = Self.findingsSection(all, path: key.path, heading: "What to fix before building")
        var body = EditorPage(
            draft: EditorPage.Draft(
                name: draft.name, park: draft.park, siteID: draft.siteID, siteName: draft.siteName, id: draft.id,
                version: draft.version, description: draft.description, path: key.path),
            revision: revision, stops: stops, hasStops: !stops.isEmpty, mapStops: mapStops,
            was: Self.shownValues(draft), fields: Self.byField(tourFindings), followStops: draft.bounds == nil,
            proposedVersion: try await proposedVersion(draft), review: try await reviewState(draft.id)?.view,
            languageSection: languages, findingsSection: findings, frame: frame.map(FrameView.init))
        if frame == nil, let view = try await siteView(key.site, park: draft.park, excluding: key) {
            body.view = FrameView(view)
        }
        let store = drafts
        let removed = try await blocking { store.removedStops(key) }
        body.removedStops = removed.enumerated().map { n, stop in
            EditorPage.RemovedStop(
                n: n + 1, aside: stop.aside, name: stop.name.isEmpty ? "Stop \(stop.number)" : stop.name,
                number: stop.number, ago: Self.ago(stop.removed))
        }
        body.hasRemovedStops = !removed.isEmpty
        body.notice = await notice(visitor, request)
        if let refused = request.uri.queryParameters.get("refused"),
            let problem = try? await sessions.takeProblem(id: visitor.session.id)
        {
            if refused == "route" { body.routeProblem = problem } else { body.languageProblem = problem }
        }
        if let routed {
            body.route = Self.routeView(
                routed.route, importedFrom: routed.importedFrom,
                stopNames: Dictionary(
                    draft.stops.map { ($0.slug, $0.name) }, uniquingKeysWith: { first, _ in first }))
        }
        body.maxTrack = Self.size(maxTrackBytes)
        body.maxTrackBytes = maxTrackBytes
        if configuration.tileURL == nil {
            let header = try await blocking { Self.draftMapHeader(folder) }
            if let own = Self.ownMapValues(tileURL: key.path + "/tiles", header: header) {
                body.ownMap = own
            } else {
                // No map of its own yet: the region map the operator gave the site, so a ranger sees roads
                // and rivers, not a bare grid.
                let path = drafts.siteMapPath(key.site)
                let siteHeader = try await blocking { Self.siteMapHeader(path) }
                if var own = Self.ownMapValues(tileURL: "/sites/\(key.site)/tiles", header: siteHeader) {
                    own.isRegion = true
                    body.ownMap = own
                    if body.frame == nil && body.view == nil { body.view = own.frame }
                }
            }
        }
        return try page(body, title: draft.name.isEmpty ? "Tour" : draft.name, visitor: visitor, map: true)
    }

    /// The languages section and the language tabs of the tour's page.
    struct LanguageValues: PanelSection {
        var hasLanguages: Bool
        var languageList: [EditorPage.Language]
        var requireAll: Bool
        var defaultLanguage: String
        var suggestions: [EditorPage.Suggestion]
        var onDefaultTab: Bool
        var tab: LanguageTabView
        var texts: EditorPage.Texts
        var tabs: LanguageTabsView
        /// Languages removed earlier whose texts are kept: "Add Spanish back" brings them back.
        var kept: [KeptLanguage] = []
        var hasKept = false
    }

    struct KeptLanguage: Codable, Sendable {
        var tag: String
        var name: String
        var count: Int
        var words: String
    }

    static func languageValues(
        _ draft: TourDraft, key: DraftStore.Key, language: String?, meters: [String: MeterView],
        kept: [String: TourDraft.KeptTexts] = [:]
    ) -> LanguageValues {
        let list: [EditorPage.Language] = draft.languages.enumerated().map { n, tag in
            EditorPage.Language(
                tag: tag, id: PanelLanguage.id(tag), label: PanelLanguage.label(tag), name: PanelLanguage.name(tag),
                isDefault: n == 0, meter: meters[tag], translate: "\(key.path)/translate/\(PanelLanguage.id(tag))",
                canRemove: n > 0 || draft.languages.count == 1)
        }
        let texts = EditorPage.Texts(
            name: draft.text(.name, in: language, defaultLanguage: draft.defaultLanguage) ?? "",
            park: draft.text(.park, in: language, defaultLanguage: draft.defaultLanguage) ?? "",
            description: draft.text(.description, in: language, defaultLanguage: draft.defaultLanguage) ?? "")
        var values = LanguageValues(
            hasLanguages: !draft.languages.isEmpty, languageList: list, requireAll: draft.requireAllLanguages,
            defaultLanguage: draft.defaultLanguage.map { PanelLanguage.title($0) } ?? "",
            suggestions: PanelLanguage.suggestionValues(draft), onDefaultTab: language == nil,
            tab: PanelLanguage.tab(draft, language), texts: texts,
            tabs: PanelLanguage.tabs(draft, current: language) { tag in
                key.path + (tag.map { "?lang=\(PanelLanguage.id($0))" } ?? "") + "#tour-details"
            })
        // Only once the tour has languages again (adding the first makes the texts so far the default's).
        if !draft.languages.isEmpty {
            defer { values.hasKept = !values.kept.isEmpty }
            values.kept = kept.filter { tag, texts in
                texts.count > 0 && !draft.languages.contains { $0.lowercased() == tag.lowercased() }
            }.sorted { $0.key < $1.key }.map { tag, texts in
                KeptLanguage(
                    tag: tag, name: PanelLanguage.name(tag), count: texts.count,
                    words:
                        "\(PanelLanguage.title(tag)): \(texts.count) translated text\(texts.count == 1 ? "" : "s") kept"
                )
            }
        }
        return values
    }

    func saveTour(_ visitor: Visitor, _ key: DraftStore.Key, request: Request) async throws -> Response {
        let form = try await PanelForm.read(request)
        // The tab of another language than the default: only its texts are in the form.
        if let language = PanelLanguage.chosen(form["language"], in: try await drafts.load(key).draft) {
            let saved = try await drafts.update(key, revision: form.text("revision"), by: visitor.saver) {
                draft throws(PanelError) in
                for (field, name) in [(TourTextField.name, "name"), (.park, "park"), (.description, "description")]
                where form[name] != nil {
                    draft.setText(field, in: language, defaultLanguage: draft.defaultLanguage, to: form.text(name))
                }
            }
            if Self.wantsJSON(request) { return Self.savedAnswer((saved, nil)) }
            return await redirect(
                visitor, to: key.path + "?lang=\(PanelLanguage.id(language))",
                saying: "The \(PanelLanguage.name(language)) texts were saved.", fragment: "#tour-details")
        }
        let frame = form["followStops"] == nil ? try Self.frame(form, named: "map frame") : nil
        let bounds = frame
        let saved: DraftStore.Snapshot
        if form["was-name"] != nil {
            // Field by field: what this page changed is taken, what another tab changed meanwhile is
            // kept; only a field both changed differently is a conflict.
            let outcome = await Self.result { () async throws(PanelError) -> DraftStore.Snapshot in
                try await drafts.update(key, revision: nil, by: visitor.saver) { draft throws(PanelError) in
                    var clashes: [String] = []
                    func merged(_ field: String, _ label: String, current: String, sent: String) -> String {
                        // A field the form does not have (the version: chosen when building) stays.
                        if field != "frame" && form[field] == nil { return current }
                        let was = form.text("was-" + field)
                        if sent == was { return current }
                        if current != was && current != sent { clashes.append(label) }
                        return sent
                    }
                    let name = merged("name", "name", current: draft.name, sent: form.text("name"))
                    let park = merged("park", "park or forest", current: draft.park, sent: form.text("park"))
                    let siteName = merged(
                        "siteName", "site name", current: draft.siteName, sent: form.text("siteName"))
                    let id = merged("id", "tour id", current: draft.id, sent: form.text("id"))
                    let version = merged("version", "version", current: draft.version, sent: form.text("version"))
                    let description = merged(
                        "description", "description", current: draft.description, sent: form.text("description"))
                    let frameText = merged(
                        "frame", "map frame", current: Self.frameText(draft.bounds), sent: Self.frameText(bounds))
                    guard clashes.isEmpty else {
                        let list =
                            clashes.count == 1
                            ? clashes[0] : clashes.dropLast().joined(separator: ", ") + " and " + clashes.last!
                        throw PanelError(code: .conflict, message: Self.fieldClash + list)
                    }
                    (draft.name, draft.park, draft.siteName) = (name, park, siteName)
                    (draft.id, draft.version, draft.description) = (id, version, description)
                    if frameText != Self.frameText(draft.bounds) { draft.bounds = bounds }
                }
            }
            switch outcome {
            case .success(let snapshot): saved = snapshot
            case .failure(let error) where error.message.hasPrefix(Self.fieldClash):
                let fields = error.message.dropFirst(Self.fieldClash.count)
                let general = conflict(key, visitor, request: request).message
                throw PanelError(
                    code: .conflict,
                    message: general.replacingOccurrences(of: "this tour", with: "this tour's \(fields)")
                        .replacingOccurrences(
                            of: "This tour was",
                            with: "This tour's \(fields) \(fields.contains(" and ") ? "were" : "was")"))
            case .failure(let error): throw error
            }
        } else {
            saved = try await drafts.update(key, revision: form.text("revision"), by: visitor.saver) {
                draft throws(PanelError) in
                draft.name = form.text("name")
                draft.park = form.text("park")
                draft.siteName = form.text("siteName")
                draft.id = form.text("id")
                if let version = form["version"] { draft.version = version }
                draft.description = form.text("description")
                draft.bounds = bounds
            }
        }
        if Self.wantsJSON(request) { return Self.savedAnswer((saved, nil)) }
        return Self.redirect(key.path + "?saved=1")
    }

    /// `body`'s value or its error, as a value.
    static func result<T>(_ body: () async throws(PanelError) -> T) async -> Result<T, PanelError> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    /// Marks a conflict of named tour fields (replaced by the plain message before it is shown).
    static let fieldClash = "\u{0}fields:"

    /// A map frame as one comparable text ("" when it follows the stops).
    static func frameText(_ bounds: Bounds?) -> String {
        guard let bounds else { return "" }
        return [
            bounds.southwest.latitude, bounds.southwest.longitude, bounds.northeast.latitude,
            bounds.northeast.longitude,
        ].map { String(format: "%.6f", $0) }.joined(separator: ",")
    }

    /// The values the details form showed, sent back with it so a save changes only what it changed.
    static func shownValues(_ draft: TourDraft) -> [EditorPage.Was] {
        [
            ("name", draft.name), ("park", draft.park), ("siteName", draft.siteName), ("id", draft.id),
            ("version", draft.version), ("description", draft.description), ("frame", frameText(draft.bounds)),
        ].map { EditorPage.Was(field: $0.0, value: $0.1) }
    }

    /// A stop's files in words: "no files yet", "1 file", "12 files".
    static func filesWords(_ count: Int) -> String {
        switch count {
        case 0: "no files yet"
        case 1: "1 file"
        default: "\(count) files"
        }
    }

    /// A coordinate typed or sent by the map: decimal degrees or degrees, minutes and seconds.
    static func coordinate(_ form: PanelForm) throws -> Coordinate {
        func parse(_ field: String, _ axis: CoordinateText.Axis) throws -> Double {
            switch CoordinateText.parse(form.text(field), axis: axis) {
            case .success(let v): return v
            case .failure(let e): throw PanelError(message: e.message)
            }
        }
        return Coordinate(latitude: try parse("latitude", .latitude), longitude: try parse("longitude", .longitude))
    }

    func addStop(_ visitor: Visitor, _ key: DraftStore.Key, request: Request) async throws -> Response {
        let form = try await PanelForm.read(request)
        let coordinate = try Self.coordinate(form)
        let saved = try await drafts.update(key, revision: form.text("revision"), by: visitor.saver) {
            draft throws(PanelError) in
            let name = form.text("name").isEmpty ? "Stop \(draft.stops.count + 1)" : form.text("name")
            draft.stops.append(TourDraft.Stop(slug: draft.newStopSlug(for: name), name: name, coordinate: coordinate))
        }
        let number = saved.draft.stops.count
        if Self.wantsJSON(request) {
            // The page's script adds the marker and redraws the list: the map keeps its place and zoom.
            let stop = saved.draft.stops[number - 1]
            return Self.jsonMessage(
                .created, "Added stop \(number), \(stop.name).",
                extra: [
                    JSONMember("revision", .string(saved.revision)),
                    JSONMember(
                        "stop",
                        .object([
                            JSONMember("n", .number(JSONNumber(Int64(number)))),
                            JSONMember("name", .string(stop.name)),
                            JSONMember("lat", .number(JSONNumber(coordinate.latitude))),
                            JSONMember("lon", .number(JSONNumber(coordinate.longitude))),
                            JSONMember("action", .string("\(key.path)/stops/\(number)/move")),
                            JSONMember("rev", .string(drafts.stopRevision(key, draft: saved.draft, index: number - 1))),
                            JSONMember("link", .string("\(key.path)/stops/\(number)")),
                        ])),
                ])
        }
        return await redirect(visitor, to: key.path, saying: "Added stop \(number).", fragment: "#stop-\(number)")
    }

    /// A new order from drag and drop: `order` lists the stops' current numbers in their new order.
    func reorder(_ visitor: Visitor, _ key: DraftStore.Key, request: Request) async throws -> Response {
        let form = try await PanelForm.read(request)
        let order = form.text("order").split(separator: ",").compactMap { Int($0) }
        try await drafts.update(key, revision: form.text("revision"), by: visitor.saver) { draft throws(PanelError) in
            guard order.count == draft.stops.count, Set(order) == Set(1...max(1, draft.stops.count)) else {
                throw PanelError(
                    code: .unprocessable,
                    message: "the new order does not name every stop once; reload the page and try again")
            }
            draft.stops = order.map { draft.stops[$0 - 1] }
        }
        return Self.redirect(key.path + "?saved=1")
    }
}

extension PanelRoom {
    static func degrees(_ value: Double) -> String { String(format: "%.6f", value) }

    /// The frame a form's `south`, `west`, `north` and `east` fields give (degrees, as typed: `44.4`,
    /// `44°24'N`), or a refusal naming the edge; `what` names the frame in the words the page uses.
    static func frame(_ form: PanelForm, named what: String) throws -> Bounds {
        var numbers: [Double] = []
        for name in ["south", "west", "north", "east"] {
            switch CoordinateText.parse(
                form.text(name), axis: name == "south" || name == "north" ? .latitude : .longitude)
            {
            case .success(let v): numbers.append(v)
            case .failure(let e): throw PanelError(message: "\(what), \(name) edge: \(e.message)")
            }
        }
        guard numbers[0] < numbers[2] else {
            throw PanelError(message: "\(what): the south edge must be below the north edge; swap the two numbers")
        }
        guard numbers[1] != numbers[3] else {
            throw PanelError(message: "\(what): the west and east edges are the same line; give the frame some width")
        }
        return Bounds(
            southwest: Coordinate(latitude: numbers[0], longitude: numbers[1]),
            northeast: Coordinate(latitude: numbers[2], longitude: numbers[3]))
    }

    func requireSite(_ visitor: Visitor, _ site: String) throws {
        guard visitor.canEdit else {
            throw PanelError(
                status: .forbidden,
                message: "'\(visitor.user.name)' is a reviewer: reviewers review built versions; publishers edit tours")
        }
        guard visitor.user.role == .admin || visitor.sites.contains(where: { $0.id == site }) else {
            throw PanelError(
                status: .forbidden,
                message:
                    "You do not make tours for the site '\(site)' yet: ask an administrator to add it for you (on their People and sites page)."
            )
        }
    }
}

extension PanelDraftRoom {
    /// Runs `body` for a signed-in editor of the draft the URL names (a publisher only on a site granted to them).
    func draftRoute(
        _ request: Request, _ context: AppRequestContext, json: Bool = false,
        _ body: (Visitor, DraftStore.Key) async throws -> Response
    ) async -> Response {
        await signedIn(request, context, json: json) { visitor in
            guard
                let key = DraftStore.Key(
                    site: try context.parameters.require("site"), tour: try context.parameters.require("tour"))
            else {
                throw PanelError(
                    status: .notFound, message: "there is no such draft (a draft's address is /drafts/SITE/TOUR)")
            }
            try requireSite(visitor, key.site)
            do {
                return try await body(visitor, key)
            } catch let error as PanelError
                where error.code == .conflict && error.message == PanelError.conflict.message
            {
                throw conflict(key, visitor, request: request)
            }
        }
    }
}

extension PanelRoom {
}

extension PanelRoom {
    /// "just now", "3 minutes ago", "2 hours ago": when, without a time zone.
    static func ago(_ date: Date, now: Date = Date()) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return seconds / 60 == 1 ? "a minute ago" : "\(seconds / 60) minutes ago"
        case ..<86_400: return seconds / 3600 == 1 ? "an hour ago" : "\(seconds / 3600) hours ago"
        default: return seconds / 86_400 == 1 ? "yesterday" : "\(seconds / 86_400) days ago"
        }
    }
}

extension PanelDraftRoom {
    /// A save refused because the draft (or the stop) changed after the page was opened, said by who
    /// changed it: this person's other tab, this person elsewhere, or someone else by name.
    func conflict(_ key: DraftStore.Key, _ visitor: Visitor, request: Request) -> PanelError {
        let stop = request.uri.path.contains("/stops/")
        let what = stop ? "this stop" : "this tour"
        let fix =
            "what you just sent was not saved. Copy what you typed, reload the page to see the saved version, then make your change again"
        guard let last = drafts.lastSave(key) else {
            return PanelError(
                code: .conflict,
                message: "\(stop ? "This stop" : "This tour") was changed after this page was opened: \(fix).")
        }
        let when = Self.ago(last.at)
        let who: String
        if last.saver.user == visitor.user.name {
            who =
                last.saver.session == visitor.saver.session
                ? "You changed \(what) \(when) in another tab or window of this browser"
                : "You changed \(what) \(when) from another computer or browser"
        } else {
            who = "\(last.saver.user) changed \(what) \(when)"
        }
        return PanelError(code: .conflict, message: "\(who), after this page was opened: \(fix).")
    }
}
