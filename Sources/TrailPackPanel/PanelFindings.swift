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

    var isError: Bool { severity == "error" }

    /// The finding's place on the editor's pages: the anchor to link to.
    func link(draftPath: String) -> String {
        if let stop { return "\(draftPath)/stops/\(stop + 1)#\(field)" }
        return "\(draftPath)#\(field)"
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
            ($0.isError ? 0 : 1, $0.stop ?? -1) < ($1.isError ? 0 : 1, $1.stop ?? -1)
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
        if let stop {
            let name = draft.stops[stop].name.isEmpty ? "unnamed stop" : "'\(draft.stops[stop].name)'"
            label = "Stop \(stop + 1) \(name) — \(label)"
        }
        return PanelFinding(
            severity: finding.severity.rawValue, code: finding.code.rawValue, stop: stop, field: field, label: label,
            message: rangerWords(finding.message))
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
        pattern: #"cut one with 'trailpack map extract --tour [^']*'"#)

    /// The builder speaks of files (it is a command-line tool); the panel of pages and fields.
    static func rangerWords(_ message: String) -> String {
        var text = message
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
            (" (\"transcript\")", ""),
            ("(\"captions\": a .vtt file of the stop)", "(upload a .vtt captions file to the stop and choose it)"),
            (
                "delete \"bounds\" from the tour's details and the build draws them around every stop",
                "tick 'follow the stops' and the frame is drawn around every stop"
            ),
        ] {
            text = text.replacingOccurrences(of: from, with: to)
        }
        return text
    }
}
