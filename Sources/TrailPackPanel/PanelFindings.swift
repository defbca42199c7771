import Foundation
import TrailPackBuilder
import TrailPackCore

/// The builder's findings on a draft, placed where a ranger sees them: each one knows the stop and the
/// form field it concerns (mapped from its file and JSON path) and is said without file names.
struct PanelFinding: Sendable {
    var severity: String
    var code: String
    /// The stop's index, or nil for the tour itself.
    var stop: Int?
    /// The form field's id on its page (`tour-name`, `stop-description`, `stop-files`...).
    var field: String
    /// What the field is called on the page.
    var label: String
    var message: String
    /// The language whose tab shows the field (a missing translation), or nil for the default's.
    var language: String? = nil

    /// "Fix": the finding stops the build (an error) or a review request (severity `review`), the
    /// validator's severity deciding, as it does for Request review and the API; else "Check".
    var mustFix: Bool { Finding.Severity(rawValue: severity)?.blocksReview ?? true }

    /// The finding's place on the editor's pages: the anchor to link to (on the language's tab).
    func link(draftPath: String) -> String {
        let tab = language.map { "?lang=\(PanelLanguage.id($0))" } ?? ""
        if let stop { return "\(draftPath)/stops/\(stop + 1)\(tab)#\(field)" }
        return "\(draftPath)\(tab)#\(field)"
    }

    static func place(_ findings: [Finding], draft: TourDraft) -> [PanelFinding] {
        var findings = findings
        if draft.stops.isEmpty {
            // One finding says it, in the panel's terms (the folder's three say it of files and frames).
            findings.removeAll { [.sourceNoWaypoints, .waypointNone, .boundsDegenerate].contains($0.code) }
            findings.insert(
                Finding(
                    .waypointNone, path: JSONPath.root.member("waypoints"),
                    "the tour has no stops yet: click the map, or type a position under 'Add a stop'"), at: 0)
        }
        return findings.map { place($0, draft: draft) }.sorted {
            ($0.mustFix ? 0 : 1, $0.stop ?? -1) < ($1.mustFix ? 0 : 1, $1.stop ?? -1)
        }
    }

