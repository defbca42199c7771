import Foundation
import TrailPackCore

/// A `PackageDiff` for people (plain lines a reviewer reads top to bottom) and for programs (JSON).
public enum DiffText {
    /// The diff as JSON (the shape docs/DIFF.md describes; keys sorted, so it is stable).
    public static func jsonValue(_ diff: PackageDiff) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(diff)
        return try JSONParser.parse(Array(data)).value
    }

    /// The diff in words: what a reviewer must look at, one change per line. Every text from the
    /// packages is escaped for the terminal.
    public static func render(_ diff: PackageDiff) -> String {
        let e = TerminalText.escaped
        var lines: [String] = []
        let new = diff.new
        guard let old = diff.old else {
            lines.append(
                "\(e(new.id)) \(e(new.version)): a first release (no released version to compare with); \(new.stops) stops. Review all of it."
            )
            return lines.joined(separator: "\n") + "\n"
        }
        lines.append(
            "\(e(new.id)): \(e(old.version)) → \(e(new.version)), \(old.stops) → \(new.stops) stops"
                + (diff.sizeChange.map { ", package \(signedBytes($0))" } ?? ""))
        if let a = old.sha256, let b = new.sha256 { lines.append("  SHA-256 \(a) → \(b)") }
        guard diff.hasChanges else {
            lines.append(
                "No changes to the tour: the same stops, texts, files and map\(old.sha256 == new.sha256 ? "" : " (the packages' bytes differ: a rebuild)")."
            )
            return lines.joined(separator: "\n") + "\n"
        }
        for field in diff.tour {
            if let words = field.words {
                lines.append("Tour \(field.field): \(e(words.marked))")
            } else {
                lines.append("Tour \(field.field): \"\(e(field.old))\" → \"\(e(field.new))\"")
            }
        }
        if let a = diff.oldFrame, let b = diff.newFrame {
            lines.append("Map frame: \(frame(a)) → \(frame(b))")
        }
        if let route = diff.route { lines.append(routeLine(route)) }
        for stop in diff.stops {
            switch stop.kind {
            case .added:
                lines.append(
                    "+ Stop \(stop.newPosition ?? 0) \"\(e(stop.name))\" added at \(point(stop.newCoordinate))"
                        + (stop.assets.isEmpty ? "" : " with \(stop.assets.map { e($0.file) }.joined(separator: ", "))")
                )
            case .removed:
                lines.append(
                    "- Stop \(stop.oldPosition ?? 0) \"\(e(stop.name))\" removed (it had \(stop.assets.count) file\(stop.assets.count == 1 ? "" : "s"))"
                )
            case .changed:
                var head = "~ Stop \(stop.newPosition ?? 0) \"\(e(stop.name))\""
                if let oldName = stop.oldName { head += " (renamed from \"\(e(oldName))\")" }
                lines.append(head)
                if let metres = stop.movedMetres {
                    lines.append(
                        "    moved \(distance(metres)): \(point(stop.oldCoordinate)) → \(point(stop.newCoordinate))")
                }
                if let words = stop.description { lines.append("    description: \(e(words.marked))") }
                for p in stop.properties {
                    switch (p.old, p.new) {
                    case (nil, let v?): lines.append("    property \(e(p.key)) added: \(e(v))")
                    case (let v?, nil): lines.append("    property \(e(p.key)) removed (was \(e(v)))")
                    default: lines.append("    property \(e(p.key)): \(e(p.old ?? "")) → \(e(p.new ?? ""))")
                    }
                }
                for asset in stop.assets { lines.append("    " + assetLine(asset)) }
            }
        }
        if let a = diff.oldOrder, let b = diff.newOrder {
            lines.append(
                "Order of the stops kept: \(a.map { e($0) }.joined(separator: " · ")) → \(b.map { e($0) }.joined(separator: " · "))"
            )
        }
        for map in diff.maps { lines.append("Map " + assetLine(map)) }
        lines += languageLines(diff)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The declared languages' change and, language by language, the translated texts that changed.
    static func languageLines(_ diff: PackageDiff) -> [String] {
        let e = TerminalText.escaped
        var lines: [String] = []
        if let change = diff.languages {
            func list(_ tags: [String]) -> String {
                tags.isEmpty ? "none" : tags.map { e(LanguageTag.describe($0)) }.joined(separator: ", ")
            }
            lines.append("Languages: \(list(change.old)) → \(list(change.new))")
        }
        var language: String?
        var place: String?
        for t in diff.translations {
            if t.language != language {
                language = t.language
                place = nil
                lines.append("In \(e(LanguageTag.describe(t.language))):")
            }
            let here = t.stop.map { "Stop \(t.position ?? 0) \"\(e($0))\"" } ?? "Tour"
            if here != place {
                place = here
                lines.append("  ~ \(here)")
            }
            let what = t.file.map { "\(t.field) of \(e($0))" } ?? t.field
            switch (t.old, t.new) {
            case (nil, let v?): lines.append("    \(what) translated: \"\(e(v))\"")
            case (let v?, nil): lines.append("    \(what) translation removed (was \"\(e(v))\")")
            default:
                if let words = t.words {
                    lines.append("    \(what): \(e(words.marked))")
                } else {
                    lines.append("    \(what): \"\(e(t.old ?? ""))\" → \"\(e(t.new ?? ""))\"")
                }
            }
        }
        return lines
    }

    static func assetLine(_ a: PackageDiff.AssetChange) -> String {
        let e = TerminalText.escaped
        let inLanguage = a.language.map { " (\(e(LanguageTag.describe($0))))" } ?? ""
        switch a.kind {
        case .added: return "file \(e(a.file))\(inLanguage) added (\(bytes(a.newSize ?? 0)))"
        case .removed: return "file \(e(a.file))\(inLanguage) removed (was \(bytes(a.oldSize ?? 0)))"
        case .changed:
            return
                "file \(e(a.file)) replaced: \(bytes(a.oldSize ?? 0)) → \(bytes(a.newSize ?? 0)), SHA-256 \(a.oldSHA256?.prefix(12) ?? "")… → \(a.newSHA256?.prefix(12) ?? "")…"
        case .retitled: return "file \(e(a.file)) retitled: \"\(e(a.oldTitle ?? ""))\" → \"\(e(a.newTitle ?? ""))\""
        }
    }

    static func routeLine(_ r: PackageDiff.RouteChange) -> String {
        func km(_ m: Double?) -> String { m.map { String(format: "%.1f km", $0 / 1000) } ?? "?" }
        var line: String
        switch r.kind {
        case .added: line = "+ Route added: \(km(r.newLengthMetres))"
        case .removed: line = "- Route removed (it was \(km(r.oldLengthMetres)))"
        case .changed:
            line = "~ Route: \(km(r.oldLengthMetres)) → \(km(r.newLengthMetres))"
            if let moved = r.movedMetres {
                line +=
                    ", moved up to \(distance(moved))"
                    + (r.movedAtMetres.map { " around km \(String(format: "%.1f", $0 / 1000))" } ?? "")
            } else if r.oldStages == nil {
                line += " (the line moved by less than a metre)"
            }
        }
        if let a = r.oldAscentMetres, let b = r.newAscentMetres, r.kind == .changed, abs(a - b) >= 1 {
            line += String(format: "; climb %.0f m → %.0f m", a, b)
        }
        if let stages = r.newStages, r.kind != .removed {
            line += "; stages: " + stages.map { "\"\(TerminalText.escaped($0))\"" }.joined(separator: ", ")
        } else if r.oldStages != nil, r.kind == .changed {
            line += "; stages removed"
        }
        return line
    }

    static func point(_ p: PackageDiff.Point?) -> String {
        guard let p else { return "?" }
        return String(format: "%.5f, %.5f", p.latitude, p.longitude)
    }

    static func frame(_ f: PackageDiff.Frame) -> String { "\(point(f.southwest)) to \(point(f.northeast))" }

    static func distance(_ metres: Double) -> String {
        metres >= 1000 ? String(format: "%.2f km", metres / 1000) : String(format: "%.0f m", metres)
    }

    static func bytes(_ n: Int64) -> String {
        n >= 1 << 20
            ? String(format: "%.1f MB", Double(n) / 1_048_576)
            : n >= 1024 ? String(format: "%.1f KB", Double(n) / 1024) : "\(n) bytes"
    }

    static func signedBytes(_ n: Int64) -> String { (n >= 0 ? "+" : "−") + bytes(abs(n)) }
}