    static func place(_ finding: Finding, draft: TourDraft) -> PanelFinding {
        var stop: Int?
        var field = "tour-details", label = "Tour details"
        let file = finding.file ?? ""
        let path = finding.jsonPath?.components ?? []
        let head = if case .key(let key)? = path.first { key } else { "" }
        if file.hasPrefix("waypoints/") {
            let folder = file.dropFirst("waypoints/".count).split(separator: "/").first.map(String.init) ?? ""
            stop = draft.stops.firstIndex { $0.folder == folder }
            let inFile = file.hasSuffix("/" + TourSource.waypointFileName)
            switch (inFile, head) {
            case (true, "name"): (field, label) = ("stop-name", "Name")
            case (true, "description"): (field, label) = ("stop-description", "Description")
            case (true, "coordinate"): (field, label) = ("stop-latitude", "Position")
            case (true, "properties"): (field, label) = ("stop-properties", "Details")
            case (true, "accessibilityWaiver"): (field, label) = ("stop-waiver", "Accessibility waiver")
            case (true, "assets"):
                (field, label) = ("stop-files", "Files")
                if let index = Self.index(in: path), let stop, index < draft.stops[stop].assets.count {
                    field = "file-\(index + 1)"
                }
            default: (field, label) = ("stop-files", "Files")
            }
        } else if file == Manifest.entryName || file.isEmpty, head == "waypoints",
            case .index(let index)? = path.dropFirst().first, draft.stops.indices.contains(index)
        {
            // A finding on a stored package's manifest (`waypoints[0].assets[2].alt`): the stop's page.
            stop = index
            let keys = path.dropFirst(2).compactMap { if case .key(let key) = $0 { key } else { nil } }
            switch keys.first {
            case "name": (field, label) = ("stop-name", "Name")
            case "description": (field, label) = ("stop-description", "Description")
            case "coordinate": (field, label) = ("stop-latitude", "Position")
            case "properties": (field, label) = ("stop-properties", "Details")
            case "accessibilityWaiver": (field, label) = ("stop-waiver", "Accessibility waiver")
            default:
                (field, label) = ("stop-files", "Files")
                if let asset = Self.index(in: Array(path.dropFirst(2))), asset < draft.stops[index].assets.count {
                    field = "file-\(asset + 1)"
                }
            }
        } else if file == TourSource.tourFileName || file.isEmpty {
            switch head {
            case "name": (field, label) = ("tour-name", "Tour name")
            case "park": (field, label) = ("tour-park", "Park or forest")
            case "site": (field, label) = ("tour-site-name", "Site")
            case "id": (field, label) = ("tour-id", "Tour id")
            case "version": (field, label) = ("tour-version", "Version")
            case "description": (field, label) = ("tour-description", "Description")
            case "bounds", "mapName": (field, label) = ("tour-frame", "Map frame")
            case "waypoints": (field, label) = ("add-heading", "Stops")
            default: break
            }
        } else if file.hasPrefix("map") {
            (field, label) = ("tour-map", "Offline map")
        }
        // The route's findings (its file's, and its stages' in tour.json) are said beside the route.
        if DraftStore.routeFileNames.contains(file)
            || (finding.code.rawValue.hasPrefix("route.") && !file.hasPrefix("map"))
        {
            (field, label) = ("tour-route", "Route")
        }
        // Languages: a missing translation leads to the language's tab; the list of languages is on the tour's page.
        var language: String?
        if finding.code.rawValue.hasPrefix("language.") {
            language = draft.languages.dropFirst().first { finding.message.contains(LanguageTag.describe($0)) }
            let missing = [FindingCode.languageMissing, .languageRequired].contains(finding.code)
            if missing && stop != nil {
                (field, label) = ("stop-languages", "Translation")
            } else if missing || (stop == nil && ["", "languages", "requireAllLanguages"].contains(head)) {
                (field, label) = missing ? ("tour-details", "Tour details") : ("tour-languages", "Languages")
            }
            if finding.code == .languageDefaultMissing { language = nil }
        }
        if let stop {
            let name = draft.stops[stop].name.isEmpty ? "unnamed stop" : "'\(draft.stops[stop].name)'"
            label = "Stop \(stop + 1) \(name) — \(label)"
        }
        return PanelFinding(
            severity: finding.severity.rawValue, code: finding.code.rawValue, stop: stop, field: field, label: label,
            message: rangerWords(finding.message, draft: draft), language: language)
    }

    /// The index in `assets[2].title`.
    static func index(in path: [JSONPath.Component]) -> Int? {
        for component in path { if case .index(let index) = component { return index } }
        return nil
    }

    /// A stop's field named by its JSON path in a message: `'waypoints[3].description' is`.
    private static let fieldPath = try? NSRegularExpression(
        pattern: #"'waypoints\[\d+\]\.([a-zA-Z]+)(?:\.([a-zA-Z]+))?(?:\[\d+\])?(?:\.([a-zA-Z]+))?' (is|are|must|has)"#)
    /// The builder's advice to cut a map on the tour folder.
    private static let extractCommand = try? NSRegularExpression(
        pattern: #"cut one from a larger tile set with '[^']*trailpack map extract [^']*' \(SOURCE: [^)]*\)"#)

    /// A text named by its JSON key at the start of a message: `'alt' has no text in …`.
    private static let textKey = try? NSRegularExpression(
        pattern: #"^'(name|park|description|title|alt|transcript|captions)' (has|is)"#)
    /// A stop's file named by its path in the package: `'waypoints/mountain-house/narration.wav'`.
    private static let packagePath = try? NSRegularExpression(pattern: #"'waypoints/[a-z0-9-]+/([^'/]+)'"#)
    /// The validator's advice to write a text by its path: `give 'waypoints[0].assets[2].alt' first`.
    private static let givePath = try? NSRegularExpression(pattern: #"give '[^']*' first"#)

    /// The builder speaks of files (it is a command-line tool); the panel of pages and fields.
    static func rangerWords(_ message: String, draft: TourDraft? = nil) -> String {
        var text = message
        // Languages: texts by what they are called on the pages, and the tab to write them on.
        if let regex = textKey, let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            let key = Range(match.range(at: 1), in: text), let verb = Range(match.range(at: 2), in: text),
            let whole = Range(match.range, in: text)
        {
            let words = PanelLanguage.fieldWords[String(text[key])] ?? String(text[key])
            text.replaceSubrange(whole, with: "the \(words) \(text[verb])")
            text = text.replacingOccurrences(of: "the \(words) has no text in ", with: "there is no \(words) in ")
        }
        // The page names the stop already: its files by their names.
        if let regex = packagePath {
            text = regex.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "'$1'")
        }
        if let base = draft?.defaultLanguage {
            let tab = "write it on the \(PanelLanguage.name(base)) tab"
            text = text.replacingOccurrences(of: "add \"\(base)\": \"…\"", with: tab)
            if let regex = givePath {
                text = regex.stringByReplacingMatches(
                    in: text, range: NSRange(text.startIndex..., in: text),
                    withTemplate: NSRegularExpression.escapedTemplate(
                        for: "\(tab) first"))
            }
        }
        // "'waypoints[3].description' is empty" → "the description is empty" (the page already names the stop).
        if let regex = fieldPath {
            text = regex.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "the $1 $2 $3 $4")
            while text.contains("  ") { text = text.replacingOccurrences(of: "  ", with: " ") }
        }
        // The builder names the command to run on the tour folder; the panel's folder is on the server, not the ranger's.
        if let regex = extractCommand {
            text = regex.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text),
                withTemplate: "the server's operator can cut one from a regional map with 'trailpack map extract'")
        }
        for (from, to) in [
            ("in this waypoint.json", "on this stop's page"), ("this waypoint.json", "this stop's page"),
            ("in tour.json", "in the tour's details"), ("from tour.json", "from the tour's details"),
            ("waypoint.json", "the stop's page"), ("tour.json", "the tour's details"),
            ("the stop's \"accessibilityWaiver\"", "the stop's accessibility waiver"), (" (\"alt\")", ""),
            (" (\"requireAllLanguages\")", ""),
            (
                "add \"languages\" to the tour's details (the default language first)",
                "add the tour's languages under 'Languages' on the tour's page (the default language first)"
            ),
            ("declared in the tour's details", "listed under 'Languages' on the tour's page"),
            (
                "remove \"language\" if everyone shares it",
                "choose 'All languages' as its language if everyone shares it"
            ),
            (" (\"transcript\")", ""),
            ("(\"captions\": a .vtt file of the stop)", "(upload a .vtt captions file to the stop and choose it)"),
            (
                "delete \"bounds\" from the tour's details and the build draws them around every stop",
                "tick 'follow the stops' and the frame is drawn around every stop"
            ),
            // The route's warnings: the stops are put in order on the tour's page, the frame drawn there.
            (
                "renumber the stops in walking order, or check the route's direction",
                "put the stops in walking order (the Up and Down buttons under 'Stops, in order'), or check that the track was recorded in walking order"
            ),
            ("leaves the map bounds", "leaves the map frame"),
            (
                "widen the bounds, or leave them out of the tour's details and the build draws them around the route",
                "widen the map frame, or tick 'Follow the stops' and the frame is drawn around the stops and the route"
            ),
            ("check its coordinate, or the route misses it", "check its position, or the track misses it"),
            (
                "the tour folder holds both route.gpx and route.geojson; keep one (the route of a tour is one line)",
                "the tour has two routes (route.gpx and route.geojson, from the imported folder); add the track again under 'Route' and the panel keeps that one"
            ),
        ] {
            text = text.replacingOccurrences(of: from, with: to)
        }
        return text
    }
}
